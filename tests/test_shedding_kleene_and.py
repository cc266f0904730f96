"""Shedding runs on patterns with a Kleene closure (DARLING's Q3^B on the sample, the
``q3`` query) and with an AND: the compiled server loop equals the Python loop bit for bit
for every shedder (every metric, start / departure / served, latencies, match keys), the
storage model included; with no shedder every match of the stepped engine is measured."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.evaluators.stepper import run_stepped
from engines.pattern import parse_pattern
from engines.shedding.memory import leaf_bits
from sim.core.shedding_queue import run_shedding
from sim.studies.darling import scenario as D
from shedding_setup import assert_same_results, overload_setup

AND_Q = "PATTERN SEQ(61 a, AND(13 b, 8 c)) WHERE b.v < c.v AND |a.x - c.x| <= 50000 WITHIN 20 ms"


def _setup(which: str):
    params, prof, stream, prog, arr, n_warm, ref = overload_setup("q3", 3000, 30.0,
                                                                  window_ms=20)
    if which == "and":
        prog = compile_pattern(parse_pattern(AND_Q), stream.schema)
    return params, prof, stream, prog, arr, n_warm, ref


@pytest.mark.parametrize("which", ["kleene", "and"])
@pytest.mark.parametrize("method", D.METHODS)
def test_compiled_loop_equals_python_loop(which, method):
    params, prof, stream, prog, arr, n_warm, ref = _setup(which)
    lmax = 20 * ref["z_pre"]
    out = []
    for loop in ("python", "compiled"):
        sh = D.make_shedder(method, params, lmax, seed=11)
        out.append(run_shedding(stream, prog, arr, prof, sh, n_warm=n_warm, loop=loop,
                                keep_keys=True, latency_cap=1200 * lmax, ingest_on_server=True,
                                leaf_bits=leaf_bits(prog, stream)))
    assert_same_results(*out)
    if method in ("none", "darling"):
        assert out[0].metrics["matches_measured"] > 0
    if method != "none":
        assert out[0].metrics["server_shed_s"] > 0


@pytest.mark.parametrize("which", ["kleene", "and"])
def test_no_shedder_measures_every_match(which):
    params, prof, stream, prog, arr, n_warm, ref = _setup(which)
    res = run_shedding(stream, prog, arr, prof, None, n_warm=n_warm, keep_keys=True)
    ms, _ = run_stepped(prog, stream)
    last = ms.last_event
    assert res.metrics["matches_measured"] == int(np.sum(ms.detect >= n_warm))
    assert len(last) == len(ms) and len(ms) > 0
