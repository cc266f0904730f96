"""The remote kernel's outputs on fixed seeded points equal a stored reference.

``tests/data/results/eires/remote_kernel_ref.json`` holds, per case, the match count, a digest
of the emission times and of the counters, and the fetch / hit / miss / blocked-time figures of
the kernel on a few seeded DS1 streams: every query of the EIRES study, the six strategies, both
caches and the named readings.  A change to the kernel that leaves the patterns it runs
bit-identical (new pattern shapes, speed work) keeps this test green; a deliberate change of the
model regenerates the file: ``python tests/test_remote_reference.py --write``.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

REF = Path(__file__).resolve().parent / "data" / "results" / "eires" / "remote_kernel_ref.json"

_CASES = []
for _q, _greedy in (("Q1", False), ("Q1", True), ("Q2", False), ("Q1end", False),
                    ("Q1begin", False), ("Q1L2", False)):
    for _st in ("BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid"):
        for _cache in ("cost", "lru"):
            _CASES.append((_q, _greedy, _st, _cache, {}))
for _kw in ({"bl3_fetch": "parallel"}, {"lz_postpone": "eq8"}, {"prefetch": "utility"},
            {"utility": "paper"}, {"merge_requests": True}, {"in_event_order": "arrival"},
            {"lz_span": 3}, {"lz_block_prob": 0.3}, {"key_count": "live"}):
    for _st in ("BL3", "PFetch", "Hybrid"):
        _CASES.append(("Q1", False, _st, "cost", _kw))


def _case_id(c) -> str:
    q, greedy, st, cache, kw = c
    extra = ",".join(f"{k}={v}" for k, v in sorted(kw.items()))
    return f"{q}/{'greedy' if greedy else 'nongreedy'}/{st}/{cache}" + (f"/{extra}" if extra else "")


def _digest(a) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:24]


def _run(c) -> dict:
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.remote.kernel import run_remote
    from sim.studies.eires.scenario import _profile
    from workloads.eires import generate, queries
    q, greedy, st, cache, kw = c
    n = 1500 if greedy else 6000
    s = generate("DS1", n, 7, v1_max=300)
    prof = _profile("eires_artifact")
    out = {}
    for j, text in enumerate(queries(q, greedy)):
        prog = compile_pattern(parse_pattern(text), s.schema)
        r = run_remote(prog, s, strategy=st, cache=cache, cache_size=60, seed=5 + j,
                       unit_cost=prof.unit_vector(), base_cost=float(prof.base_cost),
                       fetch_overhead_us=64.7, utility=kw.get("utility", "artifact"),
                       **{k: v for k, v in kw.items() if k != "utility"})
        out[str(j)] = {"n": int(len(r.matches)), "emit": _digest(r.info["emit_time"]),
                       "counters": _digest(r.counters), "fetches": r.info["fetches"],
                       "hits": r.info["cache_hits"], "misses": r.info["cache_misses"],
                       "blocked": float(r.info["blocked_time"]).hex()}
    return out


@pytest.mark.parametrize("case", _CASES, ids=[_case_id(c) for c in _CASES])
def test_kernel_output_equals_reference(case):
    ref = json.loads(REF.read_text())
    assert _case_id(case) in ref, f"{_case_id(case)} missing from {REF}"
    assert _run(case) == ref[_case_id(case)]


if __name__ == "__main__" and "--write" in sys.argv:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    REF.write_text(json.dumps({_case_id(c): _run(c) for c in _CASES}, indent=1, sort_keys=True))
    print(f"wrote {REF} ({len(_CASES)} cases)")
