"""A plan's run over an OR of independent alternatives, as the sum of its alternatives' runs.

The headroom oracle (``engines.planners.adaptive.headroom``) runs up to 16 candidate plans of a
point over the whole stream.  For an OR pattern a plan is one sub-plan per alternative (greedy:
the order restricted to the alternative's variables, which is what the lazy chain NFA runs per
branch; ZStream: the alternative's tree, which is what ``ztree`` evaluates per alternative), and
candidates often share most of them: in the PVLDB'18 ``fig7`` ZStream OR points the 15 extra
candidates hold 11 distinct (alternative, sub-plan) pairs instead of 45.  When the alternatives
cannot interact, a run of the whole plan equals, counter by counter and event by event, the sum
of the runs of its sub-plans on the alternatives alone, so each distinct sub-plan needs to run
only once.

When this holds (``independent_alternatives``; ``tests/test_branch_runs.py`` checks the sums
against whole-plan runs of both engines on random OR patterns):

* the pattern is a top-level ``OR`` of alternatives with no negation and no Kleene closure,
  under skip-till-any-match, without REMOTE predicates;
* every predicate mentions the variables of one alternative only;
* no two alternatives share an event type.  Both engines keep their per-type input state (the
  chain's input buffers, the tree's leaves) per alternative then, and every count is charged to
  the work of exactly one alternative (the chain's roots, one per branch, are each offered every
  event either way).  The gauges (live partial matches, buffered events) are sums of
  per-alternative levels, so they add up too.

Capacity caps are the one place where the alternatives meet: a whole-plan run stops when the
*total* of live partial matches (or matches) exceeds its cap.  Each alternative therefore runs
with ``cap // B`` (``B`` alternatives); an alternative that stays under it at every check keeps
the total under the cap (both engines check the count after every increase), so the whole-plan
run would not have stopped either.  When an alternative exceeds its share the plan is run whole,
with the full cap, as before; the result is exact either way.
"""
from __future__ import annotations

import inspect

import numpy as np

from engines import counters as C
from engines.compile import KIND_KLEENE, KIND_NEG, POLICY_ANY, PK_REMOTE, Program, compile_pattern
from engines.errors import CapacityError
from engines.planners.adaptive.headroom import (counter_epoch_sums, epoch_offsets,
                                                epoch_sums_from_prefix)
from engines.program_memo import program_memo
from engines.pattern.ast import Or, Pattern

#: capacity options of each engine (``run_plan``'s kinds) and where their defaults live
_CAP_KEYS = {"order": ("max_partial_matches", "max_matches"),
             "tree": ("max_partial_matches", "max_matches", "max_kleene_nodes")}


def _cap_defaults(kind: str) -> dict:
    if kind == "order":
        from engines.evaluators.lazy_nfa import run_chain as fn
    else:
        from engines.evaluators.ztree import run_ztree as fn
    sig = inspect.signature(fn).parameters
    return {k: int(sig[k].default) for k in _CAP_KEYS[kind]}


def independent_alternatives(program: Program) -> list[Program] | None:
    """One program per top-level OR alternative (same schema, window and policy, the predicates
    of that alternative) when a run of ``program`` is the sum of runs of these (module
    docstring); else None.  Compiled once per program (``program_memo``): the same alternative
    programs then carry their engines' per-plan tables from one use to the next."""
    memo = program_memo(program)
    if "independent_alternatives" not in memo:
        memo["independent_alternatives"] = _split_alternatives(program)
    got = memo["independent_alternatives"]
    return None if got is None else list(got)


def capacity_shares(kind: str, engine_options: dict | None, n_alts: int) -> dict | None:
    """``engine_options`` with every capacity cap of the engine (``_CAP_KEYS``: its default or
    the option given) divided among ``n_alts`` alternatives (``cap // n_alts``, module
    docstring); None when a share would be below 1."""
    opts = dict(engine_options or {})
    caps = _cap_defaults(kind)
    caps.update({k: int(v) for k, v in opts.items() if k in caps})
    share = {k: v // n_alts for k, v in caps.items()}
    if any(v < 1 for v in share.values()):
        return None
    opts.update(share)
    return opts


def _split_alternatives(program: Program) -> list[Program] | None:
    pat = program.pattern
    if not isinstance(pat.structure, Or) or len(pat.structure.children) < 2:
        return None
    if program.policy != POLICY_ANY or np.any(program.var_kind == KIND_NEG) \
            or np.any(program.var_kind == KIND_KLEENE):
        return None
    if len(program.pred_i) and np.any(program.pred_i[:, 0] == PK_REMOTE):
        return None
    alts = pat.structure.children
    alt_vars = []
    for a in alts:
        sub = Pattern(a)
        alt_vars.append(set(sub.variables()))
    types = [{int(program.var_type[program.var_id(v)]) for v in vs} for vs in alt_vars]
    for i in range(len(types)):
        for j in range(i + 1, len(types)):
            if types[i] & types[j]:
                return None
    preds: list[list] = [[] for _ in alts]
    for p in pat.where:
        owners = [i for i, vs in enumerate(alt_vars) if set(p.variables()) <= vs]
        if len(owners) != 1:
            return None
        preds[owners[0]].append(p)
    return [compile_pattern(Pattern(a, tuple(ps), pat.window, pat.policy), program.schema,
                            max_branches=program.max_branches)
            for a, ps in zip(alts, preds)]


def sub_plan(program: Program, kind: str, plan, alt: Program):
    """The part of ``plan`` (an adaptive plan of ``program``: a variable-id order for ``order``,
    group trees of variable ids for ``tree``) that the engine runs on alternative ``alt``, in
    names: the order restricted to ``alt``'s variables, or ``alt``'s tree."""
    keep = set(alt.var_names)
    if kind == "order":
        return tuple(program.var_names[v] for v in plan if program.var_names[v] in keep)
    from engines.evaluators.ztree_plan import restrict
    from engines.planners.adaptive.epochs import plan_to_ztree
    return restrict(plan_to_ztree(program, plan), keep)


def _run_sub(alt: Program, stream, kind: str, sub, opts: dict):
    if kind == "order":
        from engines.evaluators.lazy_nfa import run_chain
        return run_chain(alt, stream, order=list(sub), **opts)
    from engines.evaluators.ztree import run_ztree
    return run_ztree(alt, stream, plan=sub, **opts)


def epoch_sums_by_alternatives(program: Program, stream, kind: str, plans: list,
                               bounds: list[tuple[int, int]], engine_options: dict | None,
                               whole_run) -> list[np.ndarray | None]:
    """``plan_epoch_sums`` of every plan of ``plans`` (None where the engine's cap stops the
    whole-plan run), running each distinct (alternative, sub-plan) once when the alternatives
    are independent and that saves runs; ``whole_run(plan)`` computes one plan the ordinary way
    (it raises ``CapacityError``)."""
    alts = independent_alternatives(program) if plans else None
    out: list[np.ndarray | None] = [None] * len(plans)
    if alts is not None:
        subs = [[sub_plan(program, kind, p, a) for a in alts] for p in plans]
        distinct = sum(len({s[b] for s in subs}) for b in range(len(alts)))
        if distinct >= len(alts) * len(plans):
            alts = None               # nothing shared: the whole-plan runs are as cheap
    if alts is None:
        for i, p in enumerate(plans):
            try:
                out[i] = whole_run(p)
            except CapacityError:
                pass
        return out
    opts = capacity_shares(kind, engine_options, len(alts))
    hi = max(h for _, h in bounds) if bounds else 0
    sub_stream = stream.slice(0, hi)
    # chain runs return their counters as prefix sums at the epoch bounds (``counter_offsets``)
    at = epoch_offsets(bounds) if kind == "order" and bounds else None
    if opts is not None and at is not None:
        opts = {**opts, "counter_offsets": at}
    memo: dict = {}
    for i, p in enumerate(plans):
        total = np.zeros((len(bounds), C.N_COUNTERS), np.int64)
        whole = False
        for b, alt in enumerate(alts):
            key = (b, subs[i][b])
            if key not in memo:
                if opts is None:
                    memo[key] = None
                else:
                    try:
                        res = _run_sub(alt, sub_stream, kind, subs[i][b], opts)
                        memo[key] = (counter_epoch_sums(np.asarray(res.counters), bounds)
                                     if at is None else
                                     epoch_sums_from_prefix(np.asarray(res.counters), at,
                                                            bounds))
                        del res
                    except CapacityError:
                        memo[key] = None      # over its share of the cap: run the plan whole
            if memo[key] is None:
                whole = True
                break
            total += memo[key]
        if whole:
            try:
                out[i] = whole_run(p)
            except CapacityError:
                out[i] = None
        else:
            out[i] = total
    return out

