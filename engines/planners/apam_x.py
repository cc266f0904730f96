"""APAM-X: the APAM plan optimizer priced on the work the tree evaluator executes.

The literal optimizer (``engines.planners.apam.predict``) keeps Eqs. (2)-(9) as printed.  This
model keeps the paper's queueing part (Eqs. 2-5, ``queue_metrics``) and replaces the service
times of Eqs. (6)-(9) by the expected counts of what ``engines.evaluators.hybrid`` (the
left-deep ``ztree`` plan ``EEG (query order) + LEG``, batch trigger) does, per stream position:

* **in-order pairs with the exact ordering probability.**  A join node binds the slots
  ``X ∪ {y}`` (m = |X|).  The tree evaluator finds partners by binary search in the
  position-sorted buffers, so it only forms combinations whose events are in query order; the
  number of such (m+1)-event combinations whose newest event sits at a given position and whose
  span fits a count window of W events is ``Π_s f_s × C(W-1-d, m)`` (choose the other m
  positions among the W-1-d before it; their query order fixes which event binds which slot),
  times the selectivity of X's own predicates.  Per window this is ``Π nw_s / (m+1)!`` -- the
  exact ordering probability 1/(m+1)!, where Table 1's ``ISP = 0.5`` per pair gives
  ``0.5^C(m+1,2)`` (1/1024 instead of 1/120 for five events).
* **the merge measured from the final event.**  Lazy nodes join when a final event arrives
  (the trigger), replaying the waiting events in stream order with the window measured to the
  trigger (``ztree`` docstring, "Trigger modes"): a combination whose newest event is not of the
  final type waits ``d >= 1`` positions for the next final event (geometric in the final type's
  share ``f_F``), and its window shrinks to ``W-1-d``; ``d = 0`` on eager nodes and when the
  newest event is the final one.
* **materialized joins priced once per result.**  Results of internal nodes are kept across
  final events (ZStream), so every count above is a rate per stream position, not a cross
  product per final event; a lazy node's work is charged to the final events (the trigger pays
  for its batch), an eager node's to its newest variable's events.
* **completing vs non-completing final events.**  Latency is measured on true final events
  (Eq. 1); a true final event pays the result constructions of its own matches, ``E[M | M >= 1]
  = E[M] / P(M >= 1)`` with ``P(M >= 1) = 1 - exp(-E[M])`` (Poisson; the shift reading's
  unmatchable events make the real count over-dispersed, so this is a lower bound there).

Prices (the unit costs the simulator applies to the counters, ``sim.studies.apam.scenario.profile_for``):
``T_PE`` per parameterized predicate evaluated on an in-window pair (``pred_eval``; short-
circuit over the pairs of variables, in slot order), ``T_SEQ`` per binary-search comparison
(``search_cmp``; ``log2(1 + buffer)`` per search, one search per new result when the new side
is the later one, two when it has a neighbour on each side), ``T_RC`` per stored result or
match (``pm_created``, ``match_emit``), ``T_BI`` per event stored in its leaf (every qualifying
event, eager ones too), ``base`` per event.

Join probes (``join_probe``, unpriced): where the stored side precedes the new one the binary
search bounds the stored results by their *last* event, so results whose first event already
left the window are probed and then fail the window check until compaction drops them; the
executed probes lie between the in-window pairs (``pairs``) and ``probes_hi``, which counts
every stored result whose last event is inside the window.  Elsewhere probes = in-window pairs.

Approximations (stated): independent predicates (the section 6.1 query compares a different
attribute per pair); a pair of variables with several predicates is charged all of them when
reached; the steady state (the first window of the stream is not special-cased); a time window
is treated as a count window of ``Stats.win_events`` events.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from engines.errors import CepsimInputError
from engines.planners.apam_model import Stats, plan_text, queue_metrics, seq_unit_cost


def _comb(n: np.ndarray | float, k: int) -> np.ndarray:
    """C(n, k) for real n >= 0 (0 where n < k)."""
    n = np.asarray(n, dtype=float)
    out = np.zeros_like(n)
    ok = n >= k
    out[ok] = np.exp(gammaln(n[ok] + 1) - gammaln(k + 1) - gammaln(n[ok] - k + 1))
    return out


def _window_comb(W: float, m: int, f_final: float, lazy_wait: bool) -> float:
    """E[C(W-1-d, m)]: d = 0, or (``lazy_wait``) geometric on {1, 2, ...} with success
    probability ``f_final`` (positions until the next final event triggers the replay)."""
    if not lazy_wait:
        return float(_comb(W - 1.0, m))
    if f_final <= 0:
        return 0.0
    d = np.arange(1, int(max(W, 1)) + 1, dtype=float)
    pd = f_final * (1.0 - f_final) ** (d - 1)
    return float(np.dot(pd, _comb(W - 1.0 - d, m)))


def _sel(st: Stats, S) -> float:
    S = sorted(S)
    return float(np.prod([st.sp[u, v] for i, u in enumerate(S) for v in S[i + 1:]])) if S else 1.0


def _pred_evals(st: Stats, X, y) -> tuple[float, float]:
    """(expected predicates evaluated per in-window pair, joint selectivity) of joining y to X:
    pairs of variables in slot order, stopping at the first that fails."""
    ev, reach = 0.0, 1.0
    for u in sorted(X):
        npq = int(st.np_[u, y])
        if npq == 0:
            continue
        ev += reach * npq
        reach *= float(st.sp[u, y])
    return ev, reach


def node_rates(st: Stats, eeg, leg) -> list[dict]:
    """Expected executed work per stream position at every join node of plan (EEG, LEG).

    One dict per left-deep join (X ⋈ y): ``lazy``, ``charged_to`` (the slot whose events pay),
    ``pairs`` (in-window in-order pairs), ``probes_hi`` (upper bound of ``join_probe``),
    ``pred_eval``, ``results`` (stored results, or matches at the root), ``search_cmp``,
    ``root``."""
    L = len(st.names)
    final = L - 1
    order = list(eeg) + list(leg)
    W = float(st.win_events)
    f = np.asarray(st.frac, dtype=float)
    fF = float(f[final])
    eager = set(eeg)
    out = []
    for j in range(1, L):
        X, y = order[:j], order[j]
        m = len(X)
        lazy = not (set(X) <= eager and y in eager)
        newest = max(max(X), y)
        wait = lazy and newest != final
        pf = float(np.prod(f[X])) * f[y]
        sel_x = _sel(st, X)
        pairs = pf * sel_x * _window_comb(W, m, fF, wait)
        pe_per, sel_y = _pred_evals(st, X, y)
        root = j == L - 1
        if y > max(X):       # the new side is y; the stored X results are bounded by their last
            stored = float(np.prod(f[X])) * sel_x * float(_comb(W - 1.0, m - 1))
            # stored X results with last in the window: (W-1-d) positions; E over d
            if wait and fF > 0:
                d = np.arange(1, int(max(W, 1)) + 1, dtype=float)
                span = float(np.dot(fF * (1.0 - fF) ** (d - 1), np.maximum(W - 1.0 - d, 0.0)))
            else:
                span = W - 1.0
            probes_hi = f[y] * span * stored
            searches, buf, n_search = f[y], span * stored, 1
        else:                # the new side is an X result; the stored y events are bounded exactly
            probes_hi = pairs
            new_x = float(np.prod(f[X])) * sel_x * _window_comb(W, m - 1, fF, wait)
            searches, buf = new_x, f[y] * (W - 1.0)
            n_search = 1 if y < min(X) else 2
        search = searches * n_search * math.log2(1.0 + buf) if buf > 0 else 0.0
        out.append({"X": list(X), "y": y, "lazy": lazy, "root": root,
                    "charged_to": final if lazy else newest, "pairs": pairs,
                    "probes_hi": probes_hi, "pred_eval": pairs * pe_per,
                    "results": pairs * sel_y, "search_cmp": search})
    return out


def _scale(st: Stats, t: int, S, n: int) -> np.ndarray:
    """Per sampled event of slot t: Π over t's predicate partners u in S of s_t(u) / mean(s_t(u))
    (how much more than average a combination containing this event survives; normalized by
    the sample mean so that the mean work stays the one priced with SP); ones when t is not in
    S or no sample exists."""
    out = np.ones(n)
    if t not in S or not st.own_sel:
        return out
    for u in S:
        v = st.own_sel.get((t, u))
        if u == t or v is None or float(np.mean(v)) <= 0:
            continue
        out = out * (v / float(np.mean(v)))    # the sample's shape, the mean kept at SP
    return out


SPREADS = ("events", "means")


def predict_x(st: Stats, eeg, leg, costs: dict, sigma: str = "exact",
              spread: str = "events") -> dict:
    """Predicted μ, ρ, E[ST], E[QWT], E[ST_TFE], E[L] of plan (EEG, LEG) from executed work.

    Same keys as ``engines.planners.apam.predict`` (``e_st_fe`` is the service time of a
    *true* final event), plus ``merge_pairs`` / ``merge_probes_hi`` / ``merge_pred_eval`` /
    ``merge_results`` (lazy nodes, per final event), ``e_matches`` (per final event) and
    ``p_true_final``.

    Events of one variable differ: an event's own selectivity towards its predicate partners
    (``Stats.own_sel``, a warm-up sample) scales the results of the nodes charged to it (and,
    for the final event, the pairs of the later nodes), so each sampled event has its own
    service time.  A final event completes a match with probability ``1 - exp(-E[M] r_e)``
    (``r_e`` its root scale); ``E[ST_TFE]`` weights the sampled final events by it (the
    completing final events are the ones with many partners).  The queueing delay uses the
    service time's full second moment (per-event spread included) with ``sigma="exact"``
    (default); ``"paper"`` keeps Eq. (5)'s spread of the per-variable means.

    ``spread="means"`` is the first reading (optimizer ``"apam-x-mean"``): every event of a
    variable costs the variable's mean, a final event completes with ``1 - exp(-E[M])`` and the
    spread is Eq. (5)'s over the per-variable means."""
    if spread not in SPREADS:
        raise CepsimInputError(f"apam-x: spread must be one of {SPREADS}, got {spread!r}")
    if spread == "means":
        from dataclasses import replace

        st = replace(st, own_sel={})
        sigma = "paper"
    t_pe, t_rc, t_bi, base = (float(costs[k]) for k in ("t_pe", "t_rc", "t_bi", "base"))
    t_seq = seq_unit_cost(costs)
    L = len(st.names)
    final = L - 1
    f = np.asarray(st.frac, dtype=float)
    nsamp = {t: next((len(v) for (a, _), v in (st.own_sel or {}).items() if a == t), 1)
             for t in range(L)}
    per_ev = [np.zeros(nsamp[t]) for t in range(L)]   # work per position, per sampled event
    merge = {"pairs": 0.0, "probes_hi": 0.0, "pred_eval": 0.0, "results": 0.0}
    lazy_cost = 0.0
    root_scale = np.ones(nsamp[final])
    e_m = 0.0
    for nd in node_rates(st, eeg, leg):
        t = nd["charged_to"]
        S_all = nd["X"] + [nd["y"]]
        res_sc = _scale(st, t, S_all, nsamp[t])
        pair_sc = _scale(st, t, nd["X"], nsamp[t]) if t in nd["X"] else np.ones(nsamp[t])
        c = (nd["pred_eval"] * pair_sc * t_pe + nd["search_cmp"] * t_seq
             + nd["results"] * res_sc * t_rc)
        per_ev[t] = per_ev[t] + c
        if nd["lazy"]:
            lazy_cost += float(c.mean())
            for k in merge:
                merge[k] += nd[k]
        if nd["root"]:
            e_m = nd["results"] / f[final] if f[final] > 0 else 0.0
            root_scale = res_sc
    fixed = t_bi + st.n_unary * t_pe + base
    svc_ev = [per_ev[t] / f[t] + fixed[t] if f[t] > 0 else np.full(nsamp[t], fixed[t])
              for t in range(L)]
    means = np.array([float(v.mean()) for v in svc_ev])
    q = queue_metrics(st, means, base, "paper" if sigma == "paper" else "exact")
    if sigma != "paper":          # the second moment with the per-event spread
        other = max(0.0, 1.0 - float(f.sum()))
        var = float(sum(f[t] * float(np.mean((svc_ev[t] - q["e_st"]) ** 2)) for t in range(L))
                    + other * (base - q["e_st"]) ** 2)
        q["sigma_st"] = math.sqrt(var)
        mu, rho = q["mu"], q["rho"]
        q["e_qwt"] = (rho / (2 * mu * (1 - rho)) * (1 + (mu * q["sigma_st"]) ** 2)
                      if rho < 1 else math.inf)
    p_true = -np.expm1(-e_m * root_scale) if e_m > 0 else np.zeros(nsamp[final])
    pt = float(p_true.mean())
    fin = svc_ev[final]
    if pt > 0:
        # the completing final event also constructs its matches: E[M | M >= 1] per event
        m_e = e_m * root_scale
        extra = np.where(p_true > 0, m_e / np.where(p_true > 0, p_true, 1.0) - m_e, 0.0) * t_rc
        st_tfe = float(np.dot(p_true, fin + extra) / p_true.sum())
    else:
        st_tfe = float(fin.mean())
    per_final = {f"merge_{k}": (v / f[final] if f[final] > 0 else 0.0) for k, v in merge.items()}
    t_m = lazy_cost / f[final] if f[final] > 0 else 0.0     # the merge per final event
    return {"plan": plan_text(st, eeg, leg), "k": len(eeg), **q, "e_st_fe": st_tfe,
            "e_l": q["e_qwt"] + st_tfe, "t_m": t_m, "e_matches": e_m, "p_true_final": pt,
            **per_final}
