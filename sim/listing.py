"""What exists: engines, scenarios, claims, figures, cost profiles, generators, experiments.

Everything is discovered, never hard-coded, so engines, scenarios and generators added by
anyone appear without touching this file:

* engines: ``engines.registry.engine_names()`` (every ``register``-ed engine);
* scenarios / claims: the public functions of every ``sim/scenarios/<module>.py`` -- a scenario
  takes ``(params, seed)``, a claim takes ``df`` first and returns ``ClaimResult``
  (or is named ``claim_*``);
* figures: the public functions of ``paper_figs/<module>.py`` taking ``(df, out_base, ...)``;
* profiles: ``sim/profiles/*.toml`` (their ``description``);
* generators: ``workloads.generators.generator_targets()``.

Each entry's description is the first line of its docstring.  Referencing one in a config:
scenario ``"<module>:<function>"``, claim ``fn = "<module>:<function>"``, figure
``fn = "<module>:<function>"``.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import tomllib
from pathlib import Path
from typing import Callable

KINDS = ("experiments", "engines", "scenarios", "claims", "figures", "profiles", "generators")
PROFILES_DIR = Path(__file__).resolve().parent / "profiles"


def first_line(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    for line in doc.splitlines():
        if line.strip():
            return line.strip()
    return "(no docstring)"


def _target_doc(target: str) -> str:
    module, func = target.split(":")
    try:
        return first_line(getattr(importlib.import_module(module), func))
    except Exception as exc:  # a broken module is listed, not fatal
        return f"(cannot import: {type(exc).__name__}: {exc})"


def engines() -> list[tuple[str, str]]:
    from engines import registry

    targets = getattr(registry, "_ENGINES", {})
    return [(n, _target_doc(targets[n]) if n in targets else "") for n in registry.engine_names()]


def generators() -> list[tuple[str, str]]:
    from workloads.generators import generator_targets

    return [(n, _target_doc(t)) for n, t in generator_targets().items()]


def _modules(package: str) -> list[tuple[str, object]]:
    pkg = importlib.import_module(package)
    out = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        try:
            out.append((info.name, importlib.import_module(f"{package}.{info.name}")))
        except Exception as exc:
            out.append((info.name, exc))
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
    for mname, mod in _modules("sim.scenarios"):
        if isinstance(mod, Exception):
            out.append((f"{mname}:*", f"(cannot import: {mod})"))
            continue
        for n, f in _functions(mod):
            if _params(f)[:2] == ["params", "seed"]:
                out.append((f"{mname}:{n}", first_line(f)))
    return out


def claims() -> list[tuple[str, str]]:
    out = []
    for mname, mod in _modules("sim.scenarios"):
        if isinstance(mod, Exception):
            continue
        out += [(f"{mname}:{n}", first_line(f)) for n, f in _functions(mod) if _is_claim(n, f)]
    return out


def figures() -> list[tuple[str, str]]:
    out = []
    for mname, mod in _modules("paper_figs"):
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
        out.append((str(p.relative_to(PROFILES_DIR.parents[1])), desc.splitlines()[0]))
    return out


def listing(kind: str) -> list[tuple[str, str]]:
    """Rows (name, one-line description) of ``kind`` (one of ``KINDS`` except experiments)."""
    fn = {"engines": engines, "scenarios": scenarios, "claims": claims, "figures": figures,
          "profiles": profiles, "generators": generators}[kind]
    return fn()
