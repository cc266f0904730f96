"""One check for a claim function on a synthetic result table, shared by the per-paper
``tests/test_claims_<paper>.py`` files (``tests/test_claims.py`` has the same check inline)."""
from __future__ import annotations

import re
from typing import Callable

import numpy as np
import pandas as pd

from sim.claims import ClaimResult


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
