#!/usr/bin/env python3
"""Puts the last `make bench` table (Markdown, from Benchmarks/table.sh) into the README between
the `<!-- bench-table -->` and `<!-- /bench-table -->` markers.

usage: readme_table.py README.md TABLE.md
"""
import sys

START, END = "<!-- bench-table -->", "<!-- /bench-table -->"

def main():
    readme_path, table_path = sys.argv[1], sys.argv[2]
    readme = open(readme_path, encoding="utf-8").read()
    table = open(table_path, encoding="utf-8").read().strip()
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        sys.exit(f"{readme_path} has no {START} ... {END} section")
    updated = readme[: start + len(START)] + "\n" + table + "\n" + readme[end:]
    open(readme_path, "w", encoding="utf-8").write(updated)
    print(f"{readme_path}: benchmark table replaced from {table_path}")

main()
