"""Where a config's ``module:function`` names live: scenarios, claims and figures.

A config names its code by short names (``scenario = "eires:point"``, ``fn = "eires:claim_x"``,
``fn = "common:line_plot"``).  The short module name is a *study*: one package under
``sim/studies/`` holding a paper's (or a study's) scenario, claims and figures, each in its own
module.  This module maps ``(role, short name)`` to the Python module that defines the function:

* role ``scenario`` -> ``sim.studies.<name>.scenario``
* role ``claims``   -> ``sim.studies.<name>.claims``
* role ``figures``  -> ``sim.studies.<name>.figures`` (``common`` -> the shared figure helpers
  ``sim.experiments.figures``)
* role ``params``   -> ``sim.studies.<name>.params``: the declared parameters of the study's
  scenario functions (``sim.experiments.params``)

``STUDY_MODULES`` maps each short name to its roles' modules: ``package_roles`` for a study
package, an explicit table where a study differs (``darling_cap``: DARLING's latency-cap study,
its scenario and claims in one module).  A dotted module
name (``mypackage.mystudy:point``) is imported as written: a user's own study outside the repo.

The studies are loaded by name at run time (a plug-in lookup), so the experiment layer never
imports a study: studies sit above it and import from it, never the reverse.
"""
from __future__ import annotations

import importlib
import re
from typing import Callable

from engines.errors import CepsimInputError

ROLES = ("scenario", "claims", "figures", "params")
STUDIES_PACKAGE = "sim.studies"



def package_roles(package: str) -> dict[str, str]:
    """A study package with one module per role: ``{role: "<package>.<role>"}``."""
    return {role: f"{package}.{role}" for role in ROLES}


#: short name -> {role: module}.  A study package has one module per role; DARLING's
#: latency-cap study keeps its scenario and claims in one module and its declaration in
#: DARLING's ``params``; ``common`` names the shared figure helpers
STUDY_MODULES: dict[str, dict[str, str]] = {
    "adaptive": package_roles("sim.studies.adaptive"),
    "apam": package_roles("sim.studies.apam"),
    "basic": package_roles("sim.studies.basic"),
    "cross": package_roles("sim.studies.cross"),
    "darling": package_roles("sim.studies.darling"),
    "darling_cap": {"scenario": "sim.studies.darling.cap", "claims": "sim.studies.darling.cap",
                    "params": "sim.studies.darling.params"},
    "demo": package_roles("sim.studies.demo"),
    "eires": package_roles("sim.studies.eires"),
    "generic": package_roles("sim.studies.generic"),
    "lazy_nfa": package_roles("sim.studies.lazy_nfa"),
    "common": {"figures": "sim.experiments.figures"},
}

_SPEC_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$")


def _err(source: str, key: str, msg: str) -> CepsimInputError:
    return CepsimInputError(f"{source}: key '{key}': {msg}")


def module_name(short: str, role: str) -> str:
    """The Python module that holds ``role`` functions of study ``short`` (``KeyError`` when
    ``short`` is no study with that role); a dotted name is that module itself."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; one of {ROLES}")
    if "." in short:
        return short
    return STUDY_MODULES[short][role]


def known_names(role: str) -> list[str]:
    """The short names a config may use for ``role``."""
    return sorted(name for name, roles in STUDY_MODULES.items() if role in roles)


def resolve(spec: str, role: str, source: str = "<config>", key: str = "fn") -> Callable:
    """``"study:function"`` -> the callable, or a ``CepsimInputError`` naming the config file,
    the key and the fix."""
    if not isinstance(spec, str) or not _SPEC_RE.match(spec):
        raise _err(source, key, f"expected 'study:function' (study one of "
                                f"{', '.join(known_names(role))}), got {spec!r}")
    short, fn_name = spec.split(":")
    try:
        full = module_name(short, role)
    except KeyError:
        raise _err(source, key, f"no study {short!r} (module {STUDIES_PACKAGE}.{short} not "
                                f"found); known: {', '.join(known_names(role))}; fix the name "
                                f"before ':'") from None
    try:
        mod = importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name is not None and full.startswith(exc.name):
            raise _err(source, key, f"module {full} not found; fix the module name before "
                                    f"':'") from None
        raise _err(source, key, f"importing {full} failed: {exc}") from None
    except Exception as exc:  # a broken module: still the config's run cannot start
        raise _err(source, key, f"importing {full} failed: {type(exc).__name__}: {exc}") from None
    fn = getattr(mod, fn_name, None)
    if not callable(fn):
        raise _err(source, key, f"{full} has no function '{fn_name}'; fix the name after ':'")
    return fn


def scenario_module(spec: str) -> str:
    """The module of a config's ``scenario`` (``"eires:point"`` -> ``sim.studies.eires.scenario``);
    the spec's module part unchanged when it is no known study."""
    short = spec.split(":")[0]
    try:
        return module_name(short, "scenario")
    except KeyError:
        return short
