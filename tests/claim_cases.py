"""One check for a claim function on a synthetic result table, shared by the per-paper
``tests/test_claims_<paper>.py`` files (``tests/test_claims.py`` has the same check inline)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from sim.experiments.claims import ClaimResult


def check_claim_case(call: Callable[[pd.DataFrame], ClaimResult], df: pd.DataFrame, want: bool,
                     patterns: list[str], label: str = "") -> ClaimResult:
    """``call(df)`` returns a ``ClaimResult`` with verdict ``want``, its ``measured`` text matches
    every regex in ``patterns``, and the claim leaves its input table unchanged."""
    before = df.copy()
    res = call(df)
    assert isinstance(res, ClaimResult)
    assert isinstance(res.passed, (bool, np.bool_))
    assert bool(res.passed) == want, (f"{label} on a table built to "
                                      f"{'PASS' if want else 'FAIL'} gave "
                                      f"{'PASS' if res.passed else 'FAIL'}: {res.measured}")
    for pat in patterns:
        assert re.search(pat, res.measured), f"{label}: measured lacks /{pat}/: {res.measured!r}"
    pd.testing.assert_frame_equal(df, before)          # a claim never edits its input
    return res


def case_params(cases: dict) -> list:
    """``pytest.param(name, i)`` for every case of a ``{claim name: [(call, df, want,
    patterns), ...]}`` table, with an id naming the claim, the case and its expected verdict."""
    import pytest

    return [pytest.param(name, i, id=f"{name}-{i}-{'PASS' if want else 'FAIL'}")
            for name, rows in cases.items() for i, (_, _, want, _) in enumerate(rows)]


def configured_claims(folder: Path, module: str) -> dict[str, list[dict]]:
    """Claim functions named by the configs in ``folder`` -> their argument dicts; every claim
    must live in scenario module ``module``."""
    from sim.experiments.config import load_config

    out: dict[str, list[dict]] = {}
    for path in sorted(folder.glob("*.toml")):
        for c in load_config(path, check_functions=False).claims:
            mod, name = c.fn.split(":")
            assert mod == module, c.fn
            out.setdefault(name, []).append(dict(c.args))
    return out


def verdicts_by_claim(cases: list) -> dict[str, set[bool]]:
    """For ``[(id, call, df, want, patterns), ...]`` cases whose ``call`` is a lambda around one
    ``claim_*`` function: that function's name -> the verdicts its cases expect."""
    out: dict[str, set[bool]] = {}
    for _, call, _, want, _ in cases:
        name = next(n for n in call.__code__.co_names if n.startswith("claim_"))
        out.setdefault(name, set()).add(want)
    return out
