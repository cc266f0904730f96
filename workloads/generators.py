"""Registry of seeded stream generators: ``generate(name, n_events, seed, **params)``.

A generator is a function ``f(n_events, seed, **params) -> EventStream`` (keyword call, so the
parameter order does not matter), deterministic given its arguments.  The generic scenario and
``sim.api.generate_stream`` reach every generator by name; ``cepsim list generators`` lists them
with the first line of their docstrings.

Adding one: either call ``register_generator("name", "module:function")``, or give any module in
``workloads/`` a module-level dict ``GENERATORS = {"name": "function_name"}`` (found by
``generator_names`` without registration; an entry here wins over a discovered one).

``uniform`` is the workload-agnostic generator for trying a pattern: event types drawn uniformly,
integer attributes uniform on ``{0..domain-1}``, timestamps ``i / ts_rate`` seconds.

>>> s = generate("uniform", 5, seed=1, types="A,B", attrs="x,y", domain=10)
>>> len(s), s.schema.type_names, s.schema.attr_names
(5, ('A', 'B'), ('x', 'y'))
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Callable

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

# name -> "module:function"
_BUILTIN: dict[str, str] = {
    "uniform": "workloads.generators:uniform",
    "stocks": "workloads.stocks:stock_stream",
    "stocks_dynamic": "workloads.stocks:dynamic_stock_stream",
    "apam": "workloads.apam_synthetic:generate",
}
_REGISTERED: dict[str, str] = {}


def uniform(n_events: int, seed: int, types: str = "A,B,C", attrs: str = "x",
            domain: int = 100, ts_rate: float = 1.0) -> EventStream:
    """Uniform random types and integer attributes; one event every 1/ts_rate seconds."""
    names = tuple(t.strip() for t in str(types).split(",") if t.strip())
    anames = tuple(a.strip() for a in str(attrs).split(",") if a.strip())
    if not names:
        raise CepsimInputError("generator uniform: 'types' must name at least one event type, "
                               "e.g. types = \"A,B,C\"")
    if int(n_events) < 0 or int(domain) < 1 or not float(ts_rate) > 0:
        raise CepsimInputError(f"generator uniform: need n_events >= 0, domain >= 1, ts_rate > 0; "
                               f"got {n_events}, {domain}, {ts_rate}")
    n = int(n_events)
    rng = np.random.default_rng(seed)
    t = rng.integers(0, len(names), n).astype(np.int32)
    a = rng.integers(0, int(domain), (n, len(anames))).astype(np.float64)
    ts = np.arange(n, dtype=np.float64) / float(ts_rate)
    return EventStream.from_arrays(t, ts, a, names, anames, source=f"<uniform seed={seed}>")


def register_generator(name: str, target: str) -> None:
    """Register generator ``name`` implemented by ``"module:function"``."""
    if ":" not in target:
        raise CepsimInputError(f"register_generator: target must be 'module:function', got "
                               f"{target!r}")
    _REGISTERED[name] = target


def _discovered() -> dict[str, str]:
    """``GENERATORS`` dicts of the modules in the ``workloads`` package."""
    import workloads

    out: dict[str, str] = {}
    for info in pkgutil.iter_modules(workloads.__path__):
        if info.name in ("generators",) or info.name.startswith("_"):
            continue
        try:
            mod = importlib.import_module(f"workloads.{info.name}")
        except Exception:  # a broken module must not hide the others
            continue
        gens = getattr(mod, "GENERATORS", None)
        if isinstance(gens, dict):
            for k, fn in gens.items():
                out[str(k)] = fn if ":" in str(fn) else f"workloads.{info.name}:{fn}"
    return out


def generator_targets() -> dict[str, str]:
    """name -> ``"module:function"`` of every known generator."""
    out = _discovered()
    out.update(_BUILTIN)
    out.update(_REGISTERED)
    return dict(sorted(out.items()))


def generator_names() -> list[str]:
    return list(generator_targets())


def get_generator(name: str) -> Callable[..., EventStream]:
    targets = generator_targets()
    if name not in targets:
        raise CepsimInputError(f"unknown generator {name!r}; choose one of "
                               f"{', '.join(targets)} (`cepsim list generators`)")
    module, func = targets[name].split(":")
    return getattr(importlib.import_module(module), func)


def generate(name: str, n_events: int, seed: int, **params) -> EventStream:
    """Stream of ``n_events`` from generator ``name`` (unknown parameters are a user error)."""
    fn = get_generator(name)
    sig = inspect.signature(fn)
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    allowed = [k for k in sig.parameters if k not in ("n_events", "seed")]
    unknown = [k for k in params if k not in sig.parameters]
    if unknown and not accepts_any:
        raise CepsimInputError(f"generator {name!r}: unknown parameter(s) {unknown}; it accepts "
                               f"{', '.join(allowed) or 'none'}")
    return fn(n_events=int(n_events), seed=int(seed), **params)
