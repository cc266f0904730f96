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


def best_per_rate(runs: list[Run], rates: list[float]) -> dict:
    """{rate: label of the run with the lowest ``rank_value`` among the stable ones, or None}."""
    out = {}
    for rate in rates:
        cands = [(rank_value(r.per_rate[rate]), i, r.label) for i, r in enumerate(runs)
                 if rate in r.per_rate and r.per_rate[rate].get("stable")]
        cands = [c for c in cands if math.isfinite(c[0])]
        out[rate] = min(cands)[2] if cands else None
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


def _describe(run: Run) -> str:
    plan = plan_of(run)
    return run.label + (f" {plan}" if plan and plan not in run.label else "")


def recommendation(runs: list[Run], rates: list[float], best: dict) -> str:
    """"below λ ≈ X: A; above: B" from the best run per rate, and where nothing keeps up."""
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
           f"{fmt_rate(lsr(fastest))} ev/s)"
    return "; ".join(parts) + tail


def plan_of(run: Run) -> str:
    """The plan / order of a run: its own option, else what the engine reports."""
    for k in ("order", "plan"):
        if k in run.options:
            return str(run.options[k])
    info = getattr(run.result, "info", None) or {}
    v = info.get("plan") or info.get("order") or ""
    return str(v)


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
                         "best": cmp.best.get(rate) == r.label})
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


def cells(cmp) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the comparison table as strings."""
    lat = [m.get("latency_p50") for r in cmp.runs for m in r.per_rate.values()]
    scale, unit = _unit([float(v) for v in lat if v is not None])
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
                row.append(c + (" *" if cmp.best.get(rate) == r.label else ""))
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
             f"latency = match latency (p50/p99); * = best at that rate; ρ = overloaded", "",
             line(head), line(["-" * w for w in widths])]
    lines += [line(r) for r in body]
    if cmp.ineligible:
        lines += ["", "not run:"]
        lines += [f"  {k}: {why}" for k, why in grouped_reasons(cmp.ineligible)]
    lines += ["", cmp.simpy, f"recommendation: {cmp.recommendation}"]
    return "\n".join(lines)
