"""Fleets in virtual time: runs a fleet scenario of Benchmarks/fleets/ with `lerix-mock
scenarios` (the in-process server and Swift SDK) at a given number of devices and prints one
tab-separated line: scenario, devices, wall seconds, CPU seconds (user + system), peak RSS in
MB, device checks, checks per wall second, checks per CPU second, passed (1/0). On a shared
machine the CPU figures are the ones to compare.

The scenario's fleet sizes are scaled in proportion (every `count:` and the `tokens:` of its
push expectations); its closing `expect` steps pin each device's `checks`, so the total is
the sum over fleets of size times that number, and a run whose devices checked any other
number of times fails instead of reporting a rate.

usage: fleet.py BIN SCENARIO.yaml DEVICES WORKDIR
"""
import re, subprocess, sys, time

BIN, SOURCE, DEVICES, WORK = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(SOURCE).read()

fleets = {m.group(1): int(m.group(2)) for m in re.finditer(r"^  ([\w-]+): \{count: (\d+),", text, re.M)}
if not fleets:
    sys.exit(f"{SOURCE}: no fleets (`  name: {{count: N, ...}}`)")
total = sum(fleets.values())
if DEVICES % total and total % DEVICES:
    sys.exit(f"{DEVICES} devices do not scale {total} evenly")
scale = lambda n: n * DEVICES // total
scaled = re.sub(r"^(  [\w-]+: \{count: )(\d+)", lambda m: m.group(1) + str(scale(int(m.group(2)))), text, flags=re.M)
scaled = re.sub(r"(tokens: )(\d+)", lambda m: m.group(1) + str(scale(int(m.group(2)))), scaled)

# Checks per device, from the closing expectations: `device: [a, b]` or `device: a` or `all`.
per_device = {}
for m in re.finditer(r"^  - expect: \{device: (\[[^\]]*\]|[\w-]+),.*checks: (\d+)\}", text, re.M):
    names = [n.strip() for n in m.group(1).strip("[]").split(",")]
    for name in (list(fleets) if names == ["all"] else names):
        per_device[name] = int(m.group(2))
missing = [f for f in fleets if f not in per_device]
if missing:
    sys.exit(f"{SOURCE}: no closing `checks` expectation for {', '.join(missing)}")
checks = sum(scale(n) * per_device[f] for f, n in fleets.items())

path = f"{WORK}/{DEVICES}-{SOURCE.rsplit('/', 1)[-1]}"
open(path, "w").write(scaled)
started = time.monotonic()
run = subprocess.run(["/usr/bin/time", "-f", "peak-rss-kb %M cpu %U %S", BIN, "scenarios", path],
                     capture_output=True, text=True)
wall = time.monotonic() - started
rss = re.search(r"peak-rss-kb (\d+) cpu ([\d.]+) ([\d.]+)", run.stderr)
cpu = float(rss.group(2)) + float(rss.group(3)) if rss else 0
passed = run.returncode == 0
if not passed:
    sys.stderr.write(run.stdout[-4000:] + run.stderr[-2000:])
name = re.search(r"^name: (.*)$", text, re.M).group(1)
print("\t".join([name, str(DEVICES), f"{wall:.2f}", f"{cpu:.2f}", f"{int(rss.group(1)) / 1024:.0f}" if rss else "-",
                 str(checks), f"{checks / wall:.0f}", f"{checks / cpu:.0f}" if cpu else "-", "1" if passed else "0"]))
