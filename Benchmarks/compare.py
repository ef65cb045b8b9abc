#!/usr/bin/env python3
"""Puts each benchmark row beside the baseline's, for `make bench`.

Every bench script ran alternately with the baseline's binary and this tree's, ROUNDS times, each
run writing its bench_row lines (case, value, reference, ratio, errors, target) to its own TSV:
DIR/current-N.tsv and DIR/baseline-N.tsv. This writes one table TSV with two more columns,
the baseline's figure and this tree's figure against it, and flags a case more than 10% worse
than the baseline beyond the spread of its rounds.

What is compared in a row: its ratio when the reference was measured in the same run (nginx),
since that cancels the machine's load; otherwise the first number of the value, where a unit
with "/s" is better higher and any other (s, ms, MB, bytes) better lower. A value "D unit of W
unit" is a difference D taken out of a whole W (the log line's CPU, logged minus quiet, of a
request's CPU): D is small beside the noise of the two figures it comes from, so the growth of D is
judged as a share of W (0.035 -> 0.18 us of a 9 us request is 1.6% more a request, not 5x).

usage: compare.py DIR OUT.tsv BASELINE-LABEL
"""
import glob
import os
import re
import statistics
import sys

THRESHOLD = 0.10
NUMBER = re.compile(r"(-?\d+(?:\.\d+)?)\s*([^\s,();]*)")
PART_OF_WHOLE = re.compile(r"(-?\d+(?:\.\d+)?) (\S+) of (\d+(?:\.\d+)?) \2")


def rows(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if len(cells) >= 5:
                yield cells + ["-"] * (6 - len(cells))


def part_of_whole(cells):
    """(difference, whole) for a row whose value is "D unit of W unit", else None."""
    match = PART_OF_WHOLE.match(cells[1])
    return (float(match.group(1)), float(match.group(3))) if match else None


def versus_part_of_whole(mine, theirs):
    """A difference row against the baseline's: its growth as a share of the whole."""
    whole = statistics.median(w for _, w in mine + theirs)
    if not whole:
        return 1.0, 0.0
    grown = statistics.median(d for d, _ in mine) - statistics.median(d for d, _ in theirs)
    middle = lambda side: statistics.median(d for d, _ in side)
    noise = max(max(abs(d - middle(side)) for d, _ in side) for side in (mine, theirs)) / whole
    return 1 - grown / whole, noise


def figure(cells):
    """(number, higher_is_better, what) for a row, or None when it has nothing to compare."""
    _, value, reference, ratio, _, _ = cells[:6]
    ratio_match = re.fullmatch(r"(\d+(?:\.\d+)?)x", ratio.strip())
    if ratio_match and "nginx" in reference:
        return float(ratio_match.group(1)), True, "ratio to nginx"
    match = NUMBER.search(value)
    if not match:
        return None
    unit = match.group(2)
    return float(match.group(1)), "/s" in unit, unit or "value"


def load(directory, side):
    """case -> list of (cells, figure) over the rounds, in first-seen order."""
    table = {}
    for path in sorted(glob.glob(os.path.join(directory, f"{side}-*.tsv"))):
        for cells in rows(path):
            table.setdefault(cells[0], []).append((cells, figure(cells)))
    return table


def spread(values):
    """Largest relative distance of a round from the median, 0 with one round."""
    if len(values) < 2:
        return 0.0
    middle = statistics.median(values)
    return max(abs(v - middle) for v in values) / middle if middle else 0.0


def main():
    directory, out, label = sys.argv[1], sys.argv[2], sys.argv[3]
    current, baseline = load(directory, "current"), load(directory, "baseline")
    flagged = []
    with open(out, "w", encoding="utf-8") as f:
        for case, runs in current.items():
            cells = runs[-1][0][:6]
            figures = [fig for _, fig in runs if fig]
            base_runs = baseline.get(case, [])
            base_figures = [fig for _, fig in base_runs if fig]
            if not base_runs:
                base_text, versus = "not measured (no such case in the baseline)", "-"
            elif not figures or not base_figures:
                base_text, versus = base_runs[-1][0][1], "-"
            else:
                higher = figures[0][1]
                mine = statistics.median(v for v, _, _ in figures)
                theirs = statistics.median(v for v, _, _ in base_figures)
                what = figures[0][2]
                base_text = f"{base_runs[-1][0][1]}" if what != "ratio to nginx" else f"{base_runs[-1][0][3]} to nginx"
                parts = [p for p in (part_of_whole(c) for c, _ in runs) if p]
                base_parts = [p for p in (part_of_whole(c) for c, _ in base_runs) if p]
                rounds = min(len(figures), len(base_figures))
                if parts and base_parts:
                    better, noise = versus_part_of_whole(parts, base_parts)
                    what = f"{what} as a share of the whole"
                elif theirs == 0 or mine == 0:
                    better = None
                else:
                    better = mine / theirs if higher else theirs / mine
                    noise = max(spread([v for v, _, _ in figures]), spread([v for v, _, _ in base_figures]))
                if better is None:
                    versus = "-"
                else:
                    versus = f"{better:.2f}x ({what}, {rounds} round{'s' if rounds != 1 else ''}, spread {noise * 100:.0f}%)"
                    if better < 1 - THRESHOLD and (1 - better) > noise:
                        versus = "WORSE " + versus
                        flagged.append(f"{case}: {better:.2f}x of {label}")
            f.write("\t".join(cells + [base_text, versus]) + "\n")
        for case, base_runs in baseline.items():
            if case not in current:
                f.write("\t".join([case, "not measured (gone from this tree)", "-", "-", "-", "-", base_runs[-1][0][1], "-"]) + "\n")
    if flagged:
        print(f"more than {THRESHOLD * 100:.0f}% worse than the baseline {label}, beyond the rounds' spread:")
        for line in flagged:
            print(f"  {line}")
    else:
        print(f"no case more than {THRESHOLD * 100:.0f}% worse than the baseline {label} beyond its spread")


main()
