"""Random streams and patterns shared by every engine test (hypothesis + deterministic numpy).

Import it from a test module as ``from strategies import ...`` (pytest puts ``tests/`` on
``sys.path``; the folder has no ``__init__.py``).

Stable API
----------
``ATTR_NAMES``                       ``("x", "y", "id", "h[0]", "h[1]", "h[2]", "h[3]")``
``GENERATED_PATTERN_WARNINGS``       the warning filter of modules that compile generated patterns
``TYPE_NAMES``                       ``("A", "B", "C", "D", "E")``

``streams(n_types=(3, 5), max_events=200, min_events=0)``
    -> strategy of ``EventStream``.  Types ``"A"..`` (``n_types`` an int or an inclusive
    ``(lo, hi)`` range), attributes ``x``, ``y`` in 0..4, ``id`` in 0..2 and the vector
    ``h[0..3]`` in 0..3 (small integers: equalities, ties and zero-variance vectors happen),
    timestamps non-decreasing integer seconds with frequent ties (increments 0..3).
    Hypothesis draws the type count, the length and one seed; the content comes from numpy
    (``stream_from_seed``), which is ~10x faster than drawing every value through hypothesis.
    A shorter length with the same seed gives a prefix, so shrinking still shortens streams.

``stream_from_seed(seed, n_types, n_events)`` -> ``EventStream`` (the generator behind both).

``patterns(types=("A", "B", "C"), **options)``
    -> strategy of ``Pattern`` ASTs (they always compile against a stream from ``streams``
    whose types include ``types``).  Options (all keyword, see ``PatternOptions``):
    ``min_len=2, max_len=5`` positive events; ``kleene=True``; ``negation=True`` (NOT at
    start / middle / end); ``and_or=True`` (AND, OR, nested SEQ); ``simple_sequence=False``
    (True = plain ``SEQ`` of plain events only, still with predicates, both policies and windows);
    ``predicates=True``, ``max_preds=3``, ``pred_kinds=("cmp", "const", "abs", "corr", "same")``;
    ``remote=False`` (also REMOTE[...] predicates: only for parser tests, no engine evaluates
    them); ``policies=("skip-till-any-match", "skip-till-next-match")``;
    ``windows=("time", "count")`` (add ``"none"`` for no WITHIN; ``cases`` keeps those streams
    tiny); ``scaled_windows=True`` (window length drawn between half and all of
    ``m * n_types`` events or seconds, ``m`` = positive variables: a count window is never
    shorter than the pattern; False = the old fixed 2..8); ``satisfiable=True`` (a drawn
    predicate that holds for under ``MIN_SELECTIVITY`` = 20 % of uniform values gets its
    operator negated, see ``selectivity``).  The number of predicates falls geometrically
    (0: 35 %, 1: 23 %, 2: 15 %, 3: 27 % with ``max_preds=3``); SAME and corr are drawn less
    often than comparisons.

``cases(max_events=60, kleene_max_events=40, unbounded_max_events=25, n_types=(3, 5),
min_events=None, **options)``
    -> strategy of ``(Pattern, EventStream)`` pairs over the same type names, with the stream
    length capped by the pattern's blow-up risk (Kleene or no window => smaller streams) and,
    by default, at least ``2 * m * n_types`` events (capped), except one case in ten drawn from
    0 events up so that empty and tiny streams stay covered.


``small_cases(seed, n, **same_keywords_as_cases)``
    -> list of ``n`` deterministic ``(Pattern, EventStream)`` pairs drawn with numpy from
    ``seed`` (same generator as the hypothesis strategies), for fast non-hypothesis loops.

``assert_same_matches(result_a, result_b, context="", *, labels=("a", "b"), check_detect=False)``
    Compare the ``MatchSet.key_set()`` of two results (``EngineResult`` or ``MatchSet``).  On
    failure raise ``AssertionError`` (and print) with ``context`` -- a string, or a tuple
    ``(pattern_or_program, stream[, note])`` -- the pattern text, the stream as a small table and
    the symmetric difference.  ``check_detect=True`` also compares each match's ``detect`` index.

``format_stream(stream, max_rows=80) -> str``    the stream as a table (index, type, ts, attrs).

``n_positive(pattern)``, ``selectivity(predicate)``  helpers of the generators.

``MatchRate(name, big=4)`` counts the examples of a property test with at least one match
(``add(pattern, n_matches)``, which also calls ``hypothesis.target`` on the capped count) and
``check(min_rate=0.5, min_rate_big=0.5)`` asserts >= 50 % overall and among patterns with 4+
positive variables.  In tests use the ``match_rate`` fixture (``tests/conftest.py``), which
records the summary and lists every rate at the end of the run.  Pattern::

    def test_engine_equals_oracle(match_rate):
        rate = match_rate("my engine")

        @settings(max_examples=60, deadline=None)
        @given(cases(max_events=60))
        def prop(case):
            ...                                  # compare with the oracle
            rate.add(case[0], len(oracle_result.matches))

        prop()
        rate.check()

The generators are written once against a tiny "chooser" interface (``int(lo, hi)``,
``bool(p)``, ``choice(seq)``) so that hypothesis and numpy draw the same distribution; hypothesis
shrinks towards the simplest choice (first option, no feature).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
from hypothesis import strategies as st

from engines.matches import MatchSet
from engines.pattern.ast import (AbsDiff, And, Attr, Compare, Corr, Event, Node, Not, Or, Pattern,
                                 Remote, Same, Seq, Window)
from engines.stream import EventStream

# A generated OR pattern may carry a predicate between variables of different alternatives; the
# compiler then warns (``engines.compile.PatternWarning``) that the predicate is never evaluated,
# which is the semantics every engine is checked against.  Modules that compile generated
# patterns ignore that one warning (``pytestmark = pytest.mark.filterwarnings(
# GENERATED_PATTERN_WARNINGS)``), so the test run stays quiet and any other warning stands out;
# a test that expects the warning asserts it with ``pytest.warns`` (which records it regardless).
GENERATED_PATTERN_WARNINGS = "ignore::engines.compile.PatternWarning"
TYPE_NAMES = ("A", "B", "C", "D", "E")
ATTR_NAMES = ("x", "y", "id", "h[0]", "h[1]", "h[2]", "h[3]")
SCALAR_ATTRS = ("x", "y", "id")
POLICIES = ("skip-till-any-match", "skip-till-next-match")
PRED_KINDS = ("cmp", "const", "abs", "corr", "same")
OPS = ("<", "<=", ">", ">=", "=", "!=")


# ----------------------------------------------------------------------------- choosers
class _HypChooser:
    """Choices drawn by hypothesis; every choice shrinks towards its first / 'off' option."""

    def __init__(self, draw):
        self._draw = draw

    def int(self, lo: int, hi: int) -> int:
        return self._draw(st.integers(lo, hi))

    def bool(self, p: float = 0.5) -> bool:
        # shrinks to 0 -> False
        return self._draw(st.integers(0, 999)) >= round((1.0 - p) * 1000)

    def choice(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]


class _NpChooser:
    def __init__(self, rng: np.random.Generator):
        self._rng = rng

    def int(self, lo: int, hi: int) -> int:
        return int(self._rng.integers(lo, hi + 1))

    def bool(self, p: float = 0.5) -> bool:
        return bool(self._rng.random() < p)

    def choice(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]


# ----------------------------------------------------------------------------- streams
def _n_range(n_types) -> tuple[int, int]:
    if isinstance(n_types, int):
        return n_types, n_types
    lo, hi = n_types
    return int(lo), int(hi)


# per-event draw: [timestamp step index, type, x, y, id, h0..h3]; the highs of each column
_STEPS = np.array([0.0, 1.0, 0.0, 1.0, 2.0, 3.0])      # ties frequent, mean step 7/6 s
_HIGHS = np.array([len(_STEPS), 1, 5, 5, 3, 4, 4, 4, 4])


def stream_from_seed(seed: int, n_types: int, n_events: int) -> EventStream:
    """A random stream drawn with numpy from ``seed`` (the content of every generated stream).

    One row of draws per event, so the stream of length ``n`` is a prefix of the stream of
    length ``n + 1`` with the same seed: hypothesis shrinking the length shrinks to a prefix.
    """
    rng = np.random.default_rng(int(seed))
    t0 = float(rng.integers(0, 6))
    highs = _HIGHS.copy()
    highs[1] = n_types
    draw = rng.integers(0, highs, size=(n_events, len(highs)))
    steps = _STEPS[draw[:, 0]]
    if n_events:
        steps[0] = 0.0
    ts = t0 + np.cumsum(steps)
    return EventStream.from_arrays(draw[:, 1].astype(np.int32), ts.astype(np.float64),
                                   draw[:, 2:].astype(np.float64), TYPE_NAMES[:n_types],
                                   ATTR_NAMES, source="<strategies>")


def _gen_stream(ch, n_types: int, n_events: int) -> EventStream:
    """Stream content from a seed the chooser draws (hypothesis: one integer, not one per value)."""
    return stream_from_seed(ch.int(0, 2**32 - 1), n_types, n_events)


def _stream_from_chooser(ch, n_types=(3, 5), max_events: int = 200,
                         min_events: int = 0) -> EventStream:
    lo, hi = _n_range(n_types)
    nt = ch.int(lo, hi)
    n = ch.int(min_events, max_events)
    return _gen_stream(ch, nt, n)


def streams(n_types=(3, 5), max_events: int = 200, min_events: int = 0):
    """Strategy of EventStreams (see module docstring)."""
    lo, hi = _n_range(n_types)
    if not 1 <= lo <= hi <= len(TYPE_NAMES):
        raise ValueError(f"n_types must lie in 1..{len(TYPE_NAMES)}")

    @st.composite
    def _s(draw):
        return _stream_from_chooser(_HypChooser(draw), (lo, hi), max_events, min_events)

    return _s()


# ----------------------------------------------------------------------------- patterns
@dataclass(frozen=True)
class PatternOptions:
    min_len: int = 2
    max_len: int = 5
    kleene: bool = True
    negation: bool = True
    and_or: bool = True
    simple_sequence: bool = False
    predicates: bool = True
    max_preds: int = 3
    pred_kinds: tuple[str, ...] = PRED_KINDS
    remote: bool = False
    policies: tuple[str, ...] = POLICIES
    windows: tuple[str, ...] = ("time", "count")
    scaled_windows: bool = True
    satisfiable: bool = True

    def normalised(self) -> "PatternOptions":
        if self.simple_sequence:
            return replace(self, kleene=False, negation=False, and_or=False)
        return self


def _options(kw: dict) -> PatternOptions:
    names = {f.name for f in fields(PatternOptions)}
    unknown = set(kw) - names
    if unknown:
        raise TypeError(f"unknown pattern option(s) {sorted(unknown)}; known: {sorted(names)}")
    kw = dict(kw)
    for k in ("pred_kinds", "policies", "windows"):
        if k in kw:
            kw[k] = tuple(kw[k])
    return PatternOptions(**kw).normalised()


class _PatternGen:
    def __init__(self, ch, types, opt: PatternOptions, stream_types: int | None = None):
        self.ch = ch
        self.types = tuple(types)
        self.opt = opt
        # how many event types the stream will have (scales the window): a match of m elements
        # needs about m * stream_types events when types are uniform
        self.stream_types = max(len(self.types), stream_types or 0)
        self.counter = 0
        self.neg_vars: list[str] = []
        self.pos_vars: list[str] = []
        self.kleene_vars: list[str] = []

    def _var(self, type_name: str) -> str:
        v = f"{type_name.lower()}{self.counter}"
        self.counter += 1
        return v

    def event(self) -> Event:
        t = self.ch.choice(self.types)
        var = self._var(t)
        k = self.opt.kleene and self.ch.bool(0.25)
        self.pos_vars.append(var)
        if k:
            self.kleene_vars.append(var)
        return Event(t, var, k)

    def negation(self) -> Not:
        t = self.ch.choice(self.types)
        var = self._var(t)
        self.neg_vars.append(var)
        return Not(Event(t, var, False))

    def split(self, budget: int, min_parts: int) -> list[int]:
        """A random composition of ``budget`` into at least ``min_parts`` positive parts."""
        if not self.opt.and_or:
            return [1] * budget
        k = min_parts                     # few parts are likelier (and simpler to shrink to)
        while k < budget and self.ch.bool(0.35):
            k += 1
        parts = [1] * k
        for _ in range(budget - k):
            parts[self.ch.int(0, k - 1)] += 1
        return parts

    def element(self, budget: int) -> Node:
        """A node binding exactly ``budget`` positive events (an element of a SEQ/AND/OR)."""
        if budget == 1 or not self.opt.and_or:
            return self.event()
        kind = self.ch.choice(("and", "or", "seq"))
        if kind == "seq":
            return self.seq(budget, top=False)
        parts = self.split(budget, 2)
        kids = tuple(self.element(p) for p in parts)
        return And(kids) if kind == "and" else Or(kids)

    def seq(self, budget: int, top: bool) -> Seq:
        parts = self.split(budget, 1 if top else 2)
        if not top and len(parts) < 2:
            parts = [1, budget - 1]
        kids: list[Node] = [self.element(p) for p in parts]
        if self.opt.negation:
            out: list[Node] = []
            for i, k in enumerate(kids):
                at_edge = i == 0
                if (top or not at_edge) and self.ch.bool(0.2 if at_edge else 0.3):
                    out.append(self.negation())
                    if self.ch.bool(0.1):
                        out.append(self.negation())
                out.append(k)
            if top and self.ch.bool(0.2):
                out.append(self.negation())
            kids = out
        return Seq(tuple(kids))

    def structure(self) -> Node:
        n = self.ch.int(self.opt.min_len, self.opt.max_len)
        if self.opt.and_or and n >= 2 and self.ch.bool(0.25):
            parts = self.split(n, 2)
            kids = tuple(self.element(p) for p in parts)
            return And(kids) if self.ch.bool(0.5) else Or(kids)
        return self.seq(n, top=True)

    def _pick_vars(self, two: bool) -> tuple[str, str] | tuple[str]:
        allv = self.pos_vars + self.neg_vars
        v1 = self.ch.choice(allv)
        if not two:
            return (v1,)
        if self.ch.bool(0.1):
            return v1, v1
        pool = [v for v in allv if v != v1 and not (v1 in self.neg_vars and v in self.neg_vars)]
        if not pool:
            return v1, v1
        return v1, self.ch.choice(pool)

    def predicate(self, kinds):
        p = self._predicate(kinds)
        if self.opt.satisfiable and not isinstance(p, Same):
            sel = selectivity(p)
            if sel < MIN_SELECTIVITY:
                p = replace(p, op=NEGATED_OP[p.op])
                if selectivity(p) < MIN_SELECTIVITY:
                    return None
        return p

    def _predicate(self, kinds):
        ch = self.ch
        # comparisons are likelier than SAME / corr, which rarely hold on long patterns
        weighted = [k for k in kinds for _ in range(_KIND_WEIGHT.get(k, 1))]
        kind = ch.choice(weighted)
        op = ch.choice(OPS)
        if kind == "same":
            return Same("id")
        if kind == "const":
            (v,) = self._pick_vars(False)
            return Compare(Attr(v, ch.choice(SCALAR_ATTRS)), op, None, 1.0, float(ch.int(0, 4)))
        v1, v2 = self._pick_vars(True)
        if kind == "cmp":
            scale = ch.choice((1.0, 1.0, 2.0, 0.5, -1.0))
            offset = ch.choice((0.0, 0.0, 1.0, -1.0, 2.0, -2.0, 0.5))
            return Compare(Attr(v1, ch.choice(SCALAR_ATTRS)), op, Attr(v2, ch.choice(SCALAR_ATTRS)),
                           scale, offset)
        if kind == "abs":
            return AbsDiff(Attr(v1, ch.choice(SCALAR_ATTRS)), Attr(v2, ch.choice(SCALAR_ATTRS)), op,
                           float(ch.int(0, 3)))
        if kind == "corr":
            return Corr(Attr(v1, "h"), Attr(v2, "h"), op, ch.choice((0.0, 0.5, -0.5, 0.3)))
        if kind == "remote":
            # REMOTE keys must not be negated; the left side neither (check_pattern)
            pos = self.pos_vars
            return Compare(Attr(ch.choice(pos), "x"), op, Remote(Attr(ch.choice(pos), "id")),
                           ch.choice((1.0, 2.0)), ch.choice((0.0, 1.5)))
        raise ValueError(f"unknown predicate kind {kind!r}")

    def window(self) -> Window | None:
        kind = self.ch.choice(self.opt.windows)
        if kind == "none":
            return None
        if self.opt.scaled_windows:
            # at least the pattern length (a count window shorter than the pattern never
            # matches), at most about the span that holds one occurrence of the pattern
            m = max(1, len(self.pos_vars))
            hi = max(m + 1, m * self.stream_types)
            lo = max(m, hi // 2)
        else:
            lo, hi = 2, 8
        if kind == "count":
            return Window(float(self.ch.int(lo, hi)), self.ch.choice(("events", "event")))
        w = self.ch.int(max(1, lo - 1), hi)
        unit = self.ch.choice(("s", "seconds", "ms", "s"))
        if unit == "ms":
            return Window(float(w * 1000), "ms")
        if self.ch.bool(0.1):
            return Window(w - 0.5, unit)
        return Window(float(w), unit)

    def pattern(self) -> Pattern:
        structure = self.structure()
        where = []
        if self.opt.predicates:
            kinds = tuple(self.opt.pred_kinds) + (("remote",) if self.opt.remote else ())
            # few predicates: P(k) falls geometrically (0: 35 %, 1: 23 %, 2: 15 %, 3+: 27 %)
            k = 0
            while k < self.opt.max_preds and self.ch.bool(0.65):
                k += 1
            for _ in range(k):
                p = self.predicate(kinds)
                if p is None or (isinstance(p, Same) and any(isinstance(q, Same) for q in where)):
                    continue
                where.append(p)
        return Pattern(structure, tuple(where), self.window(), self.ch.choice(self.opt.policies))


def _pattern_from_chooser(ch, types, opt: PatternOptions, stream_types: int | None = None
                          ) -> Pattern:
    return _PatternGen(ch, types, opt, stream_types).pattern()


# ----------------------------------------------------------------------------- selectivity
MIN_SELECTIVITY = 0.2       # a drawn predicate holding less often than this is negated
NEGATED_OP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}
_KIND_WEIGHT = {"cmp": 3, "const": 2, "abs": 2, "corr": 1, "same": 1, "remote": 1}
_SCALAR_DOMAIN = {"x": np.arange(5.0), "y": np.arange(5.0), "id": np.arange(3.0)}
_H_SAMPLE = np.random.default_rng(12345).integers(0, 4, size=(2, 400, 4)).astype(float)


def _cmp(op: str, a, b):
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": a == b, "!=": a != b}[op]


def _pair(left: Attr, right: Attr):
    """Value grids of two scalar attributes under uniform draws (one event when same var)."""
    a, b = _SCALAR_DOMAIN[left.name], _SCALAR_DOMAIN[right.name]
    if left.var == right.var and left.name == right.name:
        return a, a
    return np.meshgrid(a, b, indexing="ij")


def _pearson_rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    du = u - u.mean(axis=1, keepdims=True)
    dv = v - v.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (du * dv).sum(1) / np.sqrt((du * du).sum(1) * (dv * dv).sum(1))


def selectivity(pred) -> float:
    """Fraction of uniformly drawn attribute values (the generator's streams) satisfying
    ``pred``; SAME and REMOTE count as 1.  Used to keep random predicates satisfiable."""
    if isinstance(pred, Compare):
        if isinstance(pred.right, Attr):
            a, b = _pair(pred.left, pred.right)
            return float(np.mean(_cmp(pred.op, a, b * pred.scale + pred.offset)))
        if pred.right is None:
            return float(np.mean(_cmp(pred.op, _SCALAR_DOMAIN[pred.left.name], pred.offset)))
        return 1.0
    if isinstance(pred, AbsDiff):
        a, b = _pair(pred.left, pred.right)
        return float(np.mean(_cmp(pred.op, np.abs(a - b), pred.value)))
    if isinstance(pred, Corr):
        u = _H_SAMPLE[0]
        v = u if pred.left.var == pred.right.var else _H_SAMPLE[1]
        return float(np.mean(_cmp(pred.op, _pearson_rows(u, v), pred.value)))
    return 1.0


def n_positive(pattern: Pattern) -> int:
    """Number of positive (plain or Kleene) variables of the pattern."""
    return sum(1 for _, negated in pattern.events() if not negated)


def patterns(types=("A", "B", "C"), **options):
    """Strategy of Pattern ASTs (see module docstring for the options)."""
    opt = _options(options)

    @st.composite
    def _p(draw):
        return _pattern_from_chooser(_HypChooser(draw), types, opt)

    return _p()


def pattern_has_kleene(pattern: Pattern) -> bool:
    return any(e.kleene for e, _ in pattern.events())


def _case_from_chooser(ch, max_events, kleene_max_events, unbounded_max_events, n_types, opt,
                       min_events=None):
    lo, hi = _n_range(n_types)
    nt = ch.int(max(lo, 3), max(hi, 3))
    pattern = _pattern_from_chooser(ch, TYPE_NAMES[:ch.int(3, nt)], opt, nt)
    cap = max_events
    if pattern_has_kleene(pattern):
        cap = min(cap, kleene_max_events)
    if pattern.window is None:
        cap = min(cap, unbounded_max_events)
    if min_events is None:
        # long enough to hold a match (about pattern length x types events per occurrence),
        # except one case in ten drawn from 0 events up (empty and tiny streams stay covered)
        min_events = 0 if ch.bool(0.1) else 2 * n_positive(pattern) * nt
    n = ch.int(min(min_events, cap), cap)
    return pattern, _gen_stream(ch, nt, n)


def cases(max_events: int = 60, kleene_max_events: int = 40, unbounded_max_events: int = 25,
          n_types=(3, 5), min_events: int | None = None, **options):
    """Strategy of ``(pattern, stream)`` pairs (see module docstring)."""
    opt = _options(options)

    @st.composite
    def _c(draw):
        return _case_from_chooser(_HypChooser(draw), max_events, kleene_max_events,
                                  unbounded_max_events, n_types, opt, min_events)

    return _c()


def small_cases(seed: int, n: int, max_events: int = 60, kleene_max_events: int = 40,
                unbounded_max_events: int = 25, n_types=(3, 5), min_events: int | None = None,
                **options) -> list[tuple[Pattern, EventStream]]:
    """``n`` deterministic (pattern, stream) pairs from ``seed`` (numpy; no hypothesis)."""
    opt = _options(options)
    ch = _NpChooser(np.random.default_rng(seed))
    return [_case_from_chooser(ch, max_events, kleene_max_events, unbounded_max_events, n_types,
                               opt, min_events) for _ in range(n)]


# ----------------------------------------------------------------------------- match rate
class MatchRate:
    """How many examples of a property test had at least one match (overall and for patterns
    with ``big`` or more positive variables).  ``add`` also feeds ``hypothesis.target`` so the
    search steers towards examples with matches.  ``check`` asserts the rates (an engine test
    whose examples never match proves nothing) and returns the summary line."""

    def __init__(self, name: str, big: int = 4, record=None):
        self.name = name
        self.big = big
        self._record = record          # e.g. pytest's record_property
        self.n = self.hit = self.n_big = self.hit_big = self.matches = 0

    def add(self, pattern: Pattern, n_matches: int) -> None:
        n_matches = int(n_matches)
        self.n += 1
        self.hit += n_matches > 0
        self.matches += n_matches
        if n_positive(pattern) >= self.big:
            self.n_big += 1
            self.hit_big += n_matches > 0
        try:
            from hypothesis import currently_in_test_context, target
            if currently_in_test_context():
                # capped: chasing huge match counts only slows the oracle down
                target(float(min(n_matches, 50)), label="matches (capped at 50)")
        except ImportError:      # pragma: no cover - old hypothesis
            pass

    @property
    def rate(self) -> float:
        return self.hit / self.n if self.n else 0.0

    @property
    def rate_big(self) -> float:
        return self.hit_big / self.n_big if self.n_big else 0.0

    def summary(self) -> str:
        return (f"{self.name}: {self.hit}/{self.n} examples with a match ({self.rate:.0%}); "
                f"{self.big}+ variables: {self.hit_big}/{self.n_big} ({self.rate_big:.0%}); "
                f"{self.matches} matches in all")

    def check(self, min_rate: float = 0.5, min_rate_big: float = 0.5, min_big: int = 5) -> str:
        text = self.summary()
        print(text)
        if self._record is not None:
            self._record("match_rate", text)
        assert self.n > 0, f"{self.name}: no example ran"
        assert self.rate >= min_rate, f"match rate too low (need {min_rate:.0%}): {text}"
        assert self.n_big >= min_big, (f"too few patterns with {self.big}+ variables "
                                       f"(need {min_big}): {text}")
        assert self.rate_big >= min_rate_big, (f"match rate of {self.big}+-variable patterns too "
                                               f"low (need {min_rate_big:.0%}): {text}")
        return text


# ----------------------------------------------------------------------------- comparison
def format_stream(stream: EventStream, max_rows: int = 80) -> str:
    """The stream as a small text table: index, type, ts and every attribute."""
    names = list(stream.schema.attr_names)
    head = ["i", "type", "ts"] + names
    rows = []
    for i in range(min(len(stream), max_rows)):
        rows.append([str(i), stream.schema.type_names[stream.types[i]], f"{stream.ts[i]:g}"]
                    + [f"{v:g}" for v in stream.attrs[i]])
    widths = [max(len(h), *(len(r[j]) for r in rows)) if rows else len(h)
              for j, h in enumerate(head)]
    lines = [" ".join(h.rjust(w) for h, w in zip(head, widths))]
    lines += [" ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    if len(stream) > max_rows:
        lines.append(f"... ({len(stream) - max_rows} more events)")
    return "\n".join(lines)


def _matchset(result) -> MatchSet:
    return result if isinstance(result, MatchSet) else result.matches


def _fmt_key(key) -> str:
    return "{" + ", ".join(f"{k}={list(v) if isinstance(v, tuple) else v}" for k, v in key) + "}"


def _describe_context(context) -> str:
    if isinstance(context, str):
        return context
    parts = list(context) if isinstance(context, (tuple, list)) else [context]
    out = []
    for p in parts:
        if isinstance(p, EventStream):
            out.append(f"stream ({len(p)} events):\n{format_stream(p)}")
        elif isinstance(p, Pattern):
            out.append(f"pattern:\n{p}")
        elif hasattr(p, "pattern") and hasattr(p, "branches"):   # a compiled Program
            branches = "\n".join("  " + b.describe(p.var_names) for b in p.grouped[:20])
            out.append(f"pattern:\n{p.pattern}\nbranches:\n{branches}")
        else:
            out.append(str(p))
    return "\n".join(out)


def assert_same_matches(result_a, result_b, context="", *, labels=("a", "b"),
                        check_detect: bool = False, max_show: int = 25) -> None:
    """Assert that two engine results (or MatchSets) hold the same matches (see module doc)."""
    a, b = _matchset(result_a), _matchset(result_b)
    ka, kb = a.keys(), b.keys()
    problems = []
    for name, keys in zip(labels, (ka, kb)):
        if len(set(keys)) != len(keys):
            dups = sorted({k for k in keys if keys.count(k) > 1})[:max_show]
            problems.append(f"{name} reports duplicate matches: " + ", ".join(map(_fmt_key, dups)))
    sa, sb = set(ka), set(kb)
    only_a, only_b = sorted(sa - sb), sorted(sb - sa)
    if only_a:
        problems.append(f"only in {labels[0]} ({len(only_a)}): "
                        + ", ".join(map(_fmt_key, only_a[:max_show])))
    if only_b:
        problems.append(f"only in {labels[1]} ({len(only_b)}): "
                        + ", ".join(map(_fmt_key, only_b[:max_show])))
    if check_detect and not only_a and not only_b:
        da = dict(zip(ka, (int(d) for d in a.detect)))
        db = dict(zip(kb, (int(d) for d in b.detect)))
        bad = [k for k in sorted(da) if da[k] != db.get(k)]
        if bad:
            problems.append("different detect index: " + ", ".join(
                f"{_fmt_key(k)} {labels[0]}={da[k]} {labels[1]}={db[k]}" for k in bad[:max_show]))
    if problems:
        msg = (f"match sets differ ({labels[0]}: {len(sa)} matches, {labels[1]}: {len(sb)})\n"
               + "\n".join(problems) + "\n" + _describe_context(context))
        print(msg)
        raise AssertionError(msg)
