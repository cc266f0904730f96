"""Claims of the adaptive study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.adaptive.scenario import (  # noqa: F401
    claim_headroom_report,
    claim_drift_report,
    claim_no_false_positive,
    claim_theorem2,
    claim_inv_best,
    claim_inv_over_thr,
    claim_thr_repl_near_uncond,
    claim_static_beats_uncond,
    claim_overhead,
    claim_zstream_gain_larger,
    claim_dopt_vs_d0,
    claim_davg_precision,
    claim_sensitivity_report,
    claim_calibrated_cost,
    claim_cost_sensitivity_report,
)
