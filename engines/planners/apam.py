"""APAM plan optimizer (CIKM'16 section 4): candidate plans, M/G/1 cost model, warm-up statistics.

*Statistics* (``estimate_statistics``) come from the first ``warmup`` events of the stream:
per variable the fraction of events that qualify for it (its type and unary predicates) and the
expected number of them inside one window (the paper's ``λ_E × W``); per pair of variables the
number ``NP`` and joint selectivity ``SP`` of the parameterized predicates between them (random
pairs of qualifying events), and the sequence selectivity ``ISP`` (fraction of pairs inside one
window that are in query order, ≈ 0.5).

*Candidate plans* (``candidate_plans``): the optimal matching order is found by the paper's
heuristic, "more selective matching earlier": start with the pair of variables joined by the
most selective predicates (kept in query order when tied), then repeatedly add the variable with
the most selective predicates towards those already chosen.  The l+1 candidates split that order
after its first k variables (k = 0 all-lazy ... k = l all-eager); the EEG is evaluated in query
order, the LEG joined in the optimal order.

*Cost model* (``predict``; the statistics type, unit costs and queueing formulas it shares with
``engines.planners.apam_x`` live in ``engines.planners.apam_model``), Eqs. (2)–(9): ``E[L] = E[QWT] + E[ST_FE]``;
``E[QWT] = ρ/(2μ(1-ρ)) (1 + c_ST²)`` for ρ < 1 and infinite otherwise; ``μ = 1/E[ST]`` with
``E[ST] = Σ λ_E/λ E[ST_E]``; σ_ST by Eq. (5) exactly as printed (a sum of square roots; pass
``sigma="exact"`` for the usual standard deviation); eager service by Eq. (6), lazy by Eq. (7),
the final event by Eq. (8) with the merge ``T_M`` as the sum of Eq. (9) over the left-deep
joins.  Two readings are ours, both matching what ``engines.evaluators.hybrid`` does: at a merge the final
variable contributes only the current final event (cardinality 1, all other events precede it),
and a join evaluates the sequence predicates with the nearest bound neighbours only (1 or 2).
Eq. (9) prices the two kinds of join condition apart, with the same two unit costs the
simulator applies to the hybrid engine's counters: ``NP_{Ei,Ej}`` parameterized predicates at
``t_pe`` (counter ``pred_eval``) and ``NP_{Ei;Ej}`` sequence predicates at ``t_seq`` (counter
``join_probe``).  ``t_seq`` defaults to ``t_pe``, which is Eq. (9) as printed (every join
condition costs T_PE); a smaller ``t_seq`` models a sequence check cheaper than a parameterized
predicate (e.g. a position comparison vs an attribute fetch and comparison).
Every event also pays ``base`` (the cost profile's per-event overhead; not in the paper).
Selection: the minimum ``E[L]``; when every candidate has ρ ≥ 1 the one with the largest μ.

Unit costs arrive as floats (``t_pe``, ``t_rc``, ``t_bi``, ``base`` and optionally ``t_seq``,
seconds) so ``engines/`` never imports ``sim/``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from engines.compile import PI_V1, PI_V2, WIN_COUNT, Program
from engines.errors import CepsimInputError
from engines.planners.apam_model import (DEFAULT_UNIT_COSTS, Stats,  # noqa: F401 (re-exported)
                                         plan_text, queue_metrics, seq_unit_cost)
from engines.predicates import eval_pred



@njit(cache=True)
def _pairs_pass(pred_i, pred_f, pids, first_is_u, attrs, xs, ys):
    hits = 0
    for r in range(xs.shape[0]):
        ok = True
        for q in range(pids.shape[0]):
            p = pids[q]
            if first_is_u[q]:
                res = eval_pred(pred_i, pred_f, p, attrs, xs[r], ys[r])
            else:
                res = eval_pred(pred_i, pred_f, p, attrs, ys[r], xs[r])
            if not res:
                ok = False
                break
        if ok:
            hits += 1
    return hits


@njit(cache=True)
def _own_pass(pred_i, pred_f, pids, t_is_first, attrs, ts_, us):
    """Per event of ``ts_``: the fraction of ``us`` that pass every predicate of ``pids`` with it
    (``t_is_first[q]``: the t event is the predicate's first operand's variable)."""
    out = np.zeros(ts_.shape[0])
    for i in range(ts_.shape[0]):
        hits = 0
        for r in range(us.shape[0]):
            ok = True
            for q in range(pids.shape[0]):
                if t_is_first[q]:
                    res = eval_pred(pred_i, pred_f, pids[q], attrs, ts_[i], us[r])
                else:
                    res = eval_pred(pred_i, pred_f, pids[q], attrs, us[r], ts_[i])
                if not res:
                    ok = False
                    break
            if ok:
                hits += 1
        out[i] = hits / us.shape[0]
    return out


@njit(cache=True)
def _unary_mask(pred_i, pred_f, pids, attrs, cand):
    out = np.zeros(cand.shape[0], dtype=np.bool_)
    for r in range(cand.shape[0]):
        ok = True
        for q in range(pids.shape[0]):
            if not eval_pred(pred_i, pred_f, pids[q], attrs, cand[r], cand[r]):
                ok = False
                break
        out[r] = ok
    return out


def estimate_statistics(program: Program, stream, warmup: int | None = None,
                        arrival_rate: float | None = None, n_pairs: int = 200_000,
                        seed: int = 0, n_own: int = 2000, n_own_partners: int = 1000) -> Stats:
    """Statistics of the first ``warmup`` events (default: half the stream, at least 1)."""
    n = len(stream)
    w = n // 2 if warmup is None else int(warmup)
    if not 1 <= w <= n:
        raise CepsimInputError(f"apam planner: warmup must be between 1 and the stream length "
                               f"{n}, got {warmup}")
    branch = program.branches[0]
    slots = [int(v) for v in branch.pos_vars]
    L = len(slots)
    slot_of = {v: s for s, v in enumerate(slots)}
    types = stream.types[:w]
    attrs = stream.attrs
    unary: list[list[int]] = [[] for _ in range(L)]
    binary: dict[tuple[int, int], list[tuple[int, bool]]] = {}
    for p in branch.pred_ids:
        v1, v2 = int(program.pred_i[p, PI_V1]), int(program.pred_i[p, PI_V2])
        if v2 < 0 or v2 == v1:
            unary[slot_of[v1]].append(int(p))
        else:
            a, b = slot_of[v1], slot_of[v2]
            u, v = min(a, b), max(a, b)
            binary.setdefault((u, v), []).append((int(p), a == u))
    qual = []
    for s, v in enumerate(slots):
        cand = np.flatnonzero(types == program.var_type[v]).astype(np.int64)
        if unary[s]:
            cand = cand[_unary_mask(program.pred_i, program.pred_f,
                                    np.array(unary[s], dtype=np.int32), attrs, cand)]
        qual.append(cand)
    frac = np.array([len(q) / w for q in qual])
    # events per window
    if program.window_kind == WIN_COUNT:
        win_events = float(program.window)
    else:
        span = float(stream.ts[w - 1] - stream.ts[0]) if w > 1 else 0.0
        if math.isinf(program.window):
            win_events = float(w)
        elif span <= 0:
            win_events = float(w)
        else:
            win_events = min(float(w), (w - 1) / span * float(program.window) + 1.0)
    nw = frac * win_events
    rng = np.random.default_rng(seed)
    np_ = np.zeros((L, L), dtype=np.int64)
    sp = np.ones((L, L))
    isp = np.full((L, L), 0.5)
    for (u, v), plist in binary.items():
        np_[u, v] = np_[v, u] = len(plist)
        if len(qual[u]) == 0 or len(qual[v]) == 0:
            sp[u, v] = sp[v, u] = 0.0
            continue
        xs = qual[u][rng.integers(0, len(qual[u]), n_pairs)]
        ys = qual[v][rng.integers(0, len(qual[v]), n_pairs)]
        hits = _pairs_pass(program.pred_i, program.pred_f,
                           np.array([p for p, _ in plist], dtype=np.int32),
                           np.array([f for _, f in plist], dtype=np.bool_), attrs, xs, ys)
        sp[u, v] = sp[v, u] = hits / n_pairs
    # sequence selectivity: pairs inside one window around a sampled u event
    key = np.arange(n, dtype=np.float64) if program.window_kind == WIN_COUNT else stream.ts
    half = float(program.window) - (1 if program.window_kind == WIN_COUNT else 0)
    for u in range(L):
        for v in range(u + 1, L):
            if len(qual[u]) == 0 or len(qual[v]) == 0:
                continue
            xs = qual[u][rng.integers(0, len(qual[u]), 4000)]
            kv = key[qual[v]]
            lo = np.searchsorted(kv, key[xs] - half, "left")
            hi = np.searchsorted(kv, key[xs] + half, "right")
            ok = hi > lo
            if not ok.any():
                continue
            pick = lo[ok] + (rng.random(ok.sum()) * (hi[ok] - lo[ok])).astype(np.int64)
            isp[u, v] = float(np.mean(qual[v][pick] > xs[ok]))
            isp[v, u] = isp[u, v]
    # per-event selectivities (apam-x: events of one variable differ in how many partners they
    # pass, e.g. a large attribute passes '<' with most partners; true final events are those)
    own_sel: dict = {}
    for t in range(L):
        partners = [u for u in range(L) if u != t and np_[t, u] > 0 and len(qual[u])]
        if not partners or not len(qual[t]):
            continue
        ts_ = qual[t][rng.integers(0, len(qual[t]), n_own)]
        for u in partners:
            plist = binary[(min(t, u), max(t, u))]
            us = qual[u][rng.integers(0, len(qual[u]), n_own_partners)]
            pids = np.array([p for p, _ in plist], dtype=np.int32)
            first = np.array([f == (t == min(t, u)) for _, f in plist], dtype=np.bool_)
            own_sel[(t, u)] = _own_pass(program.pred_i, program.pred_f, pids, first, attrs,
                                        ts_, us)
    if arrival_rate is None:
        span = float(stream.ts[w - 1] - stream.ts[0]) if w > 1 else 0.0
        if span <= 0:
            raise CepsimInputError("apam planner: the warm-up timestamps span no time, so the "
                                   "arrival rate cannot be estimated; pass arrival_rate=")
        arrival_rate = (w - 1) / span
    return Stats(names=[program.var_names[v] for v in slots], frac=frac, nw=nw, np_=np_,
                 n_unary=np.array([len(x) for x in unary]), sp=sp, isp=isp,
                 rate=float(arrival_rate), n_warmup=w, win_events=float(win_events),
                 own_sel=own_sel)


# ----------------------------------------------------------------------------- plans
def optimal_order(st: Stats) -> list[int]:
    """The paper's heuristic matching order (most selective matching first), as slots."""
    L = len(st.names)
    if L == 1:
        return [0]
    best = None
    for u in range(L):
        for v in range(u + 1, L):
            key = (st.sp[u, v], u, v)
            if best is None or key < best:
                best = key
    order = [best[1], best[2]]
    while len(order) < L:
        cands = []
        for x in range(L):
            if x in order:
                continue
            sel = float(np.prod([st.sp[x, o] for o in order]))
            cands.append((sel, x))
        order.append(min(cands)[1])
    return order


def candidate_plans(st: Stats) -> list[tuple[list[int], list[int]]]:
    """The l+1 candidates ``(EEG slots in query order, LEG slots in join order)``, k = 0..l."""
    order = optimal_order(st)
    return [(sorted(order[:k]), order[k:]) for k in range(len(order) + 1)]


# ----------------------------------------------------------------------------- cost model
def _card(st: Stats, S, final: int | None) -> float:
    """|PI_S| (paper Table 1); the final slot, when given, counts once and precedes nothing."""
    S = sorted(S)
    c = 1.0
    for s in S:
        c *= 1.0 if s == final else st.nw[s]
    for i, u in enumerate(S):
        for v in S[i + 1:]:
            c *= st.sp[u, v] * (1.0 if v == final else st.isp[u, v])
    return c


MERGE_ORDERS = ("final-first", "plan")


def merge_sequence(leg, final: int, merge_order: str = "final-first") -> list[int]:
    """The order the literal optimizer joins the LEG onto the EERB.

    ``"final-first"`` (default): the final event's deferred buffer joins the EERB first, then
    the rest of the LEG in the plan's order -- the paper's section 5, Example 1 (plan BC/AD of
    A;B;C;D, join order ``((EERB_BC ⋈ DEB_D) ⋈ DEB_A)``, "the most selective join operation is
    performed first"; apam_cikm16.md line 178).  ``"plan"``: the LEG in the plan's (matching)
    order, kept as a named variant."""
    if merge_order not in MERGE_ORDERS:
        raise CepsimInputError(f"apam planner: merge_order must be one of {MERGE_ORDERS}, got "
                               f"{merge_order!r}")
    rest = list(leg)
    if merge_order == "final-first" and final in rest:
        rest.remove(final)
        rest.insert(0, final)
    return rest


def predict(st: Stats, eeg, leg, costs: dict, sigma: str = "paper",
            merge_order: str = "final-first") -> dict:
    """Predicted μ, ρ, E[ST], E[QWT], E[ST_FE], E[L] of plan (EEG, LEG) (module docstring).

    With an EERB the merge is priced in ``merge_order`` (``merge_sequence``); the all-lazy plan
    has no EERB and is priced in its LEG order."""
    t_pe, t_rc, t_bi, base = (float(costs[k]) for k in ("t_pe", "t_rc", "t_bi", "base"))
    t_seq = seq_unit_cost(costs)
    L = len(st.names)
    final = L - 1
    st_v = np.zeros(L)
    for i, s in enumerate(eeg):                       # Eq. (6)
        prefix = eeg[:i]
        pi = _card(st, prefix, None) if prefix else 1.0
        npe = sum(int(st.np_[s, j]) for j in prefix)
        sel = float(np.prod([st.sp[s, j] for j in prefix])) if prefix else 1.0
        st_v[s] = pi * npe * t_pe + pi * sel * t_rc + st.n_unary[s] * t_pe
    for s in leg:                                     # Eq. (7)
        st_v[s] = t_bi + st.n_unary[s] * t_pe
    # merge, Eq. (9) summed over the left-deep joins
    t_m = 0.0
    if leg:
        if eeg:
            X = list(eeg)
            rest = merge_sequence(leg, final, merge_order)
        else:
            X = [leg[0]]
            rest = list(leg[1:])
        size = _card(st, X, final)
        for y in rest:
            ny = 1.0 if y == final else st.nw[y]
            npar = sum(int(st.np_[y, u]) for u in X)
            nseq = int(any(u < y for u in X)) + int(any(u > y for u in X))
            sel = float(np.prod([st.sp[y, u] for u in X]))
            seq = float(np.prod([1.0 if final in (u, y) else st.isp[min(u, y), max(u, y)]
                                 for u in X]))
            pairs = size * ny
            t_m += pairs * (npar * t_pe + nseq * t_seq) + pairs * sel * seq * t_rc
            size = pairs * sel * seq
            X.append(y)
    st_fe = st_v[final] + t_m                          # Eq. (8)
    st_v[final] = st_fe
    q = queue_metrics(st, st_v + base, base, sigma)
    return {"plan": plan_text(st, eeg, leg), "k": len(eeg), **q, "e_st_fe": st_fe + base,
            "e_l": q["e_qwt"] + st_fe + base, "t_m": t_m}


def select(preds: list[dict]) -> int:
    """Index of the plan with the lowest E[L]; if all are infinite, the largest μ."""
    finite = [i for i, p in enumerate(preds) if math.isfinite(p["e_l"])]
    if finite:
        return min(finite, key=lambda i: (preds[i]["e_l"], -preds[i]["k"]))
    return max(range(len(preds)), key=lambda i: (preds[i]["mu"], preds[i]["k"]))


OPTIMIZERS = ("apam", "apam-x", "apam-x-mean")


def evaluate_candidates(st: Stats, costs: dict | None = None, sigma: str = "paper",
                        optimizer: str = "apam", merge_order: str = "final-first") -> dict:
    """Predictions of every candidate and the selected one (JSON-friendly dict).

    ``optimizer="apam"``: Eqs. (2)-(9) as printed (``predict``; ``merge_order`` as
    ``merge_sequence``); ``"apam-x"``: the executed work of the tree evaluator
    (``engines.planners.apam_x.predict_x``, per-event spread); ``"apam-x-mean"``: the same
    with per-variable means only (its first reading, kept as a named variant)."""
    if optimizer not in OPTIMIZERS:
        raise CepsimInputError(f"apam planner: optimizer must be one of {OPTIMIZERS}, got "
                               f"{optimizer!r}")
    costs = {**DEFAULT_UNIT_COSTS, **(costs or {})}
    unknown = set(costs) - set(DEFAULT_UNIT_COSTS)
    if unknown:
        raise CepsimInputError(f"apam planner: unknown unit cost(s) {sorted(unknown)}; give "
                               f"{sorted(DEFAULT_UNIT_COSTS)} in seconds")
    costs["t_seq"] = seq_unit_cost(costs)
    if costs["t_seq"] < 0:
        raise CepsimInputError(f"apam planner: t_seq (sequence-check unit cost) must be >= 0 "
                               f"seconds, got {costs['t_seq']}")
    cands = candidate_plans(st)
    if optimizer == "apam":
        preds = [predict(st, e, l, costs, sigma, merge_order) for e, l in cands]
    else:
        from engines.planners.apam_x import predict_x

        spread = "means" if optimizer == "apam-x-mean" else "events"
        preds = [predict_x(st, e, l, costs, spread=spread) for e, l in cands]
    sel = select(preds)
    return {"plan": preds[sel]["plan"], "selected_k": preds[sel]["k"],
            "optimal_order": [st.names[s] for s in optimal_order(st)],
            "candidates": preds, "predicted": preds[sel], "arrival_rate": st.rate,
            "unit_costs": costs, "optimizer": optimizer}


def choose_plan(program: Program, stream, warmup: int | None = None,
                arrival_rate: float | None = None, unit_costs: dict | None = None,
                sigma: str = "paper", optimizer: str = "apam") -> dict:
    """Estimate statistics from the warm-up and pick the plan (see ``evaluate_candidates``).
    The replay optimizer ``apam-r`` runs the candidates first
    (``engines.planners.apam_r.choose_plan_r``; ``run_hybrid(optimizer="apam-r")``)."""
    st = estimate_statistics(program, stream, warmup=warmup, arrival_rate=arrival_rate)
    return evaluate_candidates(st, unit_costs, sigma, optimizer)
