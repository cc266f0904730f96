"""Where the time of ``cepsim reproduce`` goes: one serial pass over every experiment.

With ``--pool`` it instead runs ``cepsim reproduce`` as a user does (one process pool on all
cores) under ``reproduce_monitor.py`` and reports per experiment, most CPU first, its points,
CPU seconds, wall span and the peak resident memory of one point, and in total the wall, the
CPU and the peak memory of the whole process tree:

    python benchmarks/bench_reproduce.py --pool --scale full --out results/full \
        --figures-dir paper_figs/full --markdown docs/reproduction/full_timing.md

Without it, runs each experiment of ``experiments/`` (demo excluded) in THIS process, one after another
(the serial backend), and prints per experiment: wall time of its points, the part of it spent
compiling Numba kernels (cache misses) and in Numba's compiler lock at all (compiles + cache
loads + cache writes), the longest single point, figure drawing and claim checking.  Run it on a
cold kernel cache to see first-call compilation (a fresh clone, ``NUMBA_CACHE_DIR`` pointing at
an empty directory), on a warm one to see the work alone.  The sum is the CPU a perfect
scheduler spreads over the cores; the longest point bounds the parallel wall from below.

    NUMBA_CACHE_DIR=/tmp/cold python benchmarks/bench_reproduce.py --scale quick --out /tmp/res

It also lists the kernels (function, signature) compiled by more than one experiment: with a
pool per experiment each would be compiled (or loaded) again by every experiment's workers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


class _Numba:
    """Accumulates Numba compile time (misses) and compiler-lock time, and the kernels compiled."""

    def __init__(self) -> None:
        from numba.core import event as ev

        self.compile_s = 0.0
        self.lock_s = 0.0
        self.kernels: list[str] = []
        outer = self

        class Compile(ev.Listener):
            depth = 0

            def on_start(self, event):
                if self.depth == 0:
                    self.t0 = time.perf_counter()
                self.depth += 1
                disp = event.data["dispatcher"]
                outer.kernels.append(f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
                                     f"{tuple(str(a) for a in event.data['args'])}")

            def on_end(self, event):
                self.depth -= 1
                if self.depth == 0:
                    outer.compile_s += time.perf_counter() - self.t0

        class Lock(ev.Listener):
            depth = 0

            def on_start(self, event):
                if self.depth == 0:
                    self.t0 = time.perf_counter()
                self.depth += 1

            def on_end(self, event):
                self.depth -= 1
                if self.depth == 0:
                    outer.lock_s += time.perf_counter() - self.t0

        ev.register("numba:compile", Compile())
        ev.register("numba:compiler_lock", Lock())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", default="quick")
    ap.add_argument("--out", type=Path, required=True, help="results root (scratch)")
    ap.add_argument("--json", type=Path, help="write the per-experiment table here")
    ap.add_argument("--pool", action="store_true",
                    help="run `cepsim reproduce` as a user does (one pool, all cores) and report "
                         "CPU, wall span and peak memory per experiment (reproduce_monitor.py)")
    ap.add_argument("--workers", type=int, help="--pool: pool workers (default: all cores)")
    ap.add_argument("--figures-dir", type=Path, help="--pool: figures root of the reproduce")
    ap.add_argument("--log", type=Path, help="--pool: per-point log (default <out>/.timing/)")
    ap.add_argument("--markdown", type=Path, help="--pool: write the table as Markdown here")
    ap.add_argument("--memory-budget-mb", type=float,
                    help="--pool: passed to cepsim reproduce (default: its default, 0 = off)")
    ap.add_argument("names", nargs="*", help="only these paper/name keys (serial mode)")
    ap.add_argument("--fresh", action="store_true",
                    help="--pool: passed to cepsim reproduce (recompute every point; stored rows "
                         "under --out then only order the points, longest first)")
    args = ap.parse_args(argv)
    pool_only = [flag for flag, v in (("--workers", args.workers),
                                      ("--figures-dir", args.figures_dir), ("--log", args.log),
                                      ("--markdown", args.markdown),
                                      ("--memory-budget-mb", args.memory_budget_mb),
                                      ("--fresh", args.fresh or None)) if v is not None]
    if pool_only and not args.pool:
        ap.error(f"{', '.join(pool_only)}: only with --pool (the serial pass runs every point "
                 f"itself); add --pool or drop them")
    if args.names and args.pool:
        ap.error("paper/name keys select experiments of the serial pass only; --pool runs "
                 "cepsim reproduce on every experiment (drop the keys or --pool)")
    if args.pool:
        from reproduce_monitor import main_pool
        os.chdir(REPO)
        return main_pool(args.scale, args.out, args.figures_dir, args.workers, args.log,
                         args.json, args.markdown, args.memory_budget_mb, args.fresh)

    t_import = time.perf_counter()
    from engines.jitcache import ensure_numba_cache_dir
    ensure_numba_cache_dir()
    import numba  # noqa: F401
    nb = _Numba()
    from sim.cli.commands.common import all_config_paths as _all_config_paths
    from sim.cli.commands.results import claim_rows as _claim_rows, draw_figures as _draw_figures
    from sim.experiments.config import load_config
    from sim.experiments.runner import run_experiment
    t_import = time.perf_counter() - t_import

    os.chdir(REPO)
    paths = [p for p in _all_config_paths() if p.parent.name != "demo"]
    rows = []
    first_use: dict[str, str] = {}
    shared: dict[str, set] = {}
    print(f"imports {t_import:.1f}s; {len(paths)} experiments; NUMBA_CACHE_DIR="
          f"{os.environ.get('NUMBA_CACHE_DIR')}", flush=True)
    hdr = (f"{'experiment':34s} {'points':>6s} {'run_s':>7s} {'compile':>7s} {'nb_lock':>7s} "
           f"{'max_pt':>7s} {'figs_s':>6s} {'claims':>6s} {'cpu_s':>7s}")
    print(hdr, flush=True)
    t_all = time.perf_counter()
    c_all = time.process_time()
    for p in paths:
        cfg = load_config(p)
        if args.names and cfg.key not in args.names:
            continue
        c0, l0, k0 = nb.compile_s, nb.lock_s, len(nb.kernels)
        cpu0 = time.process_time()
        t0 = time.perf_counter()
        s = run_experiment(cfg, scale=args.scale, out_dir=args.out, backend="serial",
                           progress=False)
        t1 = time.perf_counter()
        _draw_figures(s.cfg, s.df, args.out / "figures")
        t2 = time.perf_counter()
        _claim_rows(s.cfg, s.df)
        t3 = time.perf_counter()
        for k in nb.kernels[k0:]:
            shared.setdefault(k, set()).add(cfg.key)
            first_use.setdefault(k, cfg.key)
        wall = s.df["wall_s"].dropna()
        row = dict(experiment=cfg.key, points=len(s.df), run_s=t1 - t0,
                   compile_s=nb.compile_s - c0, numba_lock_s=nb.lock_s - l0,
                   max_point_s=float(wall.max()) if len(wall) else 0.0,
                   figures_s=t2 - t1, claims_s=t3 - t2, cpu_s=time.process_time() - cpu0,
                   kernels=len(nb.kernels) - k0)
        rows.append(row)
        print(f"{cfg.key:34s} {row['points']:6d} {row['run_s']:7.1f} {row['compile_s']:7.1f} "
              f"{row['numba_lock_s']:7.1f} {row['max_point_s']:7.1f} {row['figures_s']:6.1f} "
              f"{row['claims_s']:6.1f} {row['cpu_s']:7.1f}", flush=True)
    total = time.perf_counter() - t_all
    tot = {k: sum(r[k] for r in rows) for k in ("run_s", "compile_s", "numba_lock_s",
                                                 "figures_s", "claims_s", "cpu_s")}
    print(f"{'TOTAL':34s} {sum(r['points'] for r in rows):6d} {tot['run_s']:7.1f} "
          f"{tot['compile_s']:7.1f} {tot['numba_lock_s']:7.1f} "
          f"{max((r['max_point_s'] for r in rows), default=0):7.1f} {tot['figures_s']:6.1f} "
          f"{tot['claims_s']:6.1f} {tot['cpu_s']:7.1f}")
    print(f"wall {total:.1f}s, process CPU {time.process_time() - c_all:.1f}s, load average "
          f"{os.getloadavg()[0]:.2f}; {len(first_use)} kernel compiles")
    # a kernel the first experiment compiled is loaded from the disk cache by later ones
    # (not counted here); count by function how many experiments compiled a signature of it
    by_fn: dict[str, set] = {}
    for k, exps in shared.items():
        by_fn.setdefault(k.split("(")[0], set()).update(exps)
    common = sorted(((len(v), k) for k, v in by_fn.items() if len(v) > 1), reverse=True)
    print(f"functions compiled (some signature) by >1 experiment: {len(common)}")
    for n, k in common[:15]:
        print(f"  {n:3d} experiments  {k}")
    if args.json:
        args.json.write_text(json.dumps(dict(rows=rows, wall_s=total, shared=[
            [n, k] for n, k in common]), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
