"""DEBS'15 lazy evaluation (Kolchinsky et al.): the claims of experiments/lazy_nfa/*.toml.

Each ``claim_*(df, **args) -> ClaimResult`` reads the rows of ``sim/studies/lazy_nfa/scenario.py``
(columns listed there) and judges one statement of section 7 (Figures 7-10) or of one of our own
studies (regimes, the per-offer metric, sensitivity axes, the calibration of ``paper_regime``'s T).
Every claim sees only the successful rows (``_successful``).  Metrics (``METRICS``): ``evals``
(condition evaluations: take-edge validations, the section 7 count), ``ops`` (condition
evaluations + instance work, the per-offer metric) and ``evals_route`` (condition evaluations
with the tree's routing decisions counted as conditions, a printed variant).
"""
from __future__ import annotations

import functools
import json

import numpy as np

from sim.studies.lazy_nfa.scenario import ALL_NFAS, CHAINS


def _claim(passed, measured):
    from sim.experiments.claims import ClaimResult
    return ClaimResult(bool(passed), measured)


def _chains_in(df) -> list[str]:
    return [k for k in CHAINS if f"evals_{k}" in df.columns]


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def _successful(fn):
    """Claim decorator: the claim sees only the successful rows (``error`` unset; a crashed
    point has NaN metrics, and ``int(NaN)`` / ``NaN -> True`` would crash or pass the claim);
    a table with none FAILs with "no successful rows" instead of raising."""
    @functools.wraps(fn)
    def wrapper(df, **kw):
        d = df[df["error"].isna()] if "error" in df.columns else df
        if d.empty:
            return _claim(False, "no successful rows")
        return fn(d, **kw)
    return wrapper


@_successful
def claim_matches_agree(df, **_) -> object:
    """Every NFA found the same match set at every point."""
    bad = df[~df["matches_agree"].astype(bool)]
    return _claim(len(bad) == 0 and len(df) > 0,
                  f"{len(df) - len(bad)}/{len(df)} points agree; matches per point "
                  f"{sorted(int(m) for m in df['matches'])}")


METRICS = {"evals": "condition evaluations", "ops": "operations (conditions + instance work)",
           "evals_route": "condition evaluations with routing decisions counted as conditions"}


def _pick(df, regime=None, data=None, sequence=None):
    """Rows of one regime / data source / sequence (a filter is skipped when its column is absent
    or the value is None)."""
    for col, val in (("regime", regime), ("data", data), ("sequence", sequence)):
        if val is not None and col in df.columns:
            df = df[df[col] == val]
    return df


def _metric(metric: str) -> str:
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")
    return metric


def _mean_by_fc(d):
    return d.groupby("f_c").mean(numeric_only=True).sort_index()


def _why(r) -> str:
    """Measured pass rates and the ratios they predict, beside the measured ratios: chain c,a,b
    takes every a after c (no a-c condition) and filters with both conditions afterwards, c,b,a
    filters b with corr(b,c) first, so c,a,b / c,b,a ~ 1/s_bc; eager at f_c = 1 keeps only the
    ab prefixes that pass, so eager / c,a,b ~ s_ab + 2/W_b (W_b: b events in a window)."""
    sab, sbc = float(r.get("sel_ab", np.nan)), float(r.get("sel_bc", np.nan))
    out = (f"s_ab={_fmt(sab)} s_bc={_fmt(sbc)}; cab/cba={_fmt(r['evals_cab'] / max(r['evals_cba'], 1))}"
           f" (predicted 1/s_bc={_fmt(1 / sbc) if sbc > 0 else 'inf'})")
    if "evals_eager" in r and "w_b" in r and float(getattr(r, "name", 1.0)) >= 0.5:
        pred = sab + 2.0 / max(float(r["w_b"]), 1e-9)
        out += (f", eager/cab={_fmt(r['evals_eager'] / max(r['evals_cab'], 1))} "
                f"(predicted near f_c=1: s_ab+2/W_b={_fmt(pred)})")
    if "frac_b_rarer" in r and "evals_tree" in r and np.isfinite(float(r["frac_b_rarer"])):
        # the tree's {c} state follows c,b,a where b is rarer and c,a,b otherwise (section 6)
        fb = float(r["frac_b_rarer"])
        mix = fb + (1 - fb) * r["evals_cab"] / max(r["evals_cba"], 1)
        out += (f"; tree routes c->b at {_fmt(100 * fb)}% of c arrivals: predicted tree/cba "
                f"~{_fmt(mix)}, measured {_fmt(r['evals_tree'] / max(r['evals_cba'], 1))} "
                f"(condition evaluations)")
    if "work_tree" in r and "work_cba" in r:
        best_w = min((k for k in CHAINS if f"work_{k}" in r), key=lambda k: r[f"work_{k}"])
        out += (f"; instance work tree/{best_w}={_fmt(r['work_tree'] / max(r[f'work_{best_w}'], 1))}"
                f" (instances waiting in the tree's non-c-first states)")
    return out


def _route_txt(r, m: str, best_k: str) -> str:
    """The tree's routing decisions and, for the condition-evaluation metric, tree / best chain
    with each routing decision charged as a condition evaluation (``evals_route``: a printed
    variant; section 7 counts take-edge validations, and routing is part of the offer)."""
    txt = f"routing decisions {int(r.get('routing_tree', 0))}"
    if m == "evals" and "evals_route_tree" in r:
        txt += (f", tree/{best_k} with routing as conditions "
                f"{_fmt(r['evals_route_tree'] / max(r[f'evals_{best_k}'], 1))}")
    return txt


def _swings(d):
    """Rows whose a/b rates swing (``swing_amp`` > 0, ``_swing_cols``)."""
    if "swing_amp" not in d.columns:
        return d.iloc[:0]
    return d[d["swing_amp"].astype(float) > 0]


@_successful
def claim_tree_vs_best_chain(df, factor: float = 1.1, metric: str = "evals", regime=None,
                             data: str | None = "synthetic", sequence=None, below: bool = False,
                             ref: str | None = None, **_) -> object:
    """tree <= factor x best chain at every (sequence, f_c) point, under ``metric`` (means over
    seeds).  ``below=True``: the paper's observation 4, "slightly better than the best chain",
    i.e. tree < best chain, tested only on rows whose a/b rates swing (the paper credits the
    gain to those swings; ``_swings``) -- fails when there is no such row.  ``ref``: the chain
    the verdict compares with (observation 4 names it: "the best chain NFA (cab in our case)");
    ``None`` = the simulated best chain of each point.  With ``ref`` the simulated best chain's
    ratio is printed beside.  Each point prints the ratio and the tree's routing decisions; a
    failing point adds the pass rates and the ratios they predict."""
    m = _metric(metric)
    d = _pick(df, regime, data, sequence)
    if below:
        d = _swings(d)
        if d.empty:
            return _claim(False, "no row whose a/b rates swing")
    chains = _chains_in(d)
    if ref is not None and ref not in chains:
        raise ValueError(f"ref {ref!r} must be one of the chains in the table {chains}")
    parts = []
    ok = len(d) > 0
    for label, sub in _stream_groups(d):
        g = _mean_by_fc(sub)
        for fc, r in g.iterrows():
            best_k = min(chains, key=lambda k: r[f"{m}_{k}"])
            ref_k = ref or best_k
            ratio = r[f"{m}_tree"] / max(r[f"{m}_{ref_k}"], 1)
            good = ratio < 1.0 if below else ratio <= factor
            ok &= good
            txt = f"{label}f_c={fc:g}: tree/{ref_k}={ratio:.4g} "
            if ref is not None:
                txt += (f"(simulated best chain: tree/{best_k}="
                        f"{r[f'{m}_tree'] / max(r[f'{m}_{best_k}'], 1):.4g}; ")
            else:
                txt += "("
            txt += f"{_route_txt(r, m, ref_k)})"
            if not good:
                txt += " [" + (_swing_why(r) if below else _why(r)) + "]"
            parts.append(txt)
    return _claim(ok, f"{regime or ''} {METRICS[m]}: " + "; ".join(parts))


def _swing_why(r) -> str:
    """Why the tree cannot beat the best chain by routing on counts (section 6): after a c
    event, c,a,b validates W_a a's and then ~W_a W_b / 2 b's (no a-c condition), c,b,a validates
    W_b b's and then ~s_bc W_b W_a / 2 a's.  The a/b swing only changes the linear terms, so
    routing to the rarer of a and b saves at most E|W_a - W_b| per c event, about
    2 E|W_a - W_b| / (W_a W_b) of the best chain's work, while routing to a (whenever a is
    rarer) costs the (1 - s_bc) W_a W_b / 2 that c,b,a's first condition filters out."""
    wa, wb = float(r.get("w_a", np.nan)), float(r.get("w_b", np.nan))
    dab, sbc = float(r.get("w_absdiff", np.nan)), float(r.get("sel_bc", np.nan))
    gain = 2 * dab / max(wa * wb, 1e-9)
    return (f"W_a={_fmt(wa)} W_b={_fmt(wb)} E|W_a-W_b|={_fmt(dab)}: count routing saves at most "
            f"~{_fmt(100 * gain)}%; b rarer at {_fmt(100 * float(r.get('frac_b_rarer', np.nan)))}% "
            f"of c arrivals, routing to a costs up to 1-s_bc={_fmt(1 - sbc)}")


def _stream_groups(d):
    """(label, rows) per sequence and, where the table varies them, per a/b swing
    (``swing_kind``, ``swing_amp``): points of different streams are never averaged together."""
    keys = [c for c in ("sequence", "swing_kind", "swing_amp")
            if c in d.columns and (c == "sequence" or d[c].nunique(dropna=False) > 1)]
    if not keys:
        return [("", d)]
    out = []
    for vals, sub in d.groupby(keys, sort=True, dropna=False):
        vals = vals if isinstance(vals, tuple) else (vals,)
        lab = []
        for c, v in zip(keys, vals):
            lab.append(str(v) if c == "sequence" else
                       f"swing {v}" if c == "swing_kind" else f"amp {float(v):g}")
        out.append((" ".join(lab) + " ", sub))
    return out


@_successful
def claim_c_first_vs_eager(df, factor: float = 100.0, metric: str = "evals", regime=None,
                           sequence: str = "a,b,c", data: str = "synthetic", **_) -> object:
    """Paper: c-first chains perform "one to three orders of magnitude better" than eager:
    eager / best c-first chain >= factor at the smallest f_c."""
    m = _metric(metric)
    g = _mean_by_fc(_pick(df, regime, data, sequence))
    lo = g.iloc[0]
    best = min(("cab", "cba"), key=lambda k: lo[f"{m}_{k}"])
    r = lo[f"{m}_eager"] / max(lo[f"{m}_{best}"], 1)
    per = ", ".join(f"f_c={fc:g}: {_fmt(x[f'{m}_eager'] / max(min(x[f'{m}_cab'], x[f'{m}_cba']), 1))}"
                    for fc, x in g.iterrows())
    return _claim(r >= factor, f"{regime or ''} {METRICS[m]}: eager/{best} at smallest f_c="
                  f"{g.index[0]:g} = {_fmt(r)} (c events {int(lo.get('n_c_events', -1))}); "
                  f"eager/best c-first per f_c: {per}")


@_successful
def claim_convergence(df, factor: float = 1.25, metric: str = "evals", regime=None,
                      sequence: str = "a,b,c", data: str = "synthetic", **_) -> object:
    """Paper: "as [f_c] approaches 1, all the graphs are expected to eventually converge": at the
    largest f_c, eager / c,a,b (the paper's best chain) within [1/factor, factor]; prints the
    ratio predicted from the pass rates beside the measured one."""
    m = _metric(metric)
    g = _mean_by_fc(_pick(df, regime, data, sequence))
    hi = g.iloc[-1]
    r = hi[f"{m}_eager"] / max(hi[f"{m}_cab"], 1)
    ok = 1 / factor <= r <= factor
    return _claim(ok, f"{regime or ''} {METRICS[m]} at f_c={g.index[-1]:g}: eager/cab={_fmt(r)} "
                  f"[{_why(hi)}]")


@_successful
def claim_observation2(df, near: float = 3.0, far: float = 10.0, metric: str = "ops",
                       regime=None, sequence: str = "a,b,c", data: str = "synthetic",
                       **_) -> object:
    """Paper's observation 2 (Fig 7): chains with c second or third (abc, bac, acb, bca) are
    "equally suboptimal ... just as with eager": at the smallest f_c each is within ``near`` x of
    eager, and the c-first chains (cab, cba) are >= ``far`` x below eager."""
    m = _metric(metric)
    g = _mean_by_fc(_pick(df, regime, data, sequence))
    lo = g.iloc[0]
    e = max(lo[f"{m}_eager"], 1)
    rat = {k: lo[f"{m}_{k}"] / e for k in ("abc", "bac", "acb", "bca", "cab", "cba")}
    ok = (all(1 / near <= rat[k] <= near for k in ("abc", "bac", "acb", "bca"))
          and all(rat[k] <= 1 / far for k in ("cab", "cba")))
    return _claim(ok, f"{regime or ''} {METRICS[m]} at f_c={g.index[0]:g}, chain/eager: "
                  + ", ".join(f"{k}={_fmt(v)}" for k, v in rat.items()))


@_successful
def claim_eager_close(df, factor: float = 2.0, sequence: str = "c,b,a", metric: str = "evals",
                      regime=None, **_) -> object:
    """For the given sequence, eager <= factor x best chain at every f_c."""
    m = _metric(metric)
    g = _mean_by_fc(_pick(df, regime, None, sequence))
    chains = _chains_in(df)
    parts = []
    ok = len(g) > 0
    for fc, r in g.iterrows():
        ratio = r[f"{m}_eager"] / max(min(r[f"{m}_{k}"] for k in chains), 1)
        ok &= ratio <= factor
        parts.append(f"f_c={fc:g}: eager/best={_fmt(ratio)}")
    return _claim(ok, f"{regime or ''} {METRICS[m]}: " + "; ".join(parts))


@_successful
def claim_peak_instances(df, factor: float = 0.1, regime=None, **_) -> object:
    """At the largest input, c-first chains and tree hold <= factor x eager's peak instances
    (rows of ``regime``; all rows when None).

    The verdict uses the lazy NFAs' *transient* peak (instances alive at any moment, also inside
    one event), which is stricter than their after-event gauge (often 0: they finish within the
    event); eager's peak is its after-event gauge."""
    df = _pick(df, regime)
    if df.empty:
        return _claim(False, f"no rows of regime {regime}")
    d = df[df["n_events"] == df["n_events"].max()]
    e = float(d["peak_inst_eager"].mean())
    gauge = {k: float(d[f"peak_inst_{k}"].mean()) for k in ("cab", "cba", "tree")}
    trans = {k: float(d[f"peak_inst_transient_{k}"].mean()) for k in ("cab", "cba", "tree")}
    ok = all(v <= factor * e for v in trans.values())
    return _claim(ok, f"{regime + ' ' if regime else ''}n_events={int(d['n_events'].iloc[0])}: "
                  f"eager peak {_fmt(e)}; transient "
                  "(after-event) peaks: " +
                  ", ".join(f"{k} {_fmt(trans[k])} ({_fmt(gauge[k])})" for k in trans))


def _spread(df, rare_factor=None):
    """Figure 10 rows of one rate spread (``rate_spread`` = 1 / ``rare_factor``; all rows when
    None or when the table has no ``rate_spread`` column)."""
    if rare_factor is None or "rate_spread" not in df.columns:
        return df
    return df[np.isclose(df["rate_spread"].astype(float), 1.0 / float(rare_factor))]


def _spread_txt(rare_factor=None) -> str:
    return "" if rare_factor is None else f"rare factor {rare_factor:g}: "


def _phase_table(df, metric: str, regime=None, rare_factor=None):
    """[phase, nfa] sums of ``metric`` over the Figure 10 rows of one regime and rate spread
    (seeds summed), the full phases only, plus each phase's order label (rare, middle, frequent
    variable)."""
    d = _spread(_pick(df, regime), rare_factor)
    if d.empty:
        return None, []
    keys = [k for k in ALL_NFAS if f"{metric}_phase_{k}" in d.columns]
    tab = None
    for _, r in d.iterrows():
        cols = {k: np.array(json.loads(r[f"{metric}_phase_{k}"]), dtype=float) for k in keys}
        n_full = int(r["n_stream_events"]) // int(r["period_events"])
        cur = {k: v[:n_full] for k, v in cols.items()}
        tab = cur if tab is None else {k: tab[k] + cur[k] for k in keys}
    labels = json.loads(d.iloc[0]["phases"])
    return tab, [labels[i % len(labels)] for i in range(len(next(iter(tab.values()))))]


@_successful
def claim_phase_tree_best(df, factor: float = 1.1, metric: str = "evals", regime=None,
                          rare_factor=None, **_) -> object:
    """Figure 10: in every phase the tree needs <= factor x that phase's best chain (rows of
    ``rare_factor``'s rate spread; all rows when None)."""
    m = _metric(metric)
    tab, labels = _phase_table(df, m, regime, rare_factor)
    if tab is None:
        return _claim(False, f"no rows of regime {regime} and rare factor {rare_factor}")
    chains = [k for k in CHAINS if k in tab]
    ok = True
    parts = []
    for i, lab in enumerate(labels):
        best = min(chains, key=lambda k: tab[k][i])
        ratio = tab["tree"][i] / max(tab[best][i], 1)
        ok &= ratio <= factor
        parts.append(f"phase {i + 1} (rare->frequent {','.join(lab)}): tree/{best}={_fmt(ratio)}")
    return _claim(ok, f"{_spread_txt(rare_factor)}{regime or ''} {METRICS[m]}: "
                  + "; ".join(parts))


@_successful
def claim_dynamic_tree_best(df, metric: str = "evals", regime=None, rare_factor=None,
                            **_) -> object:
    """Figure 10: the tree's total over the stream is below every chain's total (rows of
    ``rare_factor``'s rate spread; all rows when None)."""
    m = _metric(metric)
    d = _spread(_pick(df, regime), rare_factor)
    if d.empty:
        return _claim(False, f"no rows of regime {regime} and rare factor {rare_factor}")
    chains = _chains_in(d)
    tot = {k: float(d[f"{m}_{k}"].sum()) for k in chains + ["tree", "eager"]
           if f"{m}_{k}" in d.columns}
    ok = all(tot["tree"] < tot[k] for k in chains)
    best = min(chains, key=lambda k: tot[k])
    return _claim(ok, f"{_spread_txt(rare_factor)}{regime or ''} {METRICS[m]}: tree "
                  f"{_fmt(tot['tree'])}, best chain {best} "
                  f"{_fmt(tot[best])} (tree/best={_fmt(tot['tree'] / max(tot[best], 1))}), eager "
                  f"{_fmt(tot.get('eager', float('nan')))}; all: "
                  + ", ".join(f"{k}={_fmt(v)}" for k, v in tot.items()))


@_successful
def claim_phase_gap(df, factor: float = 10.0, metric: str = "evals", regime=None,
                    rare_factor=None, within: bool = False, **_) -> object:
    """Figure 10 ("up to two orders of magnitude"): the best chain of some phase is >= factor x
    worse than the tree in some other phase (rows of ``rare_factor``'s rate spread; all rows
    when None).  ``within=True`` also prints the paper's own comparison: the largest gain,
    within one phase, of that phase's best chain over another chain."""
    m = _metric(metric)
    tab, labels = _phase_table(df, m, regime, rare_factor)
    if tab is None:
        return _claim(False, f"no rows of regime {regime} and rare factor {rare_factor}")
    chains = [k for k in CHAINS if k in tab]
    gain = max((max(tab[k][i] for k in chains) / max(min(tab[k][i] for k in chains), 1), i)
               for i in range(len(labels)))
    worst = (0.0, "", 0, 0)
    for i in range(len(labels)):
        best = min(chains, key=lambda k: tab[k][i])
        for j in range(len(labels)):
            if j != i:
                r = tab[best][j] / max(tab["tree"][j], 1)
                if r > worst[0]:
                    worst = (r, best, i, j)
    r, k, i, j = worst
    return _claim(r >= factor, f"{_spread_txt(rare_factor)}{regime or ''} {METRICS[m]}: "
                  f"largest gap: chain {k} (best in phase {i + 1}) is {_fmt(r)}x the tree in "
                  f"phase {j + 1}" + (f"; largest gain of a phase's best chain over another "
                                      f"chain in that phase {_fmt(gain[0])}x (phase "
                                      f"{gain[1] + 1})" if within else ""))


C_LATER = ("abc", "bac", "acb", "bca")     # chains with c second or third (observation 2)


def regime_search_table(df, lo: float = 0.8, hi: float = 1.25, tie: float = 1.05,
                        far: float | None = 10.0, near: float | None = 3.0,
                        named: str | None = None):
    """The calibration search for ``paper_regime``'s T (``calibrate_regime.toml``): per T of the
    grid, every statement the paper makes about the *chains'* ranking in Figure 7 (section 7,
    observations 2-4), checked on the seed means -- never a statement about the tree:

    * ``best`` (obs. 3), at every f_c: a c-first chain is the best chain, ties within ``tie`` x
      allowed (at f_c = 1 all orders converge);
    * ``named`` (obs. 4, "the best chain NFA (cab in our case)": the paper's description of its
      data), at every f_c: chain ``named`` is the best chain, ties within ``tie`` x; skipped
      when ``named`` is None;
    * ``cab~cba`` (obs. 3 and 4: c,a,b best, c,b,a close), at every f_c: c,a,b / c,b,a in
      [lo, hi];
    * ``obs3`` ("one to three orders of magnitude better"), at the smallest f_c: both c-first
      chains >= ``far`` x below every c-second / c-third chain (condition evaluations);
      skipped when ``far`` is None;
    * ``obs2`` (c-second / c-third chains "equally suboptimal ... just as with eager NFA"), at
      the smallest f_c, under the per-offer metric (operations): each of abc, bac, acb, bca
      within ``near`` x of eager; skipped when ``near`` is None or the table has no ``ops``
      columns.

    Each (statement, f_c) check counts once.  Returns ``(table, n_checks)``: one dict per T with
    ``held`` (checks held) and a text per statement."""
    chains = _chains_in(df)
    rows = []
    n_checks = 0
    for thr, d in df.groupby("threshold"):
        g = _mean_by_fc(d)
        lo_r = g.iloc[0]
        best_ok = 0
        named_ok = 0
        pair_ok = 0
        worst = 1.0
        for _, r in g.iterrows():
            best = min(r[f"evals_{k}"] for k in chains)
            ratio = r["evals_cab"] / max(r["evals_cba"], 1)
            best_ok += bool(min(r["evals_cab"], r["evals_cba"]) <= tie * best)
            if named is not None:
                named_ok += bool(r[f"evals_{named}"] <= tie * best)
            pair_ok += bool(lo <= ratio <= hi)
            worst = max(worst, ratio, 1 / max(ratio, 1e-12))
        held = best_ok + pair_ok + named_ok
        checks = (3 if named is not None else 2) * len(g)
        txt = {"best": f"c-first best {best_ok}/{len(g)}",
               "pair": f"cab/cba in [{lo:g}, {hi:g}] {pair_ok}/{len(g)} (worst cab/cba or inverse "
                       f"{_fmt(worst)}, "
                       + (f"s_ab={_fmt(g['sel_ab'].min())}, " if "sel_ab" in g.columns else "")
                       + f"s_bc={_fmt(g['sel_bc'].min())})"}
        if named is not None:
            txt["named"] = f"{named} best {named_ok}/{len(g)}"
        later = [k for k in C_LATER if k in chains]
        if far is not None and later:
            gap = min(lo_r[f"evals_{k}"] for k in later) / max(lo_r["evals_cab"],
                                                                lo_r["evals_cba"], 1)
            ok3 = gap >= far
            held += ok3
            checks += 1
            txt["obs3"] = f"obs3 {'yes' if ok3 else 'no'} (c-later/c-first {_fmt(gap)})"
        if near is not None and "ops_eager" in g.columns and later:
            e = max(lo_r["ops_eager"], 1)
            rat = [lo_r[f"ops_{k}"] / e for k in later]
            ok2 = all(1 / near <= x <= near for x in rat)
            held += ok2
            checks += 1
            txt["obs2"] = (f"obs2 {'yes' if ok2 else 'no'} (c-later/eager ops "
                           f"{_fmt(min(rat))}-{_fmt(max(rat))})")
        n_checks = max(n_checks, checks)
        rows.append({"T": float(thr), "held": held, "checks": checks, "txt": txt})
    return rows, n_checks


@_successful
def claim_calibrated_regime(df, lo: float = 0.8, hi: float = 1.25, tie: float = 1.05,
                            far: float | None = None, near: float | None = None,
                            named: str | None = None, **_) -> object:
    """The documented search for ``paper_regime``'s T (``regime_search_table``): the T whose
    chain ranking meets the most of the paper's (statement, f_c) checks, ties to the largest T
    (the most selective, closest to a realistic threshold); when some T meets every check this is
    the largest such T.  Passes when the pick equals ``workloads.debs15.REGIME_T
    ['paper_regime']``.  The measured text is the whole search table, largest T first."""
    from workloads.debs15 import REGIME_T
    rows, n_checks = regime_search_table(df, lo, hi, tie, far, near, named)
    top = max(r["held"] for r in rows)
    chosen = max(r["T"] for r in rows if r["held"] == top)
    full = any(r["held"] == r["checks"] == n_checks for r in rows)
    want = REGIME_T["paper_regime"]
    parts = [f"T={r['T']:g}: {r['held']}/{r['checks']} [" + "; ".join(r["txt"].values()) + "]"
             for r in sorted(rows, key=lambda r: -r["T"])]
    return _claim(bool(np.isclose(chosen, want)),
                  f"search picks T={chosen:g} ({top}/{n_checks} checks held; every check at some "
                  f"T: {'yes' if full else 'no'}), configured paper_regime T={want:g} | "
                  + " | ".join(parts))


@_successful
def claim_nasdaq_tree_is_cba(df, factor: float = 1.1, regime=None, metric: str = "evals",
                             **_) -> object:
    """NASDAQ sample, single tickers (not sectors), not counted as support for the tree claim:
    where count(b) < count(a) at (almost) every c arrival, the tree's {c} state routes to b,
    so its condition evaluations (take edges; routing is no condition) are within factor x those
    of chain c,b,a at every f_c."""
    m = _metric(metric)
    g = _mean_by_fc(_pick(df, regime, "nasdaq"))
    ok = len(g) > 0
    parts = []
    for fc, r in g.iterrows():
        ratio = r[f"{m}_tree"] / max(r[f"{m}_cba"], 1)   # routing is part of the offer (section 6)
        ok &= ratio <= factor
        best = min(_chains_in(df), key=lambda k: r[f"{m}_{k}"])
        txt = (f"f_c={fc:g}: b rarer at {_fmt(100 * r['frac_b_rarer'])}% of c arrivals, "
               f"tree/cba={_fmt(ratio)}, tree/{best}={_fmt(r[f'{m}_tree'] / max(r[f'{m}_{best}'], 1))}")
        if m == "evals":
            txt += (f", with routing as conditions "
                    f"{_fmt(r['evals_route_tree'] / max(r[f'evals_{best}'], 1))}")
        parts.append(txt)
    return _claim(ok, f"{regime or ''}{' ' + METRICS[m] if m != 'evals' else ''}: "
                  + "; ".join(parts))


def _sensitivity_table(df):
    """Mean over seeds per (f_c, threshold) point; ratios recomputed from mean evaluations."""
    chains = _chains_in(df)
    g = df.groupby(["f_c", "threshold"]).mean(numeric_only=True).reset_index()
    best = g[[f"evals_{k}" for k in chains]].min(axis=1).clip(lower=1)
    g["best_chain"] = [min(chains, key=lambda k: r[f"evals_{k}"]) for _, r in g.iterrows()]
    g["tree_over_best"] = g["evals_tree"] / best
    g["eager_over_best"] = g["evals_eager"] / best
    return g.sort_values(["f_c", "sel_min"])


@_successful
def claim_tree_near_best_when_unselective(df, factor: float = 1.1, min_selectivity: float = 0.9,
                                          **_) -> object:
    """SENSITIVITY: at every f_c, the tree needs <= factor x the best chain's condition
    evaluations at every point whose correlation conditions are unselective (measured
    ``sel_min`` >= min_selectivity); fails too when an f_c has no such point.  Also reports the
    crossover selectivity per f_c: the smallest measured selectivity from which on (upwards)
    every point has tree/best <= factor, and the log-interpolated selectivity at which
    tree/best crosses factor."""
    g = _sensitivity_table(df)
    ok = True
    parts = []
    for fc, d in g.groupby("f_c"):
        d = d.sort_values("sel_min")
        sel = d["sel_min"].to_numpy(float)
        rat = d["tree_over_best"].to_numpy(float)
        unsel = sel >= min_selectivity
        ok &= bool(unsel.any()) and bool((rat[unsel] <= factor).all())
        bad = np.flatnonzero(rat > factor)
        if len(bad) == 0:
            cross = f"<= {_fmt(sel[0])} (all points within)"
        elif bad[-1] == len(sel) - 1:
            cross = "none (even the least selective point exceeds it)"
        else:
            i = bad[-1]                      # last failing point; i+1 passes and so does all above
            s0, s1, r0, r1 = sel[i], sel[i + 1], rat[i], rat[i + 1]
            t = (np.log(r0) - np.log(factor)) / (np.log(r0) - np.log(r1))
            s_int = (float(np.exp(np.log(s0) + t * (np.log(s1) - np.log(s0)))) if s0 > 0
                     else float(s0 + t * (s1 - s0)))   # log-interpolate unless s0 == 0
            cross = f"{_fmt(s1)} (measured point), ~{_fmt(s_int)} (interpolated)"
        pts = ", ".join(f"T={r.threshold:g}: sel={_fmt(r.sel_min)} tree/{r.best_chain}="
                        f"{_fmt(r.tree_over_best)}" for r in d.itertuples())
        parts.append(f"f_c={fc:g}: crossover selectivity {cross}; worst where sel>="
                     f"{min_selectivity:g}: "
                     + (_fmt(rat[unsel].max()) if unsel.any() else "no such point")
                     + f" [{pts}]")
    return _claim(ok, " | ".join(parts))


# ----------------------------------------------------------------------------- section 7 observations
@_successful
def claim_eager_flat(df, spread: float = 2.0, metric: str = "evals", regime=None,
                     data: str | None = "synthetic", sequence: str | None = "a,b,c",
                     **_) -> object:
    """Figure 7, observation 1 ("Eager NFA shows the same, very poor performance for any value
    of f_c"): eager's ``metric`` per stream event varies by at most ``spread`` (max / min over
    f_c, means over seeds) and is at least each c-first chain's (the lazy NFAs the paper finds
    better) at every f_c below 1 ("very poor")."""
    m = _metric(metric)
    g = _mean_by_fc(_pick(df, regime, data, sequence))
    if g.empty:
        return _claim(False, f"no rows of regime {regime}")
    per = g[f"{m}_eager"] / g["n_stream_events"]
    chains = _chains_in(df)
    sp = float(per.max() / max(per.min(), 1e-12))
    ok = sp <= spread
    worst = []
    for fc, r in g.iterrows():
        if fc >= 1.0:
            continue
        top = max(r[f"{m}_{k}"] for k in chains if k[0] == "c")
        ok &= bool(r[f"{m}_eager"] >= top)
        worst.append(f"f_c={fc:g}: eager/worse c-first chain "
                     f"{_fmt(r[f'{m}_eager'] / max(top, 1))}")
    return _claim(ok and len(g) > 0,
                  f"{regime or ''} {METRICS[m]} per event, eager: "
                  + ", ".join(f"f_c={fc:g}: {_fmt(v)}" for fc, v in per.items())
                  + f" (max/min {_fmt(sp)}, check <= {spread:g}); " + "; ".join(worst)
                  + " (check >= 1 below f_c = 1)")


@_successful
def claim_order_independent(df, factor: float = 2.0, metric: str = "evals", regime=None,
                            seqs: tuple = ("c,b,a", "a,c,b"), **_) -> object:
    """Figure 8 ("the performance of any lazy NFA is independent of the sequence order"): for
    every lazy NFA (six chains, tree) and f_c, ``metric`` on sequence ``seqs[0]`` / on
    ``seqs[1]`` lies in [1/factor, factor] (means over seeds)."""
    m = _metric(metric)
    d = _pick(df, regime)
    g0, g1 = (_mean_by_fc(_pick(d, sequence=s)) for s in seqs)
    fcs = sorted(set(g0.index) & set(g1.index))
    if not fcs:
        return _claim(False, f"no f_c with both sequences {seqs} ({regime})")
    keys = [k for k in ALL_NFAS if k != "eager" and f"{m}_{k}" in d.columns]
    ok, worst = True, {}
    for k in keys:
        r = [float(g0.loc[fc, f"{m}_{k}"] / max(g1.loc[fc, f"{m}_{k}"], 1)) for fc in fcs]
        ok &= all(1.0 / factor <= x <= factor for x in r)
        worst[k] = max(r, key=lambda x: abs(np.log(max(x, 1e-12))))
    e = [float(g0.loc[fc, f"{m}_eager"] / max(g1.loc[fc, f"{m}_eager"], 1)) for fc in fcs]
    return _claim(ok, f"{regime or ''} {METRICS[m]}, {seqs[0]} / {seqs[1]} per NFA (the ratio "
                  f"furthest from 1 over f_c): " + ", ".join(f"{k} {_fmt(v)}" for k, v in
                                                             worst.items())
                  + f" (check in [1/{factor:g}, {factor:g}]); eager, the paper's exception: "
                  + ", ".join(f"f_c={fc:g}: {_fmt(x)}" for fc, x in zip(fcs, e)))


def _largest(df, regime):
    d = _pick(df, regime)
    return d[d["n_events"] == d["n_events"].max()] if not d.empty else d


def _peak(d, k: str) -> float:
    """Peak instances of NFA ``k``: the lazy NFAs' transient peak (``claim_peak_instances``),
    eager's after-event gauge."""
    col = f"peak_inst_transient_{k}"
    if k != "eager" and col in d.columns and (d[col] >= 0).all():
        return float(d[col].mean())
    return float(d[f"peak_inst_{k}"].mean())


@_successful
def claim_a_first_like_eager(df, lo: float = 0.5, hi: float = 2.0, regime=None,
                             **_) -> object:
    """Figure 9, observation 2: at the largest input the a-first chains' (abc, acb) peak
    instances lie within [lo, hi] x eager's."""
    d = _largest(df, regime)
    if d.empty:
        return _claim(False, f"no rows of regime {regime}")
    e = _peak(d, "eager")
    r = {k: _peak(d, k) / max(e, 1) for k in ("abc", "acb")}
    return _claim(all(lo <= x <= hi for x in r.values()),
                  f"{regime or ''} n_events={int(d['n_events'].iloc[0])}: eager peak {_fmt(e)}; "
                  + ", ".join(f"{k}/eager {_fmt(x)}" for k, x in r.items())
                  + f" (check in [{lo:g}, {hi:g}])")


@_successful
def claim_b_first_between(df, regime=None, **_) -> object:
    """Figure 9, observation 3: at the largest input each b-first chain's (bac, bca) peak
    instances lie strictly between the c-first chains' (cab, cba: the larger of the two) and
    the a-first chains' (abc, acb: the smaller)."""
    d = _largest(df, regime)
    if d.empty:
        return _claim(False, f"no rows of regime {regime}")
    p = {k: _peak(d, k) for k in ("abc", "acb", "bac", "bca", "cab", "cba")}
    low, high = max(p["cab"], p["cba"]), min(p["abc"], p["acb"])
    ok = all(low < p[k] < high for k in ("bac", "bca"))
    return _claim(ok, f"{regime or ''} n_events={int(d['n_events'].iloc[0])}: peak instances "
                  + ", ".join(f"{k} {_fmt(v)}" for k, v in p.items())
                  + " (check c-first < b-first < a-first)")


@_successful
def claim_buffered_identical(df, factor: float = 1.25, regime=None, **_) -> object:
    """Section 7 ("memory requirements for buffering of events are virtually identical for all
    NFA types"): at every point (means over seeds per point), the largest peak of buffered
    events over the NFAs is at most ``factor`` x the smallest.  Buffered events as the paper
    counts them: the lazy NFAs' input buffers, eager's match buffers (the distinct events its
    live instances hold; ``scenario._compare_all``).  The point with the largest spread is
    printed with every NFA's peak."""
    d = _pick(df, regime)
    keys = [k for k in ALL_NFAS if f"peak_buf_{k}" in d.columns]
    if d.empty or not keys:
        return _claim(False, f"no rows with buffered-event peaks ({regime})")
    by = [c for c in ("sequence", "f_c", "n_events") if c in d.columns and d[c].nunique() > 1]
    g = d.groupby(by).mean(numeric_only=True) if by else d.mean(numeric_only=True).to_frame().T
    worst, wkey, ok = 0.0, None, True
    for key, r in g.iterrows():
        v = [float(r[f"peak_buf_{k}"]) for k in keys]
        sp = max(v) / max(min(v), 1.0)
        ok &= sp <= factor
        if sp > worst:
            worst, wkey = sp, (key, r)
    key, r = wkey
    return _claim(ok, f"{regime or ''}: largest max/min of peak buffered events over the NFAs "
                  f"{_fmt(worst)} at {dict(zip(by, key if isinstance(key, tuple) else (key,)))}: "
                  + ", ".join(f"{k} {int(r[f'peak_buf_{k}'])}" for k in keys)
                  + f" (check <= {factor:g} at every point)")
