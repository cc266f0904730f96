"""Declared scenario parameters: each key a config or ``--set`` names is checked before any run.

Each scenario function declares the parameters it reads (``sim/studies/<study>/params.py``,
``DECLARATIONS``: scenario name -> ``Declaration``): name, type, the default its code uses,
a one-line meaning and, where the code or the paper fixes one, a range or a set of choices.
``load_config`` checks every ``[params]``, ``[grid]``, ``[zip]`` and ``[scale.*]`` key of a file
and ``apply_overrides`` every ``--set params.<k>`` / ``grid.<k>`` / ``zip.<k>`` through the same
``validate``: an unknown key (with the close matches), a value of the wrong type or a value
outside the declared range raises ``CepsimInputError`` naming the file, the key and the fix
(CLI exit 2), so a typo never starts a sweep whose every point fails.

Types: ``int``, ``float``, ``string``, ``boolean``, ``array``, ``table`` or ``any``.  An
integer is accepted where a float is declared, never the reverse, and a boolean is never a
number.  A ``[grid]`` / ``[zip]`` array holds one value per point: each element is checked.
A ``Family`` accepts every key with a prefix (``gen_<name>``: a generator's own parameters,
``cal_<unit>``: calibrated unit costs); the scenario checks the name after the prefix itself.

A scenario outside ``sim/studies`` (a dotted ``package.module:function``) or a study without a
``params`` module has no declaration: its keys are accepted as written (nothing to check them
against).
"""
from __future__ import annotations

import difflib
import importlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable

from engines.errors import CepsimInputError

TYPES = ("int", "float", "string", "boolean", "array", "table", "any")
_ARTICLE = {"int": "an integer", "float": "a number", "string": "a string",
            "boolean": "a boolean (true / false)", "array": "an array", "table": "a table",
            "any": "any value"}
#: the parts of a config whose values are arrays of per-point values
ARRAY_PARTS = ("grid", "zip")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def type_name(v: Any) -> str:
    """The declared-type name of a value (``boolean`` first: bool is an int subclass)."""
    if isinstance(v, bool):
        return "boolean"
    return {int: "int", float: "float", str: "string", list: "array", dict: "table"}.get(
        type(v), type(v).__name__)


def fits(v: Any, typ: str) -> bool:
    """Whether ``v`` is a value of declared type ``typ`` (an int is a float; a bool no number)."""
    if typ == "any":
        return True
    got = type_name(v)
    return got == typ or (typ == "float" and got == "int")


@dataclass(frozen=True)
class Param:
    """One declared parameter.  ``default`` is the value the scenario uses when the key is
    absent (``None``: required, or computed from other keys -- ``meaning`` says which);
    ``low`` / ``high`` bound a number (inclusive unless ``low_open`` / ``high_open``);
    ``choices`` lists the accepted values."""

    name: str
    type: str
    default: Any
    meaning: str
    low: float | None = None
    high: float | None = None
    choices: tuple | None = None
    low_open: bool = False
    high_open: bool = False

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"Param {self.name!r}: type {self.type!r} is not one of {TYPES}")

    def range_text(self) -> str:
        """The accepted values in one short phrase ('' when any value of the type is)."""
        if self.choices is not None:
            return "one of " + ", ".join(json.dumps(c) for c in self.choices)
        if self.low is not None and self.high is not None:
            return (f"{'(' if self.low_open else '['}{self.low:g}, {self.high:g}"
                    f"{')' if self.high_open else ']'}")
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {self.low:g}"
        if self.high is not None:
            return f"{'<' if self.high_open else '<='} {self.high:g}"
        return ""

    def problem(self, v: Any) -> str | None:
        """What is wrong with value ``v`` for this parameter (None when it is accepted)."""
        if not fits(v, self.type):
            return (f"expects {_ARTICLE[self.type]} (type {self.type}), got {type_name(v)} "
                    f"{v!r}")
        if self.choices is not None:
            if v not in self.choices:
                return f"{v!r} is not among the accepted values"
            return None
        if (self.low is not None or self.high is not None) and isinstance(v, (int, float)) \
                and not isinstance(v, bool):
            x = float(v)
            bad = math.isnan(x)
            if self.low is not None:
                bad |= x <= self.low if self.low_open else x < self.low
            if self.high is not None:
                bad |= x >= self.high if self.high_open else x > self.high
            if bad:
                return f"{v!r} is out of range"
        return None


@dataclass(frozen=True)
class Family:
    """Every key starting with ``prefix`` (e.g. ``gen_``): a family of parameters passed on by
    name (the scenario checks the name after the prefix)."""

    prefix: str
    type: str
    meaning: str

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"Family {self.prefix!r}: type {self.type!r} is not one of {TYPES}")


@dataclass(frozen=True)
class Declaration:
    """The parameters of one scenario function (``"study:function"``).

    ``placeholders``: keys whose (string) values may name further parameters as ``{name}``
    (the generic scenario's ``pattern``); ``placeholder_files``: keys whose values name a file
    whose text may (``pattern_file``).  A key named that way is accepted with any value."""

    scenario: str
    params: tuple = ()
    families: tuple = ()
    placeholders: tuple = ()
    placeholder_files: tuple = ()
    note: str = ""

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"Declaration {self.scenario}: parameters declared twice: {dup}")

    @property
    def by_name(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    def family_of(self, key: str) -> Family | None:
        return next((f for f in self.families if key.startswith(f.prefix)), None)

    def known(self) -> list[str]:
        """The declared names (and ``<prefix><name>`` per family), for messages."""
        return sorted(self.by_name) + [f"{f.prefix}<name>" for f in self.families]


# ---------------------------------------------------------------------------------------
# lookup
# ---------------------------------------------------------------------------------------

def declaration(scenario: str) -> Declaration | None:
    """The declaration of ``scenario`` (``"study:function"``), or None when there is none: a
    dotted ``package.module:function`` outside ``sim/studies``, a study without a ``params``
    module, or a function its module does not declare (then every key is accepted)."""
    from sim.experiments.functions import module_name
    if not isinstance(scenario, str) or ":" not in scenario:
        return None
    short = scenario.split(":")[0]
    if "." in short:
        return None
    try:
        mod = importlib.import_module(module_name(short, "params"))
    except (KeyError, ImportError):
        return None
    return getattr(mod, "DECLARATIONS", {}).get(scenario)


def all_declarations() -> dict[str, Declaration]:
    """Every declaration of every study, by scenario name."""
    from sim.experiments.functions import known_names, module_name
    out: dict[str, Declaration] = {}
    for short in known_names("params"):
        try:
            mod = importlib.import_module(module_name(short, "params"))
        except ImportError:
            continue
        out.update(getattr(mod, "DECLARATIONS", {}))
    return dict(sorted(out.items()))


# ---------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------

def _label(part: str, key: str) -> str:
    """How a message names the key: ``[params].k``, ``grid.k``, ``scale.quick.params.k`` or
    ``--set params.k``."""
    if part == "params":
        return f"[params].{key}"
    return f"{part}.{key}"


def _fail(source: str, part: str, key: str, what: str, fix: str) -> CepsimInputError:
    return CepsimInputError(f"{source}: key '{_label(part, key)}': {what}; {fix}")


def placeholder_keys(decl: Declaration, cfg_dict: dict) -> set[str]:
    """Keys named as ``{name}`` in the string values of ``decl.placeholders`` (or in the text
    of the files ``decl.placeholder_files`` name) anywhere in a TOML-shaped config (params, grid,
    zip and every scale); a file that cannot be read names none (the input check reports it)."""
    if not decl.placeholders and not decl.placeholder_files:
        return set()
    parts = [cfg_dict.get(p) or {} for p in ("params", "grid", "zip")]
    for sc in (cfg_dict.get("scale") or {}).values():
        if isinstance(sc, dict):
            parts += [sc.get(p) or {} for p in ("params", "grid", "zip")]
    out: set[str] = set()
    for d in parts:
        if not isinstance(d, dict):
            continue
        for k in decl.placeholders:
            v = d.get(k)
            for text in (v if isinstance(v, list) else [v]):
                if isinstance(text, str):
                    out.update(_PLACEHOLDER.findall(text))
        for k in decl.placeholder_files:
            v = d.get(k)
            for name in (v if isinstance(v, list) else [v]):
                if isinstance(name, str) and name:
                    out.update(_PLACEHOLDER.findall(_read_text(name)))
    return out


def _read_text(name: str) -> str:
    from sim.experiments.inputs import resolve_input
    try:
        return resolve_input(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return ""


def validate(decl: Declaration | None, mapping: dict, source: str, part: str,
             extra: Iterable[str] = ()) -> None:
    """Check every key of ``mapping`` (one config part) against ``decl``.

    ``part`` names the part in messages and says whether values are per-point arrays:
    ``params``, ``grid``, ``zip``, ``scale.<s>.params`` / ``.grid`` / ``.zip`` or
    ``--set params`` / ``--set grid`` / ``--set zip``.  ``extra``: further keys accepted with
    any value (``placeholder_keys``).  Raises ``CepsimInputError`` ("<source>: key '<part>.<k>':
    <what is wrong>; <the fix>") at the first problem; ``decl = None`` accepts everything."""
    if decl is None or not isinstance(mapping, dict):
        return
    arrays = part.split(".")[-1].split()[-1] in ARRAY_PARTS
    extra = set(extra)
    params = decl.by_name
    for key, value in mapping.items():
        p = params.get(key)
        fam = decl.family_of(key) if p is None else None
        if p is None and fam is None:
            if key in extra:
                continue
            close = difflib.get_close_matches(key, list(params) + sorted(extra), n=3)
            hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
            raise _fail(source, part, key,
                        f"unknown parameter '{key}' for scenario {decl.scenario}",
                        f"{hint}fix the spelling or remove the key; known keys: "
                        f"{', '.join(decl.known() + sorted(extra))} "
                        f"(`cepsim list scenarios` describes them)")
        if p is None:
            p = Param(key, fam.type, None, fam.meaning)
        if arrays:
            if not isinstance(value, list):
                continue   # a grid / zip value that is no array: config_from_dict names the fix
            values = value
        else:
            if isinstance(value, list) and p.type not in ("array", "any"):
                raise _fail(source, part, key,
                            f"expects {_ARTICLE[p.type]} (type {p.type}), got the array {value!r}",
                            f"give one value, or sweep them with grid.{key} = "
                            f"{json.dumps(value)}")
            values = [value]
        for v in values:
            what = p.problem(v)
            if what is None:
                continue
            if not fits(v, p.type):
                fix = f"write {_ARTICLE[p.type]}" + (
                    " (quote text: \"...\")" if p.type == "string" else "")
            elif p.choices is not None:
                fix = f"give {p.range_text()}"
            else:
                rng = p.range_text()
                fix = f"give a value {'in ' if rng[0] in '[(' else ''}{rng}"
            raise _fail(source, part, key, what, fix + f" ({key}: {p.meaning})")


def validate_config(cfg_dict: dict, source: str) -> None:
    """``validate`` every ``[params]``, ``[grid]``, ``[zip]`` and ``[scale.*]`` part of a
    TOML-shaped config against its scenario's declaration."""
    decl = declaration(cfg_dict.get("scenario"))
    if decl is None:
        return
    extra = placeholder_keys(decl, cfg_dict)
    for part in ("params", "grid", "zip"):
        validate(decl, cfg_dict.get(part) or {}, source, part, extra)
    for sname, sc in (cfg_dict.get("scale") or {}).items():
        if isinstance(sc, dict):
            for part in ("params", "grid", "zip"):
                validate(decl, sc.get(part) or {}, source, f"scale.{sname}.{part}", extra)


def describe(decl: Declaration) -> list[str]:
    """Terminal lines describing a declaration's parameters (``cepsim list scenarios``): a
    header, then name, type, default (``-``: required, optional or computed, as the meaning
    says), accepted range and meaning per parameter; a long list of choices follows the
    meaning."""
    rows = []
    for p in decl.params:
        default = "-" if p.default is None else json.dumps(p.default)
        if len(default) > 18:
            default = default[:15] + "..."
        rng, meaning = p.range_text(), p.meaning
        if len(rng) > 14:
            rng, meaning = ("choices" if p.choices is not None else "see meaning",
                            f"{meaning}; {rng}")
        rows.append((p.name, p.type, default, rng, meaning))
    for f in decl.families:
        rows.append((f"{f.prefix}<name>", f.type, "-", "", f.meaning))
    if not rows:
        return ["    (no parameters)"]
    head = ("parameter", "type", "default", "range", "meaning")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
    out = [f"    {a:<{w[0]}}  {b:<{w[1]}}  {c:<{w[2]}}  {d:<{w[3]}}  {e}".rstrip()
           for a, b, c, d, e in [head] + rows]
    named = [*decl.placeholders, *decl.placeholder_files]
    if named:
        out.append(f"    {{name}} in {' / '.join(named)}: a parameter of the point, any value")
    return out
