#!/usr/bin/env python3
"""The explore mutation score: each deliberate bug of Tests/Explore/web-mutants.json is put
into a temporary copy of SDKs/web, `lerix-mock explore` must find it within 2,000 histories
and shrink it to a scenario file of at most 10 steps, and that file must fail on the mutant
and pass on the unmodified web SDK (both checked with `lerix-mock scenarios`).

    python3 Tests/Explore/mutants.py BIN                      # every mutant, prints the score
    python3 Tests/Explore/mutants.py BIN --only a,b,c         # some of them (make test runs three)
    python3 Tests/Explore/mutants.py BIN --keep DIR           # keep the shrunk files in DIR
    python3 Tests/Explore/mutants.py BIN --jobs 2             # two mutants at a time

Exit status 0 when every selected mutant is found and shrunk, 1 otherwise."""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEB = os.path.join(ROOT, "SDKs", "web")
MUTANTS = os.path.join(ROOT, "Tests", "Explore", "web-mutants.json")
MAX_HISTORIES = 2000
MAX_STEPS = 10
# Seconds an adapter may take per command: generous, since a loaded CI machine (or eight builds
# on two cores) can keep node from answering `hello` within the runner's default 5 s.
ADAPTER_TIMEOUT = "60"


def mutate(mutant, into):
    """A copy of SDKs/web with the mutant's one snippet replaced; refuses a snippet that no
    longer occurs exactly once (the web SDK changed: the mutant must be rewritten)."""
    shutil.copytree(WEB, into, ignore=shutil.ignore_patterns("node_modules", "test"))
    path = os.path.join(into, mutant["file"])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    count = text.count(mutant["original"])
    if count != 1:
        raise SystemExit(f"mutant {mutant['name']}: its snippet occurs {count} times in SDKs/web/{mutant['file']}, not once")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(mutant["original"], mutant["replacement"]))


def steps_in(scenario_text):
    lines = scenario_text.split("\n")
    start = lines.index("steps:")
    return sum(1 for line in lines[start + 1:] if line.startswith("  - "))


def run_mutant(binary, mutant, keep):
    with tempfile.TemporaryDirectory(prefix="lerix-mutant-") as tmp:
        sdk = os.path.join(tmp, "web")
        mutate(mutant, sdk)
        out = os.path.join(tmp, "out")
        adapter = f"node {os.path.join(sdk, 'adapter.js')}"
        started = time.monotonic()
        proc = subprocess.run(
            [binary, "explore", "--adapter", adapter, "--runs", str(MAX_HISTORIES), "--max-findings", "1",
             "--out", out, "--json", "--adapter-timeout", ADAPTER_TIMEOUT],
            capture_output=True, text=True, timeout=1800)
        seconds = time.monotonic() - started
        try:
            result = json.loads(proc.stdout)
        except json.JSONDecodeError:
            return False, f"explore printed no JSON (exit {proc.returncode}): {proc.stderr[-600:]}"
        verified = [f for f in result["findings"] if f["verified"]]
        if not verified:
            others = "; ".join(f"{f['signature']} not verified: {f['unverified_reason']}" for f in result["findings"])
            return False, f"not found in {result['histories']} histories ({seconds:.0f} s){': ' + others if others else ''}"
        finding = verified[0]
        path = os.path.join(out, finding["file"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        steps = steps_in(text)
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(path, os.path.join(keep, f"{mutant['name']}.yaml"))
        found = (f"found after {result['histories']} histories by {finding['judge']} "
                 f"({finding['signature']}), shrunk to {steps} steps, {seconds:.0f} s")
        if steps > MAX_STEPS:
            return False, found + f": more than {MAX_STEPS} steps"
        on_mutant = subprocess.run([binary, "scenarios", path, "--adapter", adapter, "--adapter-timeout", ADAPTER_TIMEOUT], capture_output=True, text=True)
        if on_mutant.returncode != 1:
            return False, found + f": the file does not fail on the mutant (exit {on_mutant.returncode})"
        plain = f"node {os.path.join(WEB, 'adapter.js')}"
        on_plain = subprocess.run([binary, "scenarios", path, "--adapter", plain, "--adapter-timeout", ADAPTER_TIMEOUT], capture_output=True, text=True)
        if on_plain.returncode != 0:
            return False, found + f": the file fails on the unmodified web SDK too:\n{on_plain.stdout[-800:]}"
        return True, found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--only", help="comma-separated mutant names")
    parser.add_argument("--keep", help="copy each shrunk file into this folder")
    parser.add_argument("--jobs", type=int, default=1, help="mutants explored side by side (default 1)")
    args = parser.parse_args()
    with open(MUTANTS, encoding="utf-8") as f:
        mutants = json.load(f)["mutants"]
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in {m["name"] for m in mutants}]
        if unknown:
            raise SystemExit(f"unknown mutant(s): {', '.join(unknown)}")
        mutants = [m for m in mutants if m["name"] in wanted]
    killed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = {pool.submit(run_mutant, args.binary, m, args.keep): m for m in mutants}
        for done in concurrent.futures.as_completed(runs):
            mutant = runs[done]
            ok, detail = done.result()
            killed += ok
            print(f"{'KILLED' if ok else 'ALIVE '}  {mutant['name']:34} [{mutant['row']}] {detail}", flush=True)
    print(f"\nmutation score: {killed}/{len(mutants)} mutants found and shrunk to at most {MAX_STEPS} steps")
    return 0 if killed == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
