"""The epoch evaluation of every decision method of one adaptive point, lean in memory.

``evaluate_methods`` gives exactly what one ``engines.planners.adaptive.epochs.run_schedule``
call per method over a shared run cache gives (``tests/test_adaptive_runs.py`` keeps that
straightforward computation as its reference and checks equality): per schedule the engine
counters summed over the events after the warm-up, the (live plan, event) pairs after the
warm-up, the overlap events and the match count, and whether all schedules found the same match
set.  The engine runs are the same runs, in the same order (``run_schedule``'s slices, prefix
sharing and horizons), so every count is the same; what differs is what is kept of them:

* a run's counters only as their prefix sums at the offsets some epoch reads (epoch ends, the
  warm-up boundary, the headroom oracle's epoch bounds), not ``int64[events, N_COUNTERS]``;
* a run's matches only as the rows their canonical form is made of (positions, Kleene lengths
  of Kleene variables, earliest event) plus the detection offset, in int32 when positions fit,
  not a whole ``MatchSet`` (which carries zero Kleene columns for plain variables);
* a run is dropped after its last use (uses are known once every controller has run).

Holding every (plan, start) run of all methods of a point at once takes 9.1 GB for one ``fig7``
greedy OR point at 100k events.  Integer sums are exact whatever their grouping, and the
canonical rows of a method are the rows ``run_schedule`` builds from its concatenated
``MatchSet`` (constant zero columns dropped for every method alike), so the rows are the
reference's, bit for bit.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.planners.adaptive.branch_runs import independent_alternatives
from engines.planners.adaptive.epochs import (epoch_slices, prefix_sharing, run_plan,
                                              row_earliest)
from engines import counters as C
from engines.planners.adaptive.headroom import prefix_sums_at
from engines.matches import canonical_rows


@njit(cache=True)
def _fill_rows(pos, kl_start, kl_len, kl_events, kleene, lo, rows):
    """A run's match rows in stream positions, one pass: the positions (``lo`` added to bound
    ones), the Kleene lengths of the Kleene columns, then the earliest event
    (``epochs.row_earliest`` + ``lo``).  False when a plain column has a Kleene length."""
    m, nv = pos.shape
    for i in range(m):
        for j in range(nv):
            x = pos[i, j]
            rows[i, j] = x + lo if x >= 0 else x
            if not kleene[j] and kl_len[i, j] != 0:
                return False
        w = nv
        for j in range(nv):
            if kleene[j]:
                rows[i, w] = kl_len[i, j]
                w += 1
        rows[i, w] = row_earliest(pos, kl_start, kl_len, kl_events, kleene, i) + lo
    return True


_NO_BOUND_LO = np.iinfo(np.int64).min
_NO_BOUND_HI = np.iinfo(np.int64).max


@njit(cache=True)
def _pick_rows(rows, first, detect, p, nxt, d_lo, d_hi):
    """The rows (in order) whose earliest event is in ``[p, nxt)`` and whose detection offset
    is in ``[d_lo, d_hi)``: one epoch's matches from one run segment."""
    m = rows.shape[0]
    k = 0
    for i in range(m):
        if p <= first[i] < nxt and d_lo <= detect[i] < d_hi:
            k += 1
    out = np.empty((k, rows.shape[1]), rows.dtype)
    w = 0
    for i in range(m):
        if p <= first[i] < nxt and d_lo <= detect[i] < d_hi:
            for j in range(rows.shape[1]):
                out[w, j] = rows[i, j]
            w += 1
    return out


class _Run:
    """What later epochs need of one engine run over ``stream[lo:end)``."""

    __slots__ = ("lo", "end", "offsets", "cs", "rows", "first", "detect")

    def __init__(self, res, lo: int, end: int, offsets: list[int], kleene: np.ndarray):
        cnt = np.asarray(res.counters)
        self.lo = lo
        self.end = end
        self.offsets = {o: i for i, o in enumerate(offsets)}
        self.cs = prefix_sums_at(cnt, np.asarray(offsets, dtype=np.int64))
        ms = res.matches
        # positions < end: int32 unless the stream is longer than int32 can count
        dt = np.int32 if end < np.iinfo(np.int32).max else np.int64
        m, nv, nk = len(ms.pos), ms.pos.shape[1], int(kleene.sum())
        rows = np.empty((m, nv + nk + 1), dt)
        if not _fill_rows(np.asarray(ms.pos), np.asarray(ms.kl_start), np.asarray(ms.kl_len),
                          np.asarray(ms.kl_events), kleene, lo, rows):
            raise AssertionError("a plain variable has a Kleene length")  # pragma: no cover
        self.rows = rows
        self.first = rows[:, -1]
        self.detect = np.asarray(ms.detect).astype(dt)

    def block(self, a: int, b: int) -> np.ndarray:
        """Counter sums over run offsets ``[a, b)``."""
        return self.cs[self.offsets[b]] - self.cs[self.offsets[a]]


_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _row_keys(rows, mix, lead_bits):
    """Per row a 64-bit sort key: with ``lead_bits > 0`` the last column (non-negative, below
    ``2**lead_bits``) in the top bits and a hash of the whole row below it, else the hash alone
    (one pass; each value as its int64 bit pattern)."""
    m, c = rows.shape
    h = np.zeros(m, np.uint64)
    for i in range(m):
        x = np.uint64(0)
        for j in range(c):
            x ^= np.uint64(np.int64(rows[i, j]))
            x *= mix
            x ^= x >> np.uint64(31)
        if lead_bits > 0:
            x = (np.uint64(rows[i, c - 1]) << np.uint64(64 - lead_bits)) | \
                (x >> np.uint64(lead_bits))
        h[i] = x
    return h


@njit(cache=True)
def _key_clash(rows, order, keys):
    """Whether two *different* rows share a key (then the key order is not canonical)."""
    c = rows.shape[1]
    for i in range(1, order.shape[0]):
        r, q = order[i], order[i - 1]
        if keys[r] == keys[q]:
            for j in range(c):
                if rows[r, j] != rows[q, j]:
                    return True
    return False


@njit(cache=True)
def _same_in_order(ra, oa, ka, rb, ob, kb):
    """Rows ``ra[oa]`` equal ``rb[ob]`` (keys compared first; nothing is copied)."""
    c = ra.shape[1]
    for i in range(oa.shape[0]):
        x, y = oa[i], ob[i]
        if ka[x] != kb[y]:
            return False
        for j in range(c):
            if ra[x, j] != rb[y, j]:
                return False
    return True


class RowMultiset:
    """A multiset of non-negative-or--1 int rows (a schedule's match rows), comparable exactly
    with ``==``.  Narrow rows are packed into one key each (``canonical_rows``).  Wider rows get
    a 64-bit key -- the last column (a match's earliest event, non-negative) in the top bits and
    a hash of the row below it -- and a stable sort order by key; two multisets are equal when
    their rows are equal position by position in key order, exact as long as no two different
    rows of either share a key (else both fall back to ``canonical_rows``).  Rows arrive nearly
    sorted by their earliest event (epoch by epoch), so the sort merges runs and the comparison
    reads both row arrays nearly in order without copying them; the column-by-column numpy hash
    with a copy of the rows in random order had been a sixth of a PVLDB'18 fig7 greedy OR
    point."""

    __slots__ = ("rows", "packed", "keys", "order", "clash")

    def __init__(self, rows: np.ndarray):
        self.packed = None
        if len(rows) == 0 or (rows.min() >= 0 and max(1, int(rows.max()).bit_length())
                              * rows.shape[1] <= 62):
            self.packed = canonical_rows(rows)
            return
        self.rows = rows = np.ascontiguousarray(rows)
        last = rows[:, -1]
        lead = max(1, int(last.max()).bit_length()) if last.min() >= 0 else 0
        self.keys = _row_keys(rows, _MIX, lead if lead <= 40 else 0)
        self.order = np.argsort(self.keys, kind="stable")
        self.clash = _key_clash(rows, self.order, self.keys)

    def canonical(self) -> np.ndarray:
        """The rows in an order fixed by the multiset (equal arrays exactly for equal
        multisets)."""
        if self.packed is not None:
            return self.packed
        return canonical_rows(self.rows) if self.clash else self.rows[self.order]

    def __eq__(self, other: "RowMultiset") -> bool:
        if (self.packed is None and other.packed is None and not self.clash
                and not other.clash):
            return (self.rows.shape == other.rows.shape
                    and _same_in_order(self.rows, self.order, self.keys,
                                       other.rows, other.order, other.keys))
        return np.array_equal(self.canonical(), other.canonical())


def canonical_set(rows: np.ndarray) -> np.ndarray:
    """``RowMultiset(rows).canonical()``: the rows' multiset in an order fixed by it."""
    return RowMultiset(rows).canonical()


def convergence_row(program, stream, kind: str):
    """``c1(lo)`` for engine runs that *converge*, else None: the lazy chain NFA (``kind =
    "order"``) on a pattern without negation and with a finite window.  A run of one order
    started at ``lo`` and one started earlier (and running at least as far) have equal counter
    rows from ``c1(lo)`` on and detect the same matches from ``c1(lo) - 1`` on.  By then every
    event up to ``lo`` has left the window, so the input buffers and the live instances of both
    runs are the same, and the chain's counts do not depend on the order in which it visits
    them.  ``c1 = c + 1`` where ``c`` is the first event whose window no longer reaches ``lo``
    (time: ``ts[c] > ts[lo] + W``; count: ``c = lo + N``): the expiry at ``c`` is charged to
    row ``c`` (``PM_REMOVED``).  Event ``lo`` itself must have left too, not only the events
    before it: a child created at a slice's first event inherits the root's coverage, which
    equals that position, so the chain skips it as caught up although its scope is bounded and
    empty; it stays live (charged ``INSTANCE_WORK``) until an event of its next variable arrives
    or it expires, while the earlier-started run explores it and removes it at once
    (``engines/evaluators/lazy_nfa.py``, the "waiting for a u event" skip).  ZStream trees do not
    converge: expired results stay in a buffer until it is compacted, and probing them is
    charged, so a tree run depends on its history.  ``tests/test_adaptive_runs.py`` checks runs
    from two starts row by row."""
    from engines.compile import WIN_COUNT
    W = float(program.window)
    if kind != "order" or not prefix_sharing(program) or not np.isfinite(W):
        return None
    n = len(stream)
    if program.window_kind == WIN_COUNT:
        N = int(W)
        return lambda lo: min(n + 1, lo + N + 1) if lo > 0 else None
    ts = stream.ts
    return lambda lo: (int(np.searchsorted(ts, ts[lo] + W, side="right")) + 1
                       if lo > 0 else None)


def _derive_from_masters(need: dict, conv) -> tuple[dict, dict]:
    """Which runs a converging engine can take from a longer run of the same plan (module
    docstring of ``evaluate_methods``); ``need[key]`` = the farthest end any epoch of ``key``
    reads.  Returns ``(derived, ends)`` with ``derived[key] = (master key,
    c1)`` and ``ends[key]`` = how far an own run of ``key`` goes (its farthest use, or farther
    for a master).  Per plan, starts ascending: a key whose ``c1`` falls inside the current
    master (and that needs rows beyond ``c1``) is derived -- it runs only ``[lo, c1)`` itself
    and the master is extended to its end; any other key runs on its own and, when it reaches
    farther, becomes the master for the next keys."""
    ends = dict(need)
    derived: dict = {}
    if conv is None:
        return derived, ends
    by_plan: dict = {}
    for (plan, lo), end in ends.items():
        by_plan.setdefault(plan, []).append((lo, end))
    for plan, lst in by_plan.items():
        lst.sort()
        cur, cur_end = None, -1
        for lo, end in lst:
            c1 = conv(lo)
            if cur is not None and c1 is not None and c1 < cur_end and end > c1:
                derived[(plan, lo)] = (cur, c1)
                if end > cur_end:
                    cur_end = ends[cur] = end
            elif end > cur_end:
                cur, cur_end = (plan, lo), end
    return derived, ends


def evaluate_methods(program, stream, kind: str, schedules: list, n_warmup: int,
                     engine_options: dict | None = None,
                     zero_bounds: list[tuple[int, int]] | None = None,
                     full_plans=frozenset()) -> tuple[list[dict], bool, dict]:
    """Evaluate every ``(starts, plans)`` of ``schedules`` (module docstring).

    Returns ``(per_schedule, consistent, zero_sums)``: per schedule a dict ``eng_sums``
    (int64[N_COUNTERS], engine counters over events >= ``n_warmup``), ``plan_events``,
    ``overlap``, ``matches``; ``consistent`` = every schedule's canonical match set equals the
    first's; ``zero_sums`` = ``{plan: int64[len(zero_bounds), N_COUNTERS]}`` for every run of a
    plan from event 0 over the whole stream (``run_schedule``'s cache entry the headroom oracle
    reuses), summed over ``zero_bounds``.

    Every epoch reads the run of its plan from its slice start ``lo`` (``run_schedule``).  With
    the lazy chain NFA such a run *converges* with any earlier-started run of the same plan
    (``convergence_row``): it is then the engine's own run over ``[lo, c1)`` followed by the
    rows ``[c1, ...)`` of that longer run (``_derive_from_masters``), which cuts the events
    the engine processes by 12-50 % on the PVLDB'18 greedy points.  Should a master, run
    farther than any epoch of its own needed, exceed the engine's capacity cap, the evaluation
    is redone without derivation (``derive=False``), as before.

    ``full_plans``: plans the caller needs run from event 0 over the whole stream anyway (the
    headroom oracle's candidates that no earlier point ran).  When runs converge, each of them
    that some epoch uses is run so, as its plan's master, and every later epoch of that plan
    derives from it: the methods then run only the short ``[lo, c1)`` heads of those plans, and
    the oracle reads the full run's sums from ``zero_sums`` instead of running it again."""
    from engines.errors import CapacityError
    slices = _schedule_slices(program, stream, schedules)
    conv = convergence_row(program, stream, kind)
    if conv is not None:
        alts = independent_alternatives(program)
        if alts is not None and schedules and \
                _work_per_event(program, stream, kind, schedules[0][1][0],
                                engine_options) >= SPLIT_MIN_WORK and \
                _split_pays(program, alts, schedules, slices, conv):
            try:
                return _evaluate_by_alternatives(program, alts, stream, kind, schedules,
                                                 slices, n_warmup, engine_options, zero_bounds)
            except CapacityError:
                pass          # an alternative over its share of the cap: the whole plan's runs
    try:
        return _evaluate(program, stream, kind, schedules, slices, n_warmup, engine_options,
                         zero_bounds, derive=True, full_plans=full_plans)
    except CapacityError:
        return _evaluate(program, stream, kind, schedules, slices, n_warmup, engine_options,
                         zero_bounds, derive=False)


def _schedule_slices(program, stream, schedules) -> list:
    """``epoch_slices`` of every schedule (starts checked first).  They depend on the window
    and on negation only, so an OR's alternatives have the same ones: computed once."""
    out = []
    for starts, _ in schedules:
        if not starts or starts[0] != 0 or any(b <= a for a, b in zip(starts, starts[1:])):
            from engines.errors import CepsimInputError
            raise CepsimInputError("adaptive: epoch starts must begin at 0 and increase")
        out.append(epoch_slices(program, stream, starts))
    return out


#: the estimate behind ``_split_pays``, in units of one event of a whole-plan run in steady
#: state: an event of a derived run's head ``[lo, c1)`` (fewer live instances: measured about
#: 0.3), and the Python around one engine run (about 70 us, 50 steady events of a PVLDB'18
#: stocks OR point); an alternative's event costs ``1 / B`` of a whole-plan event
SPLIT_HEAD_WEIGHT = 0.3
SPLIT_RUN_OVERHEAD = 50.0


#: the engine work per event (``_work_per_event``) from which splitting can pay: below it the
#: Python around three times as many runs and uses outweighs the engine (PVLDB'18 fig6
#: traffic OR points, 25 per event: split 40-75 % slower; fig7 stocks OR points, 1,000-3,300
#: per event: 13 % faster)
SPLIT_MIN_WORK = 300.0
SPLIT_PILOT_EVENTS = 2000


def _work_per_event(program, stream, kind: str, plan, engine_options) -> float:
    """Engine work per event (EDGE_EVAL + INSTANCE_WORK + PM_CREATED) of ``plan`` over the
    stream's first ``SPLIT_PILOT_EVENTS`` events: a deterministic measure of how much of an
    evaluation is engine time (0 when the pilot exceeds the engine's caps)."""
    from engines.errors import CapacityError
    sub = stream.slice(0, min(len(stream), SPLIT_PILOT_EVENTS))
    if len(sub) == 0:
        return 0.0
    try:
        res = run_plan(program, sub, kind, plan, engine_options or {})
    except CapacityError:
        return 0.0
    c = np.asarray(res.counters)
    return float(c[:, [C.EDGE_EVAL, C.INSTANCE_WORK, C.PM_CREATED]].sum()) / len(sub)


def _sub_plans(program, alt):
    """``plan -> alt's sub-plan``: a greedy order of ``program``'s variable ids restricted to the
    variables of alternative ``alt``, in ``alt``'s ids (memoised: a point has thousands of epochs
    over a few hundred plans)."""
    names = program.var_names
    ids = {n: i for i, n in enumerate(alt.var_names)}
    memo: dict = {}

    def sub(plan):
        got = memo.get(plan)
        if got is None:
            got = memo[plan] = tuple(ids[names[v]] for v in plan if names[v] in ids)
        return got
    return sub


def _split_pays(program, alts, schedules, slices, conv) -> bool:
    """Whether evaluating per alternative (``_evaluate_by_alternatives``) is expected to run
    less than the whole plans: the runs each way are planned (``_derive_from_masters``, no
    engine run) and priced with the weights above.  Either way the results are the same; only
    the time differs.  (Only asked when the engine work per event reaches
    ``SPLIT_MIN_WORK``: the weights price engine work, not the Python per run and use.)"""
    subs = [_sub_plans(program, a) for a in alts]
    need: dict = {}
    alt_need: list[dict] = [{} for _ in alts]
    for (starts, plans), sl in zip(schedules, slices):
        for e, (lo, hi) in enumerate(sl):
            plan = plans[e]
            key = (plan, lo)
            need[key] = max(need.get(key, 0), hi)
            for sub, an in zip(subs, alt_need):
                k = (sub(plan), lo)
                an[k] = max(an.get(k, 0), hi)

    def cost(nd: dict, scale: float) -> float:
        derived, ends = _derive_from_masters(nd, conv)
        total = 0.0
        for key, end in ends.items():
            if key in derived:
                total += SPLIT_RUN_OVERHEAD + SPLIT_HEAD_WEIGHT * (derived[key][1] - key[1]) / scale
            else:
                total += SPLIT_RUN_OVERHEAD + (end - key[1]) / scale
        return total
    whole = cost(need, 1.0)
    split = sum(cost(an, float(len(alts))) for an in alt_need)
    return split < whole


def _evaluate_by_alternatives(program, alts, stream, kind, schedules, slices, n_warmup,
                              engine_options, zero_bounds):
    """``_evaluate`` of an OR of independent alternatives (``branch_runs``) as the sum of one
    evaluation per alternative, each with the alternative's part of every plan.  A run of a
    whole plan equals, counter by counter and event by event, the sum of its sub-plans' runs
    on the alternatives alone (``branch_runs``; each runs with its share ``cap // B`` of the
    capacity caps, and over it the caller evaluates whole plans), and a match binds the
    variables of one alternative only, so every schedule's sums, match count and match set
    (hence ``consistent``) follow from the alternatives'.  The gain is convergence per
    alternative: a plan replacement that changes one alternative's order leaves the other
    alternatives' epochs to derive from the run of their unchanged sub-order
    (``_derive_from_masters``), where a whole-plan key needs a new master run.  ``zero_sums``
    holds every plan whose sub-plans all ran from event 0 over the whole stream (the sum of
    theirs)."""
    from engines.planners.adaptive.branch_runs import capacity_shares
    opts = capacity_shares(kind, engine_options, len(alts))
    if opts is None:
        from engines.errors import CapacityError
        raise CapacityError("capacity cap smaller than the number of alternatives")
    out = None
    consistent = True
    alt_zero = []
    for alt in alts:
        sub = _sub_plans(program, alt)
        part, ok, zero = _evaluate(alt, stream, kind,
                                   [(starts, [sub(p) for p in plans])
                                    for starts, plans in schedules], slices,
                                   n_warmup, opts, zero_bounds, derive=True)
        consistent &= ok
        alt_zero.append((sub, zero))
        if out is None:
            out = part
            continue
        for o, q in zip(out, part):
            o["eng_sums"] = o["eng_sums"] + q["eng_sums"]
            o["dup_sums"] = o["dup_sums"] + q["dup_sums"]
            o["matches"] += q["matches"]
            # the same starts and slices in every alternative: one count of each
            if o["plan_events"] != q["plan_events"] or o["overlap"] != q["overlap"]:
                raise RuntimeError("adaptive: an OR's alternatives disagree on the epochs' "
                                   "event counts (they share every schedule's slices)")
    zero_sums = {}
    for plan in {p for _, plans in schedules for p in plans}:
        got = [zero.get(sub(plan)) for sub, zero in alt_zero]
        if all(g is not None for g in got):
            zero_sums[plan] = sum(got[1:], got[0])
    return out, consistent, zero_sums


def _evaluate(program, stream, kind, schedules, slices, n_warmup, engine_options, zero_bounds,
              derive: bool, full_plans=frozenset()):
    n = len(stream)
    share = prefix_sharing(program)
    kleene_vars = None
    uses: list[list[tuple]] = []
    need: dict = {}                # key -> the farthest end an epoch reads
    for (starts, plans), sl in zip(schedules, slices):
        su = []
        for e, (lo, hi) in enumerate(sl):
            p = starts[e]
            nxt = starts[e + 1] if e + 1 < len(starts) else n
            key = (plans[e], lo) if share else (plans[e], lo, hi)
            a = min(max(n_warmup - lo, 0), hi - lo)
            need[key] = max(need.get(key, 0), hi)
            # the old plan's duplicate work while it overlaps the next epoch (section 2.2
            # reading, module docstring): its own run from the replacement point ``nxt``
            mk, m_lo = None, max(nxt, n_warmup)
            if nxt < hi and m_lo < hi:
                mk = (plans[e], nxt) if share else (plans[e], nxt, hi)
                need[mk] = max(need.get(mk, 0), hi)
            su.append((key, p, nxt, lo, hi, a, mk, m_lo))
        uses.append(su)
    conv = convergence_row(program, stream, kind) if derive else None
    if conv is not None and full_plans and zero_bounds is not None:
        for plan in {key[0] for key in need} & set(full_plans):
            need[(plan, 0)] = n       # the whole-stream run: master of all its epochs
    derived, ends = _derive_from_masters(need, conv)
    # every key reads segments of runs: (run id, first event, end) in stream positions; a run
    # id is ("own", key) over [lo, ends[key]) or ("pre", key) over [lo, c1)
    segs: dict = {}
    for key in need:
        lo = key[1]
        if key in derived:
            master, c1 = derived[key]
            segs[key] = ((("pre", key), lo, c1), (("own", master), c1, n + 1))
        else:
            segs[key] = ((("own", key), lo, n + 1),)
    span = {}                      # run id -> (start, end)
    offsets: dict = {}             # run id -> set of run-relative offsets read
    refs: dict = {}                # run id -> use segments still to read it
    for su in uses:
        for key, p, nxt, lo, hi, a, mk, m_lo in su:
            for k, c_lo in ((key, lo + a), (mk, m_lo)):
                if k is None:
                    continue
                for rid, x0, x1 in segs[k]:
                    if x0 >= hi:       # nothing of this use lies in the segment
                        continue
                    start = rid[1][1]
                    span[rid] = (start, x1 if rid[0] == "pre" else ends[rid[1]])
                    o = offsets.setdefault(rid, set())
                    lo_c, hi_c = max(c_lo, x0), min(hi, x1)
                    if lo_c < hi_c:
                        o.update((lo_c - start, hi_c - start))
                    refs[rid] = refs.get(rid, 0) + 1
    zero_want = set()              # runs from event 0 over the whole stream (headroom reuses)
    if zero_bounds is not None and share:
        for rid, (start, end) in span.items():
            if rid[0] == "own" and start == 0 and end >= n:
                offsets[rid].update(o for lh in zero_bounds for o in lh)
                zero_want.add(rid)
    runs: dict = {}
    zero_sums: dict = {}
    out: list[dict] = []
    ref_keys = None
    consistent = True
    def get_run(rid):
        nonlocal kleene_vars
        run = runs.get(rid)
        if run is None:
            start, end = span[rid]
            res = run_plan(program, stream.slice(start, end), kind, rid[1][0],
                           engine_options or {})
            if kleene_vars is None:
                kleene_vars = np.asarray(res.matches.kleene, bool)
            run = _Run(res, start, end, sorted(offsets[rid]), kleene_vars)
            del res
            if rid in zero_want:
                zero_sums[rid[1][0]] = np.stack(
                    [run.block(l, h) for l, h in zero_bounds]) if zero_bounds else \
                    np.zeros((0, run.cs.shape[1]), np.int64)
            runs[rid] = run
        return run

    for su in uses:
        sums = None
        dup = np.zeros(C.N_COUNTERS, np.int64)
        plan_events = overlap = n_m = 0
        parts = []
        for key, p, nxt, lo, hi, a, mk, m_lo in su:
            if mk is not None:
                ex = np.zeros(C.N_COUNTERS, np.int64)
                for rid, x0, x1 in segs[mk]:
                    if x0 >= hi:
                        continue
                    run = get_run(rid)
                    lo_c, hi_c = max(m_lo, x0), min(hi, x1)
                    if lo_c < hi_c:
                        ex += run.block(lo_c - run.lo, hi_c - run.lo)
                    refs[rid] -= 1
                    if refs[rid] == 0:
                        del runs[rid]
                dup += np.maximum(ex, 0)
            for rid, x0, x1 in segs[key]:
                if x0 >= hi:
                    continue
                run = get_run(rid)
                start = run.lo
                lo_c, hi_c = max(lo + a, x0), min(hi, x1)
                if lo_c < hi_c:
                    blk = run.block(lo_c - start, hi_c - start)
                    sums = blk if sums is None else sums + blk
                # the matches this slice detects inside the segment: detect in [x0, min(hi, x1))
                d_lo = x0 - start if x0 > start else _NO_BOUND_LO
                d_hi = min(hi, x1) - start if run.end > min(hi, x1) else _NO_BOUND_HI
                picked = _pick_rows(run.rows, run.first, run.detect, p, nxt, d_lo, d_hi)
                n_m += len(picked)
                if len(picked):
                    parts.append(picked)
                refs[rid] -= 1
                if refs[rid] == 0:
                    del runs[rid]
            if sums is None:
                sums = np.zeros(C.N_COUNTERS, np.int64)
            plan_events += hi - lo - a
            overlap += max(0, hi - nxt)
        rows = np.concatenate(parts) if parts else np.zeros((0, 1), np.int64)
        del parts
        keyset = RowMultiset(rows)
        del rows
        if ref_keys is None:
            ref_keys = keyset
        elif not keyset == ref_keys:
            consistent = False
        del keyset
        out.append({"eng_sums": sums, "dup_sums": dup, "plan_events": int(plan_events),
                    "overlap": int(overlap), "matches": int(n_m)})
    return out, consistent, zero_sums
