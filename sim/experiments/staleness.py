"""Results that know their config: fingerprints, stale-result detection and ``--set`` variants.

Every run stores in ``meta.json`` the fingerprint of the config it *resolved* (after
``--scale`` and ``--set``): a hash of everything that determines the rows (scenario, seeds,
params, grid, zip) and nothing that does not (title, claims, figures, which may be edited
without rerunning).  ``cepsim check`` and ``cepsim figures`` resolve the config on disk the same
way (stored scale + overrides) and refuse results whose fingerprint differs, naming what changed
and the command that reruns it.

A run with ``--set`` overrides is a *variant*: its results go to
``<out>/<paper>/<name>@<overrides>/`` (and its figures get the same suffix), so it never
overwrites the canonical results of the config.
"""
from __future__ import annotations

import hashlib
import json
import re

ROW_KEYS = ("scenario", "seed", "seeds", "params", "grid", "zip")
_SLUG_BAD = re.compile(r"[^A-Za-z0-9_.,=+-]")


def config_fingerprint(cfg_dict: dict) -> str:
    """SHA-256 (16 hex) of the row-determining part of a resolved config dict."""
    core = {k: cfg_dict.get(k) for k in ROW_KEYS}
    blob = json.dumps(core, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _flat(d: dict) -> dict:
    out = {}
    for k in ROW_KEYS:
        v = d.get(k)
        if isinstance(v, dict):
            for kk, vv in v.items():
                out[f"{k}.{kk}"] = vv
        else:
            out[k] = v
    return out


def _show(v) -> str:
    if isinstance(v, list) and len(v) > 4:
        return f"{len(v)} values [{', '.join(map(str, v[:3]))}, ...]"
    return json.dumps(v, default=str)


def config_diff(stored: dict, current: dict, limit: int = 6) -> list[str]:
    """Human-readable differences between two resolved config dicts (row-determining keys)."""
    a, b = _flat(stored), _flat(current)
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k, None) != b.get(k, None):
            if k not in a:
                out.append(f"{k} added ({_show(b[k])})")
            elif k not in b:
                out.append(f"{k} removed (results have {_show(a[k])})")
            else:
                out.append(f"{k}: results have {_show(a[k])}, config has {_show(b[k])}")
    if len(out) > limit:
        out = out[:limit] + [f"... and {len(out) - limit} more"]
    return out


def variant_slug(overrides: list[str] | None) -> str:
    """Directory-safe name of a list of ``--set`` overrides ('' for none).

    >>> variant_slug(["params.n_events=1000", "grid.rate=[1, 2]"])
    'params.n_events=1000+grid.rate=_1,2_'
    """
    if not overrides:
        return ""
    slug = "+".join(_SLUG_BAD.sub("_", ov.replace(" ", "")) for ov in overrides)
    if len(slug) > 80:
        h = hashlib.sha256("\n".join(overrides).encode()).hexdigest()[:8]
        slug = slug[:60] + "-" + h
    return slug


def base_name(name: str) -> str:
    """``fig7@params.x=1`` -> ``fig7``."""
    return name.split("@", 1)[0]


def variant_of(name: str) -> str:
    """``fig7@params.x=1`` -> ``params.x=1`` ('' for a canonical run)."""
    return name.split("@", 1)[1] if "@" in name else ""


def rerun_command(config_path: str, scale: str | None, overrides: list[str] | None) -> str:
    parts = ["cepsim run", str(config_path)]
    if scale:
        parts += ["--scale", scale]
    for ov in overrides or []:
        parts += ["--set", f"'{ov}'"]
    return " ".join(parts)
