"""Small seeded CSV event files for CLI tests: types A, B, C, one integer attribute ``x``, one
event per time unit, plus the schema file that ``cepsim match --format csv --schema`` reads."""
from __future__ import annotations

from pathlib import Path

import numpy as np

SCHEMA_TOML = 'type_column = "type"\nts_column = "ts"\nattributes = ["x"]\n'


def write_abc_csv(directory: Path, n: int, seed: int, name: str = "d.csv") -> tuple[Path, Path]:
    """Write ``n`` events (uniform types A/B/C, x uniform in 0..8) to ``directory/name`` and the
    schema to ``directory/schema.toml``; returns (data path, schema path)."""
    rng = np.random.default_rng(seed)
    lines = ["type,ts,x"] + [f"{'ABC'[t]},{i},{x}" for i, (t, x) in
                             enumerate(zip(rng.integers(0, 3, n), rng.integers(0, 9, n)))]
    data = Path(directory) / name
    data.write_text("\n".join(lines) + "\n")
    schema = Path(directory) / "schema.toml"
    schema.write_text(SCHEMA_TOML)
    return data, schema
