"""Claims of the cross study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.cross.scenario import (  # noqa: F401
    claim_same_matches,
    claim_own_winner_near_best,
)
