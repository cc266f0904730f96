"""Compile a Pattern AST against a stream Schema into a numeric ``Program``.

The program is the one representation every evaluator reads (eager NFA, lazy chain/tree NFA,
hybrid, oracle).  Its parts:

*Variables* — ``var_names[v]``, ``var_type[v]`` (schema type code), ``var_kind[v]``
(``KIND_PLAIN``, ``KIND_KLEENE``, ``KIND_NEG``).

*Predicates* — one row per WHERE conjunct (``SAME[attr]`` is expanded per branch into equality
predicates), packed for Numba as ``pred_i`` (int32 ``[P, 7]``: kind, op, v1, c1, v2, c2, vlen) and
``pred_f`` (float64 ``[P, 2]``: scale, offset):

- ``PK_CMP``:    ``attrs[e1, c1] OP attrs[e2, c2] * scale + offset``  (``v2 == -1``: ``OP offset``)
- ``PK_ABS``:    ``|attrs[e1, c1] - attrs[e2, c2]| OP offset``
- ``PK_CORR``:   Pearson correlation of ``attrs[e1, c1:c1+vlen]`` and ``attrs[e2, c2:c2+vlen]``
  ``OP offset`` (zero variance gives NaN: every comparison is false except ``!=``, as in IEEE)
- ``PK_REMOTE``: ``attrs[e1, c1] OP remote(attrs[e2, c2]) * scale + offset`` — the value comes
  from a remote store keyed by the second attribute (evaluated by the remote-data engines,
  ``engines.remote``, and the oracle).  ``c1 == -1`` (from ``REMOTE[y.b] OP c``):
  ``remote(attrs[e2, c2]) OP offset``, and then ``v1 == v2`` (the key's variable).
  ``remote_at[p]`` is the variable at whose binding the engines check a remote predicate
  (``AT z``; -1 = the latest-bound variable it mentions); it never changes the match set.

A predicate "mentions" ``v1`` and ``v2`` (``v2`` may equal ``v1`` or be -1).  When it mentions a
Kleene variable it must hold for every event bound to that variable.

*Branches* — the pattern's structure normalised into flat sequences: OR is split into its
alternatives, AND into every interleaving of its operands' elements, nested SEQs are inlined.
Each ``Branch`` lists its positive variables in sequence order (``pos_vars``), its negations
(``neg_vars`` with the slots of their left/right positive neighbours, -1 = start of the pattern,
``len(pos_vars)`` = end) and the predicates that apply to it (``pred_ids``: those whose every
variable the branch binds).  A match of the pattern is a match of one branch.

*Window and policy* — ``window_kind`` (``WIN_TIME``: ``max ts - min ts <= window`` seconds;
``WIN_COUNT``: ``last position - first position < window``; no WITHIN = infinite time window)
and ``policy`` (``POLICY_ANY`` skip-till-any-match, ``POLICY_NEXT`` skip-till-next-match).
"""
from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from engines.errors import CepsimInputError, PatternError
from engines.pattern.ast import (AbsDiff, And, Attr, Compare, Corr, Event, Node, Not, Or, Pattern,
                                 Remote, RemoteConst, Same, Seq)
from engines.stream import Schema

KIND_PLAIN, KIND_KLEENE, KIND_NEG = 0, 1, 2
PK_CMP, PK_ABS, PK_CORR, PK_REMOTE = 0, 1, 2, 3
OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE = 0, 1, 2, 3, 4, 5
OP_CODES = {"<": OP_LT, "<=": OP_LE, ">": OP_GT, ">=": OP_GE, "=": OP_EQ, "!=": OP_NE}
WIN_TIME, WIN_COUNT = 0, 1
POLICY_ANY, POLICY_NEXT = 0, 1
# columns of pred_i
PI_KIND, PI_OP, PI_V1, PI_C1, PI_V2, PI_C2, PI_VLEN = range(7)
MAX_BRANCHES = 5000


class TooManyBranches(PatternError):
    """The flat-branch expansion exceeds the ``max_branches`` capacity (e.g. every order of an
    AND of 8 operands: 8!)."""


class PatternWarning(UserWarning):
    """A pattern that compiles but probably does not mean what was written."""


@dataclass(frozen=True)
class Branch:
    """One flat alternative of the pattern (see module docstring)."""

    pos_vars: np.ndarray    # int32[m] positive variables in sequence order
    neg_vars: np.ndarray    # int32[k]
    neg_left: np.ndarray    # int32[k] slot in pos_vars of the left neighbour, -1 = start
    neg_right: np.ndarray   # int32[k] slot of the right neighbour, m = end
    pred_ids: np.ndarray    # int32[q] predicates that apply to this branch
    # int32[m] group of each slot (non-decreasing).  Slots sharing a group form an unordered set
    # of plain variables (an AND kept whole, see ``Program.grouped``); None = every slot is its
    # own group (a fully ordered branch, as in ``Program.branches``).  A negation's left/right
    # neighbour is then the whole group of ``neg_left`` / ``neg_right``: it lies between the
    # last event of the left group and the first event of the right group.
    group: np.ndarray | None = None

    @property
    def groups(self) -> np.ndarray:
        """Group of each slot (``arange(m)`` for a fully ordered branch)."""
        if self.group is None:
            return np.arange(len(self.pos_vars), dtype=np.int32)
        return self.group

    @property
    def is_ordered(self) -> bool:
        return self.group is None or len(set(self.group.tolist())) == len(self.pos_vars)

    def describe(self, names: tuple[str, ...]) -> str:
        parts = [names[v] for v in self.pos_vars]
        if not self.is_ordered:
            g = self.groups
            parts = []
            for gi in sorted(set(g.tolist())):
                members = [names[v] for v, x in zip(self.pos_vars, g) if x == gi]
                parts.append(members[0] if len(members) == 1 else
                             "AND(" + ", ".join(members) + ")")
        negs = [f"NOT {names[n]} in ({names[self.pos_vars[l]] if l >= 0 else 'start'}, "
                f"{names[self.pos_vars[r]] if r < len(self.pos_vars) else 'end'})"
                for n, l, r in zip(self.neg_vars, self.neg_left, self.neg_right)]
        return "SEQ(" + ", ".join(parts) + ")" + ("".join("; " + n for n in negs))


@dataclass(frozen=True)
class Program:
    """The compiled pattern (see module docstring)."""

    pattern: Pattern
    schema: Schema
    var_names: tuple[str, ...]
    var_type: np.ndarray      # int32[V]
    var_kind: np.ndarray      # int8[V]
    pred_i: np.ndarray        # int32[P, 7]
    pred_f: np.ndarray        # float64[P, 2]
    pred_text: tuple[str, ...]
    grouped: tuple[Branch, ...]   # alternatives with unordered AND groups kept whole
    window_kind: int
    window: float
    policy: int
    used_columns: tuple[int, ...] = field(default=())
    max_branches: int = MAX_BRANCHES
    remote_at: np.ndarray | None = None   # int32[P]: AT variable of a remote predicate, -1 none
    _alts: tuple = field(default=(), repr=False, compare=False)
    _flat: list = field(default_factory=list, repr=False, compare=False)

    @property
    def branches(self) -> tuple[Branch, ...]:
        """Fully ordered branches: each unordered group expanded into all its orders (n! for
        an AND of n plain events), computed on first use.  More than ``max_branches`` raise a
        ``PatternError`` naming the limit (a capacity option: ``compile_pattern(...,
        max_branches=)`` / ``cepsim match --max-branches``)."""
        if not self._flat:
            self._flat.append(_expand_branches(self))
        return self._flat[0]

    @property
    def branch_error(self) -> str:
        """Empty when every order of every AND group fits ``max_branches``; else the capacity
        error's text (engines that need ``branches`` are refused with it; ``ztree``, the
        oracle and the eager NFA evaluate unordered groups natively)."""
        try:
            self.branches
        except TooManyBranches as exc:
            return str(exc)
        return ""

    @property
    def n_vars(self) -> int:
        return len(self.var_names)

    @property
    def positive_vars(self) -> list[int]:
        """Positive variables (plain and Kleene) in text order: the columns of a MatchSet."""
        return [v for v in range(self.n_vars) if self.var_kind[v] != KIND_NEG]

    def var_id(self, name: str) -> int:
        return self.var_names.index(name)

    def pred_vars(self, p: int) -> tuple[int, ...]:
        """The variables predicate ``p`` mentions (one or two)."""
        v1, v2 = int(self.pred_i[p, PI_V1]), int(self.pred_i[p, PI_V2])
        return (v1,) if v2 < 0 or v2 == v1 else (v1, v2)

    @property
    def has_remote(self) -> bool:
        return bool(np.any(self.pred_i[:, PI_KIND] == PK_REMOTE)) if len(self.pred_i) else False

    @property
    def is_simple_sequence(self) -> bool:
        """One branch, no negation, no Kleene: the DEBS'15 / APAM setting."""
        return (len(self.grouped) == 1 and len(self.grouped[0].neg_vars) == 0
                and self.grouped[0].is_ordered and not np.any(self.var_kind == KIND_KLEENE))


# ----------------------------------------------------------------------------- structure
def normalise(node: Node) -> Node:
    """Inline SEQ-in-SEQ, AND-in-AND and OR-in-OR; unwrap one-child operators."""
    if isinstance(node, (Event, Not)):
        return node
    kids: list[Node] = []
    for c in node.children:
        c = normalise(c)
        if type(c) is type(node):
            kids.extend(c.children)  # type: ignore[union-attr]
        else:
            kids.append(c)
    if len(kids) == 1 and not isinstance(kids[0], Not):
        return kids[0]
    return type(node)(tuple(kids))


# An alternative: (groups, negations).  ``groups`` is a sequence of groups of variable names;
# a group of one name is an ordinary element (plain or Kleene), a group of several names is an
# unordered set of plain variables (an AND of plain events, kept whole rather than expanded into
# its n! orders).  A negation is (name, left, right) where left/right name a variable of the
# neighbouring group (None = start/end of the pattern): the negation lies between the *last*
# event of the left group and the *first* event of the right group.
GAlt = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, "str | None", "str | None"], ...]]


def _too_many(limit: int) -> PatternError:
    return TooManyBranches(f"pattern expands into more than {limit} flat alternatives (AND/OR); "
                        "raise the limit with --max-branches / compile_pattern(max_branches=...), "
                        "use the eager or ztree engine (they evaluate an AND of plain events "
                        "without expanding it), or simplify the pattern")


def _interleavings(seqs: list[tuple[str, ...]]):
    """Every merge of the sequences that keeps each one's internal order."""
    seqs = [s for s in seqs if s]
    if not seqs:
        yield ()
        return
    for i, s in enumerate(seqs):
        rest = seqs[:i] + [s[1:]] + seqs[i + 1:]
        for tail in _interleavings(rest):
            yield (s[0],) + tail


def _orders(alt: GAlt, limit: int):
    """The fully ordered alternatives of ``alt``: every order of each unordered group (a
    negation next to a group is re-pointed at that order's last/first variable)."""
    groups, negs = alt
    count = 1
    for g in groups:
        count *= math.factorial(len(g))
        if count > limit:
            raise _too_many(limit)
    for perms in itertools.product(*[itertools.permutations(g) for g in groups]):
        last = {v: p[-1] for p in perms for v in p}
        first = {v: p[0] for p in perms for v in p}
        yield (tuple((v,) for p in perms for v in p),
               tuple((n, last[l] if l is not None else None, first[r] if r is not None else None)
                     for n, l, r in negs))


def _flatten(node: Node, top: bool, kleene: set[str], limit: int,
             group: bool = True) -> list[GAlt]:
    if isinstance(node, Event):
        return [(((node.var,),), ())]
    if isinstance(node, Not):
        raise PatternError(f"'{node}' must be an element of a SEQ with a positive event before or "
                           "after it")
    if isinstance(node, Or):
        out: list[GAlt] = []
        for c in node.children:
            out.extend(_flatten(c, False, kleene, limit, group))
            if len(out) > limit:
                raise _too_many(limit)
        return out
    if isinstance(node, And):
        parts = [_flatten(c, False, kleene, limit, group) for c in node.children]
        out = []
        for combo in itertools.product(*parts):
            if group and all(len(gs) == 1 and not ns and not (set(gs[0]) & kleene)
                             for gs, ns in combo):
                # AND of plain events: one unordered group
                out.append(((tuple(v for gs, _ in combo for v in gs[0]),), ()))
            else:
                # otherwise: every order of every operand, interleaved (n! growth)
                ordered = [list(_orders(a, limit)) for a in combo]
                for pick in itertools.product(*ordered):
                    seqs = [tuple(g[0] for g in gs) for gs, _ in pick]
                    negs = tuple(n for _, ns in pick for n in ns)
                    for order in _interleavings(seqs):
                        out.append((tuple((v,) for v in order), negs))
                        if len(out) > limit:
                            raise _too_many(limit)
            if len(out) > limit:
                raise _too_many(limit)
        return out
    # SEQ
    kids = list(node.children)
    if all(isinstance(k, Not) for k in kids):
        raise PatternError(f"'{node}' has no positive event")
    if not top and (isinstance(kids[0], Not) or isinstance(kids[-1], Not)):
        raise PatternError(f"NOT at the start or end of a nested '{node}' is not supported; move it "
                           "to the outermost SEQ or between two events")
    # group: positive chunks, with pending negations attached between them
    alts: list[GAlt] = [((), ())]
    pending: list[str] = []
    for k in kids:
        if isinstance(k, Not):
            pending.append(k.child.var)
            continue
        new: list[GAlt] = []
        for groups, negs in alts:
            for cgroups, cnegs in _flatten(k, False, kleene, limit, group):
                left = groups[-1][-1] if groups else None
                add = tuple((n, left, cgroups[0][0]) for n in pending)
                new.append((groups + cgroups, negs + add + cnegs))
                if len(new) > limit:
                    raise _too_many(limit)
        alts = new
        pending = []
    if pending:
        alts = [(groups, negs + tuple((n, groups[-1][-1], None) for n in pending))
                for groups, negs in alts]
    return alts


# ----------------------------------------------------------------------------- predicates
def _column(schema: Schema, attr: Attr, pattern_src: str, vector: bool = False) -> tuple[int, int]:
    if vector:
        try:
            return schema.vector(attr.name)
        except KeyError:
            hint = schema.vector_names() or "none"
            raise PatternError(f"{pattern_src}'{attr}': the stream has no vector attribute "
                               f"{attr.name!r} (vector attributes: {hint})") from None
    if schema.has_attr(attr.name):
        return schema.attr_column(attr.name), 1
    if attr.name in schema.vector_names():
        raise PatternError(f"{pattern_src}'{attr}' is a vector attribute; compare it with corr(...)")
    raise PatternError(f"{pattern_src}the stream has no attribute {attr.name!r} (used in '{attr}'); "
                       f"attributes are {list(schema.attr_names)[:20]}")


def compile_pattern(pattern: Pattern, schema: Schema, source: str | None = None,
                    max_branches: int = MAX_BRANCHES) -> Program:
    """Compile ``pattern`` for streams with ``schema``; errors name the offending part.

    ``max_branches`` (a capacity option) bounds the number of flat alternatives an OR/AND may
    expand into (``Program.grouped``, and ``Program.branches`` when an engine asks for every
    order of an AND)."""
    if int(max_branches) < 1:
        raise CepsimInputError(f"max_branches must be >= 1 (got {max_branches})")
    src = f"{source}: " if source else ""
    events = pattern.events()
    var_names = tuple(e.var for e, _ in events)
    vid = {v: i for i, v in enumerate(var_names)}
    var_type = np.empty(len(events), dtype=np.int32)
    var_kind = np.empty(len(events), dtype=np.int8)
    for i, (e, negated) in enumerate(events):
        code = schema.type_code(e.type_name)
        if code < 0:
            raise PatternError(f"{src}event type {e.type_name!r} (variable {e.var!r}) does not occur "
                               f"in the stream's schema; known types: {list(schema.type_names)[:20]}")
        var_type[i] = code
        var_kind[i] = KIND_NEG if negated else (KIND_KLEENE if e.kleene else KIND_PLAIN)

    rows_i: list[list[int]] = []
    rows_f: list[list[float]] = []
    texts: list[str] = []
    same_attrs: list[str] = []
    used: set[int] = set()
    at_vars: list[int] = []
    for p in pattern.where:
        if isinstance(p, Same):
            same_attrs.append(p.attr)
            continue
        op = OP_CODES[p.op]
        at_vars.append(vid[p.at] if getattr(p, "at", None) is not None else -1)
        if isinstance(p, RemoteConst):
            c2, _ = _column(schema, p.key, src)
            used.add(c2)
            rows_i.append([PK_REMOTE, op, vid[p.key.var], -1, vid[p.key.var], c2, 1])
            rows_f.append([1.0, p.value])
        elif isinstance(p, Compare):
            c1, _ = _column(schema, p.left, src)
            used.add(c1)
            if p.right is None:
                rows_i.append([PK_CMP, op, vid[p.left.var], c1, -1, -1, 1])
            elif isinstance(p.right, Remote):
                c2, _ = _column(schema, p.right.key, src)
                used.add(c2)
                rows_i.append([PK_REMOTE, op, vid[p.left.var], c1, vid[p.right.key.var], c2, 1])
            else:
                c2, _ = _column(schema, p.right, src)
                used.add(c2)
                rows_i.append([PK_CMP, op, vid[p.left.var], c1, vid[p.right.var], c2, 1])
            rows_f.append([p.scale, p.offset])
        elif isinstance(p, AbsDiff):
            c1, _ = _column(schema, p.left, src)
            c2, _ = _column(schema, p.right, src)
            used.update((c1, c2))
            rows_i.append([PK_ABS, op, vid[p.left.var], c1, vid[p.right.var], c2, 1])
            rows_f.append([1.0, p.value])
        elif isinstance(p, Corr):
            c1, l1 = _column(schema, p.left, src, vector=True)
            c2, l2 = _column(schema, p.right, src, vector=True)
            if l1 != l2:
                raise PatternError(f"{src}'{p}': vectors have different lengths ({l1} and {l2})")
            if l1 < 2:
                raise PatternError(f"{src}'{p}': correlation needs vectors of length >= 2")
            used.update(range(c1, c1 + l1))
            used.update(range(c2, c2 + l2))
            rows_i.append([PK_CORR, op, vid[p.left.var], c1, vid[p.right.var], c2, l1])
            rows_f.append([1.0, p.value])
        texts.append(str(p))
    n_global = len(rows_i)
    same_cols = []
    for a in same_attrs:
        c, _ = _column(schema, Attr(var_names[0], a), src)
        same_cols.append((a, c))
        used.add(c)

    try:
        structure = normalise(pattern.structure)
    except RecursionError:
        raise PatternError(f"{src}pattern nesting too deep; flatten the nested SEQ/AND/OR") from None
    if isinstance(structure, Not):
        raise PatternError(f"{src}a pattern cannot consist of a negation alone")
    kleene = {e.var for e, negated in events if e.kleene and not negated}
    try:
        # Under skip-till-next-match each order of an AND picks its own "next qualifying event"
        # (docs/SEMANTICS.md: AND is every interleaving, and a predicate, SAME[attr]'s anchored
        # equalities included, is checked as soon as its variables are bound), which a search
        # over an unordered group does not reproduce: such ANDs are expanded into their orders.
        alts = _flatten(structure, True, kleene, max_branches,
                        group=pattern.policy == "skip-till-any-match")
    except RecursionError:
        raise PatternError(f"{src}pattern nesting too deep; flatten the nested SEQ/AND/OR") from None
    grouped = []
    for groups, negs in alts:
        elems = tuple(v for g in groups for v in g)
        pos = np.array([vid[v] for v in elems], dtype=np.int32)
        bound = set(elems) | {n for n, _, _ in negs}
        pred_ids = [p for p in range(n_global)
                    if {var_names[rows_i[p][2]]} | ({var_names[rows_i[p][4]]} if rows_i[p][4] >= 0
                                                    else set())
                    | ({var_names[at_vars[p]]} if at_vars[p] >= 0 else set()) <= bound]
        slot = {v: i for i, v in enumerate(elems)}
        for p in pred_ids:
            a = at_vars[p]
            if a >= 0 and any(slot[var_names[a]] < slot[var_names[u]]
                              for u in (rows_i[p][2], rows_i[p][4]) if u >= 0):
                raise PatternError(f"{src}'{texts[p]}': AT {var_names[a]} names a variable bound "
                                   "before a variable the predicate reads; name the latest one or "
                                   "a later one")
        # SAME[attr]: equalities anchored at the alternative's first variable (in group order;
        # every order of a group shares the anchor, equality being an equivalence)
        anchor = int(pos[0])
        for attr, c in same_cols:
            for v in sorted(vid[b] for b in bound):
                if v == anchor:
                    continue
                key = (PK_CMP, OP_EQ, anchor, c, v, c, 1)
                try:
                    pid = next(i for i in range(n_global, len(rows_i)) if tuple(rows_i[i]) == key)
                except StopIteration:
                    pid = len(rows_i)
                    rows_i.append(list(key))
                    rows_f.append([1.0, 0.0])
                    texts.append(f"SAME[{attr}]: {var_names[anchor]}.{attr} = {var_names[v]}.{attr}")
                pred_ids.append(pid)
        gid = np.array([gi for gi, g in enumerate(groups) for _ in g], dtype=np.int32)
        grouped.append((_make_branch(elems, negs, vid, sorted(pred_ids),
                                     gid if len(groups) < len(elems) else None),
                        (groups, negs)))
    applied = {int(p) for br, _ in grouped for p in br.pred_ids}
    for p in range(n_global):
        if p not in applied:
            warnings.warn(f"{src}predicate '{texts[p]}' mentions variables that no alternative of "
                          "the pattern binds together (different OR branches), so it is never "
                          "evaluated; move it into the alternative it belongs to",
                          PatternWarning, stacklevel=2)
    if pattern.window is None:
        wkind, wval = WIN_TIME, float("inf")
    elif pattern.window.is_count:
        wkind, wval = WIN_COUNT, float(pattern.window.value)
    else:
        wkind, wval = WIN_TIME, float(pattern.window.seconds)
    program = Program(
        pattern=pattern, schema=schema, var_names=var_names, var_type=var_type, var_kind=var_kind,
        pred_i=np.array(rows_i, dtype=np.int32).reshape(-1, 7),
        pred_f=np.array(rows_f, dtype=np.float64).reshape(-1, 2),
        pred_text=tuple(texts), grouped=tuple(b for b, _ in grouped), window_kind=wkind,
        window=wval, policy=0 if pattern.policy == "skip-till-any-match" else 1,
        used_columns=tuple(sorted(used)), max_branches=int(max_branches),
        remote_at=np.array(at_vars + [-1] * (len(rows_i) - n_global), dtype=np.int32),
        _alts=tuple(a for _, a in grouped))
    return program


def _make_branch(elems: tuple[str, ...], negs, vid: dict[str, int], pred_ids: list[int],
                 group: np.ndarray | None) -> Branch:
    slot = {v: i for i, v in enumerate(elems)}
    return Branch(
        pos_vars=np.array([vid[v] for v in elems], dtype=np.int32),
        neg_vars=np.array([vid[n] for n, _, _ in negs], dtype=np.int32),
        neg_left=np.array([slot[l] if l is not None else -1 for _, l, _ in negs], dtype=np.int32),
        neg_right=np.array([slot[r] if r is not None else len(elems) for _, _, r in negs],
                           dtype=np.int32),
        pred_ids=np.array(pred_ids, dtype=np.int32), group=group)


def _expand_branches(program: Program) -> tuple[Branch, ...]:
    """Every order of every unordered group of ``program.grouped`` (see ``Program.branches``)."""
    vid = {v: i for i, v in enumerate(program.var_names)}
    out: list[Branch] = []
    for br, alt in zip(program.grouped, program._alts):
        if br.is_ordered:
            out.append(br)
        else:
            for groups, negs in _orders(alt, program.max_branches):
                elems = tuple(g[0] for g in groups)
                out.append(_make_branch(elems, negs, vid, list(br.pred_ids), None))
        if len(out) > program.max_branches:
            raise _too_many(program.max_branches)
    return tuple(out)
