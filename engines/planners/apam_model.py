"""APAM's shared model (CIKM'16 section 4): warm-up statistics, unit costs, M/G/1 queueing.

Both optimizers price plans with it: the literal one (``engines.planners.apam.predict``, Eqs.
(2)-(9) as printed) and the executed-work one (``engines.planners.apam_x.predict_x``).
``Stats`` holds the warm-up statistics (``engines.planners.apam.estimate_statistics``),
``queue_metrics`` Eqs. (3)-(5) from per-variable service times, ``seq_unit_cost`` the unit
cost of one sequence-predicate check and ``plan_text`` a plan's ``"EEG/LEG"`` name.  Unit costs
arrive as floats (seconds) so ``engines/`` never imports ``sim/``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engines.errors import CepsimInputError

# t_seq None = t_pe (Eq. 9 as printed: a sequence predicate costs one predicate evaluation)
DEFAULT_UNIT_COSTS = {"t_pe": 5.0e-8, "t_rc": 5.0e-7, "t_bi": 5.0e-8, "base": 1.0e-5,
                      "t_seq": None}


def seq_unit_cost(costs: dict) -> float:
    """The unit cost of one sequence-predicate check: ``t_seq``, or ``t_pe`` when absent/None."""
    v = costs.get("t_seq")
    return float(costs["t_pe"]) if v is None else float(v)


@dataclass
class Stats:
    """Warm-up statistics over the branch's slots (variables in query order)."""

    names: list[str]
    frac: np.ndarray      # float[L] fraction of events qualifying for each variable
    nw: np.ndarray        # float[L] expected qualifying events inside one window (λ_E × W)
    np_: np.ndarray       # int[L, L] parameterized predicates between two variables
    n_unary: np.ndarray   # int[L] unary predicates per variable
    sp: np.ndarray        # float[L, L] joint selectivity of those predicates (1 when none)
    isp: np.ndarray       # float[L, L] P(event of u before event of v) for u < v, in a window
    rate: float           # arrival rate λ (events/s) used by the queueing model
    n_warmup: int
    win_events: float = math.nan   # events inside one window (W for a count window); apam-x
    # apam-x: per-event selectivities own_sel[(t, u)][i] = P(sampled event i of slot t passes
    # the predicates with a random event of slot u), the same sample of t events for every u
    own_sel: dict | None = None


def plan_text(st: Stats, eeg, leg) -> str:
    """``"EEG/LEG"``: the plan's eager and lazy variables by name."""
    return ",".join(st.names[s] for s in eeg) + "/" + ",".join(st.names[s] for s in leg)


def queue_metrics(st: Stats, svc: np.ndarray, base: float, sigma: str = "paper") -> dict:
    """μ, ρ, E[ST], σ_ST and E[QWT] (Eqs. 3-5) from the per-variable service times ``svc``
    (events of no variable cost ``base``).  ``sigma="paper"``: Eq. (5) as printed (a sum of
    square roots); ``"exact"``: the usual standard deviation."""
    if sigma not in ("paper", "exact"):
        raise CepsimInputError(f"apam planner: sigma must be 'paper' or 'exact', got {sigma!r}")
    p = st.frac
    other = max(0.0, 1.0 - float(p.sum()))
    e_st = float(np.dot(p, svc) + other * base)        # Eq. (4)
    if sigma == "paper":                               # Eq. (5) as printed
        sd = float(np.sum(np.sqrt(p * (svc - e_st) ** 2)))
    else:
        sd = math.sqrt(float(np.dot(p, (svc - e_st) ** 2) + other * (base - e_st) ** 2))
    mu = 1.0 / e_st if e_st > 0 else math.inf
    rho = st.rate / mu
    c2 = (mu * sd) ** 2
    if rho < 1:
        qwt = rho / (2 * mu * (1 - rho)) * (1 + c2)    # Eq. (3)
    else:
        qwt = math.inf
    return {"mu": mu, "rho": rho, "e_st": e_st, "sigma_st": sd, "e_qwt": qwt}
