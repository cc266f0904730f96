"""The generic scenario: a study described entirely by its config, no Python needed.

``scenario = "generic:point"``.  One point = (pattern, stream, engine, arrival process); every
parameter may sit in ``[params]``, ``[grid]`` or ``[zip]`` (full reference and worked
examples: ``docs/EXPERIMENTS.md`` and ``experiments/examples/``).

Pattern
    ``pattern`` (text) or ``pattern_file`` (a file holding the text).  ``{name}`` in the text is
    replaced by the point's parameter ``name``, so a grid can vary part of a pattern
    (``WITHIN {window} minutes`` with ``window`` in ``[grid]``).
Stream (one of)
    ``data`` (a file) with ``format`` (``metastock``, ``soccer``, ``csv``, ``parquet``; default
    from the extension) and ``schema`` (csv/parquet), optionally cut to the first ``n_events``;
    or ``generator`` (any name of ``cepsim list generators``) with ``n_events``,
    ``stream_seed`` (default 1) and the generator's own parameters written ``gen_<name>``
    (``gen_types = "A,B,C"``, ``gen_f_c = 0.1``).
Engine
    ``engine``: an engine spec, the engine name followed by ``key=value`` options separated by
    spaces: ``"eager"``, ``"chain order=c,b,a"``, ``"hybrid plan=a,b/c"``.  The spec is also the
    row's ``engine`` column, so a grid over specs compares strategies side by side.
Arrivals
    ``arrival = "poisson"`` (default) at ``rate`` events per virtual second, drawn from the
    point seed; or ``"replay"``: the stream's own timestamps (times ``time_scale``, default 1).
Cost
    ``profile``: a cost-profile TOML (default: the packaged ``sim/core/profiles/default.toml``).

Engine counters do not depend on the arrival process, so they are computed once per (stream,
pattern, engine, options) and reused across rates and cost profiles: in memory and on disk
(``sim.experiments.cache.counter_cache_dir``), keyed by every input that determines them -- the stream's
content hash (files) or generator name + parameters + seed, the canonical pattern, the engine
spec, the counter width and a fingerprint of the engine and workload source code -- so a cache
entry can never be served for different inputs.  Rows are identical with and without the cache.

Row: the ``simulate`` metrics (latency mean/p5..p99, ``final_latency_*``, throughput,
``utilisation``, ``offered_load``, ``stable``, ``queue_peak``, counter totals and peaks,
``matches``, ``sim_path``), ``stream_events``, and scalar engine facts as ``engine_<fact>``
(the chain's ``order``, the hybrid's ``plan``, transient peaks).  A metric whose name is also a
parameter is written ``sim_<name>``.

The claims over these rows are in ``sim.studies.generic.claims``, the figures in
``sim.studies.generic.figures``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from engines import counters as C
from engines.errors import CepsimInputError

CACHE_VERSION = "generic-v1"
_MEM: "OrderedDict[str, dict]" = OrderedDict()
#: memos a pool worker may drop between papers (sim/experiments/worker_memory.py): engine counters
MEMO_DICTS = ("_MEM",)
_MEM_MAX = 32
SOURCE_KEYS = ("data", "generator")


def _err(msg: str) -> CepsimInputError:
    return CepsimInputError(f"scenario generic: {msg}")


# ----------------------------------------------------------------------------- engine specs
def _option_value(text: str) -> Any:
    from sim.experiments.config import parse_override_value

    try:
        return parse_override_value(text)
    except Exception:
        return text


def parse_engine_spec(spec: str) -> tuple[str, dict]:
    """``"chain order=c,b,a"`` -> ``("chain", {"order": "c,b,a"})``.

    >>> parse_engine_spec("hybrid plan=a,b/c max_partial_matches=1000")
    ('hybrid', {'plan': 'a,b/c', 'max_partial_matches': 1000})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise _err(f"engine must be a non-empty string such as \"eager\" or \"chain order=c,b,a\", "
                   f"got {spec!r}")
    from engines.registry import engine_names

    name, *opts = spec.split()
    if name not in engine_names():
        raise _err(f"unknown engine {name!r} in engine spec {spec!r}; choose one of "
                   f"{', '.join(engine_names())} (`cepsim list engines`)")
    options: dict = {}
    for tok in opts:
        key, eq, val = tok.partition("=")
        if not eq or not key:
            raise _err(f"engine spec {spec!r}: option {tok!r} must be key=value (no spaces "
                       f"inside a value), e.g. \"chain order=c,b,a\"")
        options[key] = _option_value(val)
    return name, options


def warm_key(params: dict) -> Any:
    """Kernel key for sweep warm-up: the engine name (its options do not change kernels)."""
    return str(params.get("engine", "eager")).split()[0] if params.get("engine") else "eager"


# ----------------------------------------------------------------------------- streams
@lru_cache(maxsize=64)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (memoised on path, size and mtime)."""
    st = path.stat()
    return _file_digest(str(path.resolve()), st.st_size, st.st_mtime_ns)


def _gen_params(params: dict) -> dict:
    return {k[4:]: v for k, v in sorted(params.items()) if k.startswith("gen_")}


def stream_identity(params: dict) -> dict:
    """What determines the stream of a point (part of the counter-cache key)."""
    from sim.experiments.inputs import resolve_input

    has = [k for k in SOURCE_KEYS if params.get(k) not in (None, "")]
    if len(has) != 1:
        raise _err("give exactly one stream source: data = \"<file>\" (with format/schema) or "
                   "generator = \"<name>\" (see `cepsim list generators`)"
                   + (f"; got both {has}" if has else ""))
    n = params.get("n_events")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise _err(f"n_events must be a positive integer, got {n!r}")
    if has[0] == "data":
        p = resolve_input(str(params["data"]))
        if not p.is_file():
            raise _err(f"data file {params['data']!r} not found; fix the path")
        ident = {"data": file_digest(p), "format": params.get("format"), "n_events": n}
        sch = params.get("schema")
        if isinstance(sch, str) and sch:
            sp = resolve_input(sch)
            ident["schema"] = file_digest(sp) if sp.is_file() else sch
        return ident
    if n is None:
        raise _err("a generator needs n_events (the stream length)")
    return {"generator": str(params["generator"]), "n_events": n,
            "stream_seed": int(params.get("stream_seed", 1)), "gen": _gen_params(params)}


def _freeze(d: dict) -> str:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), default=str)


@lru_cache(maxsize=8)
def _load_stream_cached(ident_json: str, data: str | None, fmt: str | None, schema: str | None):
    from sim.experiments.inputs import resolve_input

    ident = json.loads(ident_json)
    if "generator" in ident:
        from workloads.generators import generate

        return generate(ident["generator"], ident["n_events"], ident["stream_seed"], **ident["gen"])
    from workloads.loaders import load_stream

    path = resolve_input(data)
    sch = None
    if schema:
        sp = resolve_input(schema)
        sch = sp if sp.is_file() else schema
    st = load_stream(path, fmt, sch) if sch is not None else load_stream(path, fmt)
    n = ident.get("n_events")
    if n is not None and n < len(st):
        from engines.stream import EventStream

        st = EventStream(st.types[:n], st.ts[:n], st.attrs[:n], st.schema)
    return st


def point_stream(params: dict):
    """The event stream of a point (memoised per process)."""
    ident = stream_identity(params)
    return _load_stream_cached(_freeze(ident), params.get("data"), params.get("format"),
                               params.get("schema"))


PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def pattern_placeholders(text: str) -> list[str]:
    """Names of the ``{param}`` placeholders in a pattern text, in order of first use.

    >>> pattern_placeholders("PATTERN SEQ(A a, B b) WITHIN {window} minutes")
    ['window']
    """
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))


def fill_pattern(text: str, params: dict, source: str = "pattern") -> str:
    """Replace each ``{name}`` in ``text`` by the point's parameter ``name`` (the pattern grammar
    has no braces, so a brace is always a placeholder).  Lets a grid vary one part of a pattern:
    ``pattern = "... WITHIN {window} minutes"`` with ``window`` in ``[grid]``.

    >>> fill_pattern("PATTERN SEQ(A a, B b) WITHIN {w} events", {"w": 30})
    'PATTERN SEQ(A a, B b) WITHIN 30 events'
    """
    missing = [n for n in pattern_placeholders(text) if n not in params]
    if missing:
        raise _err(f"{source}: placeholder(s) {', '.join('{' + n + '}' for n in missing)} name no "
                   f"parameter of this point; add {missing[0]!r} to [params], [grid] or [zip] "
                   f"(or remove the braces)")
    return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), text)


def pattern_text(params: dict) -> str:
    """The point's pattern: ``pattern`` or the text of ``pattern_file``, placeholders filled."""
    from sim.experiments.inputs import resolve_input

    text, pf = params.get("pattern"), params.get("pattern_file")
    if bool(text) == bool(pf):
        raise _err("give exactly one of pattern = \"PATTERN ...\" or pattern_file = \"<file>\"")
    if pf:
        p = resolve_input(str(pf))
        if not p.is_file():
            raise _err(f"pattern_file {pf!r} not found; fix the path")
        return fill_pattern(p.read_text(encoding="utf-8"), params, f"pattern_file {pf}")
    return fill_pattern(str(text), params)


# ----------------------------------------------------------------------------- counters
def _cache_key(ident: dict, pattern: str, engine: str, options: dict) -> str:
    from sim.experiments.cache import code_fingerprint

    blob = _freeze({"v": CACHE_VERSION, "width": C.N_COUNTERS, "code": code_fingerprint(),
                    "stream": ident, "pattern": pattern, "engine": engine, "options": options})
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _plain_info(info: dict | None) -> dict:
    out = {}
    for k, v in (info or {}).items():
        if hasattr(v, "item") and getattr(v, "ndim", 1) == 0:
            v = v.item()
        if isinstance(v, (bool, int, float, str)):
            out[k] = v
        elif isinstance(v, (list, tuple)) and all(isinstance(x, (int, float, str)) for x in v):
            out[k] = ",".join(str(x) for x in v)
    return out


def _disk_path(key: str) -> Path | None:
    from sim.experiments.cache import counter_cache_dir

    d = counter_cache_dir()
    return None if d is None else d / f"{key}.npz"


def _counter_key(params: dict):
    """(cache key, parsed pattern, engine name, options, stream identity) of a point."""
    from engines.pattern import parse_pattern

    ident = stream_identity(params)
    text = pattern_text(params)
    pat = parse_pattern(text, source=str(params.get("pattern_file") or "pattern"))
    name, options = parse_engine_spec(str(params.get("engine", "eager")))
    return _cache_key(ident, str(pat), name, options), pat, name, options, ident


def work_key(params: dict) -> str:
    """Shared-work key for sweeps (``sim.experiments.warmup``): points with one counter-cache key reuse one
    engine run, so a sweep computes it once before fanning out the points that load it."""
    return _counter_key(params)[0]


def engine_counters(params: dict) -> dict:
    """``{counters, last_event, detect, info, n}`` of a point's (stream, pattern, engine).

    Computed once and cached (memory + disk) under a key of everything that determines it."""
    from engines.compile import compile_pattern

    key, pat, name, options, _ = _counter_key(params)
    if key in _MEM:
        _MEM.move_to_end(key)
        return _MEM[key]
    path = _disk_path(key)
    entry = None
    if path is not None and path.exists():
        try:
            with np.load(path, allow_pickle=False) as z:
                entry = {"counters": z["counters"], "last_event": z["last_event"],
                         "detect": z["detect"], "info": json.loads(str(z["info"])),
                         "n": int(z["n"])}
        except Exception:  # unreadable entry (e.g. interrupted copy): recompute
            entry = None
    if entry is None:
        from engines.registry import run_engine

        st = point_stream(params)
        prog = compile_pattern(pat, st.schema)
        res = run_engine(name, prog, st, **options)
        n = len(st)
        cnt = np.ascontiguousarray(np.asarray(res.counters)[:n], dtype=np.int64)
        entry = {"counters": cnt,
                 "last_event": np.asarray(res.matches.last_event, dtype=np.int64),
                 "detect": np.asarray(res.matches.detect, dtype=np.int64),
                 "info": _plain_info(res.info), "n": n}
        if path is not None:
            _store(path, entry)
    _MEM[key] = entry
    if len(_MEM) > _MEM_MAX:
        _MEM.popitem(last=False)
    return entry


def _store(path: Path, entry: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp.npz", dir=path.parent)
        os.close(fd)
        try:
            np.savez_compressed(tmp, counters=entry["counters"], last_event=entry["last_event"],
                                detect=entry["detect"], info=np.array(json.dumps(entry["info"])),
                                n=np.array(entry["n"]))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:  # a read-only cache location only costs the reuse across processes
        pass


def clear_memory_cache() -> None:
    """Forget the in-process counter cache (tests)."""
    _MEM.clear()


# ----------------------------------------------------------------------------- the point
def _arrivals(params: dict, n: int, seed: int, stream) -> tuple[np.ndarray, float | None]:
    from sim.core.arrivals import poisson_arrivals, replay_arrivals

    kind = str(params.get("arrival", "poisson"))
    if kind == "poisson":
        rate = params.get("rate")
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0:
            raise _err(f"arrival = \"poisson\" needs rate = <events per second > 0>, got {rate!r}")
        return poisson_arrivals(n, float(rate), seed), float(rate)
    if kind == "replay":
        scale = float(params.get("time_scale", 1.0))
        if not scale > 0:
            raise _err(f"time_scale must be > 0, got {scale}")
        return replay_arrivals(stream.ts) * scale, None
    raise _err(f"arrival must be \"poisson\" or \"replay\", got {kind!r}")


@lru_cache(maxsize=8)
def _profile(path: str | None):
    from sim.core.costmodel import load_profile
    from sim.experiments.inputs import resolve_input

    return load_profile(None if path is None else resolve_input(path))


def point(params: dict, seed: int) -> dict:
    """One generic point -> flat metrics row (see module docstring)."""
    from sim.core.metrics import metrics_row
    from sim.core.simulate import simulate_counters

    entry = engine_counters(params)
    n = entry["n"]
    stream = point_stream(params) if str(params.get("arrival", "poisson")) == "replay" else None
    arr, rate = _arrivals(params, n, seed, stream)
    prof = params.get("profile")
    profile = _profile(None if prof in (None, "", "default") else str(prof))
    res = simulate_counters(entry["counters"], arr, profile, match_last_event=entry["last_event"],
                            match_detect=entry["detect"], rate=rate)
    m = dict(res.metrics)
    m["stream_events"] = n
    for k, v in entry["info"].items():
        if k != "engine":
            m[f"engine_{k}"] = v
    return metrics_row(m, params)
