"""The steppable NFA and the shedders give, bit for bit, what they gave on the patterns they ran
before Kleene closure was added to the stepper: the per-event counters and matches of seeded
SEQ / NOT patterns (every event and a 70 % subset stepped), and every compiled shedder's
metrics, served flags, departures and match keys on soccer Q1 / Q4 in both server loops
(reference: ``tests/fixtures/stepper_make_reference.py``, run on the code before the change)."""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))

import stepper_make_reference as R  # noqa: E402

REF = np.load(os.path.join(HERE, "fixtures", "stepper_reference.npz"))
with open(os.path.join(HERE, "fixtures", "stepper_reference_metrics.json")) as _f:
    METRICS = json.load(_f)


def test_engine_counters_and_matches_unchanged():
    out = R.engine_reference()
    assert sorted(out) == sorted(REF.files)
    for k, v in out.items():
        np.testing.assert_array_equal(v, REF[k], err_msg=k)


@pytest.mark.parametrize("case", R.SHED_CASES, ids=[c[0] for c in R.SHED_CASES])
def test_shedding_runs_unchanged(case, monkeypatch):
    monkeypatch.setattr(R, "SHED_CASES", (case,))
    _, mets = R.shedding_reference()
    assert mets.keys() and all(k.startswith(case[0] + "_") for k in mets)
    for key, got in mets.items():
        want = METRICS[key]
        assert got.keys() == want.keys(), key
        for m, v in want.items():
            assert got[m] == v, (key, m, got[m], v)
