"""A grid axis whose values change no result row is named (``sim.experiments.inert_axes``)."""
from __future__ import annotations

import pandas as pd

from sim.experiments.config import config_from_dict
from sim.experiments.inert_axes import inert_axes, inert_note


def _cfg():
    return config_from_dict({"name": "t", "paper": "p", "scenario": "demo:point", "seed": 1,
                             "params": {"fixed": 3},
                             "grid": {"knob": [0.1, 0.5], "rate": [1, 2], "one": [7]}},
                            check_functions=False)


def _rows(y_of):
    return pd.DataFrame([{"fixed": 3, "knob": k, "rate": r, "one": 7, "seed": hash((k, r)) % 97,
                          "rep": 0, "point_id": f"{k}-{r}", "error": None, "wall_s": k * r,
                          "y": y_of(k, r), "arr": [r, r]}
                         for k in (0.1, 0.5) for r in (1, 2)])


def test_an_axis_that_changes_nothing_is_named():
    cfg = _cfg()
    assert inert_axes(cfg, _rows(lambda k, r: 10 * r)) == ["knob"]
    assert "grid axis knob: every value gives identical rows" in inert_note(cfg, ["knob"])


def test_an_axis_that_changes_a_result_is_not():
    cfg = _cfg()
    assert inert_axes(cfg, _rows(lambda k, r: 10 * r + (k > 0.2))) == []
    # a single-valued axis, failed rows and an empty table name nothing
    rows = _rows(lambda k, r: 10 * r + (k > 0.2))
    rows.loc[rows["knob"] == 0.5, "error"] = "boom"
    assert inert_axes(cfg, rows) == []
    assert inert_axes(cfg, rows.iloc[0:0]) == []
    assert inert_note(cfg, []) == ""
