"""The ``cepsim`` commands, one module per group (registered by ``sim.cli``):

* ``experiments`` -- ``run``, ``sweep``, ``reproduce``: run experiments;
* ``results`` -- ``figures``, ``check``, ``report``: read stored results;
* ``catalog`` -- ``list``: what the project holds;
* ``calibrate`` -- ``calibrate``: this machine's unit costs;
* ``match`` -- ``match``: one pattern over one data file;
* ``compare`` -- ``compare``: every evaluation strategy on one pattern and data file;
* ``warmup`` -- ``warmup``: compile the kernels ahead of first use;
* ``common`` -- the error guard, result/figure/config locations, output-path checks.
"""
