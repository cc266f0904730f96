"""APAM hybrid eager-lazy evaluator (Yi, Lee, Whang, CIKM'16, sections 3 and 5), on the tree
evaluator ``engines.evaluators.ztree``.

A *plan* splits the variables of a simple sequence ``SEQ(x_1, ..., x_l)`` into

* the **eager evaluation group** (EEG), evaluated on arrival **in query order**: an event of
  the EEG's j-th variable extends every stored partial instance of the EEG's first j-1
  variables that is still inside the window; the instances of the whole EEG form the *eager
  evaluation result buffer* (EERB);
* the **lazy evaluation group** (LEG), whose events are only appended to per-variable
  *deferred event buffers* (DEB).

At each *final event* (an event qualifying for ``x_l``) the **merger** joins, left-deep,
``EERB ⋈ DEB_{L1} ⋈ DEB_{L2} ⋈ ...`` in the plan's LEG order (the predetermined join order) with
the join conditions of the paper's Definition 4.  As in the paper's Figure 2(c), the internal
join nodes *materialize* their results; here they also keep them across final events
(ZStream's batch evaluation), so a combination is joined once, when its newest event's batch
is merged, and is reused by later final events while inside the window.

Implementation: the plan is the left-deep ``ztree`` plan over ``EEG (query order) + LEG (join
order)``, run with ``trigger="batch"`` and ``eager_vars = EEG``: the nodes over EEG variables
join on arrival (the eager evaluator), the others at final events (the merger).  All-eager
(``"a,b,c/"``) is SASE-like eager evaluation; all-lazy (``"/e,d,c,b,a"``) is the ZStream-like
left-deep tree in that order.  Matching partners are found by binary search over the
position-sorted buffers (the sequence predicates of Definition 3 are never evaluated pair by
pair), so only *in-scope* pairs (order and window satisfied) are examined.

Plan notation: ``"b,c/a,d"`` = EEG {b, c} (evaluated in query order whatever the order written)
/ LEG joined in the order a, d.  ``"/a,b,c"`` is all-lazy, ``"a,b,c/"`` all-eager.  Single-letter
variable names may be written without commas (``"bc/ad"``).  The ``hybrid`` engine
(``engines.planners.apam_engine.run_hybrid``) takes ``plan=None`` too: then the plan
optimizer (option ``optimizer``: ``"apam"``, Eqs. 2-9 as printed, ``engines.planners.apam``; or
``"apam-x"``, the executed work, ``engines.planners.apam_x``) chooses among the l+1 candidate
plans from statistics of the first ``warmup`` events; the choice and the predicted ``E[QWT]``,
``E[ST_FE]``, ``E[L]`` of every candidate are returned in ``EngineResult.info``.

Supported: one flat SEQ of plain events, any predicates ``eval_pred`` handles, time and count
windows (or none), skip-till-any-match -- what APAM supports.  Kleene closure, negation,
AND/OR and skip-till-next-match are refused with a ``CepsimInputError`` (the ``ztree`` and
``eager`` engines evaluate those).

Counters: the ``ztree`` counters, i.e. executed work only -- ``JOIN_PROBE`` in-scope pairs
examined (eager extensions and merge pairs alike), ``PRED_EVAL`` parameterized predicates
evaluated on them (plus one-variable filters), ``SEARCH_CMP`` binary-search comparisons,
``PM_CREATED`` stored intermediate results (eager instances and materialized join results),
``MATCH_EMIT`` full matches, ``BUF_INSERT`` events stored in a leaf buffer (an eager event is
stored once too, in its leaf, before its join), ``PM_REMOVED`` results expired; gauges
``LIVE_PM`` and ``BUFFERED``.  Eq. (9)'s cross product is the optimizer's estimate only.
"""
from __future__ import annotations

import numpy as np

from engines.compile import KIND_KLEENE, PK_REMOTE, POLICY_ANY, Program
from engines.errors import CepsimInputError
from engines.evaluators.ztree import run_ztree
from engines.evaluators.ztree_plan import format_plan as format_tree
from engines.evaluators.ztree_plan import left_deep

DEFAULT_MAX_ROWS = 50_000_000


# ----------------------------------------------------------------------------- plans
def _split_names(text: str, names: tuple[str, ...], where: str) -> list[str]:
    text = text.strip()
    if not text:
        return []
    if "," in text:
        parts = [p.strip() for p in text.split(",")]
    elif text in names:
        parts = [text]
    elif all(ch in names for ch in text):
        parts = list(text)
    else:
        parts = [text]
    for p in parts:
        if p not in names:
            raise CepsimInputError(f"{where}: unknown variable {p!r}; the pattern's variables are "
                                   f"{list(names)} (write e.g. 'b,c/a,d')")
    return parts


def parse_plan(plan: str, program: Program) -> tuple[list[int], list[int]]:
    """``"b,c/a,d"`` -> (EEG slots in query order, LEG slots in join order)."""
    where = f"hybrid plan {plan!r}"
    if not isinstance(plan, str) or plan.count("/") != 1:
        raise CepsimInputError(f"{where}: a plan is 'EEG/LEG' with exactly one '/', e.g. "
                               f"'b,c/a,d' (all-eager 'a,b/', all-lazy '/a,b')")
    branch = program.branches[0]
    slots = {program.var_names[v]: s for s, v in enumerate(branch.pos_vars)}
    names = tuple(slots)
    left, right = plan.split("/")
    eeg = _split_names(left, names, where)
    leg = _split_names(right, names, where)
    allv = eeg + leg
    if len(set(allv)) != len(allv) or set(allv) != set(names):
        raise CepsimInputError(f"{where}: the plan must name every variable {list(names)} exactly "
                               f"once across EEG and LEG")
    return sorted(slots[v] for v in eeg), [slots[v] for v in leg]


def format_plan(eeg_slots, leg_slots, program: Program) -> str:
    """Inverse of ``parse_plan`` (EEG in query order)."""
    branch = program.branches[0]
    nm = [program.var_names[v] for v in branch.pos_vars]
    return ",".join(nm[s] for s in sorted(eeg_slots)) + "/" + ",".join(nm[s] for s in leg_slots)


def check_supported(program: Program) -> None:
    """Refuse what APAM does not support, naming the eager engine as the alternative."""
    why = None
    if len(program.branches) != 1:
        why = "AND/OR (several flat alternatives)"
    elif len(program.branches[0].neg_vars):
        why = "negation"
    elif np.any(program.var_kind == KIND_KLEENE):
        why = "Kleene closure"
    elif program.policy != POLICY_ANY:
        why = "skip-till-next-match"
    elif len(program.pred_i) and np.any(program.pred_i[:, 0] == PK_REMOTE):
        why = "REMOTE[...] predicates"
    if why:
        raise CepsimInputError(f"the hybrid (APAM) engine evaluates simple sequences with "
                               f"predicates and a window under skip-till-any-match only; this "
                               f"pattern uses {why}: run it with the 'eager' engine instead")


# ----------------------------------------------------------------------------- entry point
OPTIMIZERS = ("apam", "apam-x", "apam-x-mean", "apam-r")


def check_options(opts: dict) -> str:
    """Validate the engine options beyond the named ones; return the optimizer named (default
    ``"apam"``).  Pops ``optimizer`` from ``opts``."""
    optimizer = opts.pop("optimizer", "apam")
    unknown = set(opts) - {"remote_ok"}
    if unknown:
        raise CepsimInputError(f"hybrid engine: unknown option(s) {sorted(unknown)}; options are "
                               "plan, optimizer, warmup, arrival_rate, unit_costs, "
                               "max_partial_matches, max_matches")
    if optimizer not in OPTIMIZERS:
        raise CepsimInputError(f"hybrid engine: optimizer must be 'apam' (Eqs. 2-9 as printed), "
                               f"'apam-x' (executed work), 'apam-x-mean' (executed work, "
                               f"per-variable means) or 'apam-r' (warm-up service times "
                               f"replayed), got {optimizer!r}")
    return optimizer


def evaluate_plan(program: Program, stream, plan: str, info: dict,
                  max_partial_matches: int = DEFAULT_MAX_ROWS,
                  max_matches: int = DEFAULT_MAX_ROWS):
    """Evaluate ``plan`` (``"eeg/leg"``) on ``stream``; ``info`` (the caller's extras, e.g. the
    optimizer's choice) gains plan, EEG/LEG and tree.  Returns ``EngineResult``."""
    from engines.registry import EngineResult

    eeg, leg = parse_plan(plan, program)
    branch = program.branches[0]
    names = [program.var_names[v] for v in branch.pos_vars]
    info["plan"] = format_plan(eeg, leg, program)
    info["eeg"] = [names[s_] for s_ in eeg]
    info["leg"] = [names[s_] for s_ in leg]
    order = info["eeg"] + info["leg"]
    info["tree"] = format_tree(left_deep(order))
    res = run_ztree(program, stream, plan=left_deep(order), trigger="batch",
                    eager_vars=info["eeg"], max_partial_matches=max_partial_matches,
                    max_matches=max_matches)
    return EngineResult(matches=res.matches, counters=res.counters, info=info)


def run_hybrid(program: Program, stream, plan: str, max_partial_matches: int = DEFAULT_MAX_ROWS,
               max_matches: int = DEFAULT_MAX_ROWS):
    """Run APAM's evaluator with ``plan`` (``"eeg/leg"``); the ``hybrid`` engine
    (``engines.planners.apam_engine.run_hybrid``) also takes ``plan=None`` and asks the optimizer.
    Returns ``EngineResult`` with ``info`` = plan, EEG/LEG and tree.
    """
    check_supported(program)
    if plan is None:
        raise CepsimInputError("hybrid evaluator: give a plan ('eeg/leg'); the 'hybrid' engine "
                               "(engines.planners.apam_engine.run_hybrid) chooses one with "
                               "plan=None")
    return evaluate_plan(program, stream, plan, {}, max_partial_matches, max_matches)
