"""Claims of the lazy_nfa study (functions ``claim(df, **args) -> ClaimResult``)."""
from sim.studies.lazy_nfa.scenario import (  # noqa: F401
    claim_matches_agree,
    claim_tree_vs_best_chain,
    claim_c_first_vs_eager,
    claim_convergence,
    claim_observation2,
    claim_eager_close,
    claim_peak_instances,
    claim_phase_tree_best,
    claim_dynamic_tree_best,
    claim_phase_gap,
    claim_calibrated_regime,
    claim_nasdaq_tree_is_cba,
    claim_tree_near_best_when_unselective,
)
