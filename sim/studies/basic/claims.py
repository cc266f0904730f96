"""Claims of the basic study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.basic.scenario import (  # noqa: F401
    claim_mg1_within,
)
