"""Which parameter keys (and value types) an experiment accepts: checks ``--set`` before a run.

Why: a misspelled ``--set params.n_event=1000`` used to be accepted silently -- the scenario
read its default ``n_events`` and the unknown key only changed the point's hash and seeds.  A key
given with ``--set params.<k>`` / ``grid.<k>`` / ``zip.<k>`` must be one the experiment knows:

* a key the config itself names (``[params]``, ``[grid]``, ``[zip]`` or any ``[scale.*]``), or
* a key its scenario module reads.  These are found by reading the module's source (``ast``, no
  import): ``params.get("k", ...)``, ``params["k"]``, ``"k" in params`` and helper calls
  ``_p(params, "k", ...)`` on a dict argument named ``params`` or ``p``.  Keys built at run time
  are declared by the module: ``PARAM_KEYS = {"t_pe": "float", ...}`` (name -> ``"int"``,
  ``"float"``, ``"string"``, ``"boolean"``, ``"array"`` or ``None`` for any) and
  ``PARAM_PREFIXES = ("gen_",)`` for families of keys.

Expected value type: from the config's own values for that key (every element of a grid/zip
array); else from the conversion the scenario applies (``int(params.get(...))``, the ``kind``
argument of a ``_p``/``_get`` helper); else any.  An integer is accepted where a float is
expected, never the reverse, and a boolean is never a number.
"""
from __future__ import annotations

import ast
import difflib
import functools
import importlib.util
import json
from typing import Any

from engines.errors import CepsimInputError

PARAM_DICT_NAMES = ("params", "p")
_CONVERTERS = {"int": "int", "float": "float", "str": "string", "bool": "boolean"}
_NUMERIC = ("int", "float")


def type_name(v: Any) -> str:
    """TOML-ish name of a value's type (``boolean`` before ``int``: bool is an int subclass)."""
    if isinstance(v, bool):
        return "boolean"
    return {int: "int", float: "float", str: "string", list: "array", dict: "table"}.get(
        type(v), type(v).__name__)


def _merge(a: str | None, b: str | None) -> str | None:
    """Combine two expectations for one key (None = no expectation)."""
    if a is None or b is None:
        return b if a is None else a
    if a == b:
        return a
    if {a, b} <= set(_NUMERIC):
        return "float"      # a number: int or float
    return None             # the sources disagree: do not guess


def _kind_of(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Name):
        return _CONVERTERS.get(node.id)
    return None


class _Scan(ast.NodeVisitor):
    """Collect (key -> expected type) from one scenario module's source."""

    def __init__(self, helpers: dict[str, str | None], literals: dict[str, list[str]]):
        self.keys: dict[str, str | None] = {}
        self.helpers = helpers  # helper function name -> default kind
        self.literals = literals  # module-level tuples/lists/dicts of strings
        self.loops: dict[str, list[str]] = {}  # loop variable -> the string keys it runs over
        self.parents: dict[int, ast.AST] = {}

    def _strings(self, it: ast.AST) -> list[str] | None:
        """The strings a loop iterates: a literal tuple/list, a module constant or its .items()."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                it.func.attr in ("items", "keys") and not it.args:
            it = it.func.value
        if isinstance(it, ast.Name):
            return self.literals.get(it.id)
        if isinstance(it, (ast.Tuple, ast.List)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in it.elts):
            return [e.value for e in it.elts]
        return None

    def _bind(self, target: ast.AST, iterable: ast.AST) -> None:
        keys = self._strings(iterable)
        if keys is None:
            return
        if isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]     # for k, v in D.items()
        if isinstance(target, ast.Name):
            self.loops[target.id] = keys

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._bind(node.target, node.iter)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self._bind(node.target, node.iter)
        self.generic_visit(node)

    def _visit_comp(self, node: ast.AST) -> None:
        for gen in node.generators:       # bind loop names before the element is visited
            self._bind(gen.target, gen.iter)
        self.generic_visit(node)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def add_node(self, key_node: ast.AST, node: ast.AST, kind: str | None = None) -> None:
        key = self._const_str(key_node)
        if key is not None:
            self.add(key, node, kind)
        elif isinstance(key_node, ast.Name) and key_node.id in self.loops:
            for k in self.loops[key_node.id]:
                self.add(k, node, kind)

    def add(self, key: str, node: ast.AST, kind: str | None = None) -> None:
        if kind is None:
            parent = self.parents.get(id(node))
            if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
                kind = _kind_of(parent.func)
        self.keys[key] = _merge(self.keys[key], kind) if key in self.keys else kind

    def generic_visit(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.parents[id(child)] = node
        super().generic_visit(node)

    @staticmethod
    def _is_params(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in PARAM_DICT_NAMES

    @staticmethod
    def _const_str(node: ast.AST) -> str | None:
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "get" and self._is_params(f.value) and node.args:
            self.add_node(node.args[0], node)
        elif len(node.args) >= 2 and self._is_params(node.args[0]):
            name = f.id if isinstance(f, ast.Name) else None
            if name in self.helpers:
                kind = self.helpers[name]
                given = node.args[3] if len(node.args) >= 4 else next(
                    (k.value for k in node.keywords if k.arg == "kind"), None)
                if given is not None:
                    kind = _kind_of(given)
                self.add_node(node.args[1], node, kind)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if self._is_params(node.value):
            self.add_node(node.slice, node)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and self._is_params(node.comparators[0]):
            self.add_node(node.left, node)
        self.generic_visit(node)


def _helpers(tree: ast.Module) -> dict[str, str | None]:
    """Module functions whose parameters start (params, key, ...) with a ``kind`` default."""
    out: dict[str, str | None] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and len(node.args.args) >= 2 and \
                node.args.args[0].arg in PARAM_DICT_NAMES:
            names = [a.arg for a in node.args.args]
            defaults = dict(zip(names[len(names) - len(node.args.defaults):], node.args.defaults))
            out[node.name] = _kind_of(defaults.get("kind"))
    return out


def _literal(tree: ast.Module, name: str) -> Any:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                return None
    return None


@functools.lru_cache(maxsize=32)
def scenario_keys(scenario: str) -> tuple[dict[str, str | None], tuple[str, ...]] | None:
    """(keys -> expected type, key prefixes) read by ``scenario`` (``"module:function"``), or
    ``None`` when its module source cannot be read (then only the config's keys are known)."""
    mod = scenario.split(":")[0]
    try:
        spec = importlib.util.find_spec(f"sim.studies.{mod}")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    try:
        with open(spec.origin, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), spec.origin)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    literals: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            try:
                v = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(v, (tuple, list, dict)) and v and all(isinstance(x, str) for x in v):
                literals[node.targets[0].id] = list(v)
    scan = _Scan(_helpers(tree), literals)
    scan.visit(tree)
    keys = dict(scan.keys)
    declared = _literal(tree, "PARAM_KEYS")
    if isinstance(declared, dict):
        for k, v in declared.items():
            keys[str(k)] = _merge(keys[str(k)], v) if k in keys else v
    prefixes = _literal(tree, "PARAM_PREFIXES")
    return keys, tuple(str(x) for x in prefixes) if isinstance(prefixes, (tuple, list)) else ()


def _value_types(v: Any) -> set[str]:
    return {type_name(x) for x in v} if isinstance(v, list) else {type_name(v)}


def config_keys(cfg_dict: dict) -> dict[str, str | None]:
    """Keys named anywhere in a TOML-shaped config dict, with the type of their values."""
    found: dict[str, set[str]] = {}

    def take(part: str, d: dict) -> None:
        for k, v in (d or {}).items():
            # params hold one value (possibly an array); grid/zip hold arrays of values
            kinds = {type_name(v)} if part == "params" else _value_types(v)
            found.setdefault(k, set()).update(kinds)

    for part in ("params", "grid", "zip"):
        take(part, cfg_dict.get(part, {}))
    for sc in (cfg_dict.get("scale") or {}).values():
        for part in ("params", "grid", "zip"):
            take(part, (sc or {}).get(part, {}))
    out: dict[str, str | None] = {}
    for k, kinds in found.items():
        if len(kinds) == 1:
            out[k] = next(iter(kinds))
        elif kinds <= set(_NUMERIC):
            out[k] = "float"
        else:
            out[k] = None   # mixed types in the config itself: any value
    return out


def _fits(v: Any, expected: str | None) -> bool:
    if expected is None:
        return True
    got = type_name(v)
    return got == expected or (expected == "float" and got == "int")


_ARTICLE = {"int": "an integer", "float": "a number", "string": "a string", "boolean": "a boolean",
            "array": "an array", "table": "a table"}


def check_override(cfg_dict: dict, scenario: str, source: str, option: str, part: str, key: str,
                   value: Any) -> None:
    """Raise ``CepsimInputError`` when ``--set <part>.<key>=<value>`` names a key the experiment
    does not know, or a value of the wrong type."""
    known = config_keys(cfg_dict)
    scanned = scenario_keys(scenario)
    skeys, prefixes = scanned if scanned is not None else ({}, ())
    if key not in known and key not in skeys and not any(key.startswith(x) for x in prefixes):
        names = sorted(set(known) | set(skeys))
        close = difflib.get_close_matches(key, names, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        listed = ", ".join(names) + "".join(f", {x}<name>" for x in prefixes)
        raise CepsimInputError(
            f"{option}: unknown parameter '{key}' for {source} (scenario {scenario}); {hint}"
            f"known keys: {listed}. Fix the spelling, or add the key to the config if the "
            f"scenario reads it")
    if key in known:
        expected = _merge_config_first(known[key], skeys.get(key))
    else:
        expected = skeys.get(key)
    if expected is None:
        return
    what = _ARTICLE.get(expected, expected)
    if part == "params":
        if expected == "array":
            if not isinstance(value, list):
                raise CepsimInputError(f"{option}: parameter '{key}' of {source} expects an array, got "
                                       f"{type_name(value)} {value!r}; write e.g. {key}=[1, 2]")
            return
        if isinstance(value, list):
            raise CepsimInputError(
                f"{option}: parameter '{key}' of {source} expects {what} (type {expected}), got the array "
                f"{value!r}; to sweep several values write grid.{key}={json.dumps(value)}")
        values = [value]
    elif isinstance(value, list):
        values = value
    else:
        return          # grid/zip must be arrays: config_from_dict reports it with its fix
    for x in values:
        if not _fits(x, expected):
            raise CepsimInputError(
                f"{option}: parameter '{key}' of {source} expects {what} (type {expected}), "
                f"got {type_name(x)} {x!r}; write {what}"
                + (" (quote text: \"...\")" if expected == "string" else ""))


def _merge_config_first(from_config: str | None, from_scan: str | None) -> str | None:
    """The config's own values decide; the scenario's conversion only widens int to number."""
    if from_config is None:
        return None
    if from_config == "int" and from_scan == "float":
        return "float"
    return from_config
