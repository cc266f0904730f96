"""Cost model: per-event operation counters -> service times (docs/COST_MODEL.md).

A ``CostProfile`` holds one unit cost (virtual seconds) per *count* column of
``engines.counters`` plus a per-event ``base_cost``; the service time of event ``i`` is
``counters[i, count_cols] @ unit_costs + base_cost``.  Gauge columns (``live_pm``,
``buffered``) are levels, not work, and never cost anything.

Profiles are TOML files::

    name = "default"            # optional
    description = "..."         # optional
    base_cost = 1.0e-5          # seconds per event
    [unit_cost]                 # seconds per operation, one key per count counter
    pred_eval = 5.0e-8
    ...
    [meta]                      # optional free-form provenance (calibration report)

Every count counter must be present (write 0.0 for an operation you want free), so a typo
never silently zeroes a cost.  Side-metric counters (``routing_check``) must be priced 0.0: the
work of the decision they count is charged in another column (``instance_work``).  ``load_profile(None)`` reads the packaged
``sim/core/profiles/default.toml``.
"""
from __future__ import annotations

import math
import os
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, the package tomllib was taken from (pyproject.toml)
    import tomli as tomllib  # type: ignore[no-redef]
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engines.counters import COUNT_COLUMNS, COUNTER_NAMES, N_COUNTERS, SIDE_METRICS
from engines.errors import CepsimInputError
from sim.atomic import atomic_write_text

DEFAULT_PROFILE_PATH = Path(__file__).resolve().parent / "profiles" / "default.toml"
COUNT_NAMES: tuple[str, ...] = tuple(COUNTER_NAMES[i] for i in COUNT_COLUMNS)
#: side-metric counters (``engines.counters.SIDE_METRICS``): their work is charged in another
#: column, so a profile must price them 0
SIDE_NAMES: tuple[str, ...] = tuple(COUNTER_NAMES[i] for i in sorted(SIDE_METRICS))
_TOP_KEYS = {"name", "description", "base_cost", "unit_cost", "meta"}


@dataclass(frozen=True)
class CostProfile:
    """Unit costs (seconds per operation) for each count counter plus ``base_cost`` per event."""

    unit_cost: dict[str, float]
    base_cost: float
    name: str = "custom"
    description: str = ""
    meta: dict = field(default_factory=dict, compare=False)
    source: str = field(default="<memory>", compare=False)

    def __post_init__(self) -> None:
        where = self.source
        unknown = sorted(set(self.unit_cost) - set(COUNT_NAMES))
        if unknown:
            raise CepsimInputError(f"{where}: unknown counter(s) {unknown} in unit_cost; valid "
                                   f"names are {list(COUNT_NAMES)}")
        missing = [k for k in COUNT_NAMES if k not in self.unit_cost]
        if missing:
            raise CepsimInputError(f"{where}: unit_cost lacks {missing}; add them (0.0 makes an "
                                   f"operation free)")
        for k, v in list(self.unit_cost.items()) + [("base_cost", self.base_cost)]:
            _check_cost(v, where, k)
        priced = [k for k in SIDE_NAMES if float(self.unit_cost[k]) != 0.0]
        if priced:
            raise CepsimInputError(f"{where}: {priced} must cost 0.0: they count decisions whose "
                                   f"work another counter already charges (routing_check: the "
                                   f"tree NFA's routing is part of instance_work); pricing them "
                                   f"would charge that work twice")

    def unit_vector(self) -> np.ndarray:
        """``float64[N_COUNTERS]`` unit costs by column (0 for gauge columns)."""
        vec = np.zeros(N_COUNTERS, dtype=np.float64)
        for i in COUNT_COLUMNS:
            vec[i] = float(self.unit_cost[COUNTER_NAMES[i]])
        return vec

    def service_times(self, counters: np.ndarray) -> np.ndarray:
        """Service time (seconds) of every event: ``counters @ unit_vector + base_cost``."""
        counters = np.asarray(counters)
        if counters.ndim != 2 or counters.shape[1] != N_COUNTERS:
            raise CepsimInputError(f"service_times: counters must have shape (n, {N_COUNTERS}), "
                                   f"got {counters.shape}")
        if counters.dtype.kind not in "iu":
            raise CepsimInputError(f"service_times: counters must be an integer matrix, got "
                                   f"dtype {counters.dtype}")
        out = counters.astype(np.float64) @ self.unit_vector()
        out += float(self.base_cost)
        return np.ascontiguousarray(out)

    def to_dict(self) -> dict:
        d: dict = {"name": self.name, "description": self.description,
                   "base_cost": float(self.base_cost),
                   "unit_cost": {k: float(self.unit_cost[k]) for k in COUNT_NAMES}}
        if self.meta:
            d["meta"] = self.meta
        return d


def _check_cost(v, where: str, key: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise CepsimInputError(f"{where}: {key} must be a number of seconds, got "
                               f"{type(v).__name__} {v!r}; write e.g. {key} = 5.0e-8")
    if not math.isfinite(float(v)) or v < 0:
        raise CepsimInputError(f"{where}: {key} = {v!r} is not a non-negative finite number of "
                               f"seconds; costs must be >= 0")
    return float(v)


def profile_from_dict(data: dict, source: str = "<memory>") -> CostProfile:
    """Validate a parsed profile mapping (the TOML layout of the module docstring)."""
    if not isinstance(data, dict):
        raise CepsimInputError(f"{source}: a cost profile must be a table, got {type(data).__name__}")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise CepsimInputError(f"{source}: unknown key(s) {unknown}; allowed top-level keys are "
                               f"{sorted(_TOP_KEYS)} (per-counter costs go under [unit_cost])")
    if "base_cost" not in data:
        raise CepsimInputError(f"{source}: missing base_cost; add base_cost = <seconds per event>")
    units = data.get("unit_cost")
    if not isinstance(units, dict):
        raise CepsimInputError(f"{source}: missing [unit_cost] table with one cost per counter "
                               f"{list(COUNT_NAMES)}")
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise CepsimInputError(f"{source}: {key} must be a string, got {data[key]!r}")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise CepsimInputError(f"{source}: meta must be a table, got {meta!r}")
    units = {k: _check_cost(v, source, f"unit_cost.{k}") for k, v in units.items()}
    return CostProfile(unit_cost=units, base_cost=_check_cost(data["base_cost"], source,
                                                                "base_cost"),
                       name=data.get("name", Path(source).stem), description=data.get(
                           "description", ""), meta=meta, source=source)


def load_profile(path: str | os.PathLike | None = None) -> CostProfile:
    """Read and validate a profile; ``None`` gives the packaged default profile."""
    p = DEFAULT_PROFILE_PATH if path is None else Path(path)
    try:
        with open(p, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise CepsimInputError(f"{p}: cost profile not found; give an existing TOML file or run "
                               f"`cepsim calibrate` to create one") from None
    except tomllib.TOMLDecodeError as exc:
        raise CepsimInputError(f"{p}: not valid TOML ({exc}); fix the syntax") from None
    return profile_from_dict(data, source=str(p))


def save_profile(profile: CostProfile, path: str | os.PathLike) -> Path:
    """Write ``profile`` as TOML atomically (temp file in the same dir, then ``os.replace``)."""
    import tomli_w

    p = Path(path)
    atomic_write_text(p, tomli_w.dumps(profile.to_dict()))
    return p
