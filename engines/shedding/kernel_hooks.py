"""Compiled shedder hooks for the compiled shedding queue (``sim.core.shedding_queue_kernel``).

The Python shedders (``Darling`` with or without utilities, ``RandomPM``, ``Spice``,
``Icde20``) define what each hook does; this module does exactly the same per-event work in
Numba, so that the queue's server loop runs without a Python call per event (a
DARLING point spends several microseconds per event in Python around a 1-2 us engine step).
Learning stays in Python: at the end of the warm-up the queue kernel returns, the Python
shedder's ``end_warmup`` computes its statistics, ``pack_learned`` copies its state into the
arrays below and the kernel resumes; at the end ``unpack`` writes the scalars its ``info()``
reports back.  ICDE'20's rare steps stay in Python too: the kernel counts served events and
returns on every 32nd for ``Icde20.sample`` (warm-up snapshots) or ``Icde20.trigger`` (latency
check, knapsack, partial-match drops); per arrival it only looks up the event's class.  Every float operation is the Python hook's,
in the same order (``np.dot`` prices, ``np.rint`` for Python's ``round``, the same Generator for
random draws), so results are bit for bit the Python loop's (``tests/test_shedding_kernel.py``).

State layout: per-shedder scalars in ``si`` (int64) and ``sf`` (float64), per-event arrays
``ev_a`` / ``ev_b`` (int64), per-type tables ``t_i`` (int64) / ``t_f`` (float64), DARLING's
bucket lists ``l_i`` (int64 rows: live count, start in ``pool``, length, consumed head,
capacity) over one ``pool``, eSPICE/hSPICE's open windows (ring of timestamps ``ev_f`` and
ranks ``ev_b``) and sorted utilities ``u_sorted`` / their weighted ``cdf``, and ``rep`` (the
replicated work charged).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.evaluators.stepper_kernel import ADM_NONE, ADM_STATE, ADM_TYPE, drop_rows, \
    pool_first_weights, live_rows
from engines.leaf_jit import leaf_njit
from engines.shedding.rates import recent_rate

# shedder kinds of the compiled queue
K_NONE, K_DARLING, K_RANDOM_PM, K_SPICE, K_ICDE20 = 0, 1, 2, 3, 4

# ---- RandomPM scalars
RP_ACTIVE, RP_DROPPED, RP_STOP_BOUND = 0, 1, 2
RP_BETA, RP_N_IN, RP_Z_BAR = 0, 1, 2
# ---- Spice scalars
SP_ACTIVE, SP_ON, SP_N_SERVED, SP_ON_EVENTS, SP_RANK_N, SP_NW, SP_CNT, SP_WSUM, SP_OPEN_HEAD, \
    SP_OPEN_TAIL, SP_IS_H, SP_REPLICATE, SP_STOP_BOUND = range(13)
SP_BETA, SP_N_IN, SP_Z_BAR, SP_WINDOW = 0, 1, 2, 3
# ---- Darling scalars and table columns
DA_ACTIVE, DA_ENTRIES, DA_PEAK_ENTRIES, DA_DROPS, DA_VICTIM_RANDOM, DA_CHECK_GLOBAL, DA_PSI, \
    DA_POOL_TOP, DA_POOL_USED = range(9)
DA_BETA, DA_N_IN = 0, 1
# ---- ICDE'20 scalars
IC_ACTIVE, IC_SHED_ANY, IC_N_SERVED, IC_EV_DROPPED, IC_DEPTH = range(5)
T_N_TERMS, T_OLDEST, T_ON, T_LOW = 0, 1, 2, 3          # t_i columns (DARLING)
T_IN_PATTERN = 0                                       # t_i column (eSPICE / hSPICE)
T_N_T, T_GAMMA = 0, 1                                  # t_f columns
L_CNT, L_START, L_LEN, L_HEAD, L_CAP = 0, 1, 2, 3, 4   # l_i columns
N_SI, N_SF = 16, 8

# queue slots the hooks read (``sim.core.shedding_queue_kernel``: ``qi``)
Q_HEAD, Q_TAIL, Q_LEN, Q_DROPPED = 1, 2, 3, 5

REPLICATED = np.array([C.EDGE_EVAL, C.PRED_EVAL, C.PM_CREATED, C.MATCH_EMIT], dtype=np.int64)


@leaf_njit
def queue_drop(i, qi, qstate, by_type, types):
    """``ShedQueue.drop`` on the compiled queue's arrays: event ``i`` leaves the queue (state 3)
    if it is queued."""
    if qstate[i] == 1:
        qstate[i] = 3
        qi[Q_LEN] -= 1
        by_type[types[i]] -= 1
        qi[Q_DROPPED] += 1


# ----------------------------------------------------------------------------- RandomPM
@njit(cache=True)
def random_pm_after_step(si, sf, qi, arr, S, a_first, pidx, poff, pn, free, cnt_first,
                         bnd_first, m, mark, live_row, live_state, live_first, rng, out):
    """``RandomPM.after_step``: fills ``out`` and returns True, or returns False for None.
    Its drops go through ``drop_rows``, which tags the rows it frees for the artifact's storage
    model (``engines.shedding.lazy_store``)."""
    if si[RP_ACTIVE] == 0:
        return False
    q_len = qi[Q_LEN]
    bound = sf[RP_BETA] * sf[RP_N_IN]
    if q_len < bound:
        return False
    lam = recent_rate(arr, qi[Q_TAIL] - 1)
    p = 1.0 - (1.0 / sf[RP_Z_BAR]) / lam      # random_pm.drop_probability, same operations
    if si[RP_STOP_BOUND] and q_len > 0:
        pb = 1.0 - bound / q_len
        if pb > p:
            p = pb
    if p <= 0:
        return False
    k = live_rows(S, a_first, pidx, poff, pn, m, live_row, live_state, live_first)
    out[:] = 0
    out[C.SHED_OP] += k
    if k:
        draws = rng.random(k)
        n_kill = 0
        for r in range(k):
            if draws[r] < p:
                mark[live_row[r]] = True
                n_kill += 1
        if n_kill:
            out[C.PM_REMOVED] = drop_rows(S, a_first, pidx, poff, pn, free, cnt_first,
                                           bnd_first, m, mark)
            for r in range(k):
                mark[live_row[r]] = False
        si[RP_DROPPED] += n_kill
    return True


# ----------------------------------------------------------------------------- Spice
@njit(cache=True)
def spice_before_step(i, si, sf, qi, arr, ts, types, in_pattern, rank, open_ts, open_rank,
                      el_type, pidx, poff, pn, a_first, cdf, u_sorted, adm, out):
    """``Spice.before_step`` (never a veto): returns True with ``out`` the row, False for None.
    ``adm`` = [mode, threshold] of the engine's admission check, updated in place."""
    w = sf[SP_WINDOW]
    t = ts[i]
    h = si[SP_OPEN_HEAD]
    tail = si[SP_OPEN_TAIL]
    while h < tail and t - open_ts[h] > w:
        h += 1
    si[SP_OPEN_HEAD] = h
    ty = types[i]
    if in_pattern[ty]:
        si[SP_RANK_N] += 1
        rank[i] = si[SP_RANK_N]
        open_ts[tail] = t
        open_rank[tail] = si[SP_RANK_N]
        tail += 1
        si[SP_OPEN_TAIL] = tail
        if si[SP_REPLICATE]:
            si[SP_NW] = tail - h
            cnt, wsum = pool_first_weights(ty, el_type, pidx, poff, pn, a_first, rank, open_rank[h])
            si[SP_CNT] = cnt
            si[SP_WSUM] = wsum
    if si[SP_ACTIVE] == 0:
        return False
    si[SP_N_SERVED] += 1
    if si[SP_N_SERVED] % 64 == 1:
        lam = recent_rate(arr, qi[Q_TAIL] - 1)
        mu = 1.0 / sf[SP_Z_BAR]
        over = qi[Q_LEN] >= sf[SP_BETA] * sf[SP_N_IN]
        if over and lam > mu:
            x = 1.0 - mu / lam
            k = np.searchsorted(cdf, x, side="left")
            adm[1] = np.inf if k >= u_sorted.shape[0] else np.nextafter(u_sorted[k], np.inf)
            adm[0] = ADM_STATE if si[SP_IS_H] else ADM_TYPE
            si[SP_ON] = 1
        elif over and si[SP_STOP_BOUND]:
            pass                        # over the bound, rate below capacity: keep the threshold
        elif si[SP_ON]:
            adm[0] = ADM_NONE
            adm[1] = 0.0
            si[SP_ON] = 0
    if si[SP_ON]:
        si[SP_ON_EVENTS] += 1
        if si[SP_IS_H] == 0:
            out[:] = 0
            out[C.DECISION_CHECK] = max(si[SP_OPEN_TAIL] - si[SP_OPEN_HEAD], 1)
            return True
    return False


@njit(cache=True)
def spice_after_step(si, row, rep, out):
    """``Spice.after_step``: the replicated per-window work of the step just made (True with
    ``out``), or False for None."""
    nw = si[SP_NW]
    if si[SP_REPLICATE] == 0 or nw <= 1:
        return False
    cnt = si[SP_CNT]
    wsum = si[SP_WSUM]
    out[:] = 0
    if cnt > 0 and wsum > cnt:
        f = wsum / cnt - 1.0
        for k in REPLICATED:
            if row[k]:
                out[k] = np.int64(np.rint(f * row[k]))
        if si[SP_IS_H] and row[C.DECISION_CHECK]:
            out[C.DECISION_CHECK] = np.int64(np.rint(f * row[C.DECISION_CHECK]))
    out[C.INSTANCE_WORK] = (wsum - cnt) + (nw - 1)
    out[C.PM_CREATED] += nw - 1
    si[SP_NW] = 1
    for k in range(out.shape[0]):
        rep[k] += out[k]
    return True


# ----------------------------------------------------------------------------- Darling
@leaf_njit
def darling_room(si, qi, pool):
    """Whether ``pool`` surely holds what one arrival may append (an activation buckets at most
    the queue; a list that outgrows its capacity moves to the pool's top at twice the size)."""
    return pool.shape[0] - si[DA_POOL_TOP] >= darling_need(si, qi)


@leaf_njit
def darling_need(si, qi):
    """Pool room one arrival may take: an activation appends at most the queue, a list that
    fills moves to the top at twice its length (geometric: at most 4x what the lists hold
    then), an empty list takes 8 slots."""
    return 4 * (si[DA_POOL_USED] + qi[Q_LEN] + 2) + 8 * si[DA_PSI] + 16


@leaf_njit
def _append(si, l_i, pool, lst, i):
    if l_i[lst, L_LEN] == l_i[lst, L_CAP]:
        cap = max(2 * l_i[lst, L_CAP], 8)
        top = si[DA_POOL_TOP]
        s0 = l_i[lst, L_START]
        for k in range(l_i[lst, L_LEN]):
            pool[top + k] = pool[s0 + k]
        l_i[lst, L_START] = top
        l_i[lst, L_CAP] = cap
        si[DA_POOL_TOP] = top + cap
    pool[l_i[lst, L_START] + l_i[lst, L_LEN]] = i
    l_i[lst, L_LEN] += 1
    si[DA_POOL_USED] += 1


@leaf_njit
def _insert(i, si, types, bucket, in_bucket, t_i, l_i, pool):
    t = types[i]
    b = bucket[i]
    lst = t * si[DA_PSI] + b
    _append(si, l_i, pool, lst, i)
    l_i[lst, L_CNT] += 1
    if b < t_i[t, T_LOW]:
        t_i[t, T_LOW] = b
    in_bucket[i] = 1
    si[DA_ENTRIES] += 1
    if si[DA_ENTRIES] > si[DA_PEAK_ENTRIES]:
        si[DA_PEAK_ENTRIES] = si[DA_ENTRIES]


@njit(cache=True)
def _victim(t, si, qstate, in_bucket, t_i, l_i, pool, rng):
    """``Darling._victim``: remove and return a queued event of type t's lowest non-empty
    bucket (-1 if none)."""
    psi = si[DA_PSI]
    b = t_i[t, T_LOW]
    while b < psi and l_i[t * psi + b, L_CNT] == 0:
        b += 1
    t_i[t, T_LOW] = b
    if b >= psi:
        return -1
    lst = t * psi + b
    s0 = l_i[lst, L_START]
    h = l_i[lst, L_HEAD]
    i = -1
    while l_i[lst, L_LEN] > h:           # a live count > 0 means a queued entry is left
        n = l_i[lst, L_LEN]
        if si[DA_VICTIM_RANDOM]:
            k = h + rng.integers(0, n - h)
            i = pool[s0 + k]
            pool[s0 + k] = pool[s0 + n - 1]
            l_i[lst, L_LEN] = n - 1
            si[DA_POOL_USED] -= 1
        elif t_i[t, T_OLDEST]:
            i = pool[s0 + h]
            h += 1
        else:
            i = pool[s0 + n - 1]
            l_i[lst, L_LEN] = n - 1
            si[DA_POOL_USED] -= 1
        si[DA_ENTRIES] -= 1
        if qstate[i] == 1:
            break
        i = -1
    if i < 0:
        l_i[lst, L_HEAD] = h
        return -1
    n = l_i[lst, L_LEN]
    if h > 64 and 2 * h > n:           # the consumed prefix goes (``del lst[:h]``)
        for k in range(h, n):
            pool[s0 + k - h] = pool[s0 + k]
        l_i[lst, L_LEN] = n - h
        si[DA_POOL_USED] -= h
        h = 0
    l_i[lst, L_HEAD] = h
    l_i[lst, L_CNT] -= 1
    in_bucket[i] = 0
    return i


@njit(cache=True)
def darling_on_arrival(i, si, sf, qi, qstate, by_type, types, bucket, in_bucket, t_i, t_f, l_i,
                       pool, rng, out):
    """``Darling.on_arrival`` after the queue pushed ``i``: True with ``out`` the row, False for
    None.  Drops a victim from the queue itself (``qstate`` 3, counts in ``qi``)."""
    if si[DA_ACTIVE] == 0:
        return False
    psi = si[DA_PSI]
    t = types[i]
    n_t = by_type[t]
    if t_i[t, T_ON] == 0:
        if n_t >= t_f[t, T_GAMMA]:
            k = 0
            for e in range(qi[Q_HEAD], qi[Q_TAIL]):     # _activate: queued events of type t
                if qstate[e] == 1 and types[e] == t:
                    _insert(e, si, types, bucket, in_bucket, t_i, l_i, pool)
                    k += 1
            t_i[t, T_ON] = 1
        else:
            return False
    else:
        if n_t < t_f[t, T_GAMMA] / 2.0:
            for b in range(psi):                         # _deactivate
                lst = t * psi + b
                s0 = l_i[lst, L_START]
                for r in range(l_i[lst, L_HEAD], l_i[lst, L_LEN]):
                    in_bucket[pool[s0 + r]] = 0
                si[DA_ENTRIES] -= l_i[lst, L_LEN] - l_i[lst, L_HEAD]
                si[DA_POOL_USED] -= l_i[lst, L_LEN]
                l_i[lst, L_LEN] = 0
                l_i[lst, L_HEAD] = 0
                l_i[lst, L_CNT] = 0
            t_i[t, T_LOW] = psi
            t_i[t, T_ON] = 0
            return False
        _insert(i, si, types, bucket, in_bucket, t_i, l_i, pool)
        k = 1
    shed = k
    glob = qi[Q_LEN] >= sf[DA_BETA] * sf[DA_N_IN] if si[DA_CHECK_GLOBAL] else True
    if glob and n_t > t_f[t, T_N_T]:
        shed += 1
        v = _victim(t, si, qstate, in_bucket, t_i, l_i, pool, rng)
        if v >= 0:
            queue_drop(v, qi, qstate, by_type, types)
            si[DA_DROPS] += 1
            shed += 1
    out[:] = 0
    out[C.SHED_OP] = shed
    out[C.UTILITY_UPDATE] = k * t_i[t, T_N_TERMS]
    return True


@leaf_njit
def darling_before_step(i, types, bucket, in_bucket, psi, l_i):
    """``Darling.before_step`` (active only): a served event leaves its bucket's live count."""
    if in_bucket[i]:
        l_i[types[i] * psi + bucket[i], L_CNT] -= 1
        in_bucket[i] = 0


# ----------------------------------------------------------------------------- ICDE'20
@leaf_njit
def icde20_on_arrival(i, si, qi, qstate, by_type, types, ev_class, shed, out):
    """``Icde20.on_arrival`` after the queue pushed ``i``: the event's class (precomputed) in
    the shedding set drops it; True with ``out`` the row (the tree's DEPTH decisions, plus one
    SHED_OP for a drop), False for None."""
    if si[IC_ACTIVE] == 0 or si[IC_SHED_ANY] == 0:
        return False
    for k in range(out.shape[0]):
        out[k] = 0
    out[C.DECISION_CHECK] = si[IC_DEPTH]
    if shed[ev_class[i]]:
        queue_drop(i, qi, qstate, by_type, types)
        si[IC_EV_DROPPED] += 1
        out[C.SHED_OP] = 1
    return True


@leaf_njit
def icde20_after_step(si):
    """``Icde20.after_step``'s count: True on every 32nd served event after the warm-up, when its
    Python part (``Icde20.trigger``: latency check, knapsack, partial-match drops) runs."""
    if si[IC_ACTIVE] == 0:
        return False
    si[IC_N_SERVED] += 1
    return si[IC_N_SERVED] % 32 == 0


@leaf_njit
def icde20_on_served(si):
    """``Icde20.on_served``'s count during the warm-up: True on every 32nd served event, when
    its Python part (``Icde20.sample``: a snapshot of the partial matches) runs."""
    si[IC_N_SERVED] += 1
    return si[IC_N_SERVED] % 32 == 0


# ----------------------------------------------------------------------------- packing
class KernelState:
    """The arrays a compiled shedder runs on (module docstring); unused ones stay tiny."""

    def __init__(self, kind: int, n: int, n_types: int) -> None:
        self.kind = kind
        self.si = np.zeros(N_SI, dtype=np.int64)
        self.sf = np.zeros(N_SF, dtype=np.float64)
        self.ev_a = np.zeros(1, dtype=np.int64)
        self.ev_b = np.zeros(1, dtype=np.int64)
        self.ev_f = np.zeros(1, dtype=np.float64)
        self.t_i = np.zeros((max(n_types, 1), 4), dtype=np.int64)
        self.t_f = np.zeros((max(n_types, 1), 2), dtype=np.float64)
        self.l_i = np.zeros((1, 5), dtype=np.int64)
        self.pool = np.zeros(1, dtype=np.int64)
        self.cdf = np.zeros(1, dtype=np.float64)
        self.u_sorted = np.zeros(1, dtype=np.float64)
        self.rep = np.zeros(C.N_COUNTERS, dtype=np.int64)
        self.flags = np.zeros(1, dtype=np.int64)      # ICDE'20: classes in the shedding set
        self.rng = np.random.default_rng(0)
        self.n = n


def compiled_kind(shedder) -> int | None:
    """The compiled kind of a shedder whose hooks this module implements, else None (exact
    classes only: a subclass may override a hook)."""
    from engines.shedding.darling import Darling
    from engines.shedding.icde20 import Icde20
    from engines.shedding.base import Shedder
    from engines.shedding.random_pm import RandomPM
    from engines.shedding.spice import Spice
    return {Shedder: K_NONE, Darling: K_DARLING, RandomPM: K_RANDOM_PM,
            Spice: K_SPICE, Icde20: K_ICDE20}.get(type(shedder))


def reads_warm_matches(kind: int) -> bool:
    """Whether the shedder's ``end_warmup`` reads the warm-up matches (eSPICE / hSPICE learn
    their completions from them, ICDE'20 its partial matches' contributions; the others only
    count them)."""
    return kind in (K_SPICE, K_ICDE20)


def keeps_recent(kind: int) -> bool:
    """Whether the shedder reads ``ShedContext.recent`` (the recent matches' latencies):
    ICDE'20's trigger does."""
    return kind == K_ICDE20


def pack_start(shedder, ctx) -> KernelState:
    """Kernel state before the warm-up ends (only eSPICE/hSPICE track anything then: the open
    windows and ranks every processed event updates)."""
    kind = compiled_kind(shedder)
    n = len(ctx.arrivals)
    nt = len(ctx.stream.schema.type_names)
    ks = KernelState(kind, n, nt)
    if kind == K_SPICE:
        si, sf = ks.si, ks.sf
        si[SP_IS_H] = shedder.kind == "hspice"
        si[SP_REPLICATE] = shedder.replicate
        si[SP_STOP_BOUND] = shedder.stop == "bound"
        si[SP_NW] = 1
        sf[SP_BETA] = shedder.beta
        sf[SP_WINDOW] = shedder.window
        ks.ev_a = shedder.rank                       # the window rank per event (shared)
        ks.ev_b = np.zeros(max(n, 1), dtype=np.int64)    # open windows' ranks (ring)
        ks.ev_f = np.zeros(max(n, 1), dtype=np.float64)  # open windows' timestamps
        ks.t_i[:, T_IN_PATTERN] = np.asarray(shedder.in_pattern, dtype=np.int64)
    return ks


def pack_learned(shedder, ks: KernelState) -> None:
    """After ``end_warmup``: copy what the shedder learned into the kernel state."""
    si, sf = ks.si, ks.sf
    if ks.kind == K_RANDOM_PM:
        si[RP_ACTIVE] = shedder.active
        si[RP_STOP_BOUND] = shedder.stop == "bound"
        sf[RP_BETA], sf[RP_N_IN], sf[RP_Z_BAR] = shedder.beta, shedder.n_in, shedder.z_bar
        ks.rng = shedder.rng
    elif ks.kind == K_SPICE:
        si[SP_ACTIVE] = shedder.active
        sf[SP_N_IN], sf[SP_Z_BAR] = shedder.n_in, shedder.z_bar
        ks.cdf = np.ascontiguousarray(shedder.cdf, dtype=np.float64)
        ks.u_sorted = np.ascontiguousarray(shedder.u_sorted, dtype=np.float64)
    elif ks.kind == K_ICDE20:
        from engines.shedding.icde20 import DEPTH
        si[IC_ACTIVE] = shedder.active
        si[IC_DEPTH] = DEPTH
        ks.ev_a = np.asarray(shedder.ev_class, dtype=np.int64)
        pack_shed_set(shedder, ks)
    elif ks.kind == K_DARLING:
        psi = shedder.psi
        nt = len(shedder.N_T)
        si[DA_ACTIVE] = shedder.active
        si[DA_VICTIM_RANDOM] = shedder.victim == "random"
        si[DA_CHECK_GLOBAL] = shedder.check == "global"
        si[DA_PSI] = psi
        sf[DA_BETA], sf[DA_N_IN] = shedder.beta, shedder.n_in
        ks.ev_a = np.ascontiguousarray(shedder.bucket, dtype=np.int64)
        ks.ev_b = np.zeros(max(ks.n, 1), dtype=np.int64)             # in_bucket
        ks.t_i = np.zeros((nt, 4), dtype=np.int64)
        ks.t_i[:, T_N_TERMS] = shedder.n_terms
        ks.t_i[:, T_OLDEST] = shedder.oldest
        ks.t_i[:, T_LOW] = psi
        ks.t_f = np.stack([np.asarray(shedder.N_T, dtype=np.float64),
                           np.asarray(shedder.gamma, dtype=np.float64)], axis=1)
        ks.l_i = np.zeros((nt * psi, 5), dtype=np.int64)
        ks.pool = np.zeros(1024, dtype=np.int64)
        ks.rng = shedder.rng


def pack_shed_set(shedder, ks: KernelState) -> None:
    """ICDE'20's current shedding set (after ``end_warmup`` or a trigger)."""
    ks.flags = np.asarray(shedder.shed_set, dtype=np.int64)
    ks.si[IC_SHED_ANY] = bool(ks.flags.any())


def grow_pool(ks: KernelState, qi: np.ndarray) -> None:
    """DARLING's bucket pool compacted into a larger array: every list's entries (its consumed
    head kept) laid end to end, each list's capacity its length, and twice the room the next
    arrival may take (``darling_need``) above them."""
    si, l_i = ks.si, ks.l_i
    need = int(darling_need(si, qi))
    new = np.zeros(2 * (int(l_i[:, L_LEN].sum()) + need) + 1024, dtype=np.int64)
    top = 0
    for lst in range(l_i.shape[0]):
        ln = int(l_i[lst, L_LEN])
        s0 = int(l_i[lst, L_START])
        new[top:top + ln] = ks.pool[s0:s0 + ln]
        l_i[lst, L_START] = top
        l_i[lst, L_CAP] = ln
        top += ln
    si[DA_POOL_TOP] = top
    ks.pool = new


def unpack(shedder, ks: KernelState) -> None:
    """Write back the scalars the shedder's ``info()`` reports."""
    si = ks.si
    if ks.kind == K_RANDOM_PM:
        shedder.dropped = int(si[RP_DROPPED])
    elif ks.kind == K_SPICE:
        shedder.on = bool(si[SP_ON])
        shedder.on_events = int(si[SP_ON_EVENTS])
        shedder.n_served = int(si[SP_N_SERVED])
        shedder.rank_n = int(si[SP_RANK_N])
        shedder.rep[:] = ks.rep
    elif ks.kind == K_ICDE20:
        shedder.n_served = int(si[IC_N_SERVED])
        shedder.ev_dropped = int(si[IC_EV_DROPPED])
    elif ks.kind == K_DARLING and shedder.active:
        shedder.drops = int(si[DA_DROPS])
        shedder.entries = int(si[DA_ENTRIES])
        shedder.peak_entries = int(si[DA_PEAK_ENTRIES])
