"""The compiled shedding queue (``sim.core.shedding_queue_kernel`` with the compiled hooks of
``engines.shedding.kernel_hooks``) equals the Python server loop bit for bit: every metric, the
start / departure / served arrays, the latencies and match keys, for every shedder it compiles
and every option that changes its path."""
from __future__ import annotations

import numpy as np
import pytest

from engines.errors import CepsimInputError
from sim.studies.darling import scenario as D
from engines.shedding.kernel_hooks import compiled_kind
from engines.shedding.memory import leaf_bits
from engines.shedding.base import Shedder
from sim.core.shedding_queue import run_shedding
from shedding_setup import assert_same_results, overload_setup

COMPILED = ("none", "darling", "random_input", "random_pm", "espice", "hspice", "icde20")


def _both(method, params, prof, stream, prog, arr, n_warm, lmax, **kw):
    out = {}
    for loop in ("python", "compiled"):
        sh = D.make_shedder(method, params, lmax, seed=11)
        out[loop] = (run_shedding(stream, prog, arr, prof, sh, n_warm=n_warm, loop=loop, **kw),
                     sh)
    return out["python"], out["compiled"]


@pytest.mark.parametrize("method", COMPILED)
@pytest.mark.parametrize("peak", [30.0, 3.0])
def test_compiled_loop_equals_python_loop(method, peak):
    params, prof, stream, prog, arr, n_warm, ref = overload_setup("q1", 4000, peak)
    lmax = 20 * ref["z_pre"]
    (a, sa), (b, sb) = _both(method, params, prof, stream, prog, arr, n_warm, lmax,
                             ingest_on_server=True, latency_cap=1200 * lmax,
                             leaf_bits=leaf_bits(prog, stream))
    assert_same_results(a, b)
    if method != "none":
        assert a.metrics["server_shed_s"] > 0      # the hooks did work on this stream
    if method in ("darling", "random_input", "icde20"):
        assert a.metrics["dropped_in_queue"] > 0   # victims / events of shed classes
    if method == "random_pm":
        assert a.metrics["pm_removed_by_shedder"] > 0


@pytest.mark.parametrize("option", [
    {"victim": "random"}, {"check": "global"}, {"budget": "equal"}, {"budget": "cost"},
    {"psi": 3}, {"spice_windows": "shared"}, {"baseline_stop": "rate"}])
@pytest.mark.parametrize("method", ["darling", "random_input", "random_pm", "espice", "hspice"])
def test_compiled_loop_equals_python_loop_for_each_option(method, option):
    params, prof, stream, prog, arr, n_warm, ref = overload_setup("q1", 3000, 30.0, seed=5)
    params = dict(params, **option)
    lmax = 10 * ref["z_pre"]
    (a, _), (b, _) = _both(method, params, prof, stream, prog, arr, n_warm, lmax,
                           ingest_on_server=False)
    assert_same_results(a, b)


@pytest.mark.parametrize("method", COMPILED)
def test_compiled_loop_keeps_match_keys_with_negation(method):
    params, prof, stream, prog, arr, n_warm, ref = overload_setup("q4", 3000, 10.0, seed=7)
    assert len(prog.branches[0].neg_vars) > 0
    lmax = 20 * ref["z_pre"]
    (a, _), (b, _) = _both(method, params, prof, stream, prog, arr, n_warm, lmax,
                           keep_keys=True, latency_cap=50 * lmax)
    assert_same_results(a, b)
    assert len(b.match_keys) == b.metrics["matches_measured"]
    if method == "none":
        assert b.metrics["matches_measured"] > 0


@pytest.mark.parametrize("n_warm", [0, 1, 2999, 5000])
def test_compiled_loop_equals_python_loop_at_warmup_edges(n_warm):
    params, prof, stream, prog, arr, _, ref = overload_setup("q1", 3000, 30.0, seed=9)
    for method in ("darling", "espice", "random_pm", "icde20"):
        if n_warm == 0:   # every shedder's queue bound N_in = Lmax / z-bar needs a warm-up
            for loop in ("python", "compiled"):
                sh = D.make_shedder(method, params, 20 * ref["z_pre"], seed=11)
                with pytest.raises(CepsimInputError, match="no event was served during the "
                                                           "warm-up"):
                    run_shedding(stream, prog, arr, prof, sh, n_warm=0, loop=loop)
            continue
        (a, _), (b, _) = _both(method, params, prof, stream, prog, arr, n_warm,
                               20 * ref["z_pre"])
        assert_same_results(a, b)


def test_loop_choice_is_checked():
    params, prof, stream, prog, arr, n_warm, ref = overload_setup("q1", 500, 3.0)

    class Vetoing(Shedder):                 # a user's shedder: the Python loop runs it
        def before_step(self, i, now):
            return i % 2 == 0, None

    assert compiled_kind(Vetoing()) is None
    with pytest.raises(CepsimInputError, match="no compiled loop"):
        run_shedding(stream, prog, arr, prof, Vetoing(), n_warm=n_warm, loop="compiled")
    res = run_shedding(stream, prog, arr, prof, Vetoing(), n_warm=n_warm)     # auto: Python
    assert res.metrics["vetoed"] > 0
    with pytest.raises(CepsimInputError, match="loop must be"):
        run_shedding(stream, prog, arr, prof, None, loop="numba")
    with pytest.raises(CepsimInputError, match="no compiled loop"):
        run_shedding(stream, prog, arr, prof, None, clock="simpy", loop="compiled")


def test_latency_sum_is_numpys_sum():
    """ICDE'20 reads the mean latency of recent steps: the compiled queue sums a step's
    latencies as numpy's ``ndarray.sum`` does (pairwise), bit for bit."""
    from sim.core.shedding_queue_kernel import _latency_sum
    rng = np.random.default_rng(2)
    for n in list(range(0, 40)) + [127, 128, 129, 136, 255, 256, 257, 1000, 4099]:
        arr = np.sort(rng.random(5000) * 10 ** rng.uniform(-3, 3))
        o_last = rng.integers(0, 5000, max(n, 1))
        t = float(arr[-1] + rng.random())
        assert _latency_sum(t, arr, o_last, n) == float((t - arr[o_last[:n]]).sum()), n
