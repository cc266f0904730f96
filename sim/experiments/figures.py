"""Shared figure helpers: headless backend, byte-stable saving, a generic line plot.

``save`` strips every time/version stamp matplotlib would embed (PNG ``Software``, PDF
``Creator``/``Producer``/``CreationDate``), so redrawing the same results gives the same bytes.
"""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.scale as mscale  # noqa: E402
from matplotlib.ticker import LogFormatterSciNotation, LogLocator  # noqa: E402

from sim.atomic import atomic_write  # noqa: E402
from sim.experiments.results import ok_rows, overloaded  # noqa: E402  (the row filters)


_SUPERSCRIPT = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077"
                                            "\u2078\u2079\u207b")
_MATH_LABEL = re.compile(r"^\$\\mathdefault\{(-?)([0-9.]+)(?:\\times([0-9]+))?(?:\^\{(-?[0-9]+)\})?\}\$$")


class _PlainLogFormatter(LogFormatterSciNotation):
    """matplotlib's log tick labels (``10^{3}``, ``2\\times10^{-1}``, ``0.5``) as plain text with
    Unicode superscripts (10³, 2×10⁻¹, 0.5) instead of math text.  Same labels at the same
    ticks; math text costs a pyparsing parse per (label, dpi) and glyph-by-glyph layout, plain
    text one FreeType call.  Anything it does not recognise is left as matplotlib wrote it."""

    def __call__(self, x, pos=None) -> str:
        label = super().__call__(x, pos)
        m = _MATH_LABEL.match(label)
        if m is None:
            return label
        sign, coeff, base, exp = m.groups()
        minus = "\u2212" if matplotlib.rcParams["axes.unicode_minus"] else "-"
        sign = minus if sign else ""
        if exp is None:                       # a plain number (|exponent| < min_exponent)
            return sign + coeff if base is None else label
        if base is None:                      # base^exp: coeff holds the base
            return sign + coeff + exp.translate(_SUPERSCRIPT)
        return sign + coeff + "\u00d7" + base + exp.translate(_SUPERSCRIPT)


class _LogScale(mscale.LogScale):
    """The log scale with minor ticks at 2x and 5x each power only (matplotlib puts them at
    2x..9x).  Ticks dominate the drawing time of our log-log figures: every tick is a handful of
    artists laid out by ``tight_layout`` and drawn once per file, and with 2x..9x a multi-panel
    figure carries ~100 ticks per axes.  2x and 5x keep the minor grid readable at 40-45 % less
    drawing time (DEBS'15 Figure 8: 9.1 -> 5.2 s of CPU per draw)."""

    name = "log"

    if hasattr(mscale, "_scale_has_axis_parameter"):
        # matplotlib >= 3.11 registers scales without the (pending-deprecated) axis argument
        def __init__(self, *, base=10, subs=None, nonpositive="clip") -> None:
            super().__init__(None, base=base, subs=subs, nonpositive=nonpositive)

    def set_default_locators_and_formatters(self, axis) -> None:
        super().set_default_locators_and_formatters(axis)
        axis.set_minor_locator(LogLocator(self.base, subs=(2.0, 5.0)))
        axis.set_major_formatter(_PlainLogFormatter(self.base))
        axis.set_minor_formatter(_PlainLogFormatter(self.base, labelOnlyBase=(self.subs is not None)))


mscale.register_scale(_LogScale)   # figures are drawn only through this module's imports

SAVE_DPI = 150
# Figures are created at the PNG's dpi so that ``tight_layout``, the PNG draw and the figure
# share one Agg renderer (matplotlib keys its renderer on width, height and dpi) and with it the
# per-renderer cache of text extents: the tick labels measured for the layout are not measured
# again for the PNG.  Sizes are in inches and points, so the output does not depend on it.
matplotlib.rcParams["figure.dpi"] = SAVE_DPI


PNG_METADATA = {"Software": None}
PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None}


def _atomic_savefig(fig, path: Path, **kw) -> None:
    atomic_write(path, lambda tmp: fig.savefig(tmp, **kw))


def save(fig, out_base: Path | str, dpi: int = SAVE_DPI) -> list[Path]:
    """Save ``fig`` as ``<out_base>.png`` and ``.pdf`` with deterministic bytes; close it."""
    out_base = Path(out_base)
    if out_base.suffix.lower() in (".png", ".pdf"):
        out_base = out_base.with_suffix("")
    # append, not with_suffix: a variant base such as ``fig@params.n=40`` contains dots
    png = out_base.parent / (out_base.name + ".png")
    pdf = out_base.parent / (out_base.name + ".pdf")
    with matplotlib.rc_context({"svg.hashsalt": "cepsim", "pdf.compression": 6}):
        _atomic_savefig(fig, png, format="png", dpi=dpi, metadata=PNG_METADATA)
        _atomic_savefig(fig, pdf, format="pdf", metadata=PDF_METADATA)
    plt.close(fig)
    return [png, pdf]


def mark_overloaded(ax, df, x: str, y: str, hue: str | None = None) -> int:
    """Cross out the (x, mean y) points where any repetition was overloaded; add a note.

    An overloaded point's mean latency grows with the stream length, so it is not comparable
    with the others.  Returns the number of marked points."""
    bad = overloaded(df)
    if bad.empty:
        return 0
    d = ok_rows(df)
    keys = [hue, x] if hue else [x]
    means = d.groupby(keys)[y].mean()
    marked = 0
    for k in bad.groupby(keys).size().index:
        ax.plot([k[-1] if hue else k], [means.loc[k]], marker="x", color="red", markersize=9,
                linestyle="none", zorder=5,
                label="overloaded (offered load >= 1)" if marked == 0 else None)
        marked += 1
    return marked


def _label_log_x(ax, values) -> None:
    """On a log x axis spanning few decades matplotlib labels the minor ticks too, and the labels
    overlap; label the grid's own x values instead (when there are few of them)."""
    from matplotlib.ticker import NullFormatter

    xs = sorted({float(v) for v in values.dropna() if float(v) > 0})
    if 0 < len(xs) <= 12:
        ax.set_xticks(xs, [f"{v:g}" for v in xs])
        ax.xaxis.set_minor_formatter(NullFormatter())


def line_plot(df, out_base: Path, x: str, y: str, hue: str | None = None, xlabel: str | None = None,
              ylabel: str | None = None, title: str | None = None, logx: bool = False,
              logy: bool = False) -> list[Path]:
    """Mean of ``y`` over repetitions vs ``x``, one line per ``hue`` value; overloaded points
    (a ``stable`` column that is False) are crossed out in red."""
    d = ok_rows(df)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    groups = [(None, d)] if hue is None else sorted(d.groupby(hue), key=lambda g: str(g[0]))
    for key, g in groups:
        m = g.groupby(x, sort=True)[y].mean()
        ax.plot(m.index.to_numpy(), m.to_numpy(), marker="o",
                label=None if key is None else f"{hue}={key}")
    marked = mark_overloaded(ax, d, x, y, hue)
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if logx:
        ax.set_xscale("log")
        _label_log_x(ax, d[x])
    if logy:
        ax.set_yscale("log")
    if hue is not None or marked:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out_base)
