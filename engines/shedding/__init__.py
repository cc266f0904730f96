"""Load shedding in virtual time (DARLING, PVLDB'22, and its baselines).

``queue.run_shedding`` is the virtual-time queue that steps the engine (``engines.evaluators.stepper``),
in Python or compiled (``queue_kernel``, with the shedders' hooks compiled in ``kernel_hooks``);
the shedders live in their own modules: ``darling`` (DARLING and random input dropping),
``random_pm`` (random partial-match dropping), ``spice`` (eSPICE, hSPICE), ``icde20``
(Zhao et al., ICDE'20).  ``utility`` fits the Normal statistics of DARLING's Eq. (11).
"""
