"""PNG plots for the report: per group, grouped bars of each metric (median, whiskers from min to max), and
for a group whose rows carry series over time, a second plot of those.

matplotlib runs on the Agg backend (no display); it is imported only when plots are drawn so the
results and report code stay importable without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bench import report
from bench.catalog import GROUP_NAMES, group_title
from bench.results import BenchmarkResult, Metric, ResultsFile, Status

MAX_METRICS_PER_PLOT = 2


def plot_series(entries: list[BenchmarkResult], metric: str, results: ResultsFile) -> dict[str, list[Metric | None]]:
    """For one metric: series label -> one Metric (or None) per entry, in entry order.

    Rows of the entry itself come first; rows borrowed from other benchmarks through a comparison
    (the raw producer limit in the source table) join under their comparison label.
    """
    series: dict[str, list[Metric | None]] = {}
    for position, entry in enumerate(entries):
        rows = {row.label: row for row in entry.systems.values() if row.status is Status.MEASURED}
        for reference in entry.comparisons:
            if reference.benchmark is None or reference.label in rows:
                continue
            other = results.benchmarks.get(reference.benchmark)
            borrowed = other.systems.get(reference.system) if other else None
            if borrowed is not None and borrowed.status is Status.MEASURED:
                rows[reference.label] = borrowed
        for label, row in rows.items():
            found = row.metrics.get(metric)
            if found is None:
                continue
            series.setdefault(label, [None] * len(entries))[position] = found
    return series


LOG_SCALE_SPREAD = 100.0
"""An axis whose tallest bar is this many times its shortest is drawn on a log scale."""


def _bar_value(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _tick(value: float, _: int) -> str:
    # One format per axis reads better than report.format_number's magnitude-dependent decimals.
    return f"{value:,.0f}" if abs(value) >= 10 or value == 0 else f"{value:g}"


def draw_group(group: str, entries: list[BenchmarkResult], results: ResultsFile, target: Path) -> bool:
    """Draw `target`; False (and no file) when the group has nothing measured to plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    metrics = [m for m in entries[0].metrics_order if plot_series(entries, m, results)][:MAX_METRICS_PER_PLOT]
    if not metrics:
        return False
    # Tables of other shapes in the group (1 vs 4 tasks next to plain throughput) stay in their tables.
    entries = [entry for entry in entries if set(metrics) <= set(entry.metrics_order)]
    figure, axes = plt.subplots(1, len(metrics), figsize=(6.0 * len(metrics), 5.0), squeeze=False)
    any_bound = False
    for axis, metric in zip(axes[0], metrics, strict=True):
        series = plot_series(entries, metric, results)
        width = 0.8 / len(series)
        unit = ""
        drawn = []
        for index, (label, values) in enumerate(series.items()):
            xs, heights, low, high, bounded = [], [], [], [], []
            for position, found in enumerate(values):
                if found is None:
                    continue
                summary = found.summary
                unit = found.unit
                xs.append(position + (index - (len(series) - 1) / 2) * width)
                heights.append(summary.median)
                low.append(summary.median - summary.minimum)
                high.append(summary.maximum - summary.median)
                bounded.append(found.at_least)
            # Whiskers only where there were repetitions to spread.
            spread = any(low) or any(high)
            bars = axis.bar(xs, heights, width, yerr=[low, high] if spread else None, capsize=3, label=label)
            drawn.append((bars, heights))
            for patch, at_least in zip(bars.patches, bounded, strict=True):
                if at_least:
                    patch.set_hatch("//")
                    any_bound = True
        axis.set_xticks(range(len(entries)), [entry.short for entry in entries], fontsize=8)
        title = report.metric_name(metric)
        positive = [height for _, heights in drawn for height in heights if height > 0]
        if positive and max(positive) >= LOG_SCALE_SPREAD * min(positive):
            # On a linear axis a bar 100 times shorter than the tallest is invisible: log scale, values written.
            axis.set_yscale("log")
            title += ", log scale"
            for bars, heights in drawn:
                axis.bar_label(bars, [_bar_value(height) for height in heights], fontsize=7, padding=2)
        axis.set_title(title, fontsize=10)
        axis.yaxis.set_major_formatter(ticker.FuncFormatter(_tick))
        axis.set_ylabel(unit)
        axis.grid(axis="y", alpha=0.3)
        # Below the axes: inside, it covers the tallest bars whatever corner it takes.
        axis.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), frameon=False)
    title = group_title(group) + (" (hatched: lower bound, the wait was cut off)" if any_bound else "")
    figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    target.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(target, dpi=100)
    plt.close(figure)
    return True


# Series over time, stored as metrics no table shows (the rebalance group's throughput around a join): x values,
# lines over them, and vertical marks, each named after what follows the prefix.
SERIES_X = "series_t_s"
SERIES_LINE = "series_line_"
SERIES_MARK = "series_mark_"


def draw_timeline(group: str, entries: list[BenchmarkResult], target: Path) -> bool:
    """One panel per measured row that carries series, lines over time with its marks; False (no file) if none."""
    rows = [row for entry in entries for row in entry.systems.values() if row.status is Status.MEASURED]
    rows = [row for row in rows if SERIES_X in row.metrics]
    if not rows:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(len(rows), 1, figsize=(10.0, 2.8 * len(rows)), sharex=True, squeeze=False)
    for axis, row in zip(axes[:, 0], rows, strict=True):
        xs = row.metrics[SERIES_X].samples
        unit = ""
        for name, metric in row.metrics.items():
            label = name.removeprefix(SERIES_LINE).removeprefix(SERIES_MARK).replace("_", " ")
            if name.startswith(SERIES_LINE) and len(metric.samples) == len(xs):
                axis.plot(xs, metric.samples, label=label, drawstyle="steps-mid", linewidth=1.2)
                unit = metric.unit
            elif name.startswith(SERIES_MARK):
                for at in metric.samples:
                    axis.axvline(at, linestyle="--", linewidth=0.9, color="grey")
                    axis.annotate(
                        label,
                        (at, 1.0),
                        xycoords=("data", "axes fraction"),
                        fontsize=7,
                        rotation=90,
                        va="top",
                        ha="right",
                    )
        axis.set_title(row.label, fontsize=9)
        axis.set_ylabel(unit, fontsize=8)
        axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7, loc="lower left")
    axes[-1, 0].set_xlabel("seconds from the start of the new worker's process", fontsize=8)
    figure.suptitle(group_title(group) + ": per 0.5 s window", fontsize=11)
    figure.tight_layout()
    target.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(target, dpi=100)
    plt.close(figure)
    return True


def draw_all(results: ResultsFile, directory: Path, relative_to: Path) -> Mapping[str, str]:
    """Plot every group with measurements into `directory`; group -> path relative to `relative_to`."""
    by_group: dict[str, list[BenchmarkResult]] = {}
    for entry in results.ordered(GROUP_NAMES):
        by_group.setdefault(entry.group, []).append(entry)
    written: dict[str, str] = {}
    for group, entries in by_group.items():
        target = directory / f"{group}.png"
        if draw_group(group, entries, results, target):
            written[group] = target.relative_to(relative_to).as_posix()
        else:
            target.unlink(missing_ok=True)
        timeline = directory / f"{group}{report.TIMELINE_SUFFIX}.png"
        if draw_timeline(group, entries, timeline):
            written[f"{group}{report.TIMELINE_SUFFIX}"] = timeline.relative_to(relative_to).as_posix()
        else:
            timeline.unlink(missing_ok=True)
    return written
