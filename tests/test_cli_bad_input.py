"""User mistakes on ``cepsim match`` (and friends, ``cepsim run`` on a config with a bad
parameter): exit code 2 and a message naming the file, field or option and the fix -- never a
traceback (one test per case)."""
from __future__ import annotations

import json
import os
import stat

import pytest
from typer.testing import CliRunner

from csv_streams import write_abc_csv

from sim.cli import app

runner = CliRunner()
SEQ3 = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 20 events"


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture()
def data(tmp_path):
    """A small seeded CSV stream over types A, B, C with a schema file."""
    return write_abc_csv(tmp_path, n=300, seed=5)


def _match(data, *extra, pattern=SEQ3):
    p, schema = data
    return cli("match", pattern, p, "--format", "csv", "--schema", schema, *extra)


def _no_traceback(r):
    assert "Traceback" not in (r.output + r.stderr)


def test_out_is_a_directory(data, tmp_path):
    r = _match(data, "--out", tmp_path)
    assert r.exit_code == 2 and "--out" in r.stderr and "is a directory" in r.stderr
    _no_traceback(r)


def test_out_parent_is_a_file(data, tmp_path):
    f = tmp_path / "plain"
    f.write_text("x")
    r = _match(data, "--out", f / "m.jsonl")
    assert r.exit_code == 2 and "is a file, not a directory" in r.stderr
    _no_traceback(r)


def test_out_unwritable(data, tmp_path):
    # /proc refuses new entries even for root, where permission bits would not
    r = _match(data, "--out", "/proc/cepsim-nowhere/m.jsonl")
    assert r.exit_code == 2 and "--out" in r.stderr and "cannot write" in r.stderr
    _no_traceback(r)


def test_unwritable_stats_json_after_matches(data, tmp_path):
    out = tmp_path / "m.jsonl"
    r = _match(data, "--out", out, "--stats-json", "/proc/cepsim-nowhere/s.json")
    assert r.exit_code == 2 and "--stats-json" in r.stderr and "cannot write" in r.stderr
    assert out.read_text().count("\n") > 0          # the matches were written first
    _no_traceback(r)


def test_pattern_nested_too_deep(data):
    depth = 1000
    pat = "PATTERN " + "SEQ(" * depth + "A a, B b" + ")" * depth
    r = _match(data, pattern=pat)
    assert r.exit_code == 2 and "nesting too deep" in r.stderr
    _no_traceback(r)


def test_capacity_error_exits_2_and_names_an_existing_option(data, tmp_path):
    r = _match(data, "--out", tmp_path / "m.jsonl", "--max-matches", "3")
    assert r.exit_code == 2 and "--max-matches" in r.stderr
    _no_traceback(r)
    r = _match(data, "--out", tmp_path / "m.jsonl", "--max-matches", "100000")
    assert r.exit_code == 0, r.stderr


def test_and_of_many_events_is_bounded_by_max_states(data, tmp_path):
    pat = "PATTERN AND(" + ", ".join(f"{'ABC'[i % 3]} v{i}" for i in range(12)) + ") WITHIN 5 events"
    r = _match(data, "--out", tmp_path / "m.jsonl", "--max-states", "1000", pattern=pat)
    assert r.exit_code == 2 and "--max-states" in r.stderr
    _no_traceback(r)


def test_branch_limit_is_an_option(data, tmp_path):
    pat = "PATTERN AND(A a, SEQ(B b, C c), A d) WITHIN 10 events"      # expanded: 12 orders
    r = _match(data, "--out", tmp_path / "m.jsonl", "--max-branches", "5", pattern=pat)
    assert r.exit_code == 2 and "--max-branches" in r.stderr
    r = _match(data, "--out", tmp_path / "m.jsonl", "--max-branches", "50", pattern=pat)
    assert r.exit_code == 0, r.stderr


def test_missing_pattern_file(data):
    r = _match(data, pattern="queries/nosuch.cep")
    assert r.exit_code == 2 and "pattern file not found" in r.stderr


@pytest.mark.parametrize("pat,needle", [
    ("PATTERN FOO(A a, B b)", "unknown operator 'FOO'"),
    ("PATTERN SEQ(A and, B b)", "'and' is a keyword and cannot name a variable"),
])
def test_weak_pattern_messages_improved(data, pat, needle):
    r = _match(data, pattern=pat)
    assert r.exit_code == 2 and needle in r.stderr


def test_predicate_across_or_branches_warns(data, tmp_path):
    with pytest.warns(UserWarning, match="never evaluated"):
        r = _match(data, "--out", tmp_path / "m.jsonl",
                   pattern="PATTERN OR(A a, B b) WHERE a.x < b.x WITHIN 5 events")
    assert r.exit_code == 0


def test_figures_on_empty_results_root(tmp_path):
    r = cli("figures", "--out", tmp_path / "empty")
    assert r.exit_code == 2 and "no stored results" in r.stderr


def test_output_mode_follows_umask(data, tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "m.jsonl"
        assert _match(data, "--out", out).exit_code == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        os.umask(0o077)
        out2 = tmp_path / "m2.jsonl"
        assert _match(data, "--out", out2).exit_code == 0
        assert stat.S_IMODE(out2.stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_streamed_output_equals_records(data, tmp_path):
    """The chunked writer gives exactly the records of the MatchSet (plain and OR/Kleene rows)."""
    from engines.compile import compile_pattern
    from engines.evaluators.eager import run_eager
    from engines.pattern import parse_pattern
    from sim.tools.match_io import write_matches_jsonl
    from workloads.loaders import load_csv
    stream = load_csv(*data)
    for pat in (SEQ3, "PATTERN SEQ(A a, B+ b, C c) WITHIN 4 events",
                "PATTERN OR(SEQ(A a, B b), SEQ(C c, A d)) WITHIN 3 events"):
        ms = run_eager(compile_pattern(parse_pattern(pat), stream.schema), stream).matches
        out = tmp_path / "w.jsonl"
        assert write_matches_jsonl(ms, out, chunk=7) == len(ms) > 0
        assert [json.loads(x) for x in out.read_text().splitlines()] == ms.records()


def test_misspelled_claim_argument_is_a_config_error(tmp_path, repo_root):
    cfg = (repo_root / "experiments/demo/basic.toml").read_text().replace(
        "args = { tol = 0.5 }", "args = { toll = 0.5 }")
    assert "toll" in cfg
    p = tmp_path / "bad_claim.toml"
    p.write_text(cfg)
    r = cli("run", p, "--scale", "quick", "--out", tmp_path / "res", "--figures-dir",
            tmp_path / "figs")
    assert r.exit_code == 2 and "claims[0]" in r.stderr and "toll" in r.stderr
    assert "tol" in r.stderr.split("accepts")[1]
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").rglob("*.parquet"))


@pytest.mark.parametrize("where", [
    "WHERE REMOTE[a.x] WITHIN 5 events",                  # not compared
    "WHERE REMOTE[a.x] AND a.x < b.x WITHIN 5 events",
    "WHERE a.x + REMOTE[b.x] < 3 WITHIN 5 events",        # arithmetic with an attribute
    "WHERE REMOTE[a.x] < REMOTE[b.x] WITHIN 5 events",    # both sides
    "WHERE |REMOTE[a.x] - b.x| < 3 WITHIN 5 events",      # inside |x - y|
    "WHERE REMOTE[a.x] + a.y > 1 WITHIN 5 events",        # arithmetic on a leading REMOTE
])
def test_remote_outside_a_comparison_names_the_fix(data, where):
    from engines.errors import PatternError
    from engines.pattern import parse_pattern
    text = "PATTERN SEQ(A a, B b) " + where
    with pytest.raises(PatternError, match=r"REMOTE\[\.\.\.\].*one side of a comparison"):
        parse_pattern(text)
    r = _match(data, pattern=text)
    assert r.exit_code == 2 and "one side of a comparison" in r.stderr and "line 1" in r.stderr
    _no_traceback(r)


def test_remote_in_arithmetic_on_the_left_says_so():
    from engines.errors import PatternError
    from engines.pattern import parse_pattern
    with pytest.raises(PatternError, match="in arithmetic on the left of a comparison"):
        parse_pattern("PATTERN SEQ(A a, B b) WHERE REMOTE[a.x] + a.y > 1 WITHIN 5 events")


def test_remote_as_an_event_names_the_fix():
    from engines.errors import PatternError
    from engines.pattern import parse_pattern
    with pytest.raises(PatternError, match="cannot be an event"):
        parse_pattern("PATTERN SEQ(REMOTE[a.x], B b) WITHIN 5 events")
    # the well-formed forms still parse
    parse_pattern("PATTERN SEQ(A a, B b) WHERE b.x < REMOTE[a.x] * 2 + 1 AT b")
    parse_pattern("PATTERN SEQ(A a, B b) WHERE REMOTE[a.x] < 5")


SEQ3_TIME = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 20 s"
_ALL_ENGINES = ["eager", "chain", "tree", "ztree", "hybrid", "sase", "stepper", "remote", "oracle",
                "adaptive"]


@pytest.mark.parametrize("engine", _ALL_ENGINES)
def test_match_caps_apply_to_every_engine(data, tmp_path, engine):
    """--max-matches and --max-partial-matches bind every engine (exit 2 naming the option);
    the oracle keeps no partial matches (its search is bounded by max_steps), so only
    --max-matches applies to it."""
    out = tmp_path / "m.jsonl"
    r = _match(data, "--engine", engine, "--out", out, pattern=SEQ3_TIME)
    assert r.exit_code == 0, r.stderr
    n = int(r.stdout.split(" matches")[0])
    assert n > 3
    r = _match(data, "--engine", engine, "--out", out, "--max-matches", "3", pattern=SEQ3_TIME)
    assert r.exit_code == 2 and "--max-matches" in r.stderr, r.stderr
    _no_traceback(r)
    r = _match(data, "--engine", engine, "--out", out, "--max-matches", str(n), pattern=SEQ3_TIME)
    assert r.exit_code == 0, r.stderr
    if engine != "oracle":
        r = _match(data, "--engine", engine, "--out", out, "--max-partial-matches", "2",
                   pattern=SEQ3_TIME)
        assert r.exit_code == 2 and "--max-partial-matches" in r.stderr, r.stderr
        _no_traceback(r)


def test_lazy_caps_stop_inside_the_kernel(data):
    """chain/tree stop at the cap (bounded memory) rather than after the run."""
    from engines.compile import compile_pattern
    from engines.errors import CapacityError
    from engines.evaluators.lazy_nfa import run_chain, run_tree
    from engines.pattern import parse_pattern
    from workloads.loaders import load_csv
    stream = load_csv(*data)
    prog = compile_pattern(parse_pattern(SEQ3_TIME), stream.schema)
    for run in (run_chain, run_tree):
        full = run(prog, stream)
        peak = full.info["peak_transient_instances"]
        assert run(prog, stream, max_partial_matches=peak).matches.records() == \
            full.matches.records()
        with pytest.raises(CapacityError, match="at event"):
            run(prog, stream, max_partial_matches=peak - 1)
        assert run(prog, stream, max_matches=len(full.matches)).matches.records() == \
            full.matches.records()
        with pytest.raises(CapacityError, match="more than 5 matches at event"):
            run(prog, stream, max_matches=5)


def test_match_command_ends_fast_with_complete_output(data, tmp_path, repo_root):
    """As a real command (``python -m sim.cli``) `match` ends without the interpreter teardown:
    piped stdout is still complete, the output file whole, and exit codes 0 / 2 are kept."""
    import subprocess
    import sys
    p, schema = data
    out = tmp_path / "m.jsonl"
    base = [sys.executable, "-m", "sim.cli", "match", SEQ3, str(p), "--format", "csv", "--schema",
            str(schema), "--out", str(out)]
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    ok = subprocess.run(base, capture_output=True, text=True, env=env, cwd=repo_root, timeout=600)
    assert ok.returncode == 0, ok.stderr
    n = int(ok.stdout.split(" matches")[0])
    assert n > 0 and "counters: " in ok.stdout and "engine: " in ok.stdout
    assert len(out.read_text().splitlines()) == n
    bad = subprocess.run(base + ["--max-matches", "1"], capture_output=True, text=True, env=env,
                         cwd=repo_root, timeout=600)
    assert bad.returncode == 2 and "--max-matches" in bad.stderr and "Traceback" not in bad.stderr


# ---------------------------------------------------------------------------------------------
# `cepsim run` on a config file whose [params] break the scenario's declared parameters
# (sim.experiments.params): exit 2 before any point runs, nothing written
RUN_CFG = """\
name = "bad"
paper = "demo"
scenario = "demo:point"
seed = 1
[params]
{param}
[grid]
mu = [0.0, 1.0]
"""


@pytest.mark.parametrize("param, needle", [
    ("n_evnts = 100", "key '[params].n_evnts': unknown parameter 'n_evnts' for scenario "
                      "demo:point; did you mean 'n_events'"),
    ("n = \"twenty\"", "key '[params].n': expects an integer (type int), got string 'twenty'"),
    ("n = 0", "key '[params].n': 0 is out of range; give a value >= 1"),
], ids=["unknown-key", "wrong-type", "out-of-range"])
def test_run_config_with_bad_param_exits_2_before_any_point(tmp_path, param, needle):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(RUN_CFG.format(param=param))
    out = tmp_path / "res"
    r = cli("run", cfg, "--out", out, "--figures-dir", tmp_path / "figs")
    assert r.exit_code == 2, r.output + r.stderr
    assert f"{cfg}: {needle}" in r.stderr
    _no_traceback(r)
    assert not out.exists()                 # no results directory, no points written


@pytest.mark.parametrize("ov, needle", [
    ("params.n_evnts=100", "key '--set params.n_evnts': unknown parameter 'n_evnts'"),
    ("params.n=\"twenty\"", "key '--set params.n': expects an integer (type int), got string"),
    ("grid.mu=[0.0, \"x\"]", "key '--set grid.mu': expects a number (type float), got string "
                              "'x'"),
    ("params.sigma=-1.0", "key '--set params.sigma': -1.0 is out of range; give a value >= 0"),
], ids=["unknown-key", "wrong-type", "wrong-type-in-grid", "out-of-range"])
def test_run_with_bad_set_exits_2_before_any_point(tmp_path, ov, needle):
    cfg = tmp_path / "ok.toml"
    cfg.write_text(RUN_CFG.format(param="n = 20"))
    out = tmp_path / "res"
    r = cli("run", cfg, "--out", out, "--figures-dir", tmp_path / "figs", "--set", ov)
    assert r.exit_code == 2, r.output + r.stderr
    assert needle in r.stderr and str(cfg) in r.stderr
    _no_traceback(r)
    assert not out.exists()
