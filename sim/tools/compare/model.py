"""The shared model of ``cepsim compare``: the run and result types, the ranking and the text table.

``Run`` (one engine run), ``Kept`` / ``KeptMatches`` (an engine result without its match
positions), ``Comparison`` (the result of ``sim.tools.compare.core.compare`` and of
``sim.tools.compare.remote.compare_remote``), the constants of the SimPy check and of the automatic
rates, the match check (``match_digest``, ``check_same_matches``, ``MatchMismatch``), the
ranking (``rank_value``, ``best_per_rate``, ``lsr``, ``recommendation``), the rows
(``rows_frame``) and the terminal table (``text_table``: ``Comparison.table()``).  ``core`` and
``remote`` run the strategies, ``report`` writes ``compare.md``, the figures and ``--out``.

Latency cells are ``p50/p99`` of the match latency in one unit for the whole table; the best
run at a rate (lowest mean match latency among the stable runs) is marked ``*``; an overloaded
run (offered load ρ = λ·E[S] >= 1) shows ``ρ=...`` instead of latencies, which would only grow
with the stream length; ``-`` = not run at that rate (APAM's optimizer chose another plan).

How sure the ranking is (``spread``): the stream is cut into ``SPREAD_BATCHES`` consecutive
segments of equal length (batch means, the standard output analysis of one long simulation run:
Law, *Simulation Modeling and Analysis*, ch. 9.5.3).  A run's figure per segment is the mean
latency of the matches whose last event falls in it (no match at all: the mean sojourn of its
events); a run's mean service time per segment gives its throughput.  Two runs are compared on
the per-segment *differences* (same events, same arrivals), so the spread is that of the
difference across the stream: what changes with the events and the arrivals a segment holds.
A run is *tied* with the best (``~``) when the mean difference is within ``SPREAD_Z`` standard
errors, or within the profile's own measured prediction error when the profile states one
(``cepsim calibrate``'s ``chunk_rel_rms``).  A stream shorter than ``SPREAD_BATCHES *
MIN_BATCH_EVENTS`` events has no measurable spread: the table is printed with a warning and no
best and no recommendation.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

from engines import counters as C
from engines.errors import CapacityError

SIMPY_CHECK_EVENTS = 20_000  # the SimPy check queues at most this prefix of the stream
SIMPY_TOLERANCE = 1e-9       # relative agreement required between SimPy and the fast path
AUTO_RATES = 4               # rates chosen when none are given
SPREAD_BATCHES = 10          # batch means: the stream cut into this many consecutive segments
MIN_BATCH_EVENTS = 20        # fewer events per segment: the stream is too short for a spread
SPREAD_Z = 2.0               # tie: mean difference within 2 standard errors (about 95 %)
UNSTABLE_REL_SE = 0.10       # warn when the best figure's standard error exceeds 10 % of it


def engine_spec(engine: str, options: dict) -> str:
    """``"chain order=c,b,a"``: the engine and its options as one spec."""
    return " ".join([engine] + [f"{k}={v}" for k, v in options.items()])


@dataclass
class Run:
    """One engine run: ``label`` (table row), ``spec`` (engine spec: ``run_engine`` it to
    reproduce), ``rates`` (None = every rate; APAM: the rates whose optimizer chose it)."""

    strategy: str
    label: str
    engine: str
    options: dict
    rates: list[float] | None = None
    result: object = None
    service: np.ndarray | None = None
    digest: str = ""
    per_rate: dict = field(default_factory=dict)   # rate -> metrics dict
    batches: dict = field(default_factory=dict)    # rate -> float[SPREAD_BATCHES] figure

    @property
    def spec(self) -> str:
        return engine_spec(self.engine, self.options)


def match_digest(ms) -> str:
    """SHA-256 (16 hex) of a match set in canonical order (equal digests <=> equal sets)."""
    from engines.matches import canonical_rows
    h = hashlib.sha256()
    h.update(",".join(ms.var_names).encode())
    if not any(ms.kleene):
        h.update(np.ascontiguousarray(canonical_rows(np.asarray(ms.pos) + 1)).tobytes())
    else:
        h.update(repr(sorted(ms.keys())).encode())
    return h.hexdigest()[:16]


class MatchMismatch(RuntimeError):
    """Two engines found different match sets (a bug in one of them)."""


def check_same_matches(runs: list[Run]) -> None:
    """Raise ``MatchMismatch`` naming the engines when the runs' match sets differ."""
    groups: dict[str, list[Run]] = {}  # digest -> runs
    for r in runs:
        groups.setdefault(r.digest, []).append(r)
    if len(groups) > 1:
        parts = [f"{len(rs[0].result.matches)} matches from {', '.join(x.spec for x in rs)}"
                 for rs in sorted(groups.values(), key=len, reverse=True)]
        raise MatchMismatch("engines disagree on the match set (a bug; please report it with "
                            "the pattern and data): " + " vs ".join(parts))


@dataclass
class KeptMatches:
    """What the queue needs of a match set: each match's last event and detection index."""

    last_event: np.ndarray
    detect: np.ndarray

    def __len__(self) -> int:
        return int(len(self.last_event))


@dataclass
class Kept:
    """An engine result without its match positions (a run can emit millions of matches and
    every run is kept until the end): ``matches`` (``KeptMatches``), ``counters``, ``info``."""

    matches: KeptMatches
    counters: np.ndarray
    info: dict

    @classmethod
    def of(cls, res) -> "Kept":
        ms = res.matches
        return cls(KeptMatches(np.asarray(ms.last_event, dtype=np.int64),
                               np.asarray(ms.detect, dtype=np.int64)),
                   np.asarray(res.counters), dict(res.info or {}))


@dataclass
class Comparison:
    """The result of ``compare``: ``rows`` (DataFrame, one per run x rate, and one per
    ineligible strategy), ``runs``, ``ineligible`` [(strategy, reason)], ``rates``,
    ``recommendation``, ``simpy`` (the check's text), ``best`` {rate: label}."""

    pattern: str
    n_events: int
    profile_name: str
    rates: list[float]
    runs: list[Run]
    ineligible: list[tuple[str, str]]
    best: dict
    recommendation: str
    simpy: str
    rows: object = None
    profile: object = None
    ties: dict = field(default_factory=dict)           # rate -> {label: (diff, se)}
    throughput_ties: dict = field(default_factory=dict)  # label -> (diff, se) vs the fastest
    warnings: list = field(default_factory=list)
    provenance: list = field(default_factory=list)

    def table(self) -> str:
        return text_table(self)


def auto_rates(lsrs: list[float], k: int = AUTO_RATES) -> list[float]:
    """``k`` rates from half the slowest engine's largest stable rate to 95 % of the fastest's
    (geometric, two significant digits; at least a factor 4 wide)."""
    lo, hi = 0.5 * min(lsrs), 0.95 * max(lsrs)
    if hi / lo < 4:
        lo = hi / 4
    raw = np.geomspace(lo, hi, k)
    return sorted({float(f"{r:.2g}") for r in raw})


def poisson(n: int, rate: float, seed: int) -> np.ndarray:
    """``n`` Poisson arrival times at ``rate`` (the same for every engine at one seed)."""
    from sim.core.arrivals import poisson_arrivals
    return poisson_arrivals(n, rate, seed)


def refusal(exc: Exception) -> str:
    """One-line reason of an engine's refusal (``capacity:`` first for a capacity cap)."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ("capacity: " if isinstance(exc, CapacityError) else "") + msg


def stage(bar, text: str) -> None:
    """Show ``text`` as the progress bar's stage (no bar: nothing)."""
    if bar is not None:
        bar.stage(text)


# ----------------------------------------------------------------------------- ranking
def rank_value(metrics: dict) -> float:
    """What 'best' minimises: mean match latency; with no match, the mean event sojourn."""
    v = metrics.get("latency_mean", float("nan"))
    if not (isinstance(v, float) and math.isfinite(v)) or not metrics.get("matches"):
        v = metrics.get("sojourn_mean", float("nan"))
    return float(v)


def best_per_rate(runs: list[Run], rates: list[float], n_events: int | None = None) -> dict:
    """{rate: label of the run with the lowest ``rank_value`` among the stable ones, or None}.
    ``n_events`` below ``min_events()``: None at every rate (no measurable spread, no best)."""
    out = {}
    for rate in rates:
        cands = [(rank_value(r.per_rate[rate]), i, r.label) for i, r in enumerate(runs)
                 if rate in r.per_rate and r.per_rate[rate].get("stable")]
        cands = [c for c in cands if math.isfinite(c[0])]
        out[rate] = min(cands)[2] if cands and not too_short(n_events) else None
    return out


def lsr(run: Run) -> float:
    """Largest stable rate: 1 / mean service (events per second)."""
    return 1.0 / float(run.service.mean())


def fmt_rate(r: float) -> str:
    """A rate to three significant digits, without exponent below 10^7 events/s.

    >>> fmt_rate(13906.2), fmt_rate(0.25), fmt_rate(3.4e8)
    ('13900', '0.25', '3.4e+08')
    """
    if not math.isfinite(r) or r < 1 or r >= 1e7:
        return f"{r:.3g}"
    return f"{float(f'{r:.3g}'):.0f}"


# ----------------------------------------------------------------------------- spread
def min_events() -> int:
    """The shortest stream whose spread can be measured: ``SPREAD_BATCHES * MIN_BATCH_EVENTS``."""
    return SPREAD_BATCHES * MIN_BATCH_EVENTS


def too_short(n_events: int | None) -> bool:
    """True when a stream of ``n_events`` is too short to measure the spread (None: not known)."""
    return n_events is not None and n_events < min_events()


def batch_of(n: int) -> np.ndarray:
    """``int64[n]``: the segment (0 .. ``SPREAD_BATCHES``-1) of each event, equal lengths."""
    return (np.arange(n, dtype=np.int64) * SPREAD_BATCHES) // max(n, 1)


def segment_means(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """``float64[SPREAD_BATCHES]``: mean of ``values`` per segment (nan where none)."""
    values = np.asarray(values, dtype=np.float64)
    cnt = np.bincount(segment, minlength=SPREAD_BATCHES).astype(np.float64)
    tot = np.bincount(segment, weights=values, minlength=SPREAD_BATCHES)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)


def batch_figures(n: int, last_event: np.ndarray, match_latency: np.ndarray,
                  sojourn: np.ndarray) -> np.ndarray:
    """A run's ranked figure (``rank_value``) per segment: the mean latency of the matches whose
    last event is in the segment; a run without matches: the mean sojourn of its events."""
    seg = batch_of(n)
    last = np.asarray(last_event, dtype=np.int64)
    if len(last):
        return segment_means(match_latency, seg[last])
    return segment_means(sojourn, seg)


def paired_spread(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(mean, standard error) of the per-segment difference ``a - b`` over the segments where
    both have a figure; the standard error is nan with fewer than two such segments."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    d = d[np.isfinite(d)]
    if len(d) == 0:
        return float("nan"), float("nan")
    se = float(np.std(d, ddof=1) / math.sqrt(len(d))) if len(d) > 1 else float("nan")
    return float(d.mean()), se


def tied(diff: float, se: float, ref: float, tol_rel: float = 0.0) -> bool:
    """A difference ``diff`` (>= 0 favours the reference) is a tie when it is within
    ``SPREAD_Z`` standard errors, within ``tol_rel`` of the reference figure ``ref``, or not
    measurable (nan)."""
    if not (math.isfinite(diff) and math.isfinite(se)):
        return True
    return diff <= SPREAD_Z * se or diff <= tol_rel * abs(ref)


def profile_rel_error(prof) -> tuple[float, str] | None:
    """The profile's own measured prediction error, when it states one: ``cepsim calibrate``'s
    per-chunk relative error rms (``meta.chunk_rel_rms``), with where it comes from."""
    meta = getattr(prof, "meta", None) or {}
    v = meta.get("chunk_rel_rms")
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0:
        return float(v), "the profile's per-chunk prediction error from cepsim calibrate"
    return None


def ties_per_rate(runs: list[Run], rates: list[float], best: dict,
                  tol_rel: float = 0.0) -> dict:
    """{rate: {label: (diff, se)}}: the stable runs tied with the best at that rate, where
    ``diff`` / ``se`` are the mean and standard error of their per-segment figure minus the
    best's (seconds)."""
    out: dict = {}
    by_label = {r.label: r for r in runs}
    for rate in rates:
        b = best.get(rate)
        out[rate] = {}
        if b is None or rate not in by_label[b].batches:
            continue
        ref, ref_v = by_label[b].batches[rate], rank_value(by_label[b].per_rate[rate])
        for r in runs:
            if r.label == b or rate not in r.per_rate or not r.per_rate[rate].get("stable") \
                    or rate not in r.batches:
                continue
            d, se = paired_spread(r.batches[rate], ref)
            if tied(d, se, ref_v, tol_rel):
                out[rate][r.label] = (d, se)
    return out


def throughput_ties(runs: list[Run], n_events: int, tol_rel: float = 0.0) -> dict:
    """{label: (diff, se)}: the runs whose mean service time is within the spread of the
    fastest run's (per-segment mean service difference, seconds)."""
    if too_short(n_events) or not runs:
        return {}
    fastest = max(runs, key=lsr)
    seg = batch_of(len(fastest.service))
    ref = segment_means(fastest.service, seg)
    out = {}
    for r in runs:
        if r is fastest or len(r.service) != len(fastest.service):
            continue
        d, se = paired_spread(segment_means(r.service, seg), ref)
        if tied(d, se, float(fastest.service.mean()), tol_rel):
            out[r.label] = (d, se)
    return out


def spread_warnings(runs: list[Run], rates: list[float], best: dict, n_events: int,
                    unit: tuple[float, str]) -> list[str]:
    """A too-short stream; a best figure whose standard error across segments is more than
    ``UNSTABLE_REL_SE`` of it (figures in the table's unit)."""
    if too_short(n_events):
        return [f"the stream is too short for a stable figure: {n_events} events, at least "
                f"{min_events()} needed to measure the spread ({SPREAD_BATCHES} segments of "
                f"{MIN_BATCH_EVENTS}); no best run and no recommendation"]
    out = []
    by_label = {r.label: r for r in runs}
    scale, name = unit
    for rate in rates:
        b = best.get(rate)
        if b is None or rate not in by_label[b].batches:
            continue
        x = by_label[b].batches[rate]
        x = x[np.isfinite(x)]
        if len(x) < 2:
            out.append(f"at {fmt_rate(rate)} ev/s the best run ({b}) has a figure in fewer than "
                       f"2 of {SPREAD_BATCHES} segments: its spread is not measurable")
            continue
        m, se = float(x.mean()), float(np.std(x, ddof=1) / math.sqrt(len(x)))
        if m > 0 and se / m > UNSTABLE_REL_SE:
            out.append(f"at {fmt_rate(rate)} ev/s the best run's mean latency varies along the "
                       f"stream: {_num(m / scale)} ± {_num(se / scale)} {name} (standard error "
                       f"over {len(x)} segments, {100 * se / m:.0f} %); a longer stream gives a "
                       f"steadier figure")
    return out


def _describe(run: Run) -> str:
    plan = plan_of(run)
    return run.label + (f" {plan}" if plan and plan not in run.label else "")


def _names(labels: list[str], k: int = 4) -> str:
    head = ", ".join(labels[:k])
    return head + (f" and {len(labels) - k} more" if len(labels) > k else "")


def recommendation(runs: list[Run], rates: list[float], best: dict, ties: dict | None = None,
                   thr_ties: dict | None = None, n_events: int | None = None) -> str:
    """"below λ ≈ X: A; above: B" from the best run per rate, the runs tied with it within the
    measured spread, and the highest throughput; "none" when the stream is too short."""
    if too_short(n_events):
        return (f"none: {n_events} events are too few to tell the runs apart (at least "
                f"{min_events()} needed)")
    ties = ties or {}
    fastest = max(runs, key=lsr)
    segs: list[tuple[str | None, list[float]]] = []
    for rate in rates:
        b = best[rate]
        if segs and segs[-1][0] == b:
            segs[-1][1].append(rate)
        else:
            segs.append((b, [rate]))
    by_label = {r.label: r for r in runs}
    parts = []
    for i, (lab, rs) in enumerate(segs):
        name = "no strategy keeps up" if lab is None else _describe(by_label[lab])
        tied_here = sorted({t for r in rs for t in ties.get(r, {})},
                           key=lambda t: [x.label for x in runs].index(t))
        if tied_here:
            name += f" (tied within the measured spread: {_names(tied_here)})"
        if len(segs) == 1:
            parts.append(f"{name} at every rate tested ({fmt_rate(rates[0])}-"
                         f"{fmt_rate(rates[-1])} ev/s)" if len(rates) > 1 else
                         f"{name} at {fmt_rate(rates[0])} ev/s")
        elif i == 0:
            nxt = segs[1][1][0]
            parts.append(f"below λ ≈ {fmt_rate(math.sqrt(rs[-1] * nxt))} ev/s: {name}")
        elif i == len(segs) - 1:
            parts.append(f"above: {name}")
        else:
            nxt = segs[i + 1][1][0]
            parts.append(f"up to λ ≈ {fmt_rate(math.sqrt(rs[-1] * nxt))}: {name}")
    tail = f"; highest throughput: {_describe(fastest)} (stable below " \
           f"{fmt_rate(lsr(fastest))} ev/s"
    if thr_ties:
        tail += f"; tied within the measured spread: {_names(list(thr_ties))}"
    return "; ".join(parts) + tail + ")"


# ----------------------------------------------------------------------------- provenance
def profile_provenance(prof, runs: list[Run] | None = None) -> list[str]:
    """Where the profile's prices come from: which were fitted (on what), which are the default
    profile's round numbers, and how much of each run's cost the base cost and the unfitted
    prices carry."""
    from sim.core.costmodel import COUNT_NAMES, DEFAULT_PROFILE_PATH, SIDE_NAMES, load_profile
    meta = dict(getattr(prof, "meta", None) or {})
    src = str(getattr(prof, "source", "") or "")
    default = load_profile(None)
    priced = [k for k in COUNT_NAMES if k not in SIDE_NAMES]
    same = [k for k in priced if float(prof.unit_cost[k]) == float(default.unit_cost[k])]
    is_default = prof == default or src == str(DEFAULT_PROFILE_PATH)
    where = f" ({_short_path(src)})" if src and src != "<memory>" else ""
    lines = []
    if is_default:
        lines.append(f"profile {prof.name!r}{where}: documented round numbers for every price, "
                     f"none measured (docs/COST_MODEL.md; `cepsim calibrate` fits this machine)")
        unfitted = set(priced) | {"base_cost"}
    elif "calibrated" in meta:
        unmeasured = [k for k in meta.get("unmeasured", []) if k in priced]
        remote = [k for k in meta.get("remote_priced", []) if k in priced]
        fitted = [k for k in priced if k not in unmeasured and k not in remote]
        how = (f"fitted by `cepsim calibrate` to the {meta.get('engine', '?')} engine on "
               f"{meta.get('machine', '?')}, {meta.get('calibrated', '?')}")
        if isinstance(meta.get("r2"), (int, float)):
            how += f" (R² {meta['r2']:.3f}"
            if isinstance(meta.get("chunk_rel_rms"), (int, float)):
                how += f", per-chunk error rms {100 * meta['chunk_rel_rms']:.1f} %"
            how += ")"
        lines.append(f"profile {prof.name!r}{where}: {how}")
        lines.append(f"  fitted: base_cost, {', '.join(fitted)}")
        if remote:
            lines.append(f"  fitted on the remote-data kernel's runs: {', '.join(remote)}")
        lines.append("  default round numbers (not fitted): " +
                     (", ".join(unmeasured) if unmeasured else "none"))
        unfitted = set(unmeasured)
    else:
        srcs = {k: v for k, v in meta.items() if k.endswith("_source")}
        lines.append(f"profile {prof.name!r}{where}: " + (prof.description or
                                                          "no provenance recorded"))
        for k, v in srcs.items():
            lines.append(f"  {k[:-len('_source')]}: {v}")
        lines.append("  equal to the default profile's round numbers: " +
                     (", ".join(same) if same else "none"))
        unfitted = set(same) | ({"base_cost"} if float(prof.base_cost) ==
                                float(default.base_cost) else set())
    if runs:
        lines += _cost_shares(prof, runs, unfitted, is_default)
    return lines


def _short_path(src: str) -> str:
    """``src`` relative to the working directory or to the repository when under it."""
    from pathlib import Path
    p = Path(src)
    for root in (Path.cwd(), Path(__file__).resolve().parents[3]):
        try:
            return str(p.resolve().relative_to(root.resolve()))
        except (ValueError, OSError):
            continue
    return src


def _cost_shares(prof, runs: list[Run], unfitted: set, is_default: bool) -> list[str]:
    """The base cost's share of every run's service time, and (for a non-default profile) the
    largest share priced by unfitted default prices."""
    unit = prof.unit_vector()
    base = float(prof.base_cost)
    out = []
    shares, dshare = [], []
    idx = [i for i in range(C.N_COUNTERS) if C.COUNTER_NAMES[i] in unfitted]
    for r in runs:
        tot = float(r.service.sum())
        if tot <= 0:
            continue
        cost = np.asarray(r.result.counters)[:len(r.service)].sum(axis=0) * unit
        shares.append(base * len(r.service) / tot)
        dshare.append((float(cost[idx].sum()) / tot if idx else 0.0, r.label))
    if not shares:
        return out
    lo, hi = min(shares), max(shares)
    def span(a: float, b: float) -> str:
        a, b = f"{100 * a:.0f}", f"{100 * b:.0f}"
        return a if a == b else f"{a}-{b}"
    line = f"  base_cost {base * 1e6:.3g} us per event is {span(lo, hi)} % of the runs' " \
           f"service time"
    if lo > 0.5:
        line += (f": the strategies differ only in the remaining {span(1 - hi, 1 - lo)} %, so "
                 f"the ranking rests on those prices")
    out.append(line)
    if not is_default and dshare:
        worst = max(dshare)
        if worst[0] > 0.01:
            out.append(f"  unfitted default prices carry up to {100 * worst[0]:.0f} % of a "
                       f"run's cost ({worst[1]})")
    return out


def plan_of(run: Run) -> str:
    """The plan / order of a run: its own option, else what the engine reports."""
    for k in ("order", "plan"):
        if k in run.options:
            return str(run.options[k])
    info = getattr(run.result, "info", None) or {}
    v = info.get("plan") or info.get("order") or ""
    return str(v)


def finish(pattern: str, n_events: int, prof, rates: list[float], runs: list[Run],
           ineligible: list, simpy: str) -> Comparison:
    """The ``Comparison`` of queued runs: best per rate, ties within the measured spread,
    warnings, the profile's provenance, the recommendation and the rows."""
    best = best_per_rate(runs, rates, n_events)
    err = profile_rel_error(prof)
    tol = err[0] if err else 0.0
    ties = ties_per_rate(runs, rates, best, tol)
    thr = throughput_ties(runs, n_events, tol)
    cmp = Comparison(" ".join(pattern.split()), n_events, prof.name, rates, runs, ineligible,
                     best, recommendation(runs, rates, best, ties, thr, n_events), simpy,
                     profile=prof, ties=ties, throughput_ties=thr)
    cmp.warnings = spread_warnings(runs, rates, best, n_events, latency_unit(cmp))
    cmp.provenance = profile_provenance(prof, runs)
    cmp.rows = rows_frame(cmp, prof)
    return cmp


def spread_note(cmp) -> str:
    """One line: what the spread is of and what a tie means."""
    err = profile_rel_error(cmp.profile) if cmp.profile is not None else None
    tol = f", or within {100 * err[0]:.1f} % ({err[1]})" if err else ""
    return (f"~ = tied with the best: the mean difference over {SPREAD_BATCHES} consecutive "
            f"segments of the stream is within {SPREAD_Z:g} standard errors{tol}")


# ----------------------------------------------------------------------------- rows
def dominant_work(run: Run, prof, k: int = 2) -> str:
    """The ``k`` counters with the largest share of the priced work, per event."""
    tot = np.asarray(run.result.counters)[:len(run.service)].sum(axis=0).astype(np.float64)
    unit = prof.unit_vector()
    cost = tot * unit
    total = float(run.service.sum())
    n = len(run.service)
    order = [int(i) for i in np.argsort(-cost) if cost[i] > 0][:k]
    parts = [f"{C.COUNTER_NAMES[i]} {tot[i] / n:.3g} ({100 * cost[i] / total:.0f}%)"
             for i in order]
    base = 100.0 * float(prof.base_cost) * n / total if total > 0 else 0.0
    if not parts or base > 50:
        parts.append(f"base {base:.0f}%")
    return ", ".join(parts)


def rows_frame(cmp: Comparison, prof):
    """One row per (run, rate) and one per ineligible strategy (``eligible`` False)."""
    import pandas as pd
    rows = []
    for r in cmp.runs:
        totals = C.summarize(np.asarray(r.result.counters)[:len(r.service)])
        static = {"strategy": r.strategy, "label": r.label, "engine_spec": r.spec,
                  "plan": plan_of(r), "eligible": True, "reason": "",
                  "matches": len(r.result.matches), "match_digest": r.digest,
                  "work": dominant_work(r, prof), "service_mean": float(r.service.mean()),
                  "service_p99": float(np.percentile(r.service, 99)), "lsr": lsr(r),
                  "n_events": cmp.n_events, "profile": cmp.profile_name}
        static.update({f"total_{k}": v for k, v in totals.items()})
        for rate in cmp.rates:
            if rate not in r.per_rate:
                continue
            m = r.per_rate[rate]
            rows.append({**static, "rate": rate,
                         "latency_mean": m.get("latency_mean"),
                         "latency_p50": m.get("latency_p50"),
                         "latency_p99": m.get("latency_p99"),
                         "sojourn_mean": m.get("sojourn_mean"),
                         "offered_load": m.get("offered_load"), "stable": bool(m.get("stable")),
                         "sim_path": m.get("sim_path", ""),
                         "best": cmp.best.get(rate) == r.label,
                         "tied_with_best": r.label in cmp.ties.get(rate, {})})
    for key, why in cmp.ineligible:
        rows.append({"strategy": key.split(" ")[0], "label": key, "eligible": False,
                     "reason": why, "n_events": cmp.n_events, "profile": cmp.profile_name})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- the text table
_UNITS = ((1e-6, "us"), (1e-3, "ms"), (1.0, "s"))


def _unit(values: list[float]) -> tuple[float, str]:
    vals = [v for v in values if isinstance(v, float) and math.isfinite(v) and v > 0]
    med = float(np.median(vals)) if vals else 1e-3
    scale, name = _UNITS[0]
    for s, nm in _UNITS:
        if med >= s:
            scale, name = s, nm
    return scale, name


def _num(v: float) -> str:
    if not math.isfinite(v):
        return "nan"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def latency_unit(cmp) -> tuple[float, str]:
    """(seconds per unit, name) of the table's latency columns."""
    lat = [m.get("latency_p50") for r in cmp.runs for m in r.per_rate.values()]
    return _unit([float(v) for v in lat if v is not None])


def cells(cmp) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the comparison table as strings."""
    scale, unit = latency_unit(cmp)
    head = ["engine", "plan/order", "matches", "work per event (share of cost)",
            "svc mean us", "svc p99 us", "max stable ev/s"]
    head += [f"p50/p99 {unit} @{fmt_rate(r)}" for r in cmp.rates]
    out = []
    for r in cmp.runs:
        plan = plan_of(r)
        row = [r.label, plan if plan not in r.label else "", str(len(r.result.matches)),
               _work(r, cmp), _num(float(r.service.mean()) * 1e6),
               _num(float(np.percentile(r.service, 99)) * 1e6), fmt_rate(lsr(r))]
        for rate in cmp.rates:
            m = r.per_rate.get(rate)
            if m is None:
                row.append("-")
            elif not m.get("stable"):
                row.append(f"ρ={m.get('offered_load', float('nan')):.3g}")
            elif not m.get("matches"):
                row.append("no match")
            else:
                c = f"{_num(m['latency_p50'] / scale)}/{_num(m['latency_p99'] / scale)}"
                mark = " *" if cmp.best.get(rate) == r.label else \
                    " ~" if r.label in cmp.ties.get(rate, {}) else ""
                row.append(c + mark)
        out.append(row)
    return head, out


def _work(run, cmp) -> str:
    rows = cmp.rows
    if rows is not None and "work" in rows.columns:
        hit = rows[(rows["label"] == run.label) & rows["eligible"]]
        if len(hit):
            return str(hit["work"].iloc[0])
    return ""


def grouped_reasons(ineligible: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Strategies refused for the same reason on one line: ``("eires-BL1, eires-BL2", why)``."""
    by: dict[str, list[str]] = {}
    for k, why in ineligible:
        by.setdefault(why, []).append(k)
    return [(", ".join(ks), why) for why, ks in by.items()]


def text_table(cmp) -> str:
    """The terminal report: table, ineligible strategies, SimPy check, recommendation."""
    head, body = cells(cmp)
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
    left = {0, 1, 3}

    def line(vals):
        return "  ".join(v.ljust(w) if i in left else v.rjust(w)
                         for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
    lines = [f"{cmp.pattern}", f"{cmp.n_events} events, cost profile {cmp.profile_name!r}; "
             f"latency = match latency (p50/p99); * = best at that rate (lowest mean latency); "
             f"ρ = overloaded", spread_note(cmp)]
    lines += cmp.provenance
    lines += ["", line(head), line(["-" * w for w in widths])]
    lines += [line(r) for r in body]
    if cmp.ineligible:
        lines += ["", "not run:"]
        lines += [f"  {k}: {why}" for k, why in grouped_reasons(cmp.ineligible)]
    lines += [""] + [f"warning: {w}" for w in cmp.warnings]
    lines += [cmp.simpy, f"recommendation: {cmp.recommendation}"]
    return "\n".join(lines)
