"""The remote-data evaluator (EIRES) in virtual time: one Numba kernel for every strategy.

Scope: one flat branch of plain variables (``SEQ(A a, B b, ...)``, no Kleene, no negation),
time or count window, skip-till-any-match (the paper's *greedy*) or skip-till-next-match
(*non-greedy*), local predicates and ``REMOTE`` predicates (docs/SEMANTICS.md rule 8).  Partial
matches are kept per ``SAME[attr]`` partition (an index by the partition attribute, as any CEP
engine keeps), in creation order.

Virtual time.  Events arrive at ``arrivals``; a FIFO single server starts event ``i`` at
``max(arrival_i, end of event i-1)``, adds ``base_cost`` and then advances its clock operation by
operation (``unit_cost`` of each counter the kernel increments).  A fetch goes to the first free of
W workers (``engines.remote.store``) and completes at a known time; completions are *applied*
(the element enters the cache) when the clock has passed them, at the next cache access.  A
blocking wait moves the clock to the completion.  Every match records its emission time (the
clock right after its MATCH_EMIT operation).

Remote predicate ``r`` reads its key from the event at slot ``kslot`` and is *checked* when slot
``chk`` binds (``AT z``, default the latest slot it mentions; ``chk = 0``, a check at the first
variable, is made when the event starts a run, as section 7.3's Fig. 12b query needs; a
pattern of one variable takes no remote predicate).  Strategies at the check:
BL1 issue a fetch and wait (no cache); BL2 / PFetch look up the cache, on a miss fetch (or join a
fetch in flight) and wait; BL3 postpone every remote predicate to completion, then fetch the
missing keys in parallel and wait for the slowest; LzEval / Hybrid on a miss issue the fetch and
postpone the predicate while the partial match stays within ``span`` classes (Eq. 8 or fixed),
re-checking the cache when it is extended and waiting when it leaves the span or completes.
PFetch / Hybrid prefetch the key of a partial match entering the lookahead class (fixed distance,
or Alg. 3: the class closest before m = chk - 1 that holds the key and has no recent misses) or,
when no lookahead class is left, at the estimated arrival (a timer set when a class-m partial
match is created fires 1/lambda - mean latency later, lambda its monitored extension rate; the
decision is taken at the next event's start, Alg. 1 lines 8-12); either way only when the key's
utility beats the cache's minimum (Eq. 7).
Requests for a key already in flight are merged only with ``merge_requests=True``; by default
(the authors' artifact) a blocking fetch sleeps on the matching thread's own clock, whatever is
in flight, and LzEval sends a new request at every missing re-check.  The order of work inside
an event is ``in_event_order`` (default ``class``: the artifact's transitions in query order;
see the comment at the partial-match walks).  Keys of any value are factorized to dense ids
once per run (``engines.remote.table``).

The artifact's mechanisms and the paper's readings (``engines/remote/config.py``, each a
``RemoteOptions`` field, the artifact's first): LzEval / Hybrid postpone a missing remote
predicate to the accept state, one new worker request per miss on the way (``lz_postpone``;
``eq8`` the span of Eq. 8), and block there with a sleep on the matching thread; with
probability ``lz_block_prob`` a miss before the accept state blocks at once.  BL3 sleeps once
per completed candidate's remote predicate, serially, without a cache read (``bl3_fetch``).  A
hit refreshes the key only when the predicate holds (``cache_refresh``); a key's count is
decremented as the artifact's state buffers remove the entry - from the front of the buffer
only, once consumed or expired, none in the stream's first window (``key_count = "fifo"``;
``live`` = when a partial match leaves a state referencing it).  PFetch sends
one prefetch per ``prefetch_period`` transitions into the states holding the key before its
check (``prefetch``; ``utility`` = Algs. 1-3 as above).

Caches: LRU (doubly linked list) or cost-based.  ``utility="paper"``: two tiers (elements
fetched on demand or by LzEval are T1 until their first use, prefetched ones T2; eviction takes
the lowest utility from a ranking rebuilt every ``utility_period`` events, T2 before T1; always
admits).  ``utility="artifact"``: per-key transition counts and the artifact's ordered set with
its admission rule (see ``_cu_less``).  Utility (Eqs. 3-6):
``U = l * (w * UU + (1 - w) * FU)`` with ``UU`` = live partial matches needing the key next (or
holding it postponed) and ``FU = sum_j avgP_j * Pr(j, key)`` over the classes that will need it,
``Pr`` from the last ``stat_window`` transitions and ``avgP_j`` an exponential average of the
class sizes at each refresh.  ``l`` (mean fetch latency) scales both terms alike.

Counters (what the kernel really did): INSTANCE_WORK per partial match offered an event,
PRED_EVAL per local or remote predicate evaluated, PM_CREATED / PM_REMOVED, MATCH_EMIT,
REMOTE_FETCH per fetch issued, CACHE_OP per lookup / insert / eviction step / tier move,
UTILITY_UPDATE per utility computed, STAT_UPDATE per statistics update, SEARCH_CMP for the
ranking sort (n * ceil(log2 n), the comparison bound of the sort used), DECISION_CHECK for
LzEval's Eq. (8) and PFetch's lookahead adaptation.  Gauge LIVE_PM.  Blocked time is virtual time
(reported in ``info``), not a counter.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.compile import KIND_KLEENE, OP_EQ, PK_REMOTE, POLICY_NEXT, WIN_COUNT
from engines.errors import CepsimInputError
from engines.matches import MatchSet
from engines.pattern.ast import Same
from engines.registry import EngineResult
from engines.remote.config import RemoteOptions, options_from
from engines.predicates import compare, eval_pred
from engines.remote.table import dense_values, factorize_keys
from engines.remote.store import (assign_worker, fetch_latency, heap_pop, heap_push, mix64,
                                  uniform01)

# iopt indices
I_STRAT, I_CACHE, I_CAP, I_W, I_SEED, I_LOOK, I_SPAN, I_UPER, I_SWIN, I_MTHR, I_MRES, I_POL, \
    I_WKIND, I_M, I_NPART, I_TRACE, I_RECORD, I_PCAP, I_HIST, I_ORDER, I_MERGE, I_UTIL, \
    I_LZACC, I_BL3SER, I_REFPASS, I_KLIVE, I_PFART, I_PFPER, I_NOISEKEY = range(29)
N_IOPT = 29
# fopt indices
F_LUNIT, F_WF, F_WC, F_NOISE, F_WIN, F_BASE, F_OVER, F_LZBLOCK, F_AW, F_REQ = range(10)
# trace kinds
TR_START, TR_COMPUTE, TR_ISSUE, TR_WAIT, TR_OBSERVE, TR_EMIT, TR_END, TR_EVICT, TR_BLOCK = \
    range(9)

S_BL1, S_BL2, S_BL3, S_PFETCH, S_LZEVAL, S_HYBRID = range(6)
C_LRU, C_COST = range(2)

# Growable stores, packed.  Numba turns an array variable that is rebound inside a loop (a pool
# replaced by a bigger copy) into a loop-carried value and pays an atomic NRT incref + decref for
# it on every back edge of every loop it is carried around, whether or not the growth runs; with
# 15 such arrays in the partial-match loop that was about 3/4 of the kernel's run time.  So the
# arrays that grow together are columns of one array, and every growth happens once per event,
# before the partial-match loop, sized for the most that event can add; nothing is rebound in the
# inner loops.
# Partial-match pool ``pm``: int64[cap, PM_EV + M], one row per partial match (bump allocated,
# compacted by ``_compact``): kernel slot reached, bitmask of postponed remote predicates, next
# row of its partition's list (-1 = last), alive flag, generation (bumped when the row is reused;
# timers check it), its entry in its class's FIFO (``key_count="fifo"``, -1 = none), then the
# event index bound at each slot.
PM_SLOT, PM_PEND, PM_NEXT, PM_ALIVE, PM_GEN, PM_FQ, PM_EV = range(7)
# Estimated-arrival timer store ``tmr``: int64[TM_ROWS, cap] (rows, so ``tmr[TM_HEAP]`` is a
# contiguous heap key array beside the heap's float times ``tht``): heap keys (timer ids),
# partial-match row, its generation, remote predicate, and the stack of free ids.
TM_HEAP, TM_PM, TM_GEN, TM_PRED, TM_FREE = range(5)
TM_ROWS = 5
TIMER_CAP0 = 64
# The artifact's state buffers for ``key_count="fifo"``: ``fq`` int64[FQ_KEY + NR, cap], one
# column per entry of a class that references a key: the next entry of its class's FIFO (-1 =
# last), the run's first event, a consumed flag, a slot of the free-id stack, the key per remote
# predicate (-1 = not referenced there); grown by ``_grow_timers`` (``fq_t`` its unused times).
FQ_NEXT, FQ_FIRST, FQ_DEAD, FQ_FREE, FQ_KEY = range(5)
FQ_CAP0 = 64
# Matches ``m_id``: int64[cap, 1 (+ M when recorded)]: detecting event, then the event per slot;
# their emission times in ``m_t``.


@njit(cache=True, inline="always")
def _tick(cnt, i, k, c, unit, clk):
    cnt[i, k] += c
    d = c * unit[k]
    clk[0] += d
    clk[1] += d


@leaf_njit
def _trace(tr_k, tr_a, tr_b, tr_x, st, kind, a, b, x, clk):
    """Append a trace record (flushing accumulated compute first); st[0] = trace length."""
    n = st[0]
    if clk[1] != 0.0:
        if n >= tr_k.shape[0]:
            st[1] = 1
            return
        tr_k[n] = TR_COMPUTE
        tr_a[n] = 0
        tr_b[n] = 0
        tr_x[n] = clk[1]
        clk[1] = 0.0
        n += 1
        st[0] = n
    if n >= tr_k.shape[0]:
        st[1] = 1                               # overflow flag
        return
    tr_k[n] = kind
    tr_a[n] = a
    tr_b[n] = b
    tr_x[n] = x
    st[0] = n + 1


@leaf_njit
def _timing(la, ea, mc, r, chk, kslot, thr):
    """Algorithm 3 (P1) for remote predicate ``r`` in adaptive mode; returns the steps taken.

    Classes are kernel slots: a partial match at slot ``s`` holds events 0..s, and the class
    that needs the datum is ``m = chk - 1`` (its extension binds the checking slot).  Walk
    ``j = m - 1, m - 2, ...`` while ``j`` still holds the key's event (``j >= kslot``): the first
    ``j`` whose recent misses stay below ``thr`` (H(m, j, d) = true) is the lookahead class
    (offset 0).  When none is left, use estimated-arrival timing (``ea[r] = 1``): prefetch an
    offset after a class-``m`` partial match is created (the offset is refreshed elsewhere).
    """
    steps = 0
    j = chk - 2
    while j >= kslot:
        steps += 1
        if mc[r, j] < thr:
            la[r] = j
            ea[r] = 0
            return steps
        j -= 1
    la[r] = -1
    ea[r] = 1 if kslot <= chk - 1 else 0       # key bound at the checking slot: no prefetch
    return steps + 1


@njit(cache=True)
def _grow_timers(tht, tmr, te_nfree, need, free_row):
    """Double a store of records with a free-id stack (the estimated-arrival timers: ``tht``
    their due times, ``tmr`` int64[rows, cap] with the stack in row ``free_row``; the FIFO
    entries of ``key_count="fifo"`` the same way) until ``need`` ids are free; returns
    ``(tht, tmr, te_nfree)``.  The new ids go to the BOTTOM of the free stack, in the order a
    store that only grew once empty would hand them out (lowest new id first), so the ids
    taken, and with them the heap's tie-breaks, are the same whenever the growth happens."""
    while te_nfree < need:
        old = tht.shape[0]
        n_tht = np.zeros(2 * old)
        n_tmr = np.zeros((tmr.shape[0], 2 * old), dtype=np.int64)
        n_tht[:old] = tht
        n_tmr[:, :old] = tmr
        for j in range(old):                    # ids old..2*old-1, the lowest one on top
            n_tmr[free_row, j] = 2 * old - 1 - j
        for j in range(te_nfree):
            n_tmr[free_row, old + j] = tmr[free_row, j]
        te_nfree += old
        tht = n_tht
        tmr = n_tmr
    return tht, tmr, te_nfree


# Latency histograms (``latency_hist=True``): log10 bins of 1/HIST_PER_DECADE decade from
# 1e-9 s (bin 0 holds everything at or below it) up to 1e3 s; relative bin width 0.115 %.
HIST_PER_DECADE = 2000
HIST_LO_DECADE = -9
HIST_BINS = 1 + 12 * HIST_PER_DECADE


@njit(cache=True, inline="always")
def _future_use(k, NR, M, r_kslot, r_chk, ttot, tcnt, avgP):
    """Expected future uses of key ``k``: over every remote predicate and every class between its
    key slot and its check, the smoothed number of partial matches in the class (``avgP``) times
    the share of that class's recorded keys that were ``k`` (``tcnt / ttot``).  The data-driven
    part of the utilities; shared by cache ranking and every prefetch decision."""
    fu = 0.0
    for r in range(NR):
        for s in range(r_kslot[r], r_chk[r]):
            row = r * M + s
            if ttot[row] > 0:
                fu += avgP[s] * tcnt[row, k] / ttot[row]
    return fu


@leaf_njit
def _member_utils(members, csize, cap, rank, rkey, tier, need, tcnt, ttot, avgP, NR, M, r_kslot,
                  r_chk, lbar, wc, wf, compute, pf_util, du, clk):
    """The utility refresh over the cache's members (Eqs. 3-6): ``compute`` (a ranked cost cache
    or utility prefetching) writes each member's cache utility (T1 above every T2) to ``rkey``
    and its key to ``rank[cap + q]``, and returns the lowest prefetch utility (the minimum a
    prefetch must beat); either way one UTILITY_UPDATE per member is added to both clocks, in
    order, as ``_tick`` adds them (the caller counts them).  Without utility prefetching no
    minimum is read, so a T1 member whose utility bound keeps ``uc + 1e300`` at exactly 1e300
    (|uc| < 7e283; each class's share of the future use is at most 1, per predicate) is not
    computed, nor the future use of a key with no recorded transition (every term 0.0)."""
    c0 = clk[0]
    c1 = clk[1]
    mu = np.inf
    if not compute:
        for q in range(csize):
            c0 += du
            c1 += du
        clk[0] = c0
        clk[1] = c1
        return mu
    fu_max = 0.0
    for s in range(M):
        fu_max += avgP[s]
    fu_max *= max(NR, 1)
    tall = tcnt.shape[0] - 1
    for q in range(csize):
        k = members[q]
        rank[cap + q] = k
        c0 += du
        c1 += du
        if not pf_util and tier[k] == 1 and lbar * (abs(need[k]) + fu_max) < 1e283:
            rkey[q] = 1e300
            continue
        fu = _future_use(k, NR, M, r_kslot, r_chk, ttot, tcnt, avgP) \
            if tcnt[tall, k] != 0 else 0.0
        uc = lbar * (wc * need[k] + (1.0 - wc) * fu)
        uf = lbar * (wf * need[k] + (1.0 - wf) * fu)
        if uf < mu:
            mu = uf
        rkey[q] = uc + (1e300 if tier[k] == 1 else 0.0)
    clk[0] = c0
    clk[1] = c1
    return mu


@njit(cache=True, inline="always")
def _decision_key(key, fopt, seed, ndecide, K):
    """The key a prefetch decision is about: ``key``, or with probability ``F_NOISE`` (Fig 10a's
    utility noise) a random key from the decision's own stream.  Returns (key, ndecide)."""
    if fopt[F_NOISE] > 0.0:
        ndecide += 1
        if uniform01(seed ^ 0x5EED, ndecide) < fopt[F_NOISE]:
            key = np.int64(mix64(seed ^ 0xBAD, ndecide) % np.uint64(K))
    return key, ndecide


@njit(cache=True, inline="always")
def _prefetch_pays(kk, csize, cap, lat_sum, nfetch, lunit, fopt, need, NR, M, r_kslot, r_chk,
                   ttot, tcnt, avgP, min_util, cnt, i, unit, clk):
    """Whether a prefetch of ``kk`` is issued: always while the cache has room, else when its
    utility (mean fetch latency x weighted current need and expected future use) beats the
    cache's lowest; the utility computation is charged (UTILITY_UPDATE).  Shared by every
    prefetch path (lookahead, estimated-arrival timer)."""
    if csize < cap:
        return True
    lbar = lat_sum / nfetch if nfetch > 0 else lunit * 5.5 + fopt[F_OVER]
    fu = _future_use(kk, NR, M, r_kslot, r_chk, ttot, tcnt, avgP)
    uf = lbar * (fopt[F_WF] * need[kk] + (1.0 - fopt[F_WF]) * fu)
    _tick(cnt, i, C.UTILITY_UPDATE, 1, unit, clk)
    return uf > min_util


@leaf_njit
def _issue_fetch(kk, tr, seed, nfetch, lat_sum, lunit, over, wfree, inflight, arr_tier, ht, hk, hn,
                 cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x, tst, req):
    """Send a fetch of key ``kk`` to the fetch workers (``engines.remote.store``): charge it
    (REMOTE_FETCH, plus ``req`` seconds of handing it over, ``request_cost_us``), draw its
    latency, give it to the first free worker, mark it in flight with the cache tier it will
    enter (1 on demand / LzEval, 2 prefetched) and queue its completion.  Returns ``(nfetch,
    lat_sum, hn)``.  The one place a worker fetch is issued."""
    _tick(cnt, i, C.REMOTE_FETCH, 1, unit, clk)
    if req > 0.0:
        clk[0] += req
        clk[1] += req
    lat = fetch_latency(seed, nfetch, lunit) + over
    done = assign_worker(wfree, clk[0], lat)
    if tracing:
        _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_ISSUE), kk, nfetch, lat, clk)
    inflight[kk] = done
    arr_tier[kk] = tr
    hn = heap_push(ht, hk, hn, done, kk)
    return nfetch + 1, lat_sum + lat, hn


@leaf_njit
def _try_prefetch(key, fopt, seed, ndecide, K, incache, inflight, csize, cap, lat_sum, nfetch,
                  lunit, need, NR, M, r_kslot, r_chk, ttot, tcnt, avgP, min_util, wfree,
                  arr_tier, ht, hk, hn, cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x, tst):
    """One prefetch decision (Alg. 1 lines 11-12), shared by every prefetch path (lookahead
    class of a new or extended partial match, estimated-arrival timer): the key (or Fig 10a's
    noise key), a cache check (CACHE_OP), no fetch when it is cached or in flight, else a fetch
    when ``_prefetch_pays``.  Returns ``(issued, ndecide, nfetch, lat_sum, hn)``."""
    kk, ndecide = _decision_key(key, fopt, seed, ndecide, K)
    _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
    if incache[kk] == 1 or inflight[kk] >= 0.0:
        return False, ndecide, nfetch, lat_sum, hn
    if not _prefetch_pays(kk, csize, cap, lat_sum, nfetch, lunit, fopt, need, NR, M, r_kslot,
                          r_chk, ttot, tcnt, avgP, min_util, cnt, i, unit, clk):
        return False, ndecide, nfetch, lat_sum, hn
    nfetch, lat_sum, hn = _issue_fetch(kk, np.int64(2), seed, nfetch, lat_sum, lunit,
                                       fopt[F_OVER], wfree, inflight,
                                       arr_tier, ht, hk, hn, cnt, i, unit, clk, tracing, tr_k,
                                       tr_a, tr_b, tr_x, tst, fopt[F_REQ])
    return True, ndecide, nfetch, lat_sum, hn


# The cost cache's eviction ranking (``utility="paper"``): the members at the last utility
# refresh in ascending order of their cache utility, ties by position (numpy's stable sort;
# NaN last).  Victims are taken from its front until the next refresh, and a refresh ranks up
# to ``cap`` keys while few of them are taken, so the ranking is a binary min-heap over the
# positions (built in O(n), one O(log n) pop per victim) rather than a sort: the same order,
# popped lazily.  ``rank`` is int64[2 * cap]: the heap of positions in ``rank[:cap]``, the
# member keys at the refresh in ``rank[cap:]``; ``rkey`` their utilities.
@njit(cache=True, inline="always")
def _rk_less(rkey, a, b):
    ka = rkey[a]
    kb = rkey[b]
    if ka < kb:
        return True
    if ka == kb:
        return a < b
    if ka != ka:                                # NaN: after every number, stable among NaNs
        return kb != kb and a < b
    return kb != kb


@leaf_njit
def _rk_sift(rank, rkey, n, j):
    """Sift position ``j`` of the ranking heap ``rank[:n]`` down."""
    while True:
        l = 2 * j + 1
        if l >= n:
            break
        c = l
        if l + 1 < n and _rk_less(rkey, rank[l + 1], rank[l]):
            c = l + 1
        if not _rk_less(rkey, rank[c], rank[j]):
            break
        rank[c], rank[j] = rank[j], rank[c]
        j = c


@leaf_njit
def _rk_build(rank, rkey, n):
    """The ranking heap over positions ``0..n-1`` of ``rkey``."""
    for j in range(n):
        rank[j] = j
    for j in range(n // 2 - 1, -1, -1):
        _rk_sift(rank, rkey, n, j)


# The artifact's cost cache (zbjob/EIRES src/EIRES_cost_cache/Cache_ordered.cpp): an ordered set
# of (utility, key), the utility being the key's transition count at its last update; the
# minimum is evicted, and a full cache admits a fetched key only when its count is above the
# minimum (line 122: ``if(utility > cacheHeap.begin()->first)``), else the element is dropped.
# Here an indexed binary min-heap over (utility, key): ``cu`` utilities, ``ck`` keys, ``cpos``
# the heap position of each key (-1 = not in it); ties by key, as the set orders its pairs.
@njit(cache=True, inline="always")
def _cu_less(cu, ck, a, b):
    return cu[a] < cu[b] or (cu[a] == cu[b] and ck[a] < ck[b])


@leaf_njit
def _cu_swap(cu, ck, cpos, a, b):
    cu[a], cu[b] = cu[b], cu[a]
    ck[a], ck[b] = ck[b], ck[a]
    cpos[ck[a]] = a
    cpos[ck[b]] = b


@leaf_njit
def _cu_sift(cu, ck, cpos, n, j):
    """Restore the heap around position ``j``; returns the comparisons made."""
    steps = 0
    while j > 0:
        par = (j - 1) // 2
        steps += 1
        if not _cu_less(cu, ck, j, par):
            break
        _cu_swap(cu, ck, cpos, j, par)
        j = par
    while True:
        l = 2 * j + 1
        if l >= n:
            break
        c = l
        if l + 1 < n:
            steps += 1
            if _cu_less(cu, ck, l + 1, l):
                c = l + 1
        steps += 1
        if not _cu_less(cu, ck, c, j):
            break
        _cu_swap(cu, ck, cpos, j, c)
        j = c
    return steps


@leaf_njit
def _cu_set(cu, ck, cpos, n, key, u):
    """Insert ``key`` with utility ``u`` (or update it when present); returns (n, steps)."""
    j = cpos[key]
    if j < 0:
        j = n
        n += 1
        ck[j] = key
        cpos[key] = j
    cu[j] = u
    return n, _cu_sift(cu, ck, cpos, n, j)


@leaf_njit
def _cu_remove(cu, ck, cpos, n, key):
    """Remove ``key``; returns (n, steps)."""
    j = cpos[key]
    n -= 1
    steps = 0
    if j != n:
        _cu_swap(cu, ck, cpos, j, n)
        cpos[key] = -1
        steps = _cu_sift(cu, ck, cpos, n, j)
    cpos[key] = -1
    return n, steps


@njit(cache=True, inline="always")
def _cache_touch(k, lprev, lnext, lhead, ltail, csize, art, autil, cu, ck, cpos, cnt, i, unit,
                 clk):
    """A use of cached key ``k``: most recent in the LRU list and, with the artifact's cost
    cache, its count refreshed in the ordered set (a hit calls Cache::update with the key's
    current count, PatternMatcher.cpp line 1065).  Returns ``(lhead, ltail)``."""
    if art:
        _, st = _cu_set(cu, ck, cpos, csize, k, float(autil[k]))
        _tick(cnt, i, C.SEARCH_CMP, st, unit, clk)
    if lhead != k:
        pv = lprev[k]
        nx = lnext[k]
        lnext[pv] = nx
        if nx >= 0:
            lprev[nx] = pv
        else:
            ltail = pv
        lprev[k] = -1
        lnext[k] = lhead
        lprev[lhead] = k
        lhead = k
    return lhead, ltail


@leaf_njit
def _cache_put(k2, tr, cap, cache_kind, incache, tier, lprev, lnext, lhead, ltail, members, mpos,
               csize, rank, rkey, rank_h, cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x,
               tst, art, autil, cu, ck, cpos):
    """A fetched element arrives at the cache (``tr``: the tier it enters).  Already cached (a
    duplicate request: the artifact does not merge them): refreshed as most recent.  Else, when
    full, victims leave first - LRU: the least recently used; cost: the lowest of the utility
    ranking, T2 before T1 (the ranking exhausted: the oldest) - then it enters at the front.
    Every step is a CACHE_OP.  ``art`` (the artifact's cost cache, see ``_cu_less``): the
    victim is the lowest (count at last update, key), and a full cache drops a key whose count
    is not above it (a TR_EVICT of the key itself in the trace).  Returns ``(lhead, ltail,
    csize, rank_h)``."""
    if incache[k2] == 1:
        _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
        lhead, ltail = _cache_touch(k2, lprev, lnext, lhead, ltail, csize, art, autil, cu, ck,
                                    cpos, cnt, i, unit, clk)
        return lhead, ltail, csize, rank_h
    if art and csize >= cap:
        _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
        if not float(autil[k2]) > cu[0]:
            if tracing:
                _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_EVICT), k2, np.int64(0), 0.0, clk)
            return lhead, ltail, csize, rank_h        # not admitted
    while csize >= cap:
        if cache_kind == C_LRU:
            v = ltail
        elif art:
            v = ck[0]
            _, st = _cu_remove(cu, ck, cpos, csize, v)
            _tick(cnt, i, C.SEARCH_CMP, st, unit, clk)
        else:
            v = -1
            while rank_h > 0:                   # the next of the ranking (see _rk_less)
                v = rank[cap + rank[0]]
                rank_h -= 1
                rank[0] = rank[rank_h]
                _rk_sift(rank, rkey, rank_h, np.int64(0))
                _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
                if incache[v] == 1:
                    break
                v = -1
            if v == -1:
                v = ltail      # ranking exhausted: oldest
        # unlink v
        pv = lprev[v]
        nx = lnext[v]
        if pv >= 0:
            lnext[pv] = nx
        else:
            lhead = nx
        if nx >= 0:
            lprev[nx] = pv
        else:
            ltail = pv
        incache[v] = 0
        pidx = mpos[v]
        members[pidx] = members[csize - 1]
        mpos[members[pidx]] = pidx
        mpos[v] = -1
        csize -= 1
        _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
        if tracing:
            _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_EVICT), v, np.int64(0), 0.0, clk)
    incache[k2] = 1
    tier[k2] = tr
    lprev[k2] = -1
    lnext[k2] = lhead
    if lhead >= 0:
        lprev[lhead] = k2
    lhead = k2
    if ltail == -1:
        ltail = k2
    members[csize] = k2
    mpos[k2] = csize
    if art:
        _, st = _cu_set(cu, ck, cpos, csize, k2, float(autil[k2]))
        _tick(cnt, i, C.SEARCH_CMP, st, unit, clk)
    csize += 1
    _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
    return lhead, ltail, csize, rank_h


@njit(cache=True)
def _grow_heap(ht, hk, hn, need):
    """A copy of the in-flight heap (first ``hn`` entries) with room for ``need`` entries."""
    cap = ht.shape[0]
    while cap < need:
        cap *= 2
    n_ht = np.zeros(cap)
    n_hk = np.zeros(cap, dtype=np.int64)
    n_ht[:hn] = ht[:hn]
    n_hk[:hn] = hk[:hn]
    return n_ht, n_hk


@njit(cache=True, inline="always")
def _enter_class(pm, p, ns, pend, NR, M, r_chk, r_kslot, kid, r_kid, need, tcnt, ttot, ring_j,
                 ring_k, ring_pos, ring_fill, swin, cnt, i, unit, clk):
    """Partial match ``p`` has entered class ``ns`` (extended in place or newly created): its
    keys needed next (or still postponed) count towards the urgent utility, and each key it
    holds for a later check is one transition of the Pr(j, d) statistics (Alg. 2 lines 2-4; a
    ring of the last ``swin`` transitions, STAT_UPDATE each).  Returns ``(ring_pos,
    ring_fill)``."""
    for r in range(NR):
        bit = np.int64(1) << r
        if ns == r_chk[r] - 1 or (pend & bit) != 0:
            need[kid[pm[p, PM_EV + r_kslot[r]], r_kid[r]]] += 1
        if r_kslot[r] <= ns < r_chk[r]:
            kk = kid[pm[p, PM_EV + r_kslot[r]], r_kid[r]]
            row = r * M + ns
            tall = tcnt.shape[0] - 1             # the last row: each key's total over rows
            if ring_fill == swin:
                tcnt[ring_j[ring_pos], ring_k[ring_pos]] -= 1
                tcnt[tall, ring_k[ring_pos]] -= 1
                ttot[ring_j[ring_pos]] -= 1
            else:
                ring_fill += 1
            ring_j[ring_pos] = row
            ring_k[ring_pos] = kk
            ring_pos = (ring_pos + 1) % swin
            tcnt[row, kk] += 1
            tcnt[tall, kk] += 1
            ttot[row] += 1
            _tick(cnt, i, C.STAT_UPDATE, 1, unit, clk)
    return ring_pos, ring_fill


@njit(cache=True, inline="always")
def _remote_holds(r, key, tmp, rtab, attrs, r_op, r_cslot, r_ccol, r_scale, r_off, cnt, i, unit,
                  clk):
    """Evaluate remote predicate ``r`` with the value of ``key`` (PRED_EVAL): ``x.a OP
    R(key) * k + c`` against the bound event ``tmp[r_cslot[r]]``, or ``R(key) OP c``."""
    val = rtab[key]
    _tick(cnt, i, C.PRED_EVAL, 1, unit, clk)
    if r_cslot[r] < 0:
        return compare(r_op[r], val, r_off[r])
    return compare(r_op[r], attrs[tmp[r_cslot[r]], r_ccol[r]], val * r_scale[r] + r_off[r])


@njit(cache=True, inline="always")
def _wants_prefetch(sp_, NR, la, ea, r_chk):
    """Whether ``_entry_prefetch`` has anything to do for a partial match entering class
    ``sp_`` (a cheap test that spares the call, with its long argument list, on most entries)."""
    for r in range(NR):
        if (ea[r] == 1 and sp_ == r_chk[r] - 1) or (la[r] == sp_ and sp_ < r_chk[r]):
            return True
    return False


@leaf_njit
def _entry_prefetch(p, pm, kid, r_kid, r_kslot, r_chk, NR, M, la, ea, ea_off, tmr, tht, thn,
                    te_nfree, fopt, seed, ndecide, K, incache, inflight, csize, cap, lat_sum,
                    nfetch, lunit, need, ttot, tcnt, avgP, min_util, wfree, arr_tier, ht, hk, hn,
                    cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x, tst):
    """PFetch when partial match ``p`` enters its class (new run or extension, Alg. 1 lines
    5-7): per remote predicate, an estimated-arrival timer when the class is the one needing
    the datum and no lookahead class is left (a free timer id; room is reserved per event), or
    a prefetch decision (``_try_prefetch``) when the class is the lookahead class.  Returns
    ``(te_nfree, thn, ndecide, nfetch, lat_sum, hn)``."""
    sp_ = pm[p, PM_SLOT]
    for r in range(NR):
        if ea[r] == 1 and sp_ == r_chk[r] - 1:
            # estimated-arrival timing: prefetch ea_off after this class-m match is created
            te_nfree -= 1
            tid = tmr[TM_FREE, te_nfree]
            tmr[TM_PM, tid] = p
            tmr[TM_GEN, tid] = pm[p, PM_GEN]
            tmr[TM_PRED, tid] = r
            thn = heap_push(tht, tmr[TM_HEAP], thn, clk[0] + ea_off[r], tid)
            _tick(cnt, i, C.DECISION_CHECK, 1, unit, clk)
            continue
        if la[r] != sp_ or sp_ >= r_chk[r]:
            continue
        _, ndecide, nfetch, lat_sum, hn = _try_prefetch(
            kid[pm[p, PM_EV + r_kslot[r]], r_kid[r]], fopt, seed, ndecide, K, incache, inflight,
            csize, cap, lat_sum, nfetch, lunit, need, NR, M, r_kslot, r_chk, ttot, tcnt, avgP,
            min_util, wfree, arr_tier, ht, hk, hn, cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b,
            tr_x, tst)
    return te_nfree, thn, ndecide, nfetch, lat_sum, hn


@njit(cache=True, inline="always")
def _kc_add(k, d, kcount, autil, fsnap, aw):
    """The artifact's count of key ``k`` moves by ``d``; ``autil`` (what its cost cache ranks
    by) follows: ``aw * count + (1 - aw) * fsnap`` (``-w`` of src/EIRES_tune_weight,
    PatternMatcher.cpp line 1562; 1 in the cost-cache build)."""
    kcount[k] += d
    autil[k] = aw * kcount[k] + (1.0 - aw) * fsnap[k]


@njit(cache=True, inline="always")
def _kc_leave(k, first, s, lastfirst, kcount, autil, fsnap, aw):
    """A partial match (first event ``first``) leaves class ``s`` referencing key ``k``: in
    src/EIRES_tune_weight (PatternMatcher.cpp lines 1333-1341) the key's count is kept as its
    future utility when the leaving match's first event differs from the last one that left
    the class, then decremented (lines 879-880 of the cost-cache build)."""
    if first != lastfirst[s]:
        lastfirst[s] = first
        fsnap[k] = kcount[k]
    _kc_add(k, -1, kcount, autil, fsnap, aw)


@njit(cache=True, inline="always")
def _key_refs(s, r, r_kslot, r_chk, use_pf, use_lz):
    """Whether class ``s`` references the key of remote predicate ``r`` in the artifact (a state
    with ``m_externalIdx``, cep_match.cpp lines 1766-1790): the checking class, with PFetch the
    classes before it that hold the key, with LzEval every class after it."""
    return s == r_chk[r] or (use_pf and r_kslot[r] <= s < r_chk[r]) or \
        (use_lz and s > r_chk[r])


@leaf_njit
def _period_prefetch(key, pf_cnt, pf_per, noise_key, fopt, seed, ndecide, nfetch, lat_sum, lunit,
                     wfree, inflight, arr_tier, ht, hk, hn, cnt, i, unit, clk, tracing, tr_k,
                     tr_a, tr_b, tr_x, tst):
    """The artifact's PFetch (``prefetch="artifact"``, PatternMatcher.cpp lines 1035-1046): one
    transition into a class before the check that holds the key; every ``pf_per``-th such
    transition (the first, then every ``-u``-th) sends a prefetch of the key to the workers,
    with no cache, in-flight or utility test; with probability ``F_NOISE`` (``-X``, line 1038)
    the prefetch is of key ``noise_key`` (the artifact's key 1) instead.  Returns ``(pf_cnt,
    ndecide, nfetch, lat_sum, hn)``."""
    issue = pf_cnt % pf_per == 0
    pf_cnt += 1
    if issue:
        kk = key
        if fopt[F_NOISE] > 0.0:
            ndecide += 1
            if uniform01(seed ^ 0x5EED, ndecide) < fopt[F_NOISE]:
                kk = noise_key
        nfetch, lat_sum, hn = _issue_fetch(kk, np.int64(2), seed, nfetch, lat_sum, lunit,
                                           fopt[F_OVER], wfree,
                                           inflight, arr_tier, ht, hk, hn, cnt, i, unit, clk,
                                           tracing, tr_k, tr_a, tr_b, tr_x, tst, fopt[F_REQ])
    return pf_cnt, ndecide, nfetch, lat_sum, hn


@njit(cache=True, inline="always")
def _hbin(x):
    if x <= 1e-9:
        return 0
    b = 1 + int(math.floor((math.log10(x) - HIST_LO_DECADE) * HIST_PER_DECADE))
    return b if b < HIST_BINS else HIST_BINS - 1


@njit(cache=True, inline="always")
def _hist_add(hst, lat_start, lat_arrival):
    hst[0, _hbin(lat_start)] += 1
    hst[1, _hbin(lat_arrival)] += 1


def hist_percentiles(h: np.ndarray, pcts) -> np.ndarray:
    """Percentiles (seconds) of a latency histogram: the geometric centre of the bin holding
    the order statistic of rank ``round(q/100 * (n - 1))`` (0-based); NaN when empty.  Within
    0.06 % of the exact order statistic (half a bin)."""
    h = np.asarray(h, dtype=np.int64)
    n = int(h.sum())
    out = np.full(len(pcts), np.nan)
    if n == 0:
        return out
    cum = np.cumsum(h)
    for j, q in enumerate(pcts):
        rank = int(round(q / 100.0 * (n - 1)))
        b = int(np.searchsorted(cum, rank + 1))
        out[j] = 0.0 if b == 0 else 10.0 ** (HIST_LO_DECADE + (b - 0.5) / HIST_PER_DECADE)
    return out


@leaf_njit
def _fq_pop(fq, nfree, fq_head, fq_tail, s, i, ts, win, count_win, K, NR, lastfirst, kcount,
            autil, fsnap, aw):
    """The artifact's ``State::removeTimeouts`` on class ``s`` (PatternMatcher.cpp 806-889): pop
    entries from the FRONT of the class's buffer while the front one is consumed or expired,
    each popped entry's keys losing one count (lines 879-880); an entry behind a live front
    waits.  Returns ``nfree``."""
    e = fq_head[s]
    while e != -1:
        first = fq[FQ_FIRST, e]
        if fq[FQ_DEAD, e] == 0:
            expired = (i - first >= win) if count_win else (ts[i] - ts[first] > win)
            if not expired:
                break
        for r in range(NR):
            k = fq[FQ_KEY + r, e]
            if k >= 0:
                _kc_leave(k, first, s, lastfirst, kcount, autil, fsnap, aw)
        nx = fq[FQ_NEXT, e]
        fq[FQ_FREE, nfree] = e
        nfree += 1
        e = nx
    fq_head[s] = e
    if e == -1:
        fq_tail[s] = -1
    return nfree


@leaf_njit
def _fq_new(fq, nfree, fq_head, fq_tail, s, first, NR):
    """A new entry at the back of class ``s``'s FIFO (the artifact's ``State::insert``,
    push_back, PatternMatcher.cpp 768-770) for a run whose first event is ``first``, no key
    yet; returns ``(entry, nfree)``."""
    nfree -= 1
    e = fq[FQ_FREE, nfree]
    fq[FQ_NEXT, e] = -1
    fq[FQ_FIRST, e] = first
    fq[FQ_DEAD, e] = 0
    for r in range(NR):
        fq[FQ_KEY + r, e] = -1
    if fq_tail[s] >= 0:
        fq[FQ_NEXT, fq_tail[s]] = e
    else:
        fq_head[s] = e
    fq_tail[s] = e
    return e, nfree


@njit(cache=True)
def _compact(pm, head, tail, newcap, tmr, thn):
    """Copy the live partial matches into a pool of ``newcap`` rows, partition by partition in
    list order, so a partition's scan walks memory forward (the free-list pool it replaces
    scattered greedy runs' partial matches and made every scan step a cache miss).  Relinks
    ``head`` / ``tail`` in place, moves the pending estimated-arrival timers with their partial
    matches (timers of dead ones are voided) and returns the new pool and the bump index."""
    old = pm.shape[0]
    remap = np.full(old, -1, dtype=np.int64)
    npm = np.zeros((newcap, pm.shape[1]), dtype=np.int64)
    for k in range(newcap):
        npm[k, PM_NEXT] = -1
    k = 0
    for g in range(head.shape[0]):
        q = head[g]
        prev = -1
        while q != -1:
            for c in range(pm.shape[1]):
                npm[k, c] = pm[q, c]
            npm[k, PM_NEXT] = -1
            remap[q] = k
            if prev >= 0:
                npm[prev, PM_NEXT] = k
            else:
                head[g] = k
            prev = k
            k += 1
            q = pm[q, PM_NEXT]
        tail[g] = prev
    for h in range(thn):
        tid = tmr[TM_HEAP, h]
        p = tmr[TM_PM, tid]
        if remap[p] >= 0:
            tmr[TM_PM, tid] = remap[p]
        else:
            tmr[TM_PM, tid] = 0
            tmr[TM_GEN, tid] = -1               # its partial match is gone
    return npm, k


@leaf_njit
def _remote_check(r, bit, postponed, ns, complete, pend, tmp, kid, r_kslot, r_kid, r_chk, strat,
                  cap, cache_kind, bl3_ser, ref_pass, use_lz, merge, adaptive, span, lz_block,
                  seed, lunit, fopt, iopt, hn, ht, hk, inflight, arr_tier, wfree, incache, tier,
                  lprev, lnext, lhead, ltail, members, mpos, csize, rank, rkey, rank_h, art,
                  autil, cu, ck, cpos, hits, misses, ea, la, mc, mlast, n_lzroll, nfetch,
                  lat_sum, n_thread, blocked, rtab, attrs, r_op, r_cslot, r_ccol, r_scale, r_off,
                  cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x, tst):
    """Remote predicate ``r`` of a run taking class ``ns`` (the event in ``tmp[ns]``; ``bit`` =
    ``1 << r``, ``postponed`` = a check LzEval deferred from an earlier class): drain completed
    fetches, look the key up, then postpone (LzEval / Hybrid within the span; BL3 at the accept
    state: every key fetched in parallel), block on the fetch or evaluate.  The same steps for a
    new run (``ns = 0``, a check at the first variable) and an extension.  Returns ``(status,
    ``pend``, the store / cache / fetch scalars)``: status 0 = the predicate holds, 1 = deferred
    (its bit set in ``pend``), 2 = it fails."""
    key = kid[tmp[r_kslot[r]], r_kid[r]]
    have = False
    # drain completed fetches, then (with a cache) look the key up
    while hn > 0 and ht[0] <= clk[0]:
        k2 = hk[0]
        hn = heap_pop(ht, hk, hn)
        inflight[k2] = -1.0
        if cap > 0:
            lhead, ltail, csize, rank_h = _cache_put(
                k2, arr_tier[k2], cap, cache_kind, incache, tier, lprev, lnext, lhead, ltail,
                members, mpos, csize, rank, rkey, rank_h, cnt, i, unit, clk, tracing, tr_k,
                tr_a, tr_b, tr_x, tst, art, autil, cu, ck, cpos)
    if strat != S_BL1 and not bl3_ser:
        _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
        have = incache[key] == 1
        if tracing:
            _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_OBSERVE), key,
                   1 if have else 0, 0.0, clk)
        if have:
            hits += 1
            if not ref_pass:
                lhead, ltail = _cache_touch(
                    key, lprev, lnext, lhead, ltail, csize, art, autil,
                    cu, ck, cpos, cnt, i, unit, clk)
            if tier[key] == 1:
                tier[key] = 2
                _tick(cnt, i, C.CACHE_OP, 1, unit, clk)
        else:
            misses += 1
            if adaptive and not postponed and ea[r] == 0 and la[r] >= 0:
                # H(m, la, d) := false once misses reach the threshold
                j = la[r]
                mc[r, j] += 1
                mlast[r, j] = i
                _tick(cnt, i, C.DECISION_CHECK, 1, unit, clk)
                if mc[r, j] >= iopt[I_MTHR]:
                    _tick(cnt, i, C.DECISION_CHECK,
                          _timing(la, ea, mc, r, r_chk[r], r_kslot[r],
                                  iopt[I_MTHR]), unit, clk)
    if not have:
        may_wait = use_lz and not complete and \
            ns <= r_chk[r] + span[r] - 1
        if may_wait and lz_block > 0.0:
            # -Y / -Z: block now instead of postponing (line 1106)
            n_lzroll += 1
            if uniform01(seed ^ 0xB10C, n_lzroll) < lz_block:
                may_wait = False
        bl3_all = strat == S_BL3 and complete and not bl3_ser
        if merge or may_wait or bl3_all:
            # a request to the fetch workers: a new one unless one for
            # the key is in flight and requests merge (LzEval without
            # merging sends one per miss, PatternMatcher.cpp line 1122)
            if inflight[key] < 0.0 or (may_wait and not merge):
                nfetch, lat_sum, hn = _issue_fetch(
                    key, np.int64(1), seed, nfetch, lat_sum, lunit, fopt[F_OVER], wfree,
                    inflight, arr_tier, ht, hk, hn, cnt, i, unit, clk, tracing, tr_k, tr_a,
                    tr_b, tr_x, tst, fopt[F_REQ])
            if bl3_all or may_wait:
                pend |= bit
                # BL3: waited for below, all at once; LzEval: re-checked at a later class
                return (np.int64(1), pend, hn, lhead, ltail, csize, rank_h, hits, misses,
                        n_lzroll, nfetch, lat_sum, n_thread, blocked)
            done = inflight[key]
            if tracing:
                _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_WAIT), key, 0, 0.0, clk)
            if done > clk[0]:
                n_thread += 1
                blocked += done - clk[0]
                clk[0] = done
        else:
            # the artifact's blocking fetch: the matching thread sleeps
            # for the fetch latency itself (PatternMatcher.cpp lines
            # 1071-1072, and 1108-1109 for LzEval at the accept state),
            # whatever is in flight, then updates the cache
            _tick(cnt, i, C.REMOTE_FETCH, 1, unit, clk)
            lat = fetch_latency(seed, nfetch, lunit) + fopt[F_OVER]
            if tracing:
                _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_BLOCK), key, nfetch, lat,
                       clk)
            nfetch += 1
            lat_sum += lat
            n_thread += 1
            blocked += lat
            clk[0] += lat
            # worker fetches that arrived during the sleep reach the
            # cache first (the artifact's cache thread applies them as
            # they come)
            while hn > 0 and ht[0] <= clk[0]:
                k2 = hk[0]
                hn = heap_pop(ht, hk, hn)
                inflight[k2] = -1.0
                if cap > 0:
                    lhead, ltail, csize, rank_h = _cache_put(
                        k2, arr_tier[k2], cap, cache_kind, incache, tier,
                        lprev, lnext, lhead, ltail, members, mpos, csize,
                        rank, rkey, rank_h, cnt, i, unit, clk,
                        tracing, tr_k, tr_a, tr_b, tr_x, tst, art, autil,
                        cu, ck, cpos)
            if cap > 0:
                lhead, ltail, csize, rank_h = _cache_put(
                    key, np.int64(2), cap, cache_kind, incache, tier, lprev, lnext, lhead,
                    ltail, members, mpos, csize, rank, rkey, rank_h, cnt, i, unit, clk,
                    tracing, tr_k, tr_a, tr_b, tr_x, tst, art, autil, cu, ck, cpos)
    # evaluate
    if postponed:
        pend &= ~bit
    if not _remote_holds(r, key, tmp, rtab, attrs, r_op, r_cslot, r_ccol,
                         r_scale, r_off, cnt, i, unit, clk):
        return (np.int64(2), pend, hn, lhead, ltail, csize, rank_h, hits, misses, n_lzroll,
                nfetch, lat_sum, n_thread, blocked)
    if have and ref_pass:
        # a hit whose predicate holds refreshes the key (line 1065)
        lhead, ltail = _cache_touch(
            key, lprev, lnext, lhead, ltail, csize, art, autil, cu, ck,
            cpos, cnt, i, unit, clk)
    return (np.int64(0), pend, hn, lhead, ltail, csize, rank_h, hits, misses, n_lzroll,
            nfetch, lat_sum, n_thread, blocked)


@njit(cache=True)
def _run(types, ts, attrs, arr, part, rtab, vtype, pred_i, pred_f,
         lp_pid, lp_chk, lp_s1, lp_s2,
         r_op, r_cslot, r_ccol, r_kslot, kid, r_kid, r_chk, r_scale, r_off,
         iopt, fopt, unit, trace_cap):
    n = types.shape[0]
    K = rtab.shape[0]
    M = iopt[I_M]
    NR = r_op.shape[0]
    NL = lp_pid.shape[0]
    strat = iopt[I_STRAT]
    cache_kind = iopt[I_CACHE]
    cap = iopt[I_CAP] if strat != S_BL1 else 0
    seed = iopt[I_SEED]
    policy_next = iopt[I_POL] == 1
    count_win = iopt[I_WKIND] == 1
    win = fopt[F_WIN]
    lunit = fopt[F_LUNIT]
    base = fopt[F_BASE]
    tracing = iopt[I_TRACE] == 1
    record = iopt[I_RECORD] == 1
    hist = iopt[I_HIST] == 1
    hst = np.zeros((2, HIST_BINS if hist else 1), dtype=np.int64)
    use_pf = strat == S_PFETCH or strat == S_HYBRID
    use_lz = strat == S_LZEVAL or strat == S_HYBRID
    # the artifact's mechanisms (engines/remote/config.py)
    pf_art = use_pf and iopt[I_PFART] == 1      # one prefetch per pf_per transitions
    pf_util = use_pf and not pf_art             # Algs. 1-3
    pf_per = iopt[I_PFPER]
    # scalar state as np.int64, not literals: one compile of each callee (docs/ENGINEERING.md,
    # "Numba hot loops", no literal arguments)
    pf_cnt = np.int64(0)
    noise_key = iopt[I_NOISEKEY]
    lz_acc = iopt[I_LZACC] == 1                 # postpone to the accept state
    lz_block = fopt[F_LZBLOCK]
    n_lzroll = 0
    bl3_ser = strat == S_BL3 and iopt[I_BL3SER] == 1
    ref_pass = iopt[I_REFPASS] == 1
    use_util = pf_util or use_lz or cache_kind == C_COST
    uper = iopt[I_UPER]

    cnt = np.zeros((max(n, 1), C.N_COUNTERS), dtype=np.int64)
    start = np.zeros(n)
    depart = np.zeros(n)
    clk = np.zeros(2)
    # trace
    tcap = trace_cap if tracing else 1
    tr_k = np.zeros(tcap, dtype=np.int64)
    tr_a = np.zeros(tcap, dtype=np.int64)
    tr_b = np.zeros(tcap, dtype=np.int64)
    tr_x = np.zeros(tcap)
    tst = np.zeros(2, dtype=np.int64)
    # matches
    mcap = 4
    m_id = np.zeros((mcap, 1 + (M if record else 0)), dtype=np.int64)
    m_t = np.zeros(mcap)
    nm = np.int64(0)
    # partial-match pool
    pcap = iopt[I_PCAP]
    pm = np.zeros((pcap, PM_EV + M), dtype=np.int64)
    for k in range(pcap):
        pm[k, PM_NEXT] = -1
    bump = 0                                    # next free pool index (bump allocation)
    psize = np.zeros(iopt[I_NPART], dtype=np.int64)    # live partial matches per partition
    NP = iopt[I_NPART]
    head = np.full(NP, -1, dtype=np.int64)
    tail = np.full(NP, -1, dtype=np.int64)
    slot_count = np.zeros(M, dtype=np.int64)
    live = 0
    # remote store
    wfree = np.zeros(iopt[I_W])
    ht = np.zeros(K + 1)
    hk = np.zeros(K + 1, dtype=np.int64)
    hn = np.int64(0)
    inflight = np.full(K, -1.0)
    arr_tier = np.zeros(K, dtype=np.int8)
    nfetch = np.int64(0)
    lat_sum = 0.0
    blocked = 0.0
    # cache
    incache = np.zeros(K, dtype=np.int8)
    tier = np.zeros(K, dtype=np.int8)
    lprev = np.full(K, -1, dtype=np.int64)
    lnext = np.full(K, -1, dtype=np.int64)
    lhead = np.int64(-1)
    ltail = np.int64(-1)
    csize = np.int64(0)
    members = np.zeros(max(cap, 1), dtype=np.int64)
    # the artifact's utility (utility="artifact"): a count per key, one per transition into a
    # state that references the key (PatternMatcher.cpp line 1127), never re-ranked; the cost
    # cache then keeps the indexed heap of _cu_less
    art_util = iopt[I_UTIL] == 1
    art = art_util and cache_kind == C_COST
    kcount = np.zeros(K if art_util else 1, dtype=np.int64)
    # key_count="live": -1 when a partial match leaves a state referencing the key; accepted
    # matches stay in the accept state until their window expires (PatternMatcher.cpp 879-880,
    # the accept state's buffer is swept by removeTimeouts like the others, line 544): a heap of
    # (expiry, key) for them
    klive = art_util and iopt[I_KLIVE] == 1
    # key_count="fifo": the decrement as the artifact's removeTimeouts makes it - entries leave a
    # state's buffer from its front only, and none before the stream's first window has passed
    # (PatternMatcher.cpp 539-545, 806-889)
    kfifo = art_util and iopt[I_KLIVE] == 2
    fq = np.zeros((FQ_KEY + max(NR, 1), FQ_CAP0 if kfifo else 1), dtype=np.int64)
    fq_t = np.zeros(fq.shape[1])
    for j in range(fq.shape[1]):
        fq[FQ_FREE, j] = fq.shape[1] - 1 - j
    fq_nfree = np.int64(fq.shape[1])
    fq_head = np.full(max(M, 1), -1, dtype=np.int64)
    fq_tail = np.full(max(M, 1), -1, dtype=np.int64)
    fq_new = np.int64(-1)
    aw = fopt[F_AW]
    autil = np.zeros(K if art_util else 1)
    fsnap = np.zeros(K if art_util else 1)
    lastfirst = np.full(max(M, 1), -1, dtype=np.int64)
    xht = np.zeros(16)
    xhk = np.zeros(16, dtype=np.int64)
    xhn = np.int64(0)
    cu = np.zeros(max(cap, 1))
    ck = np.zeros(max(cap, 1), dtype=np.int64)
    cpos = np.full(K if art else 1, -1, dtype=np.int64)
    mpos = np.full(K, -1, dtype=np.int64)
    rank = np.zeros(2 * max(cap, 1), dtype=np.int64)    # the eviction ranking (_rk_less)
    rkey = np.zeros(max(cap, 1))
    rank_h = np.int64(0)
    min_util = 0.0
    hits = 0
    misses = 0
    # utility statistics
    need = np.zeros(K)
    nrm = max(NR, 1) * M
    # transitions per (predicate x class, key) in the statistics window; the last row holds
    # each key's total, so a key that none of them recorded is known to have no future use
    tcnt = np.zeros((nrm + 1, K), dtype=np.int32)
    ttot = np.zeros(nrm, dtype=np.int64)
    swin = iopt[I_SWIN]
    ring_j = np.zeros(swin, dtype=np.int64)
    ring_k = np.zeros(swin, dtype=np.int64)
    ring_pos = 0
    ring_fill = 0
    avgP = np.zeros(M)
    type_seen = np.zeros(max(int(vtype.max()) + 1, 1) if M > 0 else 1, dtype=np.int64)
    busy = 0.0
    # PFetch lookahead / LzEval span per remote predicate
    la = np.zeros(max(NR, 1), dtype=np.int64)
    adaptive = pf_util and iopt[I_LOOK] == 0
    # Alg. 3 state: misses per (predicate, lookahead class) with the event of the last one,
    # estimated-arrival flag, offset, and the monitored extension rate of class chk-1
    # (extensions / exposure = the Poisson rate's maximum-likelihood estimate)
    mc = np.zeros((max(NR, 1), max(M, 1)), dtype=np.int64)
    mlast = np.zeros((max(NR, 1), max(M, 1)), dtype=np.int64)
    ea = np.zeros(max(NR, 1), dtype=np.int8)
    ea_off = np.zeros(max(NR, 1))
    ea_expo = np.zeros(max(NR, 1))
    ea_ext = np.zeros(max(NR, 1))
    t_expo = 0.0
    # estimated-arrival timers: heap of (due time, timer id), records (pm, generation, predicate)
    tht = np.zeros(TIMER_CAP0)
    tmr = np.zeros((TM_ROWS, TIMER_CAP0), dtype=np.int64)
    thn = np.int64(0)
    for j in range(TIMER_CAP0):
        tmr[TM_FREE, j] = TIMER_CAP0 - 1 - j
    te_nfree = TIMER_CAP0
    # remote predicates whose check class can take estimated-arrival timers (Alg. 3 may switch
    # them on mid-event): each new or extended partial match sets at most one timer per each
    n_ea_pred = 0
    for r in range(NR):
        if r_kslot[r] <= r_chk[r] - 1:
            n_ea_pred += 1
    n_ea = 0
    span = np.zeros(max(NR, 1), dtype=np.int64)
    for r in range(NR):
        if iopt[I_LOOK] > 0:
            la[r] = max(r_chk[r] - iopt[I_LOOK], r_kslot[r])
        elif adaptive:
            _timing(la, ea, mc, r, r_chk[r], r_kslot[r], iopt[I_MTHR])
        else:
            la[r] = max(r_chk[r] - 1, r_kslot[r])
        if iopt[I_SPAN] > 0:
            span[r] = iopt[I_SPAN]
        else:
            span[r] = M                         # to the accept state (lz_postpone="accept"),
            #                                     else until the first Eq. (8) refresh
    ndecide = np.int64(0)
    n_thread = 0
    first_remote = False                    # a remote predicate checked at class 0
    for r in range(NR):
        if r_chk[r] == 0:
            first_remote = True
    merge = iopt[I_MERGE] == 1
    # the walks of an event per type (see "Order of work inside the event" below): -2 = the
    # new run, -1 = every class at once, s >= 0 = class s; the last row (types the pattern does
    # not use) only walks to drop expired partial matches (-3 matches no class)
    T = type_seen.shape[0]
    passes = np.full((T + 1, M + 2), -3, dtype=np.int64)
    npass = np.ones(T + 1, dtype=np.int64)
    for t in range(T):
        k = 0
        if iopt[I_ORDER] == 0:
            if M > 0 and vtype[0] == t:
                passes[t, k] = -2
                k += 1
            walks = 0
            for s in range(M - 1):
                if vtype[s + 1] == t:
                    passes[t, k] = s
                    k += 1
                    walks += 1
            if walks == 0:
                passes[t, k] = -3
                k += 1
        else:
            passes[t, k] = -1
            k += 1
            if M > 0 and vtype[0] == t:
                passes[t, k] = -2
                k += 1
        npass[t] = k
    tmp = np.zeros(M, dtype=np.int64)
    server = -np.inf
    for i in range(n):
        now = arr[i] if arr[i] > server else server
        start[i] = now
        clk[0] = now + base
        clk[1] = 0.0
        if tracing:
            _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_START), i, np.int64(0), 0.0, clk)
        clk[1] = base
        ti = types[i]
        if ti < type_seen.shape[0]:
            type_seen[ti] += 1
        # ---------------------------------------------------------------- utility refresh
        if use_util and i % uper == 0:
            for s in range(M):
                avgP[s] = 0.8 * avgP[s] + 0.2 * slot_count[s]
                _tick(cnt, i, C.STAT_UPDATE, 1, unit, clk)
            lbar = lat_sum / nfetch if nfetch > 0 else lunit * 5.5 + fopt[F_OVER]
            # cache utilities: ranking (cost cache) and the minimum (prefetch selection)
            if csize > 0 and (cache_kind == C_COST or pf_util):
                ranked = cache_kind == C_COST and not art
                mu = _member_utils(members, csize, cap, rank, rkey, tier, need, tcnt, ttot, avgP,
                                   NR, M, r_kslot, r_chk, lbar, fopt[F_WC], fopt[F_WF],
                                   ranked or pf_util, pf_util, unit[C.UTILITY_UPDATE], clk)
                cnt[i, C.UTILITY_UPDATE] += csize
                if ranked or pf_util:
                    min_util = mu
                if ranked:
                    _rk_build(rank, rkey, csize)
                    rank_h = csize
                    _tick(cnt, i, C.SEARCH_CMP, csize * int(math.ceil(math.log2(csize + 1))),
                          unit, clk)
            if adaptive:
                for r in range(NR):
                    # H resets: a class's misses are forgotten miss_reset events after the last
                    changed = False
                    for j in range(M):
                        if mc[r, j] > 0 and i - mlast[r, j] > iopt[I_MRES]:
                            mc[r, j] = 0
                            changed = True
                    if changed:
                        _tick(cnt, i, C.DECISION_CHECK,
                              _timing(la, ea, mc, r, r_chk[r], r_kslot[r], iopt[I_MTHR]),
                              unit, clk)
                    # estimated-arrival offset O = 1/lambda - l_remote (Alg. 3 line 12), with
                    # 1/lambda = exposure / extensions of class chk-1; 0 before any evidence
                    if ea_ext[r] > 0:
                        o = ea_expo[r] / ea_ext[r] - lbar
                        ea_off[r] = o if o > 0.0 else 0.0
                    _tick(cnt, i, C.STAT_UPDATE, 1, unit, clk)
            # LzEval span by Eq. (8), time in events: rates = type shares, latencies / mean service
            if use_lz and iopt[I_SPAN] == 0 and not lz_acc and i > 0:
                msvc = busy / i if busy > 0 else base
                if msvc > 0.0:
                    lev = lbar / msvc
                    lpm = (unit[C.PM_CREATED] + unit[C.INSTANCE_WORK]) / msvc
                else:                       # free processing (no cost profile): postponing is free
                    lev = np.inf
                    lpm = 0.0
                for r in range(NR):
                    j = r_chk[r]
                    lam = 0.0
                    sp = 0
                    for mm in range(j + 1, M):
                        lam_m = type_seen[vtype[mm]] / i
                        lam += lam_m
                        e = 1.0 / lam if lam > 0 else np.inf
                        gain = e if e < lev else lev
                        cost = lpm
                        for q in range(j, mm):
                            lam_n = type_seen[vtype[q + 1]] / i
                            cost *= avgP[q] * lam_n * e
                        _tick(cnt, i, C.DECISION_CHECK, 1, unit, clk)
                        if gain > cost:
                            sp = mm - j
                        else:
                            break
                    span[r] = sp
        # the in-flight heap: without merging a key can be in flight more than once, so it
        # grows here (never inside the loops below) to hold what this event can add: one
        # timed prefetch per pending timer, and per live partial match of the event's partition
        # (and the new run) one request per remote predicate plus one prefetch
        g = part[i]
        need_h = hn + thn + (psize[g] + 1) * (2 * NR + 1)
        if need_h > ht.shape[0]:
            ht, hk = _grow_heap(ht, hk, hn, need_h)
        # ------------------------------------------------ Alg. 1 lines 8-12: timed prefetches
        if adaptive:
            for r in range(NR):
                if r_chk[r] >= 1:
                    ea_expo[r] += slot_count[r_chk[r] - 1] * (now - t_expo)
            t_expo = now
            while thn > 0 and tht[0] <= clk[0]:
                tid = tmr[TM_HEAP, 0]
                thn = heap_pop(tht, tmr[TM_HEAP], thn)
                tmr[TM_FREE, te_nfree] = tid
                te_nfree += 1
                p = tmr[TM_PM, tid]
                r = tmr[TM_PRED, tid]
                if pm[p, PM_ALIVE] == 0 or pm[p, PM_GEN] != tmr[TM_GEN, tid] or pm[p, PM_SLOT] != r_chk[r] - 1:
                    continue                        # the partial match moved on or died
                issued, ndecide, nfetch, lat_sum, hn = _try_prefetch(
                    kid[pm[p, PM_EV + r_kslot[r]], r_kid[r]], fopt, seed, ndecide, K, incache,
                    inflight, csize, cap, lat_sum, nfetch, lunit, need, NR, M, r_kslot, r_chk,
                    ttot, tcnt, avgP, min_util, wfree, arr_tier, ht, hk, hn, cnt, i, unit, clk,
                    tracing, tr_k, tr_a, tr_b, tr_x, tst)
                if issued:
                    n_ea += 1
        # ---------------------------------------------------------------- partial matches
        g = part[i]
        # every store grows here, never inside the loops below (see PM_SLOT): the event can
        # add one partial match, one match and n_ea_pred timers per live partial match of its
        # partition, plus a new run
        if pm.shape[0] - bump < psize[g] + 1:
            # compact the pool (each partition's list contiguous, in list order, so scans walk
            # memory forward) and double it when compaction alone leaves too little room
            newcap = pm.shape[0]
            while newcap - live < psize[g] + 1 or newcap < 2 * live:
                newcap *= 2
            pm, bump = _compact(pm, head, tail, newcap, tmr, thn)
        if not hist and m_t.shape[0] < nm + psize[g] + 1:
            newcap = m_t.shape[0]
            while newcap < nm + psize[g] + 1:
                newcap *= 2
            n_id = np.zeros((newcap, m_id.shape[1]), dtype=np.int64)
            n_id[:nm] = m_id[:nm]
            n_t = np.zeros(newcap)
            n_t[:nm] = m_t[:nm]
            m_id = n_id
            m_t = n_t
        if klive:
            while xhn > 0 and ((count_win and xht[0] <= i) or
                               (not count_win and ts[i] > xht[0])):
                _kc_leave(xhk[0] % K, xhk[0] // K, M - 1, lastfirst, kcount, autil, fsnap, aw)
                xhn = heap_pop(xht, xhk, xhn)
            if xht.shape[0] < xhn + (psize[g] + 1) * NR:
                xht, xhk = _grow_heap(xht, xhk, xhn, xhn + (psize[g] + 1) * NR)
        if kfifo:
            if fq_nfree < psize[g] + 2:
                fq_t, fq, fq_nfree = _grow_timers(fq_t, fq, fq_nfree, psize[g] + 2,
                                                  np.int64(FQ_FREE))
            if (count_win and i >= win) or (not count_win and ts[i] - ts[0] > win):
                for s in range(M):
                    fq_nfree = _fq_pop(fq, fq_nfree, fq_head, fq_tail, np.int64(s), i, ts, win,
                                       count_win, K, NR, lastfirst, kcount, autil, fsnap, aw)
        if pf_util and te_nfree < (psize[g] + 1) * n_ea_pred:
            tht, tmr, te_nfree = _grow_timers(tht, tmr, te_nfree, (psize[g] + 1) * n_ea_pred,
                                              np.int64(TM_FREE))
        # Order of work inside the event (``in_event_order``): "class" = the authors' artifact,
        # which runs the event's transitions in query order, each over the partial matches of
        # its source state (PatternMatcher::event, src/EIRES_cost_cache/PatternMatcher.cpp
        # lines 537-559: the loop over m_Transitions at line 547) - a new run first when the
        # event can start one, then one walk per class whose next variable takes the event, in
        # class order, so a D event blocks for the fetches of the class-3 partial matches
        # before it completes class-7 ones.  "arrival" = one walk, oldest partial match first,
        # then the new run (the alternative reading).
        tt = ti if ti < npass.shape[0] - 1 else npass.shape[0] - 1
        old_tail = tail[g]
        first_walk = True
        for ps in range(npass[tt]):
            pslot = passes[tt, ps]
            if pslot == -2:
                # ---------------------------------------------------------- a new run
                if M > 0 and ti == vtype[0]:
                    ok = True
                    for t in range(NL):
                        if lp_chk[t] != 0:
                            continue
                        _tick(cnt, i, C.PRED_EVAL, 1, unit, clk)
                        if not eval_pred(pred_i, pred_f, lp_pid[t], attrs, i, i):
                            ok = False
                            break
                    pend0 = np.int64(0)
                    if ok and first_remote:
                        # remote predicates checked at the first variable (section 7.3, Fig.
                        # 12b: the remote evaluation "to be beginning of the pattern sequence"):
                        # the extension's check at class 0 (the wrapper refuses it when M == 1)
                        tmp[0] = i
                        for r in range(NR):
                            if r_chk[r] != 0:
                                continue
                            bit = np.int64(1) << r
                            if strat == S_BL3:
                                pend0 |= bit               # BL3: everything waits for completion
                                continue
                            (st_r, pend0, hn, lhead, ltail, csize, rank_h, hits, misses,
                             n_lzroll, nfetch, lat_sum, n_thread, blocked) = _remote_check(
                                r, bit, False, np.int64(0), False, pend0, tmp, kid, r_kslot, r_kid,
                                r_chk, strat, cap, cache_kind, bl3_ser, ref_pass, use_lz, merge,
                                adaptive, span, lz_block, seed, lunit, fopt, iopt, hn, ht, hk,
                                inflight, arr_tier, wfree, incache, tier, lprev, lnext, lhead,
                                ltail, members, mpos, csize, rank, rkey, rank_h, art, autil,
                                cu, ck, cpos, hits, misses, ea, la, mc, mlast, n_lzroll, nfetch,
                                lat_sum, n_thread, blocked, rtab, attrs, r_op, r_cslot, r_ccol,
                                r_scale, r_off, cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x,
                                tst)
                            if st_r == 2:
                                ok = False
                                break
                    if ok:
                        if M == 1:
                            _tick(cnt, i, C.MATCH_EMIT, 1, unit, clk)
                            if tracing:
                                _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_EMIT), nm,
                                       np.int64(0), 0.0, clk)
                            if hist:
                                _hist_add(hst, clk[0] - now, clk[0] - arr[i])
                            else:
                                m_t[nm] = clk[0]
                                m_id[nm, 0] = i
                                if record:
                                    m_id[nm, 1] = i
                            nm += 1
                        else:
                            p = bump
                            bump += 1
                            pm[p, PM_EV] = i
                            pm[p, PM_SLOT] = 0
                            pm[p, PM_PEND] = pend0
                            pm[p, PM_ALIVE] = 1
                            pm[p, PM_GEN] += 1
                            pm[p, PM_NEXT] = -1
                            pm[p, PM_FQ] = -1
                            if tail[g] >= 0:
                                pm[tail[g], PM_NEXT] = p
                            else:
                                head[g] = p
                            tail[g] = p
                            slot_count[0] += 1
                            live += 1
                            psize[g] += 1
                            _tick(cnt, i, C.PM_CREATED, 1, unit, clk)
                            if art_util:
                                # +1 per key class 0 references (PatternMatcher.cpp line 1127):
                                # a check at the first variable, or PFetch's lookahead from it
                                for r in range(NR):
                                    if _key_refs(np.int64(0), r, r_kslot, r_chk, use_pf, use_lz):
                                        _kc_add(kid[i, r_kid[r]], 1, kcount, autil, fsnap, aw)
                                        _tick(cnt, i, C.UTILITY_UPDATE, 1, unit, clk)
                                        if kfifo:
                                            if pm[p, PM_FQ] < 0:
                                                e0, fq_nfree = _fq_new(
                                                    fq, fq_nfree, fq_head, fq_tail, np.int64(0),
                                                    np.int64(i), NR)
                                                pm[p, PM_FQ] = e0
                                            fq[FQ_KEY + r, pm[p, PM_FQ]] = kid[i, r_kid[r]]
                            if use_util:
                                ring_pos, ring_fill = _enter_class(
                                    pm, p, 0, pend0, NR, M, r_chk, r_kslot, kid, r_kid, need, tcnt,
                                    ttot, ring_j, ring_k, ring_pos, ring_fill, swin, cnt, i, unit,
                                    clk)
                            if pf_util and _wants_prefetch(0, NR, la, ea, r_chk):
                                te_nfree, thn, ndecide, nfetch, lat_sum, hn = _entry_prefetch(
                                    p, pm, kid, r_kid, r_kslot, r_chk, NR, M, la, ea, ea_off, tmr,
                                    tht, thn, te_nfree, fopt, seed, ndecide, K, incache, inflight,
                                    csize, cap, lat_sum, nfetch, lunit, need, ttot, tcnt, avgP,
                                    min_util, wfree, arr_tier, ht, hk, hn, cnt, i, unit, clk,
                                    tracing, tr_k, tr_a, tr_b, tr_x, tst)
                            elif pf_art:
                                for r in range(NR):
                                    if r_kslot[r] == 0 and r_chk[r] > 0:
                                        pf_cnt, ndecide, nfetch, lat_sum, hn = _period_prefetch(
                                            kid[i, r_kid[r]], pf_cnt, pf_per, noise_key, fopt,
                                            seed, ndecide, nfetch, lat_sum, lunit, wfree,
                                            inflight, arr_tier, ht, hk, hn, cnt, i, unit, clk,
                                            tracing, tr_k, tr_a, tr_b, tr_x, tst)
                continue
            q = head[g]
            prev = -1
            stop = old_tail == -1
            while q != -1 and not stop:
                if q == old_tail:
                    stop = True
                qn = pm[q, PM_NEXT]
                s = pm[q, PM_SLOT]
                if pm[q, PM_EV + s] == i:
                    # created or extended by this event: it is not offered the event again
                    prev = q
                    q = qn
                    continue
                expired = False
                if first_walk:
                    # the first walk of the event offers it to every partial match of the
                    # partition and drops the expired ones (PatternMatcher::event removes
                    # timeouts before any transition, PatternMatcher.cpp lines 541-545)
                    _tick(cnt, i, C.INSTANCE_WORK, 1, unit, clk)
                    first = pm[q, PM_EV]
                    expired = (i - first >= win) if count_win else (ts[i] - ts[first] > win)
                remove = expired
                ns = s + 1
                if not expired and (pslot == -1 or s == pslot) and ti == vtype[ns]:
                    ok = True
                    for t in range(NL):
                        if lp_chk[t] != ns:
                            continue
                        e1 = i if lp_s1[t] == ns else pm[q, PM_EV + lp_s1[t]]
                        e2 = e1
                        if lp_s2[t] >= 0:
                            e2 = i if lp_s2[t] == ns else pm[q, PM_EV + lp_s2[t]]
                        _tick(cnt, i, C.PRED_EVAL, 1, unit, clk)
                        if not eval_pred(pred_i, pred_f, lp_pid[t], attrs, e1, e2):
                            ok = False
                            break
                    if ok:
                        if kfifo and policy_next and pm[q, PM_FQ] >= 0:
                            # the run moves on: its entry in class s is consumed
                            # (PatternMatcher.cpp 1027-1028), left to the FIFO
                            fq[FQ_DEAD, pm[q, PM_FQ]] = 1
                        if adaptive:
                            for r in range(NR):
                                if r_chk[r] == ns:
                                    ea_ext[r] += 1         # an arrival that extends class chk-1
                                    _tick(cnt, i, C.STAT_UPDATE, 1, unit, clk)
                        for s2 in range(ns):
                            tmp[s2] = pm[q, PM_EV + s2]
                        tmp[ns] = i
                        pend = pm[q, PM_PEND]
                        alive = True
                        complete = ns == M - 1
                        # remote predicates: postponed ones first, then those checked at ns
                        for r in range(NR):
                            bit = np.int64(1) << r
                            postponed = (pend & bit) != 0
                            if not postponed and r_chk[r] != ns:
                                continue
                            if strat == S_BL3 and not complete:
                                pend |= bit                # BL3: everything waits for completion
                                continue
                            (st_r, pend, hn, lhead, ltail, csize, rank_h, hits, misses,
                             n_lzroll, nfetch, lat_sum, n_thread, blocked) = _remote_check(
                                r, bit, postponed, ns, complete, pend, tmp, kid, r_kslot, r_kid,
                                r_chk, strat, cap, cache_kind, bl3_ser, ref_pass, use_lz, merge,
                                adaptive, span, lz_block, seed, lunit, fopt, iopt, hn, ht, hk,
                                inflight, arr_tier, wfree, incache, tier, lprev, lnext, lhead,
                                ltail, members, mpos, csize, rank, rkey, rank_h, art, autil, cu,
                                ck, cpos, hits, misses, ea, la, mc, mlast, n_lzroll, nfetch,
                                lat_sum, n_thread, blocked, rtab, attrs, r_op, r_cslot, r_ccol,
                                r_scale, r_off, cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x,
                                tst)
                            if st_r == 2:
                                alive = False
                                if postponed:
                                    remove = True          # the partial match itself is dead
                                break
                        if alive and strat == S_BL3 and complete and pend != 0:
                            # BL3: wait for the slowest of the keys fetched in parallel
                            for r in range(NR):
                                bit = np.int64(1) << r
                                if (pend & bit) == 0:
                                    continue
                                key = kid[tmp[r_kslot[r]], r_kid[r]]
                                if incache[key] == 1:
                                    continue
                                done = inflight[key]
                                if done < 0.0:
                                    continue
                                if tracing:
                                    _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_WAIT), key,
                                           np.int64(0), 0.0, clk)
                                if done > clk[0]:
                                    blocked += done - clk[0]
                                    clk[0] = done
                            for r in range(NR):
                                bit = np.int64(1) << r
                                if (pend & bit) == 0:
                                    continue
                                key = kid[tmp[r_kslot[r]], r_kid[r]]
                                if not _remote_holds(r, key, tmp, rtab, attrs, r_op, r_cslot,
                                                     r_ccol, r_scale, r_off, cnt, i, unit, clk):
                                    alive = False
                                    break
                            pend = 0
                        if policy_next:
                            remove = True                  # the run moves on (or dies)
                        fq_new = np.int64(-1)
                        if alive and art_util:
                            # the artifact's per-key counts: +1 per transition into a state that
                            # references the key (PatternMatcher.cpp line 1127): the checking
                            # class, the lookahead classes with PFetch, the later ones with
                            # LzEval (cep_match.cpp lines 1763-1790)
                            for r in range(NR):
                                if _key_refs(ns, r, r_kslot, r_chk, use_pf, use_lz):
                                    kk = kid[tmp[r_kslot[r]], r_kid[r]]
                                    _kc_add(kk, 1, kcount, autil, fsnap, aw)
                                    _tick(cnt, i, C.UTILITY_UPDATE, 1, unit, clk)
                                    if kfifo:
                                        if fq_new < 0:
                                            fq_new, fq_nfree = _fq_new(fq, fq_nfree, fq_head,
                                                                       fq_tail, ns, tmp[0], NR)
                                        fq[FQ_KEY + r, fq_new] = kk
                                    if klive and complete:
                                        # it leaves the accept state when its window expires
                                        xe = float(tmp[0] + win) if count_win else \
                                            ts[tmp[0]] + win
                                        xhn = heap_push(xht, xhk, xhn, xe, tmp[0] * K + kk)
                        if alive:
                            if complete:
                                _tick(cnt, i, C.MATCH_EMIT, 1, unit, clk)
                                if tracing:
                                    _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_EMIT), nm,
                                           np.int64(0), 0.0, clk)
                                if hist:
                                    _hist_add(hst, clk[0] - now, clk[0] - arr[i])
                                else:
                                    m_t[nm] = clk[0]
                                    m_id[nm, 0] = i
                                    if record:
                                        for s2 in range(M):
                                            m_id[nm, 1 + s2] = tmp[s2]
                                nm += 1
                            elif policy_next:
                                # extend in place
                                if use_util:
                                    for r in range(NR):
                                        bit = np.int64(1) << r
                                        if s == r_chk[r] - 1 or (pm[q, PM_PEND] & bit) != 0:
                                            need[kid[pm[q, PM_EV + r_kslot[r]], r_kid[r]]] -= 1
                                if klive:
                                    for r in range(NR):
                                        if _key_refs(s, r, r_kslot, r_chk, use_pf, use_lz):
                                            _kc_leave(kid[pm[q, PM_EV + r_kslot[r]], r_kid[r]],
                                                      pm[q, PM_EV], s, lastfirst, kcount, autil,
                                                      fsnap, aw)
                                slot_count[s] -= 1
                                slot_count[ns] += 1
                                pm[q, PM_EV + ns] = i
                                pm[q, PM_SLOT] = ns
                                pm[q, PM_PEND] = pend
                                pm[q, PM_FQ] = fq_new
                                remove = False
                                _tick(cnt, i, C.PM_CREATED, 1, unit, clk)
                                _tick(cnt, i, C.PM_REMOVED, 1, unit, clk)
                                if use_util:
                                    ring_pos, ring_fill = _enter_class(
                                        pm, q, ns, pend, NR, M, r_chk, r_kslot, kid, r_kid, need,
                                        tcnt, ttot, ring_j, ring_k, ring_pos, ring_fill, swin, cnt,
                                        i, unit, clk)
                                tmp[0] = -1 - q             # marker: prefetch hook for pm q
                            else:
                                # greedy: a new partial match at the tail
                                p = bump                # room reserved at the event's start
                                bump += 1
                                for s2 in range(ns + 1):
                                    pm[p, PM_EV + s2] = tmp[s2]
                                pm[p, PM_SLOT] = ns
                                pm[p, PM_PEND] = pend
                                pm[p, PM_FQ] = fq_new
                                pm[p, PM_ALIVE] = 1
                                pm[p, PM_GEN] += 1
                                pm[p, PM_NEXT] = -1
                                if tail[g] >= 0:
                                    pm[tail[g], PM_NEXT] = p
                                else:
                                    head[g] = p
                                tail[g] = p
                                slot_count[ns] += 1
                                live += 1
                                psize[g] += 1
                                _tick(cnt, i, C.PM_CREATED, 1, unit, clk)
                                if use_util:
                                    ring_pos, ring_fill = _enter_class(
                                        pm, p, ns, pend, NR, M, r_chk, r_kslot, kid, r_kid, need,
                                        tcnt, ttot, ring_j, ring_k, ring_pos, ring_fill, swin, cnt,
                                        i, unit, clk)
                                tmp[0] = -1 - p
                            # ------------------------------------------ PFetch: lookahead hook
                            if pf_util and tmp[0] < 0 and _wants_prefetch(
                                    pm[-1 - tmp[0], PM_SLOT], NR, la, ea, r_chk):
                                te_nfree, thn, ndecide, nfetch, lat_sum, hn = _entry_prefetch(
                                    -1 - tmp[0], pm, kid, r_kid, r_kslot, r_chk, NR, M, la, ea,
                                    ea_off, tmr, tht, thn, te_nfree, fopt, seed, ndecide, K,
                                    incache, inflight, csize, cap, lat_sum, nfetch, lunit, need,
                                    ttot, tcnt, avgP, min_util, wfree, arr_tier, ht, hk, hn, cnt,
                                    i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x, tst)
                            elif pf_art and tmp[0] < 0:
                                pq = -1 - tmp[0]
                                for r in range(NR):
                                    if r_kslot[r] <= ns < r_chk[r]:
                                        pf_cnt, ndecide, nfetch, lat_sum, hn = _period_prefetch(
                                            kid[pm[pq, PM_EV + r_kslot[r]], r_kid[r]], pf_cnt,
                                            pf_per, noise_key, fopt, seed, ndecide, nfetch,
                                            lat_sum, lunit, wfree, inflight, arr_tier, ht, hk, hn,
                                            cnt, i, unit, clk, tracing, tr_k, tr_a, tr_b, tr_x,
                                            tst)
                            tmp[0] = 0
                        else:
                            if policy_next:
                                remove = True
                if remove:
                    if klive:
                        # PatternMatcher.cpp lines 879-880: leaving a referencing state
                        for r in range(NR):
                            if _key_refs(s, r, r_kslot, r_chk, use_pf, use_lz):
                                _kc_leave(kid[pm[q, PM_EV + r_kslot[r]], r_kid[r]],
                                          pm[q, PM_EV], s, lastfirst, kcount, autil, fsnap, aw)
                    if use_util:
                        for r in range(NR):
                            bit = np.int64(1) << r
                            if s == r_chk[r] - 1 or (pm[q, PM_PEND] & bit) != 0:
                                need[kid[pm[q, PM_EV + r_kslot[r]], r_kid[r]]] -= 1
                    _tick(cnt, i, C.PM_REMOVED, 1, unit, clk)
                    slot_count[s] -= 1
                    live -= 1
                    psize[g] -= 1
                    pm[q, PM_ALIVE] = 0
                    if prev >= 0:
                        pm[prev, PM_NEXT] = qn
                    else:
                        head[g] = qn
                    if tail[g] == q:
                        tail[g] = prev
                    if q == old_tail:
                        old_tail = prev             # later walks stop at the last old survivor
                else:
                    prev = q
                q = qn
            first_walk = False
        cnt[i, C.LIVE_PM] = live
        if tracing:
            _trace(tr_k, tr_a, tr_b, tr_x, tst, np.int64(TR_END), i, np.int64(0), 0.0, clk)
        depart[i] = clk[0]
        busy += clk[0] - now
        server = clk[0]
    stats = np.array([float(nfetch), blocked, float(hits), float(misses), float(nm),
                      float(n_ea), float(n_thread)])
    nst = 0 if hist else nm
    m_ev = np.ascontiguousarray(m_id[:nst, 1:]) if record else np.zeros((0, M), dtype=np.int64)
    return (cnt, start, depart, m_ev, m_t[:nst], np.ascontiguousarray(m_id[:nst, 0]), stats,
            hst, kcount,
            tr_k[:tst[0]], tr_a[:tst[0]], tr_b[:tst[0]], tr_x[:tst[0]], tst[1])


# ----------------------------------------------------------------------------- Python wrapper
def _prepare(program, stream, opts: RemoteOptions):
    """Check the program fits the kernel and build its numeric tables."""
    if len(program.branches) != 1:
        raise CepsimInputError("remote engine: the pattern must be one flat SEQ (no OR / AND "
                               "alternatives); split it into one run per alternative")
    br = program.branches[0]
    if len(br.neg_vars) or np.any(program.var_kind == KIND_KLEENE):
        raise CepsimInputError("remote engine: Kleene closure and NOT are not supported; use a "
                               "SEQ of plain events")
    pos = [int(v) for v in br.pos_vars]
    slot = {v: k for k, v in enumerate(pos)}
    same_cols = set()
    for w in program.pattern.where:
        if isinstance(w, Same):
            same_cols.add(program.schema.attr_column(w.attr))
    lp, rp = [], []
    at = program.remote_at if program.remote_at is not None else \
        np.full(len(program.pred_i), -1, np.int32)
    for pid in br.pred_ids:
        pid = int(pid)
        kind, op, v1, c1, v2, c2, _ = (int(x) for x in program.pred_i[pid])
        if kind == PK_REMOTE:
            kslot = slot[v2]
            cslot = slot[v1] if c1 >= 0 else -1
            chk = int(slot[int(at[pid])]) if at[pid] >= 0 else max(kslot, cslot)
            if chk == 0 and len(pos) == 1:
                raise CepsimInputError(f"remote engine: '{program.pred_text[pid]}' in a pattern of "
                                       "one event is not supported; use a SEQ of two or more "
                                       "events")
            rp.append((op, cslot, max(c1, 0), kslot, c2, chk, float(program.pred_f[pid, 0]),
                       float(program.pred_f[pid, 1])))
            continue
        if (kind == 0 and op == OP_EQ and v2 >= 0 and c1 == c2 and c1 in same_cols
                and program.pred_text[pid].startswith("SAME[")):
            continue                          # guaranteed by the SAME partition
        s1 = slot[v1]
        s2 = slot[v2] if v2 >= 0 else -1
        lp.append((pid, max(s1, s2), s1, s2))
    if len(rp) > 62:
        raise CepsimInputError("remote engine: at most 62 REMOTE predicates per pattern")
    key_cols = sorted({r[4] for r in rp})
    # keys of any value: dense ids once per run (engines.remote.table)
    kid, uniq = factorize_keys(stream.attrs, key_cols, stream.source, program.schema.attr_names)
    rtab = dense_values(opts.remote_table, uniq)
    if same_cols:
        c = min(same_cols)
        _, partv = np.unique(stream.attrs[:, c], return_inverse=True)
        part = partv.astype(np.int64)
        n_part = int(part.max()) + 1 if len(part) else 1
    else:
        part = np.zeros(len(stream), np.int64)
        n_part = 1

    def arr(rows, k, dt):
        return np.array([r[k] for r in rows], dtype=dt)
    tables = dict(
        vtype=np.array([int(program.var_type[v]) for v in pos], np.int32),
        lp_pid=arr(lp, 0, np.int64), lp_chk=arr(lp, 1, np.int64), lp_s1=arr(lp, 2, np.int64),
        lp_s2=arr(lp, 3, np.int64),
        r_op=arr(rp, 0, np.int64), r_cslot=arr(rp, 1, np.int64), r_ccol=arr(rp, 2, np.int64),
        r_kslot=arr(rp, 3, np.int64),
        r_kid=np.array([key_cols.index(r[4]) for r in rp], dtype=np.int64),
        r_chk=arr(rp, 5, np.int64),
        r_scale=arr(rp, 6, np.float64), r_off=arr(rp, 7, np.float64))
    return pos, tables, rtab, part, n_part, kid, uniq


def run_remote(program, stream, arrivals=None, unit_cost=None, base_cost: float = 0.0,
               remote=None, record_matches: bool = True, trace_cap: int = 0,
               initial_capacity: int = 1024, latency_hist: bool = False,
               max_partial_matches: int | None = None, max_matches: int | None = None,
               **options) -> EngineResult:
    """Evaluate ``program`` with an EIRES strategy in virtual time (see module docstring).

    ``arrivals`` (default: all at 0) are the events' arrival times; ``unit_cost`` a
    ``float64[N_COUNTERS]`` price per counter (default: free) and ``base_cost`` the per-event
    overhead, both in seconds; ``remote`` the remote table (None = identity); other options are
    ``RemoteOptions`` fields.  ``info`` carries ``emit_time`` per match, ``start`` / ``depart``
    per event, fetch / hit / miss counts, blocked time, with ``utility="artifact"`` the final
    per-key counts (``key_count``, aligned with the sorted key values ``key_values``) and
    (``trace_cap > 0``) the trace of store interactions that ``sim.core.remote_queue`` replays
    in SimPy.  ``max_partial_matches`` /
    ``max_matches`` are checked after the run (``engines.registry.check_caps``; the kernel has
    no caps of its own).
    """
    if latency_hist and (record_matches or trace_cap > 0):
        raise CepsimInputError("remote engine: latency_hist=True keeps no per-match data; pass "
                               "record_matches=False and trace_cap=0 with it")
    if remote is not None:
        options["remote_table"] = remote
    opts = options_from(options)
    pos, t, rtab, part, n_part, kid, uniq = _prepare(program, stream, opts)
    n = len(stream)
    a = np.zeros(n) if arrivals is None else np.ascontiguousarray(arrivals, dtype=np.float64)
    if a.shape != (n,) or (n and (not np.all(np.isfinite(a)) or np.any(np.diff(a) < 0))):
        raise CepsimInputError(f"remote engine: arrivals must be {n} finite non-decreasing times")
    unit = np.zeros(C.N_COUNTERS) if unit_cost is None else \
        np.ascontiguousarray(unit_cost, dtype=np.float64)
    if unit.shape != (C.N_COUNTERS,):
        raise CepsimInputError(f"remote engine: unit_cost must have {C.N_COUNTERS} entries")
    iopt = np.zeros(N_IOPT, np.int64)
    iopt[I_PCAP] = max(int(initial_capacity), 1)
    iopt[I_STRAT] = opts.strategy_code
    iopt[I_CACHE] = opts.cache_code
    iopt[I_CAP] = opts.cache_size
    iopt[I_W] = opts.workers
    iopt[I_SEED] = int(opts.seed) & 0x7FFFFFFFFFFFFFFF
    iopt[I_LOOK] = opts.lookahead
    iopt[I_SPAN] = opts.lz_span
    iopt[I_UPER] = opts.utility_period
    iopt[I_SWIN] = opts.stat_window
    iopt[I_MTHR] = opts.miss_threshold
    iopt[I_MRES] = opts.miss_reset
    iopt[I_POL] = 1 if program.policy == POLICY_NEXT else 0
    iopt[I_WKIND] = 1 if program.window_kind == WIN_COUNT else 0
    iopt[I_M] = len(pos)
    iopt[I_NPART] = n_part
    iopt[I_TRACE] = 1 if trace_cap > 0 else 0
    iopt[I_RECORD] = 1 if record_matches else 0
    iopt[I_HIST] = 1 if latency_hist else 0
    iopt[I_ORDER] = 0 if opts.in_event_order == "class" else 1
    iopt[I_MERGE] = 1 if opts.merge_requests else 0
    iopt[I_UTIL] = 1 if opts.utility == "artifact" else 0
    iopt[I_LZACC] = 1 if opts.lz_postpone == "accept" else 0
    iopt[I_BL3SER] = 1 if opts.bl3_fetch == "serial" else 0
    iopt[I_REFPASS] = 1 if opts.cache_refresh == "pass" else 0
    iopt[I_KLIVE] = {"live": 1, "fifo": 2}.get(opts.key_count, 0)
    iopt[I_PFART] = 1 if opts.prefetch == "artifact" else 0
    iopt[I_PFPER] = opts.prefetch_period
    # the artifact's noise key is key 1 (line 1038); its dense id, or the smallest key's
    iopt[I_NOISEKEY] = int(np.searchsorted(uniq, 1.0)) if len(uniq) and \
        np.any(uniq == 1.0) else 0
    fopt = np.array([opts.latency_unit_us * 1e-6, opts.omega_fetch, opts.omega_cache, opts.noise,
                     program.window, float(base_cost), opts.fetch_overhead_us * 1e-6,
                     float(opts.lz_block_prob), float(opts.artifact_weight),
                     float(opts.request_cost_us) * 1e-6],
                    dtype=np.float64)
    res = _run(stream.types.astype(np.int32), np.ascontiguousarray(stream.ts, np.float64),
               np.ascontiguousarray(stream.attrs, np.float64), a, part, rtab, t["vtype"],
               program.pred_i, program.pred_f, t["lp_pid"], t["lp_chk"], t["lp_s1"], t["lp_s2"],
               t["r_op"], t["r_cslot"], t["r_ccol"], t["r_kslot"], kid, t["r_kid"], t["r_chk"],
               t["r_scale"], t["r_off"], iopt, fopt, unit, max(int(trace_cap), 1))
    cnt, start, depart, m_ev, m_t, m_det, stats, hst, kcount, tk, ta, tb, tx, overflow = res
    if trace_cap > 0 and overflow:
        raise CepsimInputError(f"remote engine: the trace needs more than trace_cap={trace_cap} "
                               "records; pass a larger trace_cap or a shorter stream")
    names = tuple(program.var_names[v] for v in program.positive_vars)
    col = {v: j for j, v in enumerate(program.positive_vars)}
    nm = int(stats[4])
    if record_matches:
        mpos = np.full((nm, len(names)), -1, np.int64)
        for k, v in enumerate(pos):
            mpos[:, col[v]] = m_ev[:, k]
        zero = np.zeros_like(mpos)
    else:
        # no positions asked for: read-only broadcast views keep the MatchSet's shape without
        # allocating 3 x 8 x V bytes per match (greedy DS2 runs emit tens of millions)
        mpos = np.broadcast_to(np.int64(-1), (nm, len(names)))
        zero = np.broadcast_to(np.int64(0), (nm, len(names)))
    det = np.broadcast_to(np.int64(-1), (nm,)) if latency_hist else m_det
    matches = MatchSet(names, tuple(False for _ in names), mpos, zero, zero,
                       np.zeros(0, np.int64), det)
    info = {"engine": "remote", "strategy": opts.strategy, "cache": opts.cache,
            "emit_time": m_t, "start": start, "depart": depart,
            "fetches": int(stats[0]), "blocked_time": float(stats[1]), "cache_hits": int(stats[2]),
            "cache_misses": int(stats[3]), "ea_prefetches": int(stats[5]),
            "blocking_fetches": int(stats[6]),
            "remote_keys": int(len(uniq)), "remote_missing_keys": int(np.isnan(rtab).sum()),
            "key_values": uniq,
            "key_count": kcount if opts.utility == "artifact" else np.zeros(0, np.int64)}
    if trace_cap > 0:
        info["trace"] = (tk, ta, tb, tx)
    if latency_hist:
        info["lat_hist"] = hst[0]
        info["arr_lat_hist"] = hst[1]
    result = EngineResult(matches=matches, counters=cnt[:max(n, 1)], info=info)
    from engines.registry import check_caps
    check_caps("remote", result, max_partial_matches, max_matches)
    return result
