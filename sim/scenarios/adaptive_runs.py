"""The epoch evaluation of every decision method of one adaptive point, lean (issue 27 item 4).

``evaluate_methods`` gives exactly what ``sim.scenarios.adaptive`` used to build from one
``engines.planners.adaptive.epochs.run_schedule`` call per method over a shared run cache
(``tests/test_adaptive_runs.py`` keeps that straightforward computation as its reference and
checks equality): per schedule the engine counters summed over the events after the warm-up,
the (live plan, event) pairs after the warm-up, the overlap events and the match count, and
whether all schedules found the same match set.  The engine runs are the same runs, in the
same order (``run_schedule``'s slices, prefix sharing and horizons), so every count is the
same; what changes is what is kept of them:

* a run's counters only as their prefix sums at the offsets some epoch reads (epoch ends, the
  warm-up boundary, the headroom oracle's epoch bounds), not ``int64[events, N_COUNTERS]``;
* a run's matches only as the rows their canonical form is made of (positions, Kleene lengths
  of Kleene variables, earliest event) plus the detection offset, in int32 when positions fit,
  not a whole ``MatchSet`` (which carries zero Kleene columns for plain variables);
* a run is dropped after its last use (uses are known once every controller has run).

Before this a point held every (plan, start) run of all its methods at once: 9.1 GB for one
``fig7`` greedy OR point at 100k events.  Integer sums are exact whatever their grouping, and
the canonical rows of a method are the rows the old evaluation built from its concatenated
``MatchSet`` (constant zero columns dropped for every method alike), so rows stay
bit-identical.
"""
from __future__ import annotations

import numpy as np

from engines.planners.adaptive.epochs import (_run_plan, earliest_event, epoch_slices,
                                              prefix_sharing)
from engines.matches import canonical_rows


class _Run:
    """What later epochs need of one engine run over ``stream[lo:end)``."""

    __slots__ = ("end", "offsets", "cs", "rows", "first", "detect")

    def __init__(self, res, lo: int, end: int, offsets: list[int], kleene: np.ndarray):
        cnt = np.asarray(res.counters)
        self.end = end
        self.offsets = {o: i for i, o in enumerate(offsets)}
        cs = np.zeros((len(offsets), cnt.shape[1]), np.int64)
        acc = np.zeros(cnt.shape[1], np.int64)
        prev = 0
        for i, o in enumerate(offsets):          # offsets ascending: one pass of block sums
            acc += cnt[prev:o].sum(axis=0)
            cs[i] = acc
            prev = o
        self.cs = cs
        ms = res.matches
        first = earliest_event(ms) + lo
        if np.any(ms.kl_len[:, ~kleene]):        # pragma: no cover - engine contract
            raise AssertionError("a plain variable has a Kleene length")
        # positions < end: int32 unless the stream is longer than int32 can count
        dt = np.int32 if end < np.iinfo(np.int32).max else np.int64
        m, nv, nk = len(first), ms.pos.shape[1], int(kleene.sum())
        rows = np.empty((m, nv + nk + 1), dt)
        rows[:, :nv] = ms.pos
        view = rows[:, :nv]
        np.add(view, lo, out=view, where=view >= 0)
        rows[:, nv:nv + nk] = ms.kl_len[:, kleene]
        rows[:, -1] = first
        self.rows = rows
        self.first = rows[:, -1]
        self.detect = np.asarray(ms.detect).astype(dt)

    def block(self, a: int, b: int) -> np.ndarray:
        """Counter sums over run offsets ``[a, b)``."""
        return self.cs[self.offsets[b]] - self.cs[self.offsets[a]]


_MIX = np.uint64(0x9E3779B97F4A7C15)


def canonical_set(rows: np.ndarray) -> np.ndarray:
    """A canonical form of a multiset of non-negative-or--1 int rows: ``canonical_rows`` when its
    one-key packing applies, else the rows sorted by a 64-bit hash of their contents (one
    argsort instead of ``np.lexsort`` over every column), falling back to ``canonical_rows``
    when two different rows share a hash.  Either way the result is the rows' multiset in an
    order fixed by that multiset, so two results are equal exactly when the multisets are."""
    if len(rows) == 0:
        return canonical_rows(rows)
    bits = max(1, int(rows.max()).bit_length())
    if rows.min() >= 0 and bits * rows.shape[1] <= 62:
        return canonical_rows(rows)
    h = np.zeros(len(rows), np.uint64)
    with np.errstate(over="ignore"):
        for j in range(rows.shape[1]):
            h ^= rows[:, j].astype(np.uint64)
            h *= _MIX
            h ^= h >> np.uint64(31)
    order = np.argsort(h, kind="stable")
    hs = h[order]
    out = rows[order]
    tie = np.flatnonzero(hs[1:] == hs[:-1])
    if len(tie) and np.any(out[tie] != out[tie + 1]):
        return canonical_rows(rows)
    return out


def evaluate_methods(program, stream, kind: str, schedules: list, n_warmup: int,
                     engine_options: dict | None = None,
                     zero_bounds: list[tuple[int, int]] | None = None
                     ) -> tuple[list[dict], bool, dict]:
    """Evaluate every ``(starts, plans)`` of ``schedules`` (module docstring).

    Returns ``(per_schedule, consistent, zero_sums)``: per schedule a dict ``eng_sums``
    (int64[N_COUNTERS], engine counters over events >= ``n_warmup``), ``plan_events``,
    ``overlap``, ``matches``; ``consistent`` = every schedule's canonical match set equals the
    first's; ``zero_sums`` = ``{plan: int64[len(zero_bounds), N_COUNTERS]}`` for every run of a
    plan from event 0 over the whole stream (``run_schedule``'s cache entry the headroom oracle
    reuses), summed over ``zero_bounds``."""
    n = len(stream)
    share = prefix_sharing(program)
    kleene_vars = None
    uses: list[list[tuple]] = []
    need: dict = {}                # key -> (end, set of offsets)
    for starts, plans in schedules:
        if not starts or starts[0] != 0 or any(b <= a for a, b in zip(starts, starts[1:])):
            from engines.errors import CepsimInputError
            raise CepsimInputError("adaptive: epoch starts must begin at 0 and increase")
        su = []
        for e, (lo, hi) in enumerate(epoch_slices(program, stream, starts)):
            p = starts[e]
            nxt = starts[e + 1] if e + 1 < len(starts) else n
            key = (plans[e], lo) if share else (plans[e], lo, hi)
            a = min(max(n_warmup - lo, 0), hi - lo)
            end, offs = need.get(key, (0, set()))
            offs.update((a, hi - lo))
            need[key] = (max(end, hi), offs)
            su.append((key, p, nxt, lo, hi, a))
        uses.append(su)
    refs: dict = {}                # key -> epochs still to read the run
    for su in uses:
        for key, *_ in su:
            refs[key] = refs.get(key, 0) + 1
    zero_want = set()              # runs from event 0 over the whole stream (headroom reuses)
    if zero_bounds is not None and share:
        for key, (end, offs) in need.items():
            if key[1] == 0 and end >= n:
                offs.update(o for lh in zero_bounds for o in lh)
                zero_want.add(key)
    runs: dict = {}
    zero_sums: dict = {}
    out: list[dict] = []
    ref_keys = None
    consistent = True
    for su in uses:
        sums = None
        plan_events = overlap = n_m = 0
        parts = []
        for key, p, nxt, lo, hi, a in su:
            run = runs.get(key)
            if run is None:
                end, offs = need[key]
                res = _run_plan(program, stream.slice(lo, end), kind, key[0],
                                engine_options or {})
                if kleene_vars is None:
                    kleene_vars = np.asarray(res.matches.kleene, bool)
                run = _Run(res, lo, end, sorted(offs), kleene_vars)
                del res
                if key in zero_want:
                    zero_sums[key[0]] = np.stack([run.block(l, h) for l, h in zero_bounds]) \
                        if zero_bounds else np.zeros((0, run.cs.shape[1]), np.int64)
                runs[key] = run
            keep = (run.first >= p) & (run.first < nxt)
            if run.end > hi:             # a longer run of the same plan: what the slice had seen
                keep &= run.detect < hi - lo
            blk = run.block(a, hi - lo)
            sums = blk if sums is None else sums + blk
            plan_events += hi - lo - a
            overlap += max(0, hi - nxt)
            k = int(np.count_nonzero(keep))
            n_m += k
            if k:
                parts.append(run.rows[keep])
            refs[key] -= 1
            if refs[key] == 0:
                del runs[key]
        rows = (np.concatenate(parts).astype(np.int64) if parts
                else np.zeros((0, 1), np.int64))
        del parts
        keyset = canonical_set(rows)
        del rows
        if ref_keys is None:
            ref_keys = keyset
        elif not np.array_equal(keyset, ref_keys):
            consistent = False
        out.append({"eng_sums": sums, "plan_events": int(plan_events), "overlap": int(overlap),
                    "matches": int(n_m)})
    return out, consistent, zero_sums
