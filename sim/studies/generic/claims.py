"""Claims of the generic study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.generic.scenario import (  # noqa: F401
    claim_ratio,
    claim_same_matches,
    claim_all_stable,
)
