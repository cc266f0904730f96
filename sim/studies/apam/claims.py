"""Claims of the apam study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.apam.scenario import (  # noqa: F401
    claim_apam_vs_baselines,
    claim_selects_eager_everywhere,
    claim_eager_at_rate,
    claim_selected_vs_best,
    claim_optimal_order_at_rate,
    claim_ratio,
    claim_spearman,
    claim_workload,
    claim_seqcost_pattern,
    claim_seqcost_apam_vs_baselines,
    claim_cost_sensitivity,
    claim_cost_region,
    claim_cost_target,
    claim_prediction_error,
)
