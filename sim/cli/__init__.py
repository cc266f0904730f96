"""``cepsim``, the command line: ``main`` registers one command per group in ``commands/``.

Importing this package first keeps BLAS at one thread (``blas_threads``), before anything
loads NumPy.
"""
from sim.cli.blas_threads import use_one_blas_thread

use_one_blas_thread()

from sim.cli.main import app, main  # noqa: E402,F401  (the console-script entry point)
