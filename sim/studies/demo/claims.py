"""Claims of the demo study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.demo.scenario import (  # noqa: F401
    claim_mean_close,
    claim_no_errors,
)
