"""A simulated week of foreground devices polling every 60 s, through `lerix-mock adapter`
against a real `lerix-mock serve --clock manual`. A maintenance window keeps every answer's
lifetime at 60 s for the whole week, so every device polls once a minute: ~1M checks for
100 devices. Prints wall time, checks, per-check cost and CPU of both processes.

usage: adapter-week.py BIN [DEVICES] [DAYS]
"""
import datetime, json, os, shutil, subprocess, sys, tempfile, time, urllib.request

BIN = sys.argv[1]
DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 100
DAYS = float(sys.argv[3]) if len(sys.argv) > 3 else 7
START = "2026-12-02T11:00:00.000Z"
store = tempfile.mkdtemp(prefix="lerix-bench-adapter.", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)

server = subprocess.Popen([BIN, "serve", "--port", "0", "--clock", "manual", "--start-time", START, "--quiet"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
    base = f"http://127.0.0.1:{port}"

    def admin(method, path, body):
        request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        return urllib.request.urlopen(request).read()

    admin("POST", "/admin/projects/demo/rules", {"type": "maintenance", "starts_at": "2026-12-02T11:30:00.000Z",
                                                 "ends_at": "2026-12-09T11:30:00.000Z", "message": "bench"})
    adapter = subprocess.Popen([BIN, "adapter", "--quiet", "--server-clock", base],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    counter = 0

    def send(cmd, **fields):
        global counter
        counter += 1
        fields.update(id=counter, cmd=cmd)
        adapter.stdin.write(json.dumps(fields) + "\n")
        adapter.stdin.flush()
        answer = json.loads(adapter.stdout.readline())
        if not answer.get("ok"):
            sys.exit(f"adapter refused {cmd}: {answer}")
        return answer

    platforms = ["ios", "android", "macos", "web"]
    for d in range(DEVICES):
        send("create", device=f"d{d}", now=START,
             config={"base_url": base, "project": "demo", "platform": platforms[d % 4], "app_version": "2.3.0",
                     "build": "1", "storage": f"{store}/d{d}"})
    started = time.time()
    for d in range(DEVICES):
        send("launch", device=f"d{d}")
    end = datetime.datetime(2026, 12, 2, 11, 0, 0) + datetime.timedelta(days=DAYS)
    send("advance", to=end.strftime("%Y-%m-%dT%H:%M:%S.000Z"))
    wall = time.time() - started
    checks = sum(send("state", device=f"d{d}")["checks"] for d in range(DEVICES))
    adapter.stdin.close()
    _, _, adapter_usage = os.wait4(adapter.pid, 0)
    server.terminate()
    _, _, server_usage = os.wait4(server.pid, 0)
    target = 30.0
    print(f"adapter week: {DEVICES} devices, {DAYS:g} days, {checks} checks in {wall:.1f} s wall "
          f"({wall / max(checks, 1) * 1e6:.1f} us/check)")
    print(f"  cpu: adapter {adapter_usage.ru_utime + adapter_usage.ru_stime:.1f} s "
          f"(max RSS {adapter_usage.ru_maxrss / 1024:.0f} MiB), server {server_usage.ru_utime + server_usage.ru_stime:.1f} s")
    print(f"  against the stated baseline (issue 6: {target:.0f} s wall): {target / wall:.2f}x "
          f"({'met' if wall < target else 'NOT met'})")
finally:
    if server.poll() is None:
        server.terminate()
    shutil.rmtree(store, ignore_errors=True)
