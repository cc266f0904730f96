"""The shedding queue's server loop compiled: ``run_shedding``'s plain-clock
loop in Numba for the shedders with compiled hooks (``engines.shedding.kernel_hooks``).

Same operations in the same order as the Python server of ``sim.core.shedding_queue`` (its module
docstring is the semantics): ingest the arrivals up to the clock (push, the shedder's
``on_arrival`` row priced and charged to the server or the ingest resource), pop the next
queued event, ``before_step``, step the engine (``step_kernel``, the ``Stepper``'s arrays),
price the step (``np.dot(row_f, unit) + base``), ``after_step``, record start, peaks and leaf
slots, advance the clock by the service (``now + svc``), record the departure and the matches
(latencies, bindings).  The clock adds each wait exactly as the plain driver does, prices are
``np.dot`` of the same float64 rows (BLAS ``ddot`` both in numpy and in Numba), so the results
are the Python loop's bit for bit (``tests/test_shedding_kernel.py`` compares every metric and
array for every compiled shedder and option).

The kernel returns to its Python driver (``run_compiled``) when Python must act, and is called
again to resume at the same point (no array is rebound inside the loop: docs/ENGINEERING.md,
"Numba hot loops"):

* ``R_WARM``: arrival ``n_warm`` is next; the Python shedder's ``end_warmup`` learns from the
  warm-up (services, matches, counts), its state is packed and the arrival is ingested on resume;
* ``R_GROW``: the engine's buffers are full for the next step (``Stepper._grow``);
* ``R_SPACE``: an output buffer (latencies, match keys, warm-up rows) or DARLING's bucket pool
  needs room (``qi[QI_SPACE]`` says which);
* ``R_AFTER`` / ``R_SERVED``: ICDE'20's every-32nd-event step runs in Python
  (``Icde20.trigger`` after a step, ``Icde20.sample`` after a warm-up departure).

Numba's on-disk cache keys this module's kernels on this file's own source: a change to a hook in
``engines.shedding.kernel_hooks`` (which ``serve`` links) needs this file's text to change too
under a fixed ``NUMBA_CACHE_DIR`` (``engines.jitcache``'s default location hashes every engine
source instead).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.evaluators.stepper_kernel import S_BOUND, S_LIVE, S_NM, ST_OK, step_kernel
from engines.shedding import kernel_hooks as H
from engines.shedding.lazy_store import lazy_room, lazy_step, lazy_sync
from engines.shedding.base import RECENT_STEPS

# int64 loop state ``qi``
(QI_NXT, QI_HEAD, QI_TAIL, QI_LEN, QI_PEAK, QI_DROPPED, QI_PHASE, QI_PEND_I, QI_PEAK_MEM,
 QI_PEAK_BOUND, QI_PEAK_LIVE, QI_PEAK_SLOTS, QI_WARM_MATCHES, QI_N_OVER, QI_IN_WARMUP, QI_NLAT,
 QI_NKEY, QI_NWROWS, QI_NWSVC, QI_LEAF_HEAD, QI_LEAF_TAIL, QI_ADM_MODE, QI_ADM_BINS, QI_SPACE,
 QI_N_WARM, QI_KEEP_KEYS, QI_ON_SERVER, QI_HAS_CAP, QI_HAS_LEAF, QI_KIND, QI_KEEP_WARM,
 QI_KEEP_RECENT, QI_RECENT_N, QI_HAS_LAZY, QI_PEAK_LAZY) = range(35)
N_QI = 35
#: steps with matches whose latencies ``recent_mean_latency`` averages (``ShedContext.recent``)
N_RECENT = RECENT_STEPS
# float64 loop state ``qf``
(QF_NOW, QF_CARRY, QF_PEND_EXTRA, QF_INGEST_BUSY, QF_INGEST_FREE, QF_SERVER_SHED, QF_ADM_THR,
 QF_CAP, QF_BASE, QF_PEND_SVC, QF_WIN) = range(11)
N_QF = 11
# resume points
P_TOP, P_INGEST, P_STEP, P_AFTER, P_COLLECT = 0, 1, 2, 3, 4
# returns
R_DONE, R_WARM, R_GROW, R_SPACE, R_AFTER, R_SERVED = 0, 1, 2, 3, 4, 5
# what needs room (R_SPACE)
SP_LAT, SP_KEYS, SP_WARM_ROWS, SP_POOL = 0, 1, 2, 3

# the hooks' indices into ``qi`` are the queue's
assert (H.Q_HEAD, H.Q_TAIL, H.Q_LEN, H.Q_DROPPED) == (QI_HEAD, QI_TAIL, QI_LEN, QI_DROPPED)


@njit(cache=True)
def _price(r, rf, unit):
    """Seconds of int64 counter row ``r`` (``np.dot(r, unit)``: the row as float64, then
    ``ddot``); ``rf`` is scratch."""
    for k in range(r.shape[0]):
        rf[k] = r[k]
    return np.dot(rf, unit)


@njit(cache=True)
def _ingest(i, qi, qf, arr, qstate, by_type, types, unit, shed_tot, si, sf, ev_a, ev_b, t_i,
            t_f, l_i, pool, rng, flags, hrow, hrow_f):
    """Offer arrival ``i`` (the warm-up end and pool room are checked by the caller); returns the
    seconds to charge to the server."""
    qstate[i] = 1                                   # ShedQueue.push
    qi[QI_TAIL] = i + 1
    qi[QI_LEN] += 1
    by_type[types[i]] += 1
    if qi[QI_LEN] > qi[QI_PEAK]:
        qi[QI_PEAK] = qi[QI_LEN]
    if qi[QI_KIND] == H.K_DARLING:
        if not H.darling_on_arrival(i, si, sf, qi, qstate, by_type, types, ev_a, ev_b, t_i,
                                    t_f, l_i, pool, rng, hrow):
            return 0.0
    elif qi[QI_KIND] == H.K_ICDE20:
        if not H.icde20_on_arrival(i, si, qi, qstate, by_type, types, ev_a, flags, hrow):
            return 0.0
    else:
        return 0.0
    for k in range(hrow.shape[0]):
        shed_tot[k] += hrow[k]
    c = _price(hrow, hrow_f, unit)
    if qi[QI_ON_SERVER]:
        return c
    s0 = max(arr[i], qf[QF_INGEST_FREE])
    qf[QF_INGEST_FREE] = s0 + c
    qf[QF_INGEST_BUSY] += c
    return 0.0


@njit(cache=True)
def _pop(qi, qstate, by_type, types):
    """ShedQueue.pop: the next queued event (FIFO), removed; -1 when empty."""
    h = qi[QI_HEAD]
    tail = qi[QI_TAIL]
    while h < tail and qstate[h] != 1:
        h += 1
    qi[QI_HEAD] = h
    if h >= tail:
        return -1
    qstate[h] = 2
    qi[QI_HEAD] = h + 1
    qi[QI_LEN] -= 1
    by_type[types[h]] -= 1
    return h


@njit(cache=True)
def _collect_room(i_det, qi, k, lat, keys, wrows):
    """0 when the ``k`` matches of the step of event ``i_det`` fit the output buffers, else
    1 + the buffer (SP_*)."""
    if i_det >= qi[QI_N_WARM]:
        if qi[QI_NLAT] + k > lat.shape[0]:
            return 1 + SP_LAT
        if qi[QI_KEEP_KEYS] and qi[QI_NKEY] + k > keys.shape[0]:
            return 1 + SP_KEYS
    elif qi[QI_KEEP_WARM] and qi[QI_NWROWS] + k > wrows.shape[0]:
        return 1 + SP_WARM_ROWS
    return 0


@njit(cache=True)
def _latency_block(t_det, arr, o_last, lo, n):
    """numpy's pairwise-sum leaf (``n <= 128``): under 8 values in order, else eight lanes
    then the tail, of the latencies ``t_det - arr[o_last[lo:lo + n]]``."""
    if n < 8:
        res = 0.0
        for r in range(n):
            res += t_det - arr[o_last[lo + r]]
        return res
    a0 = t_det - arr[o_last[lo]]
    a1 = t_det - arr[o_last[lo + 1]]
    a2 = t_det - arr[o_last[lo + 2]]
    a3 = t_det - arr[o_last[lo + 3]]
    a4 = t_det - arr[o_last[lo + 4]]
    a5 = t_det - arr[o_last[lo + 5]]
    a6 = t_det - arr[o_last[lo + 6]]
    a7 = t_det - arr[o_last[lo + 7]]
    r = 8
    while r < n - (n % 8):
        b = lo + r
        a0 += t_det - arr[o_last[b]]
        a1 += t_det - arr[o_last[b + 1]]
        a2 += t_det - arr[o_last[b + 2]]
        a3 += t_det - arr[o_last[b + 3]]
        a4 += t_det - arr[o_last[b + 4]]
        a5 += t_det - arr[o_last[b + 5]]
        a6 += t_det - arr[o_last[b + 6]]
        a7 += t_det - arr[o_last[b + 7]]
        r += 8
    res = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
    while r < n:
        res += t_det - arr[o_last[lo + r]]
        r += 1
    return res


@njit(cache=True)
def _latency_sum(t_det, arr, o_last, n):
    """numpy's sum of the latencies ``t_det - arr[o_last[:n]]`` (``ndarray.sum`` of a contiguous
    float64 array: halves split at a multiple of 8 until a block has at most 128 values,
    ``_latency_block``, each pair added left + right), computed from the rows without an array
    of them; the halving runs on an explicit stack (Numba does not cache a recursive function
    reliably)."""
    if n <= 128:
        return _latency_block(t_det, arr, o_last, np.int64(0), n)
    s_lo = np.empty(64, np.int64)
    s_n = np.empty(64, np.int64)
    s_stage = np.empty(64, np.int64)
    vals = np.empty(64)
    top = 0
    nv = 0
    s_lo[0] = 0
    s_n[0] = n
    s_stage[0] = 0
    while top >= 0:
        lo = s_lo[top]
        m = s_n[top]
        if m <= 128:
            vals[nv] = _latency_block(t_det, arr, o_last, lo, m)
            nv += 1
            top -= 1
            continue
        n2 = m // 2
        n2 -= n2 % 8
        if s_stage[top] == 0:
            s_stage[top] = 1
            top += 1
            s_lo[top], s_n[top], s_stage[top] = lo, n2, 0
        elif s_stage[top] == 1:
            s_stage[top] = 2
            top += 1
            s_lo[top], s_n[top], s_stage[top] = lo + n2, m - n2, 0
        else:
            vals[nv - 2] = vals[nv - 2] + vals[nv - 1]
            nv -= 1
            top -= 1
    return vals[0]


@njit(cache=True)
def collect(i_det, t_det, qi, qf, arr, S, o_pos, o_last, cols, lat, keys, wrows, recent_s,
            recent_c):
    """The matches of the step of event ``i_det`` detected at ``t_det`` (``run_shedding``'s
    ``collect``): latencies within the cap (and their bindings), or warm-up rows (kept only
    for a shedder that learns from them: ``kernel_hooks.reads_warm_matches``)."""
    k = S[S_NM]
    if qi[QI_KEEP_RECENT] and k:       # ShedContext.recent: (latency sum, count) of the step
        slot = qi[QI_RECENT_N] % N_RECENT
        recent_s[slot] = _latency_sum(t_det, arr, o_last, k)
        recent_c[slot] = k
        qi[QI_RECENT_N] += 1
    if i_det >= qi[QI_N_WARM]:
        for r in range(k):
            lt = t_det - arr[o_last[r]]
            if qi[QI_HAS_CAP] and not lt <= qf[QF_CAP]:
                qi[QI_N_OVER] += 1
                continue
            lat[qi[QI_NLAT]] = lt
            qi[QI_NLAT] += 1
            if qi[QI_KEEP_KEYS]:
                for c in range(cols.shape[0]):
                    keys[qi[QI_NKEY], c] = o_pos[r, cols[c]]
                qi[QI_NKEY] += 1
    else:
        qi[QI_WARM_MATCHES] += k
        for r in range(k if qi[QI_KEEP_WARM] else 0):
            for c in range(cols.shape[0]):
                wrows[qi[QI_NWROWS], c] = o_pos[r, cols[c]]
            qi[QI_NWROWS] += 1
    S[S_NM] = 0


@njit(cache=True)
def serve(qi, qf, arr, qstate, by_type, start, depart, served, warm_ev, warm_sv, lat, keys,
          wrows, leaf, leaf_ts, leaves, unit, shed_tot, st, adm_util, row, row_f, total, mark,
          el_type, cols, si, sf, ev_a, ev_b, ev_f, t_i, t_f, l_i, pool, cdf, u_sorted, rep, rng,
          flags, recent_s, recent_c, live_row, live_state, live_first, lz):
    """Run the server loop from its resume point (``qi[QI_PHASE]``) until it is done or Python
    must act (module docstring); returns ``R_*``.  One served event passes the phases in order:
    (top / ingest) arrivals and the next event, ``before_step``; (step) the engine step and
    ``after_step``; (after) start, peaks, departure; (collect) its matches; (served)
    ``on_served``.  A return saves what the phase it resumes at needs (``QI_PEND_I``,
    ``QF_PEND_EXTRA``, ``QF_PEND_SVC``, the clock)."""
    (types, ts, attrs, pred_i, pred_f, tabs, window, S, a_first, a_bind, free, pidx, poff, pcap,
     pn, cnt_first, bnd_first, nbuf, c_row, c_first, c_slot, o_pos, o_det, o_last) = st
    (lz_bits, lz_first, lz_row, lz_n, lz_ev, lz_head, lz_tail, lz_sc) = lz
    has_lazy = qi[QI_HAS_LAZY] != 0
    n = arr.shape[0]
    m = el_type.shape[0]
    kind = qi[QI_KIND]
    hrow = np.zeros(C.N_COUNTERS, dtype=np.int64)        # a hook's row
    hrow_f = np.zeros(C.N_COUNTERS)
    adm = np.empty(2)
    adm[0] = qi[QI_ADM_MODE]
    adm[1] = qf[QF_ADM_THR]
    base = qf[QF_BASE]
    n_warm = qi[QI_N_WARM]
    status = R_DONE
    i = -1
    extra = 0.0
    svc = 0.0
    while True:
        phase = qi[QI_PHASE]
        qi[QI_PHASE] = P_TOP
        now = qf[QF_NOW]
        if phase == P_TOP or phase == P_INGEST:
            # ingest the arrivals up to the clock; resuming at P_INGEST, the next arrival first
            # even if the clock's rounding left it a hair short (the Python server's second
            # ingest site, after an idle wait), or after the warm-up end or pool growth
            force = phase == P_INGEST
            stop = False
            while qi[QI_NXT] < n and (force or arr[qi[QI_NXT]] <= now):
                nxt = qi[QI_NXT]
                if (nxt == n_warm and qi[QI_IN_WARMUP]) or (
                        kind == H.K_DARLING and not H.darling_room(si, qi, pool)):
                    stop = True
                    break
                force = False
                qf[QF_CARRY] += _ingest(nxt, qi, qf, arr, qstate, by_type, types, unit,
                                        shed_tot, si, sf, ev_a, ev_b, t_i, t_f, l_i, pool, rng,
                                        flags, hrow, hrow_f)
                qi[QI_NXT] = nxt + 1
            if stop:
                qi[QI_PHASE] = P_INGEST
                if qi[QI_IN_WARMUP] and qi[QI_NXT] == n_warm:
                    status = R_WARM
                else:
                    qi[QI_SPACE] = SP_POOL
                    status = R_SPACE
                break
            i = _pop(qi, qstate, by_type, types)
            if i < 0:
                if qi[QI_NXT] >= n:
                    break
                qf[QF_NOW] = now + (arr[qi[QI_NXT]] - now)    # idle until the next arrival
                qi[QI_PHASE] = P_INGEST
                continue
            extra = qf[QF_CARRY]
            qf[QF_CARRY] = 0.0
            if kind == H.K_SPICE:
                if H.spice_before_step(i, si, sf, qi, arr, ts, types, t_i[:, H.T_IN_PATTERN],
                                       ev_a, ev_f, ev_b, el_type, pidx, poff, pn, a_first, cdf,
                                       u_sorted, adm, hrow):
                    for k in range(hrow.shape[0]):
                        shed_tot[k] += hrow[k]
                    extra += _price(hrow, hrow_f, unit)
            elif kind == H.K_DARLING and si[H.DA_ACTIVE]:
                H.darling_before_step(i, types, ev_a, ev_b, si[H.DA_PSI], l_i)
            phase = P_STEP
        elif phase == P_STEP:
            i = qi[QI_PEND_I]
            extra = qf[QF_PEND_EXTRA]
        elif phase == P_AFTER:
            i = qi[QI_PEND_I]
            extra = qf[QF_PEND_EXTRA]
            svc = qf[QF_PEND_SVC]
        else:                                   # P_COLLECT
            i = qi[QI_PEND_I]
        if phase == P_STEP:
            if has_lazy:
                # the artifact's storage (``engines.shedding.lazy_store``): drops before any row
                # is reused, room for what this step can add
                lazy_sync(S, a_first, lz_first, lz_row, lz_n, lz_sc)
                if not lazy_room(i, types, el_type, pn, lz_n, lz_head, lz_tail,
                                 lz_first.shape[1]):
                    qi[QI_PHASE] = P_STEP
                    qi[QI_PEND_I] = i
                    qf[QF_PEND_EXTRA] = extra
                    status = R_GROW
                    break
            if step_kernel(i, types, ts, attrs, pred_i, pred_f, tabs, window, S, a_first,
                           a_bind, free, pidx, poff, pcap, pn, cnt_first, bnd_first, nbuf,
                           c_row, c_first, c_slot, o_pos, o_det, o_last, np.int64(adm[0]),
                           adm_util, adm[1], qi[QI_ADM_BINS], row, row_f, total) != ST_OK:
                qi[QI_PHASE] = P_STEP
                qi[QI_PEND_I] = i
                qf[QF_PEND_EXTRA] = extra
                status = R_GROW
                break
            svc = np.dot(row_f, unit) + base
            if kind == H.K_SPICE:
                if H.spice_after_step(si, row, rep, hrow):
                    for k in range(hrow.shape[0]):
                        shed_tot[k] += hrow[k]
                    extra += _price(hrow, hrow_f, unit)
            elif kind == H.K_RANDOM_PM:
                if H.random_pm_after_step(si, sf, qi, arr, S, a_first, pidx, poff, pn, free,
                                          cnt_first, bnd_first, m, mark, live_row, live_state,
                                          live_first, rng, hrow):
                    for k in range(hrow.shape[0]):
                        shed_tot[k] += hrow[k]
                    extra += _price(hrow, hrow_f, unit)
            elif kind == H.K_ICDE20 and H.icde20_after_step(si):
                # every 32nd served event: the knapsack, classes and drops run in Python
                qi[QI_PHASE] = P_AFTER
                qi[QI_PEND_I] = i
                qf[QF_PEND_EXTRA] = extra
                qf[QF_PEND_SVC] = svc
                status = R_AFTER
                break
            phase = P_AFTER
        if phase == P_AFTER:
            qf[QF_SERVER_SHED] += extra
            svc += extra
            start[i] = now
            served[i] = 1
            live_bound = S[S_BOUND]
            mem = qi[QI_LEN] + live_bound
            if mem > qi[QI_PEAK_MEM]:
                qi[QI_PEAK_MEM] = mem
            if live_bound > qi[QI_PEAK_BOUND]:
                qi[QI_PEAK_BOUND] = live_bound
            if S[S_LIVE] > qi[QI_PEAK_LIVE]:
                qi[QI_PEAK_LIVE] = S[S_LIVE]
            if qi[QI_HAS_LEAF]:
                t_i_ = leaf_ts[i]
                lh = qi[QI_LEAF_HEAD]
                while lh < qi[QI_LEAF_TAIL] and t_i_ - leaves[lh] > qf[QF_WIN]:
                    lh += 1
                qi[QI_LEAF_HEAD] = lh
                if leaf[i]:
                    leaves[qi[QI_LEAF_TAIL]] = t_i_
                    qi[QI_LEAF_TAIL] += 1
                held = live_bound + qi[QI_LEAF_TAIL] - lh
                if i >= n_warm and held > qi[QI_PEAK_SLOTS]:
                    qi[QI_PEAK_SLOTS] = held
            if has_lazy:
                held = lazy_step(i, ts, types, window, el_type, a_first, c_slot, c_first, S,
                                 S[S_NM], lz_bits, lz_first, lz_row, lz_n, lz_ev, lz_head,
                                 lz_tail, lz_sc)
                if i >= n_warm and held > qi[QI_PEAK_LAZY]:
                    qi[QI_PEAK_LAZY] = held
            now = now + svc
            qf[QF_NOW] = now
            depart[i] = now
            if qi[QI_IN_WARMUP] or i < n_warm:
                warm_ev[qi[QI_NWSVC]] = i
                warm_sv[qi[QI_NWSVC]] = svc
                qi[QI_NWSVC] += 1
            phase = P_COLLECT
        # phase == P_COLLECT: the step's matches, then on_served
        if S[S_NM]:
            room = _collect_room(i, qi, S[S_NM], lat, keys, wrows)
            if room:
                qi[QI_PHASE] = P_COLLECT
                qi[QI_PEND_I] = i
                qi[QI_SPACE] = room - 1
                status = R_SPACE
                break
            collect(i, now, qi, qf, arr, S, o_pos, o_last, cols, lat, keys, wrows, recent_s,
                    recent_c)
        if kind == H.K_ICDE20 and qi[QI_IN_WARMUP] and H.icde20_on_served(si):
            status = R_SERVED          # every 32nd served warm-up event: Python samples
            break
    qi[QI_ADM_MODE] = np.int64(adm[0])
    qf[QF_ADM_THR] = adm[1]
    return status


# ----------------------------------------------------------------------------- driver
def _grown(a: np.ndarray, need: int) -> np.ndarray:
    """``a`` with at least ``need`` rows (a quarter more each time), the rows kept, resized in
    place (``realloc``: a large block moves by remapping its pages, not by a copy that would
    hold both; DARLING's long streams measure 10^8 latencies, 0.9 GB)."""
    if need <= a.shape[0]:
        return a
    a.resize((max(need, a.shape[0] + a.shape[0] // 4 + 1024),) + a.shape[1:], refcheck=False)
    return a


def _sync_view(ctx, qi, recent_s, recent_c) -> None:
    """The Python view of the compiled queue's state that a Python hook may read: the
    ``ShedQueue``'s counters (its arrays are the kernel's) and ``ShedContext.recent``."""
    q = ctx.queue
    q.head, q.tail, q.length = int(qi[QI_HEAD]), int(qi[QI_TAIL]), int(qi[QI_LEN])
    q.peak, q.dropped = int(qi[QI_PEAK]), int(qi[QI_DROPPED])
    k = int(qi[QI_RECENT_N])
    ctx.recent.clear()
    for j in range(max(0, k - N_RECENT), k):
        ctx.recent.append((float(recent_s[j % N_RECENT]), int(recent_c[j % N_RECENT])))


def run_compiled(ctx, shedder, stp, n_warm: int, ingest_on_server: bool, keep_keys: bool,
                 latency_cap, leaf_mask, t_init: float, store=None):
    """Run the server loop compiled (module docstring); returns its
    ``sim.core.shedding_queue.LoopOutcome``."""
    from engines.shedding.base import index_dtype
    from sim.core.shedding_outcome import LoopOutcome
    from engines.shedding.kernel_hooks import (grow_pool, keeps_recent, pack_learned,
                                           pack_shed_set, pack_start, reads_warm_matches,
                                           unpack)
    from engines.heap import trim_heap
    arr = ctx.arrivals
    n = len(arr)
    ks = pack_start(shedder, ctx)
    qi = np.zeros(N_QI, dtype=np.int64)
    qf = np.zeros(N_QF, dtype=np.float64)
    qi[QI_KIND] = ks.kind
    qi[QI_IN_WARMUP] = 1
    qi[QI_N_WARM] = n_warm
    qi[QI_KEEP_KEYS] = keep_keys
    qi[QI_ON_SERVER] = ingest_on_server
    qi[QI_HAS_CAP] = latency_cap is not None
    qi[QI_HAS_LEAF] = leaf_mask is not None
    qi[QI_HAS_LAZY] = store is not None
    qf[QF_NOW] = t_init
    qf[QF_INGEST_FREE] = -np.inf
    qf[QF_CAP] = latency_cap if latency_cap is not None else np.inf
    qf[QF_BASE] = ctx.base_cost
    qf[QF_WIN] = float(stp.window)
    qstate = ctx.queue.state              # the ShedQueue's arrays: one queue, its Python view
    by_type = ctx.queue.by_type
    start = np.full(n, np.nan)
    depart = np.full(n, np.nan)
    served = np.zeros(n, dtype=np.uint8)
    n_wsvc = min(max(n_warm, 0), n)
    warm_ev = np.zeros(max(n_wsvc, 1), dtype=np.int64)
    warm_sv = np.zeros(max(n_wsvc, 1), dtype=np.float64)
    m_cols = len(stp.tb["col_of_slot"])      # a match row: one event per slot
    lat = np.zeros(1024, dtype=np.float64)
    keys = np.zeros((1024 if keep_keys else 1, m_cols), dtype=np.int64)
    keep_warm = reads_warm_matches(ks.kind) and n_warm > 0
    qi[QI_KEEP_WARM] = keep_warm
    qi[QI_KEEP_RECENT] = keeps_recent(ks.kind)
    recent_s = np.zeros(N_RECENT, dtype=np.float64)
    recent_c = np.zeros(N_RECENT, dtype=np.int64)
    # the warm-up matches' rows in the stream's compact index type (int32 while it fits)
    wrows = np.zeros((1024 if keep_warm else 1, m_cols), dtype=index_dtype(n))
    if leaf_mask is not None:
        leaf = np.ascontiguousarray(leaf_mask, dtype=np.uint8)
        leaf_ts = np.ascontiguousarray(ctx.stream.ts, dtype=np.float64)
        leaves = np.zeros(n, dtype=np.float64)
    else:
        leaf = np.zeros(1, dtype=np.uint8)
        leaf_ts = leaves = np.zeros(1, dtype=np.float64)
    shed_tot = np.zeros(C.N_COUNTERS, dtype=np.int64)
    el_type = np.asarray(stp.tb["el_type"], dtype=np.int64)
    cols = np.asarray(stp.tb["col_of_slot"], dtype=np.int64)
    unit = np.ascontiguousarray(ctx.unit, dtype=np.float64)
    if store is None:                       # typed placeholders: the kernel never reads them
        from engines.shedding.lazy_store import LazyStore
        lz_none = LazyStore(1, np.zeros(1, dtype=np.int64), 0.0, cap=1)
    while True:
        lz = (store or lz_none).arrays()
        qi[QI_ADM_MODE] = stp.adm_mode
        qi[QI_ADM_BINS] = stp.adm_bins
        qf[QF_ADM_THR] = stp.adm_thr
        cap = stp.a_first.shape[0]
        live = np.zeros(cap, dtype=np.int64)
        st = (stp.types, stp.ts, stp.attrs, stp.pred_i, stp.pred_f, stp.tabs, stp.window,
              stp.S, stp.a_first, stp.a_bind, stp.free, stp.pidx, stp.poff, stp.pcap, stp.pn,
              stp.cnt_first, stp.bnd_first, stp.nbuf, stp.c_row, stp.c_first, stp.c_slot,
              stp.o_pos, stp.o_det, stp.o_last)
        status = serve(qi, qf, arr, qstate, by_type, start, depart, served, warm_ev, warm_sv,
                       lat, keys, wrows, leaf, leaf_ts, leaves, unit, shed_tot, st,
                       stp.adm_util, stp.row, stp.row_f, stp.total, stp.mark, el_type, cols,
                       ks.si, ks.sf, ks.ev_a, ks.ev_b, ks.ev_f, ks.t_i, ks.t_f, ks.l_i,
                       ks.pool, ks.cdf, ks.u_sorted, ks.rep, ks.rng, ks.flags, recent_s,
                       recent_c, live, live.copy(), live.copy(), lz)
        stp.set_admission(int(qi[QI_ADM_MODE]), None, float(qf[QF_ADM_THR]),
                          int(qi[QI_ADM_BINS]))
        if status == R_DONE:
            break
        if status == R_GROW:
            i_pend = int(qi[QI_PEND_I])
            if store is not None and not lazy_room(i_pend, stp.types, el_type, stp.pn,
                                                   store.ent_n, store.leaf_head,
                                                   store.leaf_tail, store.ent_first.shape[1]):
                store.grow()
            else:
                stp.grow()
        elif status == R_WARM:
            qi[QI_IN_WARMUP] = 0
            ctx.in_warmup = False
            nws = int(qi[QI_NWSVC])
            ctx.warm_service = list(zip(warm_ev[:nws].tolist(), warm_sv[:nws].tolist()))
            nwr = int(qi[QI_NWROWS])
            ctx.warm_matches = [wrows[:nwr]] if nwr else []
            # the list holds the rows' only reference: a shedder that frees them early (ICDE'20,
            # before its k-means and tree) frees them (peak memory)
            wrows = np.zeros((1, m_cols), dtype=wrows.dtype)
            shedder.end_warmup(float(arr[int(qi[QI_NXT])]))
            pack_learned(shedder, ks)
            ctx.warm_matches.clear()
            trim_heap()
        elif status == R_AFTER:
            _sync_view(ctx, qi, recent_s, recent_c)
            r = shedder.trigger()
            if r is not None:
                shed_tot += r
                qf[QF_PEND_EXTRA] += ctx.price(r)
            pack_shed_set(shedder, ks)
        elif status == R_SERVED:
            shedder.sample()
        else:                                   # R_SPACE
            k = int(stp.S[S_NM])
            what = int(qi[QI_SPACE])
            if what == SP_LAT:
                lat = _grown(lat, int(qi[QI_NLAT]) + k)
            elif what == SP_KEYS:
                keys = _grown(keys, int(qi[QI_NKEY]) + k)
            elif what == SP_WARM_ROWS:
                wrows = _grown(wrows, int(qi[QI_NWROWS]) + k)
            else:
                grow_pool(ks, qi)
    fin = stp.finish()
    k = int(stp.S[S_NM])
    lat = _grown(lat, int(qi[QI_NLAT]) + k)
    if keep_keys:
        keys = _grown(keys, int(qi[QI_NKEY]) + k)
    if keep_warm:
        wrows = _grown(wrows, int(qi[QI_NWROWS]) + k)
    collect(n, qf[QF_NOW], qi, qf, arr, stp.S, stp.o_pos, stp.o_last, cols, lat, keys, wrows,
            recent_s, recent_c)
    unpack(shedder, ks)
    _sync_view(ctx, qi, recent_s, recent_c)
    totals = stp.total.copy()
    totals[C.MATCH_EMIT] += fin[C.MATCH_EMIT]
    return LoopOutcome(
        start=start, depart=depart, served=served.astype(bool),
        lat=lat[:int(qi[QI_NLAT])],             # views: no second copy of 10^8 values
        keys=keys[:int(qi[QI_NKEY])] if keep_keys else None,
        vetoed=0, peak_mem=int(qi[QI_PEAK_MEM]), peak_bound=int(qi[QI_PEAK_BOUND]),
        peak_live=int(qi[QI_PEAK_LIVE]), peak_slots=int(qi[QI_PEAK_SLOTS]),
        peak_slots_lazy=int(qi[QI_PEAK_LAZY]) if store is not None else -1,
        warm_matches=int(qi[QI_WARM_MATCHES]), n_over=int(qi[QI_N_OVER]),
        ingest_busy=float(qf[QF_INGEST_BUSY]), server_shed_s=float(qf[QF_SERVER_SHED]),
        replication_s=0.0, shed_tot=shed_tot, totals=totals)
