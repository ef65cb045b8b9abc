#!/usr/bin/env python3
"""Tests of Benchmarks/compare.py (run by `make test`): which figure of a row is compared, which
way is better, and when a case is flagged WORSE."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def compare(current, baseline):
    """Runs compare.py over rounds of rows; returns ({case: (baseline, versus)}, stdout)."""
    with tempfile.TemporaryDirectory() as work:
        for side, rounds in (("current", current), ("baseline", baseline)):
            for n, rows in enumerate(rounds, 1):
                with open(os.path.join(work, f"{side}-{n}.tsv"), "w", encoding="utf-8") as f:
                    f.writelines("\t".join(row) + "\n" for row in rows)
        out = os.path.join(work, "table.tsv")
        done = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), work, out, "0.1.0"],
                              check=True, capture_output=True, text=True)
        table = {}
        with open(out, encoding="utf-8") as f:
            for line in f:
                cells = line.rstrip("\n").split("\t")
                table[cells[0]] = (cells[6], cells[7])
        return table, done.stdout


def row(case, value, reference="-", ratio="-"):
    return [case, value, reference, ratio, "0", "-"]


class CompareTests(unittest.TestCase):
    def test_a_ratio_to_nginx_is_compared_not_the_raw_rate(self):
        table, out = compare([[row("h1", "90000 req/s", "nginx 60000 req/s", "1.50x")]],
                             [[row("h1", "50000 req/s", "nginx 25000 req/s", "2.00x")]])
        self.assertTrue(table["h1"][1].startswith("WORSE 0.75x (ratio to nginx"), table)
        self.assertIn("h1: 0.75x of 0.1.0", out)

    def test_seconds_are_better_lower_and_rates_better_higher(self):
        table, _ = compare([[row("day", "2.0 s (1 s CPU), 100 MB"), row("push", "120000 tokens/s")]],
                           [[row("day", "4.0 s (2 s CPU), 200 MB"), row("push", "100000 tokens/s")]])
        self.assertTrue(table["day"][1].startswith("2.00x (s,"), table)
        self.assertTrue(table["push"][1].startswith("1.20x (tokens/s,"), table)

    def test_a_drop_within_the_rounds_spread_is_not_flagged(self):
        table, out = compare([[row("x", "80 req/s")], [row("x", "120 req/s")]],
                             [[row("x", "110 req/s")], [row("x", "110 req/s")]])
        self.assertFalse(table["x"][1].startswith("WORSE"), table)
        self.assertIn("no case more than 10% worse", out)

    def test_a_drop_of_ten_percent_or_less_is_not_flagged(self):
        table, _ = compare([[row("x", "91 req/s")]], [[row("x", "100 req/s")]])
        self.assertTrue(table["x"][1].startswith("0.91x"), table)

    def test_a_difference_is_judged_as_a_share_of_its_whole(self):
        # 0.035 -> 0.18 us of a ~9 us request: 1.6% more a request, not flagged.
        table, out = compare([[row("line", "0.18 us of 9.16 us")]], [[row("line", "0.035 us of 9.30 us")]])
        self.assertTrue(table["line"][1].startswith("0.98x (us as a share of the whole"), table)
        self.assertIn("no case more than 10% worse", out)
        # 0.2 -> 2.5 us of a ~9 us request: a quarter more a request, flagged.
        table, out = compare([[row("line", "2.50 us of 9.50 us")]], [[row("line", "0.20 us of 9.00 us")]])
        self.assertTrue(table["line"][1].startswith("WORSE 0.75x (us as a share of the whole"), table)
        self.assertIn("line: 0.75x of 0.1.0", out)

    def test_cases_on_one_side_only_say_so(self):
        table, _ = compare([[row("new", "1 req/s")]], [[row("old", "1 s")]])
        self.assertEqual(table["new"], ("not measured (no such case in the baseline)", "-"))
        self.assertEqual(table["old"], ("1 s", "-"))


if __name__ == "__main__":
    unittest.main()
