#!/usr/bin/env python3
"""Puts the last `make bench` table (Markdown, from Benchmarks/table.sh) into the README between
the `<!-- bench-table -->` and `<!-- /bench-table -->` markers.

A full run replaces the section. A partial run (`BENCH_SCRIPTS=...`, whose cases are a strict part
of the README table's) replaces only its own rows, in place, and marks them `[rN]` with a line
saying when and at which commit run N measured them; the other rows keep the figures of the run
they came from. A partial run whose columns differ (another baseline) is refused: one table would
mix two baselines.

usage: readme_table.py README.md TABLE.md
"""
import re
import sys

START, END = "<!-- bench-table -->", "<!-- /bench-table -->"
MARK = re.compile(r" \[r(\d+)\]$")
NOTE = re.compile(r"\[r(\d+)\] ")


def split(section):
    """(lines before the table, its header row, its rows) of a Markdown benchmark section."""
    lines = section.strip("\n").split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("| case |")), None)
    if first is None:
        return lines, None, []
    rows = [line for line in lines[first + 2:] if line.startswith("| ")]
    return lines[:first], lines[first], rows


def first_cell(row):
    return row.split(" | ")[0][2:]


def case(row):
    return MARK.sub("", first_cell(row))


def run_of(row):
    found = MARK.search(first_cell(row))
    return int(found.group(1)) if found else None


def merged(old_section, table):
    """The section to write: `table` whole, or the old section with `table`'s rows put in place."""
    old_intro, old_header, old_rows = split(old_section)
    new_intro, new_header, new_rows = split(table)
    new_cases = {case(row) for row in new_rows}
    if old_header is None or not new_cases or not new_cases < {case(row) for row in old_rows}:
        return table.strip("\n")  # a full run, or the first: the whole section is this run's
    if new_header != old_header:
        sys.exit(
            "readme_table: this partial run's columns differ from the README table's "
            f"({new_header!r} against {old_header!r}); run the full `make bench` instead"
        )
    run = max((r for r in map(run_of, old_rows) if r is not None), default=0) + 1
    by_case = {case(row): row for row in new_rows}
    rows = []
    for row in old_rows:
        name = case(row)
        if name in by_case:
            cells = by_case[name].split(" | ")
            cells[0] = f"| {name} [r{run}]"
            row = " | ".join(cells)
        rows.append(row)
    cited = {r for r in map(run_of, rows) if r is not None}
    # The full run's lines stay; an earlier partial run's note stays while a row still cites it.
    intro = [line for line in old_intro if not (m := NOTE.match(line)) or int(m.group(1)) in cited]
    while intro and intro[-1] == "":
        intro.pop()
    measured = " ".join(line for line in new_intro if line).replace("Measured ", "re-measured ", 1)
    intro += ["", f"[r{run}] {len(new_rows)} rows {measured}", ""]
    separator = "|" + "---|" * (old_header.count("|") - 1)
    return "\n".join(intro + [old_header, separator] + rows)


def main():
    readme_path, table_path = sys.argv[1], sys.argv[2]
    readme = open(readme_path, encoding="utf-8").read()
    table = open(table_path, encoding="utf-8").read()
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        sys.exit(f"{readme_path} has no {START} ... {END} section")
    section = merged(readme[start + len(START):end], table)
    whole = section == table.strip("\n")
    open(readme_path, "w", encoding="utf-8").write(
        readme[: start + len(START)] + "\n" + section + "\n" + readme[end:]
    )
    print(f"{readme_path}: benchmark table {'replaced' if whole else 'rows of this run put in'} from {table_path}")


if __name__ == "__main__":
    main()
