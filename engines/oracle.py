"""The oracle: a brute-force enumerator of every match.  Its docstring is THE definition.

It is deliberately plain Python (recursion over candidate positions, no Numba, no shared code
with the engines' predicate kernel) so that every engine can be checked against it on small
streams (a few hundred events).  A compiled ``Program`` is a set of flat *branches*
(``engines.compile``); a match of the pattern is a match of one branch and the oracle reports
the union over branches.

Definition (restating docs/SEMANTICS.md; ``W`` = window, ``N`` = count window):

* **Structure.** OR is split into its alternatives; AND into every interleaving of its operands'
  elements (a Kleene operand is one element, its events stay together); nested SEQs are inlined.
  Matches of different branches never coincide (they differ in bound variables or in order).
  Predicates mentioning a variable a branch does not bind are ignored in that branch.
* **Binding.** Plain variable: one event.  Kleene ``B+ b``: a non-empty strictly increasing list.
  Every bound event has its variable's type.  Order is strict stream *position* (arrival order),
  not timestamp: every event of ``x_i`` precedes every event of ``x_{i+1}``; equal timestamps
  never reorder events.
* **Predicates.** Every predicate of the branch that mentions only positive variables holds.  A
  predicate mentioning a Kleene variable must hold for every event bound to it (two Kleene
  variables: every pair).  A predicate mentioning one variable on both sides (``b.x < b.y``)
  is evaluated per event with that event on both sides.  ``SAME[attr]`` is compiled into
  equalities between the branch's first positive variable and every other variable of the
  branch (negated ones included).  Arithmetic is float64 in the order of
  ``engines.predicates``: ``x OP y * scale + offset``; ``|x - y| OP c``; Pearson computed in two
  passes (means, then centred sums), ``sxy / sqrt(sxx * syy)``, NaN when a variance is zero, and
  comparisons follow IEEE (NaN makes every operator false except ``!=``).
* **Window** (inclusive).  Time: ``ts[last] - ts[first] <= W`` over the bound positive events
  (events are in position order and timestamps non-decreasing, so this is max - min).  Count
  ``WITHIN N events``: ``pos[last] - pos[first] < N`` (a match spans at most N positions).
  No WITHIN: unbounded (a time window of +inf).
* **Negation** ``NOT(C c)`` with positive neighbours L (left) and R (right) in the branch: the match
  is rejected if some event ``c`` of type C *kills* it, i.e. every branch predicate mentioning
  ``c`` holds with ``c`` and the match's bindings (no such predicate: any C event kills) and
  ``c`` lies
  - in the middle: strictly between the last event of L and the first event of R (positions);
  - at the start (no L): before the first positive event, with ``ts[last] - ts[c] <= W``
    (count: ``pos[last] - pos[c] < N``);
  - at the end (no R): after the last positive event, with ``ts[c] - ts[first] <= W``
    (count: ``pos[c] - pos[first] < N``).
* **Detection.** ``detect`` = index of the event while processing which the match is emitted.
  Without a trailing NOT: the match's last event.  With a trailing NOT: the first event ``e``
  (of any type) with ``ts[e] - ts[first] > W`` (count: ``pos[e] - pos[first] >= N``), or
  ``n_events`` when there is none (end of stream; always so without a window).
* **skip-till-any-match:** every binding satisfying the rules above is a match; a Kleene variable
  takes every non-empty ordered subset of its qualifying events (2^k - 1 of them).
* **skip-till-next-match** (SASE): additionally, walking the match in stream order, each bound
  event after the first is the *first* event after the previously bound event that *qualifies*
  for the element it is bound to -- the next element, or one more event of the Kleene element
  being filled.  ``e`` qualifies for element ``x`` given the prefix bound so far when it has
  ``x``'s type, ``ts[e] - ts[first] <= W`` (count ``pos[e] - pos[first] < N``), and every branch
  predicate that mentions ``x`` and only variables bound in ``prefix + {e as x}`` holds (so
  predicates on later variables or on negated ones are not consulted).  A Kleene element may stop
  after any number >= 1 of its consecutive qualifying events (each choice its own match); when an
  event qualifies both as one more Kleene event and as the next element, both runs exist.  The
  first event of a match is any qualifying event.  Negation never changes which event is next;
  it only filters complete matches.

Implementation: per branch, a depth-first search binds events one at a time in stream order
(the "qualifies" test above prunes: it only removes partial bindings that violate a predicate
all of whose variables are bound, or the window); under skip-till-next-match the scan for each
step stops at the first qualifying event.  Every candidate is then checked from scratch against
the binding / predicate / window / negation rules (``_is_match``) before it is reported.
* **Remote data.** ``x.a OP REMOTE[y.b] * k + c`` holds when ``x.a OP R(y.b) * k + c``;
  ``REMOTE[y.b] OP c`` when ``R(y.b) OP c``, with ``R`` the remote function (``remote=``: None =
  identity, a 1-d array = table indexed by the integer key, or a callable).  Remote predicates are
  *filters*: "qualifies" never consults them (under skip-till-next-match a false remote predicate
  kills the run that bound the next qualifying event; it never lets a later event become the
  next one).  ``AT z`` only says where the remote-data engines check it.

Counters: the oracle does no engine work worth costing; it returns a zero counter matrix except
``MATCH_EMIT`` (+1 per match at its detect row, ``n_events`` mapped to the last row).  Engines
are compared with it on match sets only.  More than ``max_matches`` matches or ``max_steps`` search steps raise
``CapacityError``.
"""
from __future__ import annotations

import math

from engines.compile import (KIND_KLEENE, KIND_NEG, OP_EQ, OP_GE, OP_GT, OP_LE, OP_LT, OP_NE,
                             PK_ABS, PK_CMP, PK_CORR, PK_REMOTE, POLICY_NEXT, WIN_COUNT, Branch,
                             Program)
from engines.counters import MATCH_EMIT, new_counters
from engines.errors import CapacityError, CepsimInputError
from engines.matches import MatchSet
from engines.registry import EngineResult
from engines.stream import EventStream


# ----------------------------------------------------------------------------- predicates
def _compare(op: int, x: float, y: float) -> bool:
    if op == OP_LT:
        return x < y
    if op == OP_LE:
        return x <= y
    if op == OP_GT:
        return x > y
    if op == OP_GE:
        return x >= y
    if op == OP_EQ:
        return x == y
    if op == OP_NE:
        return x != y
    raise ValueError(f"unknown comparison operator code {op}")


def _pearson(r1: list[float], c1: int, r2: list[float], c2: int, n: int) -> float:
    """Two-pass Pearson correlation (same operation order as engines.predicates.pearson)."""
    m1 = 0.0
    m2 = 0.0
    for k in range(n):
        m1 += r1[c1 + k]
        m2 += r2[c2 + k]
    m1 /= n
    m2 /= n
    sxy = sxx = syy = 0.0
    for k in range(n):
        dx = r1[c1 + k] - m1
        dy = r2[c2 + k] - m2
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    if sxx == 0.0 or syy == 0.0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


def remote_function(remote):
    """The remote function ``R(key)`` from the ``remote=`` option (see module docstring)."""
    if remote is None:
        return lambda k: k
    if callable(remote):
        return lambda k: float(remote(k))
    table = [float(v) for v in remote]

    def lookup(k: float) -> float:
        i = int(k)
        if i != k or not 0 <= i < len(table):
            raise CepsimInputError(f"remote key {k!r} is not an index of the remote table (length "
                                   f"{len(table)}); make the table cover every key")
        return table[i]
    return lookup


class _Pred:
    """One row of the program's predicate table, in plain Python."""

    def __init__(self, program: Program, p: int, remote=None):
        self.remote = remote if remote is not None else (lambda k: k)
        row = [int(v) for v in program.pred_i[p]]
        self.kind, self.op, self.v1, self.c1, self.v2, self.c2, self.vlen = row
        self.scale = float(program.pred_f[p, 0])
        self.offset = float(program.pred_f[p, 1])
        self.vars = frozenset(program.pred_vars(p))
        self.text = program.pred_text[p] if p < len(program.pred_text) else f"#{p}"

    def eval(self, rows: list[list[float]], e1: int, e2: int) -> bool:
        a, b = rows[e1], rows[e2]
        if self.kind == PK_CMP:
            if self.v2 < 0:
                return _compare(self.op, a[self.c1], self.offset)
            return _compare(self.op, a[self.c1], b[self.c2] * self.scale + self.offset)
        if self.kind == PK_ABS:
            return _compare(self.op, abs(a[self.c1] - b[self.c2]), self.offset)
        if self.kind == PK_CORR:
            return _compare(self.op, _pearson(a, self.c1, b, self.c2, self.vlen), self.offset)
        if self.kind == PK_REMOTE:
            r = self.remote(b[self.c2])
            if self.c1 < 0:
                return _compare(self.op, r, self.offset)
            return _compare(self.op, a[self.c1], r * self.scale + self.offset)
        raise CepsimInputError(f"predicate '{self.text}' cannot be evaluated by the oracle")

    def holds(self, rows: list[list[float]], bind: dict[int, list[int]]) -> bool:
        """True when the predicate holds for every event (pair) of the bound variables."""
        if self.v2 < 0 or self.v2 == self.v1:
            return all(self.eval(rows, e, e) for e in bind[self.v1])
        return all(self.eval(rows, e1, e2) for e1 in bind[self.v1] for e2 in bind[self.v2])


# ----------------------------------------------------------------------------- one branch
class _BranchOracle:
    def __init__(self, program: Program, branch: Branch, stream: EventStream,
                 max_steps: int = 50_000_000, remote=None):
        self.steps = 0
        self.max_steps = max_steps
        self.types = [int(t) for t in stream.types]
        self.ts = [float(t) for t in stream.ts]
        self.rows = stream.attrs.tolist()
        self.n = len(self.types)
        self.count = program.window_kind == WIN_COUNT
        self.W = program.window
        self.next_policy = program.policy == POLICY_NEXT
        self.var_type = [int(t) for t in program.var_type]
        self.kleene = [int(k) == KIND_KLEENE for k in program.var_kind]
        self.elems = [int(v) for v in branch.pos_vars]
        self.m = len(self.elems)
        # groups of slots: an unordered group's variables may bind in any order
        gid = [int(g) for g in branch.groups]
        self.group_of = gid
        self.gvars: list[list[int]] = []
        for v, g in zip(self.elems, gid):
            if g == len(self.gvars):
                self.gvars.append([])
            self.gvars[g].append(v)
        negated = {v for v in range(program.n_vars) if program.var_kind[v] == KIND_NEG}
        preds = [_Pred(program, int(p), remote) for p in branch.pred_ids]
        self.pos_preds = [p for p in preds if not (p.vars & negated)]
        self.negs = []  # (neg var, left slot, right slot, predicates mentioning it)
        for v, left, right in zip(branch.neg_vars, branch.neg_left, branch.neg_right):
            v = int(v)
            self.negs.append((v, int(left), int(right), [p for p in preds if v in p.vars]))
        self.trailing_not = any(r == self.m for _, _, r, _ in self.negs)

    # -- window helpers (i earlier or equal position than j) -------------------------------
    def within(self, i: int, j: int) -> bool:
        """Events at positions i <= j fit in one window."""
        if self.count:
            return j - i < self.W
        return self.ts[j] - self.ts[i] <= self.W

    # -- the full definition of a match (rules 1-4) ---------------------------------------
    def is_match(self, bind: dict[int, list[int]]) -> bool:
        seq: list[int] = []
        prev_max = -1
        for vs in self.gvars:
            gev: list[int] = []
            for v in vs:
                evs = bind.get(v, [])
                if not evs or (not self.kleene[v] and len(evs) != 1):
                    return False
                if any(self.types[e] != self.var_type[v] for e in evs):
                    return False
                if any(a >= b for a, b in zip(evs, evs[1:])):
                    return False
                gev.extend(evs)
            if len(set(gev)) != len(gev) or min(gev) <= prev_max:
                return False          # strict stream position between groups, distinct events
            prev_max = max(gev)
            seq.extend(sorted(gev))
        first, last = seq[0], seq[-1]
        if self.count:
            if not last - first < self.W:
                return False
        elif not max(self.ts[e] for e in seq) - min(self.ts[e] for e in seq) <= self.W:
            return False
        if not all(p.holds(self.rows, bind) for p in self.pos_preds):
            return False
        for v, left, right, preds in self.negs:
            if left < 0:
                cands = [c for c in range(first) if self.within(c, last)]
            elif right >= self.m:
                cands = [c for c in range(last + 1, self.n) if self.within(first, c)]
            else:
                # between the last event of the left group and the first of the right group
                lo = max(bind[u][-1] for u in self.gvars[self.group_of[left]])
                hi = min(bind[u][0] for u in self.gvars[self.group_of[right]])
                cands = range(lo + 1, hi)
            for c in cands:
                if self.types[c] != self.var_type[v]:
                    continue
                bind[v] = [c]
                killed = all(p.holds(self.rows, bind) for p in preds)
                del bind[v]
                if killed:
                    return False
        return True

    def detect(self, first: int, last: int) -> int:
        if not self.trailing_not:
            return last
        for e in range(last + 1, self.n):
            if not self.within(first, e):
                return e
        return self.n

    # -- search ---------------------------------------------------------------------------
    def qualifies(self, e: int, v: int, bind: dict[int, list[int]], first: int) -> bool:
        """``e`` may be bound to element ``v`` next (SEMANTICS rule 6's 'qualifies')."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise CapacityError(f"oracle: more than max_steps={self.max_steps} search steps (a "
                                "Kleene or unwindowed pattern over a long stream); pass a larger "
                                "max_steps= or use a shorter stream or window")
        if self.types[e] != self.var_type[v]:
            return False
        if first >= 0 and not self.within(first, e):
            return False
        bind.setdefault(v, []).append(e)
        ok = all(p.holds(self.rows, bind) for p in self.pos_preds
                 if p.kind != PK_REMOTE and v in p.vars and all(u in bind for u in p.vars))
        bind[v].pop()
        if not bind[v]:
            del bind[v]
        return ok

    def matches(self):
        """Yield ``(binding, detect)`` for every match of the branch."""
        bind: dict[int, list[int]] = {}
        seq: list[int] = []

        G = len(self.gvars)

        def rec(g: int, last_var: int):
            # ``g`` = the group being filled (-1: nothing bound yet), ``last_var`` = the variable
            # the last bound event belongs to
            done = g >= 0 and all(u in bind for u in self.gvars[g])
            if done and g == G - 1:
                cand = {v: list(evs) for v, evs in bind.items()}
                if self.is_match(cand):
                    yield cand, self.detect(seq[0], seq[-1])
            targets = []                              # (group, variable)
            if last_var >= 0 and self.kleene[last_var]:
                targets.append((g, last_var))         # one more event of the Kleene element
            if g >= 0 and not done:
                targets.extend((g, u) for u in self.gvars[g] if u not in bind)
            elif g + 1 < G:
                targets.extend((g + 1, u) for u in self.gvars[g + 1])   # the next group
            start = seq[-1] + 1 if seq else 0
            first = seq[0] if seq else -1
            for tg, v in targets:
                for e in range(start, self.n):
                    if first >= 0 and not self.within(first, e):
                        break                        # later events are outside the window too
                    if not self.qualifies(e, v, bind, first):
                        continue
                    bind.setdefault(v, []).append(e)
                    seq.append(e)
                    yield from rec(tg, v)
                    seq.pop()
                    bind[v].pop()
                    if not bind[v]:
                        del bind[v]
                    if self.next_policy and first >= 0:
                        break                        # only the next qualifying event

        yield from rec(-1, -1)


# ----------------------------------------------------------------------------- entry point
def run_oracle(program: Program, stream: EventStream, max_matches: int = 1_000_000,
               flat: bool = False, max_steps: int = 50_000_000, remote=None,
               **ignored) -> EngineResult:
    """Every match of ``program`` on ``stream`` by exhaustive search (see module docstring).

    ``flat=True`` searches the fully ordered branches (``program.branches``: every order of an
    unordered AND group) instead of ``program.grouped``; tests use it to check one against the
    other.  ``max_steps`` bounds the search (events tried per branch): the exhaustive search of
    a Kleene pattern is exponential, so a long stream raises ``CapacityError`` instead of
    running without bound.  ``remote``: the remote function for ``REMOTE[...]`` (None =
    identity, a table or a callable)."""
    rfun = remote_function(remote)
    if (tuple(stream.schema.type_names) != tuple(program.schema.type_names)
            or tuple(stream.schema.attr_names) != tuple(program.schema.attr_names)):
        raise CepsimInputError(f"{stream.source}: the stream's schema differs from the one the "
                               "pattern was compiled for; compile the pattern against this "
                               "stream's schema")
    pos_vars = program.positive_vars
    names = tuple(program.var_names[v] for v in pos_vars)
    kleene = tuple(bool(program.var_kind[v] == KIND_KLEENE) for v in pos_vars)
    found: list[tuple[int, tuple, dict]] = []
    for branch in (program.branches if flat else program.grouped):
        for bind, det in _BranchOracle(program, branch, stream, max_steps, rfun).matches():
            rec = {program.var_names[v]: (evs if program.var_kind[v] == KIND_KLEENE else evs[0])
                   for v, evs in bind.items()}
            key = tuple(sorted((k, tuple(x) if isinstance(x, list) else x)
                               for k, x in rec.items()))
            found.append((det, key, rec))
            if len(found) > max_matches:
                raise CapacityError(f"oracle: more than max_matches={max_matches} matches; raise "
                                    "the cap with --max-matches / max_matches=, or use a shorter "
                                    "stream or window")
    found.sort(key=lambda f: (f[0], f[1]))
    keys = [k for _, k, _ in found]
    if len(set(keys)) != len(keys):
        raise AssertionError("oracle produced the same match twice (two branches coincide)")
    matches = MatchSet.from_records(names, kleene, [r for _, _, r in found],
                                    [d for d, _, _ in found])
    n = len(stream)
    counters = new_counters(n)
    for det, _, _ in found:
        counters[min(det, max(n - 1, 0)), MATCH_EMIT] += 1
    return EngineResult(matches=matches, counters=counters,
                        info={"engine": "oracle", "branches": len(program.grouped)})
