"""Claims of the eires study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.eires.scenario import (  # noqa: F401
    claim_hybrid_best,
    claim_pf_lz_below_baselines,
    claim_ratios,
    claim_min_ratio,
    claim_max_ratio,
    claim_cost_vs_lru,
    claim_grows_with,
    claim_monotone,
    claim_best_at,
    claim_ranking,
    claim_ratios_two_refs,
)
