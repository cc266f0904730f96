"""Experiment configs: TOML file -> validated, frozen ``ExperimentConfig`` -> grid points.

Why strict: a typo in a config should stop a long sweep before it starts, with a message that
names the file, the dotted key and the fix (``CepsimInputError`` -> CLI exit code 2).  The
parameter keys of a file (``load_config``) and of ``--set`` (``apply_overrides``) are checked
against the scenario's declared parameters (``sim.experiments.params``) before any point runs.

Format (binding, docs/ENGINEERING.md "Experiments")::

    name, paper, title, scenario = "module:function", seed, seeds
    [params] fixed values  [grid] lists (cartesian product)  [zip] equal-length lists
    [scale.quick] / [scale.full]: params / grid / zip / seeds overrides
    [[claims]] name, fn, args     [[figures]] name, fn, args (args optional)

Point seeds come from ``np.random.SeedSequence(seed, spawn_key=(point_hash, rep))`` where
``point_hash`` hashes the canonical JSON of the point's parameters: never the run order.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import itertools
import json
import re
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, the package tomllib was taken from (pyproject.toml)
    import tomli as tomllib  # type: ignore[no-redef]
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from engines.errors import CepsimInputError
from sim.experiments.functions import resolve
from sim.experiments.params import declaration, placeholder_keys, validate, validate_config

SCALES = ("quick", "full")
TOP_KEYS = ("name", "paper", "title", "scenario", "seed", "seeds", "params", "grid", "zip",
            "scale", "claims", "figures")
REQUIRED = ("name", "paper", "scenario", "seed")
SCALE_KEYS = ("params", "grid", "zip", "seeds")
CLAIM_KEYS = ("name", "kind", "quote", "section", "fn", "args")
#: what a claim is: a sentence of the paper (``paper``), our own regime, metric or series
#: (``extension``), a documented search for an unstated parameter (``calibration``), or numbers
#: printed and not judged (``report``); only ``paper`` claims count as the reproduction
CLAIM_KINDS = ("paper", "extension", "calibration", "report")
FIGURE_KEYS = ("name", "fn", "args")
RESERVED_COLUMNS = ("seed", "rep", "point_id", "error", "wall_s")
_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_SCALAR = (bool, int, float, str)


@dataclass(frozen=True)
class ClaimSpec:
    """One ``[[claims]]`` entry: ``fn`` in a study's ``claims`` module called as fn(df, **args).

    ``kind`` is one of ``CLAIM_KINDS``; a ``paper`` claim carries the paper's sentence it checks
    (``quote``) and where the paper says it (``section``)."""

    name: str
    fn: str
    kind: str            # one of CLAIM_KINDS
    args: dict = field(default_factory=dict)
    quote: str = ""
    section: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CLAIM_KINDS:
            raise ValueError(f"claim {self.name!r}: kind {self.kind!r} is not one of {CLAIM_KINDS}")


@dataclass(frozen=True)
class FigureSpec:
    """One ``[[figures]]`` entry: ``fn`` in ``paper_figs/<module>.py`` called as fn(df, out_base, **args)."""

    name: str
    fn: str
    args: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ScaleSpec:
    """Overrides applied by ``--scale quick|full`` (None / empty = leave as is)."""

    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    zip: dict = field(default_factory=dict)
    seeds: int | None = None


@dataclass(frozen=True)
class ExperimentConfig:
    """A validated experiment config (see module docstring)."""

    name: str
    paper: str
    title: str
    scenario: str
    seed: int
    seeds: int
    params: dict
    grid: dict
    zip: dict
    scales: dict  # scale name -> ScaleSpec
    claims: tuple  # of ClaimSpec
    figures: tuple  # of FigureSpec
    path: Path | None = None

    @property
    def key(self) -> str:
        """``paper/name``: where results and figures go."""
        return f"{self.paper}/{self.name}"

    def to_dict(self) -> dict:
        """The config as a TOML-shaped plain dict (what ``meta.json`` records)."""
        d: dict[str, Any] = {
            "name": self.name, "paper": self.paper, "title": self.title,
            "scenario": self.scenario, "seed": self.seed, "seeds": self.seeds,
            "params": copy.deepcopy(self.params), "grid": copy.deepcopy(self.grid),
            "zip": copy.deepcopy(self.zip),
        }
        if self.scales:
            sc: dict[str, Any] = {}
            for k, s in self.scales.items():
                e: dict[str, Any] = {}
                for part in ("params", "grid", "zip"):
                    if getattr(s, part):
                        e[part] = copy.deepcopy(getattr(s, part))
                if s.seeds is not None:
                    e["seeds"] = s.seeds
                sc[k] = e
            d["scale"] = sc
        d["claims"] = [{"name": c.name, "kind": c.kind, **({"quote": c.quote} if c.quote else {}),
                        **({"section": c.section} if c.section else {}), "fn": c.fn,
                        "args": copy.deepcopy(c.args)} for c in self.claims]
        d["figures"] = [{"name": f.name, "fn": f.fn, "args": copy.deepcopy(f.args)}
                        for f in self.figures]
        return d


@dataclass(frozen=True)
class Point:
    """One (grid point, repetition): the full parameter dict handed to the scenario."""

    point_id: str
    rep: int
    seed: int
    params: dict


# ---------------------------------------------------------------------------------------
# loading and validation
# ---------------------------------------------------------------------------------------

def load_config(path: str | Path, check_functions: bool = True) -> ExperimentConfig:
    """Read and validate ``path``; every mistake raises ``CepsimInputError`` naming file and key."""
    p = Path(path)
    if not p.is_file():
        raise CepsimInputError(
            f"{p}: config file not found (give the path of an experiments/<paper>/<name>.toml file; "
            f"`cepsim list` shows the registered ones)")
    try:
        with open(p, "rb") as fh:
            raw = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise CepsimInputError(f"{p}: TOML syntax error: {exc} (fix the syntax at that line)") from None
    except UnicodeDecodeError as exc:
        raise CepsimInputError(f"{p}: not UTF-8 text ({exc}); save the config as UTF-8") from None
    cfg = config_from_dict(raw, source=str(p), path=p, check_functions=check_functions)
    # every [params] / [grid] / [zip] / [scale.*] key against the scenario's declared parameters
    validate_config(cfg.to_dict(), str(p))
    return cfg


def _err(source: str, key: str, msg: str) -> CepsimInputError:
    return CepsimInputError(f"{source}: key '{key}': {msg}")


def _tname(v: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
            dict: "table"}.get(type(v), type(v).__name__)


def _want(source: str, key: str, v: Any, types: tuple, what: str) -> Any:
    # bool is an int subclass: never accept it where a number is wanted
    if isinstance(v, bool) and bool not in types:
        raise _err(source, key, f"expected {what}, got boolean {v!r}; write {what} instead")
    if not isinstance(v, types):
        raise _err(source, key, f"expected {what}, got {_tname(v)} {v!r}; write {what} instead")
    return v


def _check_unknown(source: str, prefix: str, d: dict, allowed: tuple) -> None:
    for k in d:
        if k not in allowed:
            where = f"{prefix}.{k}" if prefix else k
            raise _err(source, where, f"unknown key; allowed here: {', '.join(allowed)} "
                                      f"(fix the spelling or remove it)")


def _check_value(source: str, key: str, v: Any) -> None:
    """Parameter values: scalars, or (nested) arrays of scalars; no tables (keep rows flat)."""
    if isinstance(v, _SCALAR):
        return
    if isinstance(v, list):
        for i, x in enumerate(v):
            _check_value(source, f"{key}[{i}]", x)
        return
    raise _err(source, key, f"unsupported value type {_tname(v)}; parameters must be strings, "
                            f"numbers, booleans or arrays of those")


def _check_params(source: str, key: str, d: Any) -> dict:
    _want(source, key, d, (dict,), "a table")
    for k, v in d.items():
        _check_value(source, f"{key}.{k}", v)
    return dict(d)


def _check_lists(source: str, key: str, d: Any) -> dict:
    _want(source, key, d, (dict,), "a table of arrays")
    for k, v in d.items():
        _want(source, f"{key}.{k}", v, (list,), "an array of values")
        if len(v) == 0:
            raise _err(source, f"{key}.{k}", "empty array; give at least one value or remove the key")
        for i, x in enumerate(v):
            _check_value(source, f"{key}.{k}[{i}]", x)
        _check_one_kind(source, f"{key}.{k}", v)
    return dict(d)


def _kind(x: Any) -> str:
    """The kind a result column needs for ``x``: integers and floats are both numbers."""
    if isinstance(x, bool):
        return "boolean"
    if isinstance(x, (int, float)):
        return "number"
    return "string" if isinstance(x, str) else "array"


def _leaves(x: Any) -> list:
    return [y for z in x for y in _leaves(z)] if isinstance(x, list) else [x]


def _check_one_kind(source: str, key: str, values: list) -> None:
    """The values of one grid / zip axis become one result column: all of one kind (numbers,
    strings, booleans or arrays, and the arrays' elements of one kind), so a stray string among
    numbers is refused here, before any point runs, not by the result writer after they ran."""
    for vals, what in ((values, "values"), (_leaves(values), "array elements")):
        if not vals:
            continue
        want = _kind(vals[0])
        for x in vals[1:]:
            if _kind(x) != want:
                an = "an" if want[0] in "aeiou" else "a"
                raise _err(source, key, f"{what} mix kinds: {x!r} is a {_kind(x)} among "
                                        f"{want}s ({vals[0]!r} first); make every value of the "
                                        f"axis {an} {want} (quote numbers meant as names)")


def _check_zip(source: str, key: str, d: dict) -> None:
    lens = {k: len(v) for k, v in d.items()}
    if len(set(lens.values())) > 1:
        desc = ", ".join(f"{k}={n}" for k, n in lens.items())
        raise _err(source, key, f"zip arrays must have equal length, got {desc}; "
                                f"make them the same length or move one to [grid]")


def config_from_dict(raw: dict, source: str = "<config>", path: Path | None = None,
                     check_functions: bool = True) -> ExperimentConfig:
    """Validate a TOML-shaped dict and build the frozen config."""
    _want(source, "<top>", raw, (dict,), "a table")
    _check_unknown(source, "", raw, TOP_KEYS)
    for k in REQUIRED:
        if k not in raw:
            raise _err(source, k, "missing required key; add it at the top of the file")
    name = _want(source, "name", raw["name"], (str,), "a string")
    paper = _want(source, "paper", raw["paper"], (str,), "a string")
    for k, v in (("name", name), ("paper", paper)):
        if not _NAME_RE.match(v):
            raise _err(source, k, f"{v!r} is not usable as a directory name; use letters, digits, "
                                  f"'_', '-', '.'")
    title = _want(source, "title", raw.get("title", name), (str,), "a string")
    scenario = _want(source, "scenario", raw["scenario"], (str,), "a 'module:function' string")
    seed = _want(source, "seed", raw["seed"], (int,), "an integer")
    if seed < 0:
        raise _err(source, "seed", "must be >= 0")
    seeds = _want(source, "seeds", raw.get("seeds", 1), (int,), "an integer")
    if seeds < 1:
        raise _err(source, "seeds", f"must be >= 1, got {seeds}")
    params = _check_params(source, "params", raw.get("params", {}))
    grid = _check_lists(source, "grid", raw.get("grid", {}))
    zp = _check_lists(source, "zip", raw.get("zip", {}))
    _check_zip(source, "zip", zp)

    scales: dict[str, ScaleSpec] = {}
    sc_raw = _want(source, "scale", raw.get("scale", {}), (dict,), "a table")
    for sname, s in sc_raw.items():
        if sname not in SCALES:
            raise _err(source, f"scale.{sname}", f"unknown scale; allowed: {', '.join(SCALES)}")
        _want(source, f"scale.{sname}", s, (dict,), "a table")
        _check_unknown(source, f"scale.{sname}", s, SCALE_KEYS)
        s_seeds = s.get("seeds")
        if s_seeds is not None:
            _want(source, f"scale.{sname}.seeds", s_seeds, (int,), "an integer")
            if s_seeds < 1:
                raise _err(source, f"scale.{sname}.seeds", f"must be >= 1, got {s_seeds}")
        s_zip = _check_lists(source, f"scale.{sname}.zip", s.get("zip", {}))
        scales[sname] = ScaleSpec(
            params=_check_params(source, f"scale.{sname}.params", s.get("params", {})),
            grid=_check_lists(source, f"scale.{sname}.grid", s.get("grid", {})),
            zip=s_zip, seeds=s_seeds)

    # a parameter may come from exactly one of params / grid / zip
    seen: dict[str, str] = {}
    for part, d in (("params", params), ("grid", grid), ("zip", zp)):
        for k in d:
            if k in RESERVED_COLUMNS:
                raise _err(source, f"{part}.{k}", f"'{k}' is a reserved result column; rename the "
                                                  f"parameter")
            if k in seen:
                raise _err(source, f"{part}.{k}", f"also set in [{seen[k]}]; a parameter may appear "
                                                  f"in only one of params/grid/zip")
            seen[k] = part

    claims = []
    cl_raw = _want(source, "claims", raw.get("claims", []), (list,), "an array of tables [[claims]]")
    for i, c in enumerate(cl_raw):
        key = f"claims[{i}]"
        _want(source, key, c, (dict,), "a table")
        _check_unknown(source, key, c, CLAIM_KEYS)
        for req in ("name", "kind", "fn"):
            if req not in c:
                hint = (f"; add kind = one of {', '.join(repr(k) for k in CLAIM_KINDS)}"
                        if req == "kind" else "")
                raise _err(source, f"{key}.{req}", "missing required key" + hint)
        kind = _want(source, f"{key}.kind", c["kind"], (str,), "a string")
        if kind not in CLAIM_KINDS:
            raise _err(source, f"{key}.kind", f"{kind!r} is no claim kind; use one of "
                                              f"{', '.join(repr(k) for k in CLAIM_KINDS)}")
        quote = _want(source, f"{key}.quote", c.get("quote", ""), (str,), "a string")
        section = _want(source, f"{key}.section", c.get("section", ""), (str,), "a string")
        if kind == "paper" and not (quote.strip() and section.strip()):
            raise _err(source, f"{key}.quote", "a 'paper' claim quotes the paper: give quote = "
                                               "\"<the paper's sentence>\" and section = "
                                               "\"<where the paper says it>\"")
        claims.append(ClaimSpec(
            name=_want(source, f"{key}.name", c["name"], (str,), "a string"),
            fn=_want(source, f"{key}.fn", c["fn"], (str,), "a 'module:function' string"),
            args=dict(_want(source, f"{key}.args", c.get("args", {}), (dict,), "a table")),
            kind=kind, quote=quote, section=section))
    figures = []
    fg_raw = _want(source, "figures", raw.get("figures", []), (list,), "an array of tables [[figures]]")
    for i, f in enumerate(fg_raw):
        key = f"figures[{i}]"
        _want(source, key, f, (dict,), "a table")
        _check_unknown(source, key, f, FIGURE_KEYS)
        for req in ("name", "fn"):
            if req not in f:
                raise _err(source, f"{key}.{req}", "missing required key")
        fname = _want(source, f"{key}.name", f["name"], (str,), "a string")
        if not _NAME_RE.match(fname):
            raise _err(source, f"{key}.name", f"{fname!r} is not usable as a file name")
        figures.append(FigureSpec(
            name=fname, fn=_want(source, f"{key}.fn", f["fn"], (str,), "a 'module:function' string"),
            args=dict(_want(source, f"{key}.args", f.get("args", {}), (dict,), "a table"))))

    if check_functions:
        resolve(scenario, "scenario", source, "scenario")
        for i, c in enumerate(claims):
            resolve(c.fn, "claims", source, f"claims[{i}].fn")
        for i, f in enumerate(figures):
            resolve(f.fn, "figures", source, f"figures[{i}].fn")

    return ExperimentConfig(name=name, paper=paper, title=title, scenario=scenario, seed=seed,
                            seeds=seeds, params=params, grid=grid, zip=zp, scales=scales,
                            claims=tuple(claims), figures=tuple(figures), path=path)


def _source(cfg: ExperimentConfig) -> str:
    return str(cfg.path) if cfg.path else "<config>"


def apply_scale(cfg: ExperimentConfig, scale: str | None) -> ExperimentConfig:
    """Overlay ``[scale.<scale>]`` (params/grid/zip merged key by key, seeds replaced)."""
    if scale is None:
        return cfg
    if scale not in SCALES:
        raise CepsimInputError(f"--scale: unknown scale {scale!r}; use one of {', '.join(SCALES)}")
    s = cfg.scales.get(scale)
    if s is None:
        return cfg
    d = cfg.to_dict()
    for part in ("params", "grid", "zip"):
        upd = getattr(s, part)
        if not upd:
            continue
        for k, v in upd.items():
            # a scale may move a key between params/grid/zip: drop it from the others first
            for other in ("params", "grid", "zip"):
                if other != part:
                    d[other].pop(k, None)
            d[part][k] = copy.deepcopy(v)
    if s.seeds is not None:
        d["seeds"] = s.seeds
    return config_from_dict(d, source=f"{_source(cfg)} [scale.{scale}]", path=cfg.path,
                            check_functions=False)


def parse_override_value(text: str) -> Any:
    """A ``--set`` value parsed as a TOML value; a bare word (no quotes) is taken as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.:\-/]*", text.strip()):
            return text.strip()
        raise


def apply_overrides(cfg: ExperimentConfig, overrides: list[str] | tuple[str, ...] | None) -> ExperimentConfig:
    """Apply ``key=value`` overrides (dotted keys, TOML values) and re-validate everything."""
    if not overrides:
        return cfg
    d = cfg.to_dict()
    for ov in overrides:
        src = f"--set {ov!r}"
        if "=" not in ov:
            raise CepsimInputError(f"{src}: expected key=value, e.g. params.n_events=1000 or "
                                   f"grid.rho=[0.1,0.2]")
        key, _, val = ov.partition("=")
        key = key.strip()
        try:
            value = parse_override_value(val.strip())
        except tomllib.TOMLDecodeError as exc:
            raise CepsimInputError(f"{src}: value {val.strip()!r} is not a TOML value ({exc}); quote "
                                   f"strings, write arrays as [1, 2]") from None
        parts = key.split(".")
        if not key or any(not p for p in parts):
            raise CepsimInputError(f"{src}: empty key; write e.g. params.n_events=1000")
        if len(parts) == 1:
            if parts[0] not in ("name", "paper", "title", "scenario", "seed", "seeds"):
                raise CepsimInputError(f"{src}: key '{key}' cannot be set; settable: name, paper, "
                                       f"title, scenario, seed, seeds, params.<k>, grid.<k>, zip.<k>")
            d[parts[0]] = value
        elif len(parts) == 2 and parts[0] in ("params", "grid", "zip"):
            part, k = parts
            # the same check as a file's keys get (sim.experiments.params)
            decl = declaration(str(d.get("scenario", cfg.scenario)))
            validate(decl, {k: value}, _source(cfg), f"--set {part}",
                     placeholder_keys(decl, d) if decl is not None else ())
            for other in ("params", "grid", "zip"):
                if other != part:
                    d[other].pop(k, None)
            d[part][k] = value
        else:
            raise CepsimInputError(f"{src}: key '{key}' cannot be set; settable: seed, seeds, "
                                   f"params.<k>, grid.<k>, zip.<k> (and name, paper, title, scenario)")
    out = config_from_dict(d, source=f"{_source(cfg)} with --set", path=cfg.path,
                           check_functions=True)
    if d.get("scenario") != cfg.scenario:   # another scenario: every key against its declaration
        validate_config(out.to_dict(), f"{_source(cfg)} with --set")
    return out


# ---------------------------------------------------------------------------------------
# grid expansion and seeds
# ---------------------------------------------------------------------------------------

def canonical_json(params: dict) -> str:
    """Sorted-key compact JSON: the identity of a point (1 and 1.0 differ on purpose)."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def point_hash(params: dict) -> str:
    """Short stable hex id of a parameter dict (16 hex digits of SHA-256)."""
    return hashlib.sha256(canonical_json(params).encode()).hexdigest()[:16]


def point_seed(base_seed: int, pid: str, rep: int) -> int:
    """Seed of (point, rep): depends on the base seed, the point's parameters and rep only."""
    ss = np.random.SeedSequence(base_seed, spawn_key=(int(pid, 16) % (2 ** 63), rep))
    return int(ss.generate_state(1)[0])


def expand_points(cfg: ExperimentConfig) -> list[Point]:
    """All (grid point, rep) pairs: product(grid) x rows(zip) x range(seeds), params merged."""
    gkeys = list(cfg.grid)
    combos = list(itertools.product(*(cfg.grid[k] for k in gkeys))) if gkeys else [()]
    zkeys = list(cfg.zip)
    zrows = list(zip(*(cfg.zip[k] for k in zkeys))) if zkeys else [()]
    out: list[Point] = []
    seen: set[str] = set()
    for combo in combos:
        for zrow in zrows:
            params = dict(cfg.params)
            params.update(zip(gkeys, combo))
            params.update(zip(zkeys, zrow))
            pid = point_hash(params)
            if pid in seen:  # duplicate values in a grid list: run once
                continue
            seen.add(pid)
            for rep in range(cfg.seeds):
                out.append(Point(point_id=pid, rep=rep, seed=point_seed(cfg.seed, pid, rep),
                                 params=params))
    return out


def param_names(cfg: ExperimentConfig) -> list[str]:
    """Parameter column names in config order (params, grid, zip)."""
    return list(cfg.params) + list(cfg.grid) + list(cfg.zip)


def with_path(cfg: ExperimentConfig, path: Path | None) -> ExperimentConfig:
    return dataclasses.replace(cfg, path=path)
