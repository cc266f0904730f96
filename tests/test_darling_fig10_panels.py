"""DARLING Fig. 10 (PVLDB'22 §5.2, "with no dropping of events") on the stock and bus stand-ins:

* each ``fig10_{stock,bus}_*`` config runs the query, stream, windows / thresholds / lengths
  and scales of its Figs. 6-8 panel (``fig678_{stock,bus}_*``), every method of that panel plus
  the no-shedding queue, no peak, and every shedder with an unbounded latency target;
* ``seeds_bus`` (Section 5.1's seed spread on the bus panels) runs the bus window panel's query,
  stream and Lmax reference at two of its windows, DARLING only;
* on a small stock and bus point under a peak that makes every shedder drop when it has a
  latency target, the unbounded target makes every shedder drop nothing: no event, no partial
  match, no pair skipped, every no-shedding match found, and DARLING's matches the no-shedding
  queue's.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sim.experiments.config import apply_scale, expand_points, load_config
from sim.studies.darling import scenario as D
from sim.studies.darling.claims import dropped_per_method

REPO = Path(__file__).resolve().parents[1]
EXP = REPO / "experiments" / "darling"

#: Fig. 10 panel -> the Figs. 6-8 panel whose query, stream and x-axis it runs
PAIRS = {
    "fig10_stock_nodrop": "fig678_stock_window",
    "fig10_stock_pms": "fig678_stock_pms",
    "fig10_stock_length": "fig678_stock_length",
    "fig10_bus_nodrop": "fig678_bus_window",
    "fig10_bus_pms": "fig678_bus_pms",
    "fig10_bus_length": "fig678_bus_length",
}
#: the parameters that fix a point's stream, query and Lmax reference
SAME = ("query", "window_ms", "length", "ref_length", "synth_seed", "n_events", "warm_frac",
        "ref_window_ms", "beta")
#: the knobs of the panels' x-axes
KNOBS = ("window_ms", "b_threshold", "length")


def _values(points, key):
    return sorted({p.params[key] for p in points if key in p.params})


@pytest.mark.parametrize("fig10, fig678", sorted(PAIRS.items()))
def test_fig10_panel_runs_its_fig678_panels_points(fig10, fig678):
    a = load_config(EXP / f"{fig10}.toml")
    b = load_config(EXP / f"{fig678}.toml")
    for scale in ("quick", "full"):
        pa = expand_points(apply_scale(a, scale))
        pb = expand_points(apply_scale(b, scale))
        for key in SAME + KNOBS + ("arrival_seed",):
            assert _values(pa, key) == _values(pb, key), (fig10, scale, key)
        assert _values(pa, "method") == sorted(set(_values(pb, "method")) | {"none"})
        assert _values(pa, "shape") == ["none"]
        assert _values(pa, "latency_target") == ["unbounded"]
    for c in a.claims:
        assert c.fn == "darling:claim_nodrop_overhead" and c.kind == "paper"
        assert c.quote.startswith("The results depicted in Figure 10 show that DARLING")


def test_seeds_bus_runs_the_bus_window_panels_query():
    a = load_config(EXP / "seeds_bus.toml")
    b = load_config(EXP / "fig678_bus_window.toml")
    for scale in ("quick", "full"):
        pa = expand_points(apply_scale(a, scale))
        pb = expand_points(apply_scale(b, scale))
        for key in ("query", "length", "synth_seed", "n_events", "warm_frac", "ref_window_ms",
                    "beta", "n_in_target"):
            assert _values(pa, key) == _values(pb, key), (scale, key)
        full_windows = _values(expand_points(apply_scale(b, "full")), "window_ms")
        assert set(_values(pa, "window_ms")) <= set(full_windows)
        assert "arrival_seed" not in a.params    # the arrivals follow each repetition's seed
        assert _values(pa, "method") == ["darling"] and _values(pa, "shape") == ["testbed"]
        assert len({p.seed for p in pa}) == len(pa)       # every repetition its own arrivals
    assert [c.fn for c in a.claims] == ["darling:claim_seed_spread"]


SMALL = {
    "stock": dict(query="sq1", length=3, window_ms=900000, ref_window_ms=900000,
                  n_events=2000, synth_seed=1),
    "bus": dict(query="bq1", length=3, window_ms=120000, ref_window_ms=120000,
                n_events=2000, synth_seed=1),
}
SHEDDERS = ("darling", "random_input", "random_pm", "espice", "hspice", "icde20")


def _rows(data: str, target: str) -> pd.DataFrame:
    base = dict(SMALL[data], warm_frac=0.2, shape="testbed", peak_factor=3.0, n_in_target=20,
                beta=0.8, arrival_seed=1, latency_target=target)
    return pd.DataFrame([dict(D.point(dict(base, method=m), seed=7), method=m)
                         for m in ("none",) + SHEDDERS])


@pytest.mark.parametrize("data", ["stock", "bus"])
def test_unbounded_target_drops_nothing_where_a_bounded_one_sheds(data):
    bounded = dropped_per_method(_rows(data, "bounded"))
    # the load is heavy enough that every shedder drops with a latency target (N_in ~ 20)
    assert all(bounded[m] > 0 for m in SHEDDERS), bounded
    assert bounded["none"] == 0
    rows = _rows(data, "unbounded")
    assert dropped_per_method(rows) == {m: 0 for m in ("none",) + SHEDDERS}
    assert (rows["matches_over_cap"] == 0).all()
    assert (rows["kept"] == rows["m0"]).all() and (rows["m0"] > 0).all()
    lat = rows.set_index("method")["latency_mean"]
    # eSPICE / hSPICE pay the replicated windows on top of the same matching work
    assert lat["espice"] >= lat["none"] and lat["hspice"] >= lat["none"]


def test_peak_layouts_share_section_5_1s_load():
    """Section 5.1: 70 % of the post-warm-up data in peaks, 30 % between them.  Four peaks are
    the paper's 30/10/20/10 % at the authors' starts; other counts split the same shares
    evenly, each peak after its gap; a count below 1 or on the testbed shape is refused."""
    from engines.errors import CepsimInputError
    from sim.studies.darling.scenario import PEAKS, overload_segments, peak_layout
    assert peak_layout(4) == PEAKS
    for k in (1, 2, 3, 8):
        lay = peak_layout(k)
        assert len(lay) == k
        assert sum(ln for _, ln in lay) == pytest.approx(0.7)
        ends = [0.0] + [s + ln for s, ln in lay]
        gaps = [s - e for (s, _), e in zip(lay, ends)]
        assert gaps == pytest.approx([0.3 / k] * k) and ends[-1] == pytest.approx(1.0)
    # two peaks, 10 % warm-up: 0.9 x (0.15 lull, 0.35 peak, 0.15 lull, 0.35 peak)
    segs = overload_segments(100, 10, 1.0, "peaks", 1000.0, 0.7, n_peaks=2)
    assert [f for f, _ in segs] == pytest.approx([0.1, 0.135, 0.315, 0.135, 0.315])
    assert [r for _, r in segs] == [1.0, 1.0, 1000.0, 1.0, 1000.0]
    with pytest.raises(CepsimInputError, match="n_peaks"):
        peak_layout(0)
    with pytest.raises(CepsimInputError, match="n_peaks"):
        overload_segments(100, 10, 1.0, "testbed", 3.0, 0.7, n_peaks=2)


def test_peak_count_needs_the_peaks_shape_before_any_run():
    from engines.errors import CepsimInputError
    from sim.studies.darling.scenario import point
    with pytest.raises(CepsimInputError, match="n_peaks = 2 needs shape = 'peaks'"):
        point.check_params({"shape": "testbed", "n_peaks": 2})
    point.check_params({"shape": "testbed"})
    point.check_params({"shape": "peaks", "n_peaks": 8})
