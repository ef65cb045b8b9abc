#!/usr/bin/env python3
"""Tests of Benchmarks/readme_table.py (run by `make test`): a full run replaces the README's
benchmark section, a partial run (BENCH_SCRIPTS) replaces only its rows and says when it measured
them, and a partial run against another baseline is refused."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = "| case | lerix-mock | reference | ratio | errors | target | 48b6e0c | vs baseline |"


def section(measured, rows, header=HEADER):
    lines = [measured, "Linux; load average after the run: 1.00 1.00 1.00.", "", header, "|---|---|---|---|---|---|---|---|"]
    return "\n".join(lines + [f"| {case} | {figure} | - | - | 0 | - | {base} | {versus} |" for case, figure, base, versus in rows])


FULL = section(
    "Measured 2026-12-01 10:00 UTC at commit `aaaaaaa` on a CPU, 2 cores, 24 GiB RAM,",
    [("fleet day", "2.5 s", "3.0 s", "1.20x"), ("h1-200", "70k req/s", "1.3x", "1.01x"), ("push fan-out", "140k/s", "169k/s", "WORSE 0.83x")],
)


def put(readme_section, table):
    """Runs readme_table.py on a README holding `readme_section`; returns (exit code, README, stderr)."""
    with tempfile.TemporaryDirectory() as work:
        readme, markdown = os.path.join(work, "README.md"), os.path.join(work, "table.md")
        with open(readme, "w", encoding="utf-8") as f:
            f.write(f"# x\n\n<!-- bench-table -->\n{readme_section}\n<!-- /bench-table -->\n\nafter\n")
        with open(markdown, "w", encoding="utf-8") as f:
            f.write(table + "\n")
        done = subprocess.run([sys.executable, os.path.join(HERE, "readme_table.py"), readme, markdown],
                              capture_output=True, text=True)
        with open(readme, encoding="utf-8") as f:
            return done.returncode, f.read(), done.stderr


class ReadmeTableTests(unittest.TestCase):
    def test_a_full_run_replaces_the_section(self):
        code, readme, _ = put(FULL, FULL.replace("2.5 s", "1.9 s"))
        self.assertEqual(code, 0)
        self.assertIn("| fleet day | 1.9 s |", readme)
        self.assertNotIn("[r", readme)
        self.assertTrue(readme.endswith("<!-- /bench-table -->\n\nafter\n"))

    def test_a_partial_run_replaces_only_its_rows_and_says_when(self):
        partial = section("Measured 2026-12-07 18:10 UTC at commit `bbbbbbb` on a CPU, 2 cores, 24 GiB RAM,",
                          [("fleet day", "1.5 s", "3.0 s", "2.00x"), ("push fan-out", "160k/s", "165k/s", "0.97x")])
        code, readme, _ = put(FULL, partial)
        self.assertEqual(code, 0)
        self.assertIn("| fleet day [r1] | 1.5 s | - | - | 0 | - | 3.0 s | 2.00x |", readme)
        self.assertIn("| h1-200 | 70k req/s |", readme)  # not in the partial run: kept as it was
        self.assertIn("| push fan-out [r1] | 160k/s |", readme)
        self.assertIn("Measured 2026-12-01 10:00 UTC at commit `aaaaaaa`", readme)
        self.assertIn("[r1] 2 rows re-measured 2026-12-07 18:10 UTC at commit `bbbbbbb`", readme)
        order = [readme.index(name) for name in ("| fleet day", "| h1-200", "| push fan-out")]
        self.assertEqual(order, sorted(order))

        # A second partial run: its own mark; the first run's note stays while a row cites it.
        again = section("Measured 2026-12-08 09:00 UTC at commit `ccccccc` on a CPU, 2 cores, 24 GiB RAM,",
                        [("fleet day", "1.4 s", "3.0 s", "2.14x")])
        start, end = readme.index("<!-- bench-table -->\n") + 21, readme.index("\n<!-- /bench-table -->")
        code, twice, _ = put(readme[start:end], again)
        self.assertEqual(code, 0)
        self.assertIn("| fleet day [r2] | 1.4 s |", twice)
        self.assertIn("| push fan-out [r1] | 160k/s |", twice)
        self.assertIn("[r1] 2 rows re-measured", twice)
        self.assertIn("[r2] 1 rows re-measured 2026-12-08 09:00 UTC", twice)

    def test_a_partial_run_against_another_baseline_is_refused(self):
        other = section("Measured 2026-12-07 18:10 UTC at commit `bbbbbbb` on a CPU,", [("fleet day", "1.5 s", "2.0 s", "1.33x")],
                        header=HEADER.replace("48b6e0c", "0.1.0 (ddb673a)"))
        code, readme, err = put(FULL, other)
        self.assertNotEqual(code, 0)
        self.assertIn("columns differ", err)
        self.assertIn("| fleet day | 2.5 s |", readme)  # nothing written


if __name__ == "__main__":
    unittest.main()
