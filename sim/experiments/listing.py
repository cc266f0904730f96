"""What exists: engines, scenarios, claims, figures, cost profiles, generators, experiments.

Everything is discovered, never hard-coded, so engines, scenarios and generators added by
anyone appear without touching this file:

* engines: ``engines.registry.engine_names()`` (every ``register``-ed engine);
* scenarios / claims / figures: the public functions of every study's ``scenario``, ``claims``
  and ``figures`` module (``sim/studies/<study>/``, ``sim.experiments.functions``) -- a scenario
  takes ``(params, seed)``, a claim takes ``df`` first and returns ``ClaimResult`` (or is named
  ``claim_*``), a figure takes ``(df, out_base, ...)``;
* profiles: ``sim/core/profiles/*.toml`` (their ``description``);
* generators: ``workloads.generators.generator_targets()``.

Each entry's description is the first line of its docstring.  Referencing one in a config:
scenario ``"<module>:<function>"``, claim ``fn = "<module>:<function>"``, figure
``fn = "<module>:<function>"``.
"""
from __future__ import annotations

import importlib
import inspect
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, the package tomllib was taken from (pyproject.toml)
    import tomli as tomllib  # type: ignore[no-redef]
from pathlib import Path
from typing import Callable

KINDS = ("experiments", "engines", "scenarios", "claims", "figures", "profiles", "generators")
PROFILES_DIR = Path(__file__).resolve().parents[1] / "core" / "profiles"


def first_line(obj, width: int = 110) -> str:
    """The first sentence of ``obj``'s docstring (its first paragraph, cut at ``width``)."""
    doc = inspect.getdoc(obj) or ""
    para = " ".join(doc.strip().split("\n\n")[0].split())
    if not para:
        return "(no docstring)"
    for i in range(len(para) - 1):
        if para[i] == "." and para[i + 1] == " " and i > 10:
            para = para[:i + 1]
            break
    return para if len(para) <= width else para[:width - 3].rstrip() + "..."


def _target_doc(target: str) -> str:
    module, func = target.split(":")
    try:
        return first_line(getattr(importlib.import_module(module), func))
    except Exception as exc:  # a broken module is listed, not fatal
        return f"(cannot import: {type(exc).__name__}: {exc})"


def engines() -> list[tuple[str, str]]:
    from engines import registry

    targets = registry.engine_targets()
    return [(n, _target_doc(targets[n]) if n in targets else "") for n in registry.engine_names()]


def generators() -> list[tuple[str, str]]:
    from workloads.generators import generator_targets

    return [(n, _target_doc(t)) for n, t in generator_targets().items()]


def _modules(role: str) -> list[tuple[str, object]]:
    """(study name, module or the exception importing it) of every study's ``role`` module."""
    from sim.experiments.functions import known_names, module_name

    out = []
    for name in known_names(role):
        try:
            out.append((name, importlib.import_module(module_name(name, role))))
        except ModuleNotFoundError as exc:
            if exc.name != module_name(name, role):
                out.append((name, exc))
        except Exception as exc:
            out.append((name, exc))
    return out


def _functions(mod) -> list[tuple[str, Callable]]:
    return [(n, f) for n, f in inspect.getmembers(mod, inspect.isfunction)
            if not n.startswith("_") and f.__module__ == mod.__name__]


def _params(f) -> list[str]:
    try:
        return list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return []


def _is_claim(name: str, f) -> bool:
    ps = _params(f)
    ann = str(inspect.signature(f).return_annotation)
    return bool(ps) and ps[0] == "df" and (name.startswith("claim") or "ClaimResult" in ann)


def scenarios() -> list[tuple[str, str]]:
    out = []
    for mname, mod in _modules("scenario"):
        if isinstance(mod, Exception):
            out.append((f"{mname}:*", f"(cannot import: {mod})"))
            continue
        for n, f in _functions(mod):
            if _params(f)[:2] == ["params", "seed"]:
                out.append((f"{mname}:{n}", first_line(f)))
    return out


def scenario_parameters(name: str) -> list[str]:
    """Terminal lines describing the declared parameters of scenario ``name`` (name, type,
    default, meaning, accepted range; ``sim.experiments.params``)."""
    from sim.experiments.params import declaration, describe
    decl = declaration(name)
    if decl is None:
        return ["    (no declared parameters: its keys are accepted as written)"]
    return describe(decl)


def claims() -> list[tuple[str, str]]:
    out = []
    for mname, mod in _modules("claims"):
        if isinstance(mod, Exception):
            continue
        out += [(f"{mname}:{n}", first_line(f)) for n, f in _functions(mod) if _is_claim(n, f)]
    return out


def figures() -> list[tuple[str, str]]:
    out = []
    for mname, mod in _modules("figures"):
        if isinstance(mod, Exception):
            out.append((f"{mname}:*", f"(cannot import: {mod})"))
            continue
        out += [(f"{mname}:{n}", first_line(f)) for n, f in _functions(mod)
                if _params(f)[:2] == ["df", "out_base"]]
    return out


def profiles() -> list[tuple[str, str]]:
    out = []
    for p in sorted(PROFILES_DIR.glob("*.toml")):
        try:
            with open(p, "rb") as fh:
                desc = str(tomllib.load(fh).get("description", "")) or "(no description)"
        except Exception as exc:
            desc = f"(unreadable: {exc})"
        out.append((str(p.relative_to(PROFILES_DIR.parents[2])), desc.splitlines()[0]))
    return out


def listing(kind: str) -> list[tuple[str, str]]:
    """Rows (name, one-line description) of ``kind`` (one of ``KINDS`` except experiments)."""
    fn = {"engines": engines, "scenarios": scenarios, "claims": claims, "figures": figures,
          "profiles": profiles, "generators": generators}[kind]
    return fn()
