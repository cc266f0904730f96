"""Claims of the darling study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.darling.scenario import (  # noqa: F401
    claim_latency_le_lmax,
    claim_kept_ge_baselines,
    claim_latency_lowest,
    claim_aux_memory,
    claim_overload_flat,
    claim_nodrop_overhead,
    claim_seed_spread,
    claim_darling_vs_random_input,
)
