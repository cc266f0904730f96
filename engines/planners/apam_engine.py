"""The ``hybrid`` engine: APAM's plan optimizer and its hybrid eager-lazy evaluator together.

The evaluator (``engines.evaluators.hybrid``) runs a given plan; this entry point also takes
``plan=None`` and then asks the optimizer (``engines.planners.apam.choose_plan``) for one, so
the evaluator never imports a planner.
"""
from __future__ import annotations

from engines.evaluators.hybrid import (DEFAULT_MAX_ROWS, check_options, check_supported,
                                       evaluate_plan)
from engines.planners.apam import DEFAULT_UNIT_COSTS, choose_plan, estimate_statistics
from engines.planners.apam_r import choose_plan_r


def run_hybrid(program, stream, plan: str | None = None, warmup: int | None = None,
               arrival_rate: float | None = None, unit_costs: dict | None = None,
               max_partial_matches: int = DEFAULT_MAX_ROWS, max_matches: int = DEFAULT_MAX_ROWS,
               **opts):
    """Run APAM with ``plan`` (``"eeg/leg"``) or, when ``plan`` is None, the optimizer's plan.

    ``optimizer`` (``"apam"``: Eqs. 2-9 as printed; ``"apam-x"``: ``engines.planners.apam_x``,
    the executed work; ``"apam-r"``: ``engines.planners.apam_r``, the warm-up's measured
    service times replayed through the Lindley recursion), ``warmup`` (events, default half
    the stream), ``arrival_rate`` (events/s used by the queue model; default estimated from
    the warm-up timestamps) and ``unit_costs`` (dict with
    ``t_pe``, ``t_rc``, ``t_bi``, ``base`` and optionally ``t_seq`` in seconds) feed the optimizer
    only.
    Returns ``EngineResult`` with ``info`` = plan, EEG/LEG and (optimizer) predictions.
    """
    optimizer = check_options(opts)
    check_supported(program)
    info: dict = {}
    if plan is None and optimizer == "apam-r":
        choice = choose_plan_r(program, stream,
                               estimate_statistics(program, stream, warmup=warmup,
                                                   arrival_rate=arrival_rate),
                               {**DEFAULT_UNIT_COSTS, **(unit_costs or {})})
    elif plan is None:
        choice = choose_plan(program, stream, warmup=warmup, arrival_rate=arrival_rate,
                             unit_costs=unit_costs, optimizer=optimizer)
    if plan is None:
        plan = choice["plan"]
        info.update(choice)
    return evaluate_plan(program, stream, plan, info, max_partial_matches, max_matches)
