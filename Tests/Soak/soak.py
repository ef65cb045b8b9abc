#!/usr/bin/env python3
"""make soak: one lerix-mock server under mixed, hostile load for a bounded time.

Loopback only, stops by itself (SOAK_SECONDS of load, default 150, plus set-up, settling and
a restart). The server runs with --state, silent pushes go to a push-gateway stand-in that
keeps misbehaving (outages, slow answers, rejected tokens) for APNs and to a black hole that
accepts TCP and never speaks for FCM. During the load:

  probes        GET /healthz on a fresh connection every 100 ms: their latency is the verdict
  checks        keep-alive release-control checks on several projects
  admin writes  rules created and deleted, push tokens registered and removed (each
                acknowledged write is remembered)
  faults        check faults armed and cleared
  slow clients  slowloris heads and bodies trickled at 1 byte/s
  never readers HTTP/1.1 connections pipelining 1600 x GET /openapi.json, never reading
  h2 abuse      rapid reset (HEADERS + RST_STREAM), zero-window peers with 128 streams
  h2 uploads    32 h2c connections, 128 POST streams each, ~1 MB sent on every stream and never
                ended (once 3.4 GB and an abort): the server must stay under SOAK_PEAK_MB
  cross-site    what a web page could send: text/plain and form admin writes, another Origin,
                Sec-Fetch-Site cross-site, a rebound Host name, to serve's admin API and to the
                push-gateway's controls and log; every one must be refused (403/415)

It passes when the probes' p99 stays under SOAK_P99_MS (default 500; the machine is shared) with no failed probe,
the server's RSS stays under SOAK_PEAK_MB (default 512) and returns near its baseline once the load
stops (at most SOAK_RSS_SLACK_MB, default 48, above it), no cross-site request is taken, and after a kill -9 and a restart on the same --state file every
acknowledged write is there (and every acknowledged delete is gone).

usage: soak.py BINARY   (Makefile: make soak [SOAK_SECONDS=N])
SOAK_ONLY=checks,admin,faults,slow,never-readers,rapid-reset,zero-window,h2-uploads,cross-site picks the load
(default: all), to find which one hurts.
"""
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import http.client

BIN = sys.argv[1] if len(sys.argv) > 1 else ".build/release/lerix-mock"
DURATION = int(os.environ.get("SOAK_SECONDS", "150"))
P99_LIMIT_MS = float(os.environ.get("SOAK_P99_MS", "500"))
RSS_SLACK_MB = float(os.environ.get("SOAK_RSS_SLACK_MB", "48"))
PEAK_MB = float(os.environ.get("SOAK_PEAK_MB", "512"))
BASE_PORT = int(os.environ.get("SOAK_PORT", "25100"))
SERVER_PORT, GATEWAY_PORT, BLACKHOLE_PORT = BASE_PORT, BASE_PORT + 1, BASE_PORT + 2
HOST = "127.0.0.1"
PROJECTS = [f"soak{i}" for i in range(4)]
TOKENS_PER_PROJECT = 150

stop = threading.Event()
lock = threading.Lock()
stats = {}


def count(name, n=1):
    with lock:
        stats[name] = stats.get(name, 0) + n


def log(message):
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", flush=True)


# ---------------------------------------------------------------- processes

def start(args, name):
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    if "listening on" not in line:
        process.kill()
        raise SystemExit(f"soak: {name} did not start: {line!r}")
    threading.Thread(target=lambda: process.stdout.read(), daemon=True).start()
    return process


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def serve(state_path):
    return start([BIN, "serve", "--host", HOST, "--port", str(SERVER_PORT), "--state", state_path, "--quiet",
                  "--apns-gateway", f"http://{HOST}:{GATEWAY_PORT}", "--fcm-gateway", f"http://{HOST}:{BLACKHOLE_PORT}"],
                 "serve")


def black_hole():
    """Accepts TCP and reads, never answers: a gateway that never speaks HTTP/2."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((HOST, BLACKHOLE_PORT))
    listener.listen(64)
    listener.settimeout(0.5)
    held = []

    def run():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
                conn.setblocking(False)
                held.append(conn)
                count("blackhole connections")
            except socket.timeout:
                pass
            for conn in held:
                try:
                    conn.recv(65536)
                except (BlockingIOError, OSError):
                    pass
        for conn in held:
            conn.close()
        listener.close()

    threading.Thread(target=run, daemon=True).start()


# ---------------------------------------------------------------- HTTP helpers

def call(method, path, body=None, port=SERVER_PORT, timeout=10, conn=None):
    """(status, parsed JSON or None); raises on transport errors."""
    own = conn is None
    conn = conn or http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return response.status, parsed
    finally:
        if own:
            conn.close()


def first_list(document):
    if isinstance(document, dict):
        for value in document.values():
            if isinstance(value, list):
                return value
    return document if isinstance(document, list) else []


# ---------------------------------------------------------------- HTTP/2 frames by hand

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def settings(entries):
    return frame(4, 0, 0, b"".join(struct.pack(">HI", k, v) for k, v in entries))


def hpack_string(text):
    data = text.encode()
    assert len(data) < 127
    return bytes([len(data)]) + data


def headers(stream, path):
    block = b"\x82\x86" + b"\x04" + hpack_string(path) + b"\x01" + hpack_string("soak")
    return frame(1, 0x5, stream, block)


def post_headers(stream, path):
    block = b"\x83\x86" + b"\x04" + hpack_string(path) + b"\x01" + hpack_string("127.0.0.1")
    return frame(1, 0x4, stream, block)  # END_HEADERS, no END_STREAM: a body follows


def rst(stream):
    return frame(3, 0, stream, struct.pack(">I", 8))


def connect(timeout=5):
    s = socket.create_connection((HOST, SERVER_PORT), timeout=timeout)
    return s


def drain(s):
    try:
        while s.recv(65536, socket.MSG_DONTWAIT):
            pass
    except (BlockingIOError, OSError):
        pass


# ---------------------------------------------------------------- load

def probe_process(seconds):
    """The probes run in their own process: the load's threads share one interpreter lock,
    which would otherwise add their waits to the probes' latency."""
    return subprocess.Popen([sys.executable, __file__, "--probe", str(seconds)], stdout=subprocess.PIPE, text=True)


def probe_main(seconds):
    latencies, failures = [], []
    deadline = time.monotonic() + seconds
    threading.Thread(target=probe, args=(latencies, failures), daemon=True).start()
    while time.monotonic() < deadline:
        time.sleep(0.2)
    stop.set()
    time.sleep(0.2)
    print(json.dumps({"latencies": latencies, "failures": failures}))


def probe(latencies, failures):
    while not stop.is_set():
        started = time.monotonic()
        try:
            status, _ = call("GET", "/healthz", timeout=5)
            elapsed = (time.monotonic() - started) * 1000
            with lock:
                latencies.append(elapsed)
            if status != 200:
                failures.append(f"status {status}")
        except Exception as error:  # a probe that fails is the finding
            failures.append(repr(error))
            with lock:
                latencies.append((time.monotonic() - started) * 1000)
        time.sleep(0.1)


def checker(index):
    conn = None
    rng = random.Random(index)
    while not stop.is_set():
        try:
            conn = conn or http.client.HTTPConnection(HOST, SERVER_PORT, timeout=10)
            project = rng.choice(PROJECTS)
            platform = rng.choice(["ios", "android"])
            status, _ = call("GET", f"/v1/projects/{project}/release-control?platform={platform}&version=1.{rng.randint(0, 9)}.0",
                             conn=conn)
            count(f"check {status}")
        except Exception:
            count("check transport errors (faults reset some)")
            if conn:
                conn.close()
            conn = None
        time.sleep(0.01)


def admin_writer(expected, deleted, uncertain):
    rng = random.Random(99)
    conn = None
    serial = 0
    while not stop.is_set():
        serial += 1
        project = rng.choice(PROJECTS)
        action = rng.random()
        try:
            conn = conn or http.client.HTTPConnection(HOST, SERVER_PORT, timeout=10)
            if action < 0.35:
                below = f"{rng.randint(2, 9)}.{serial % 100}.0"
                status, body = call("POST", f"/admin/projects/{project}/rules",
                                    {"type": "required_update", "below": below, "message": f"soak {serial}"}, conn=conn)
                if status == 201 and isinstance(body, dict) and "id" in body:
                    expected["rules"].setdefault(project, {})[body["id"]] = below
                count(f"rule create {status}")
            elif action < 0.5 and expected["rules"].get(project):
                rule = rng.choice(list(expected["rules"][project]))
                status, _ = call("DELETE", f"/admin/projects/{project}/rules/{rule}", conn=conn)
                if status == 204:
                    del expected["rules"][project][rule]
                    deleted["rules"].add((project, rule))
                count(f"rule delete {status}")
            elif action < 0.9:
                token = f"{'a' if rng.random() < 0.5 else 'f'}{serial:063x}"
                platform = "ios" if token[0] == "a" else "android"
                status, _ = call("PUT", f"/v1/projects/{project}/push-tokens/{token}", {"platform": platform}, conn=conn)
                if 200 <= status < 300:
                    expected["tokens"].setdefault(project, set()).add(token)
                count(f"token put {status}")
            elif expected["tokens"].get(project):
                token = rng.choice(sorted(expected["tokens"][project]))
                status, _ = call("DELETE", f"/v1/projects/{project}/push-tokens/{token}", conn=conn)
                if 200 <= status < 300:
                    expected["tokens"][project].discard(token)
                    deleted["tokens"].add((project, token))
                count(f"token delete {status}")
        except Exception as error:
            # Not acknowledged: the write may or may not have happened; it is not checked.
            uncertain.append(repr(error))
            if conn:
                conn.close()
            conn = None
        time.sleep(0.02)


def fault_toggler():
    rng = random.Random(7)
    kinds = [{"kind": "status", "status": 503, "count": 30}, {"kind": "delay", "seconds": 1, "count": 5},
             {"kind": "reset", "count": 20}, {"kind": "malformed", "count": 20}, {"kind": "wrong_types", "count": 20}]
    gateway = [("POST", "/control/unavailable", {"status": 503, "retry_after": 1, "count": 200}),
               ("POST", "/control/delay", {"milliseconds": 1500}),
               ("POST", "/control/delay", {"milliseconds": 0}),
               ("DELETE", "/control", None)]
    while not stop.wait(3):
        try:
            call("POST", f"/admin/projects/{rng.choice(PROJECTS)}/faults", rng.choice(kinds))
            count("faults armed")
            if rng.random() < 0.3:
                call("DELETE", f"/admin/projects/{rng.choice(PROJECTS)}/faults")
            method, path, body = rng.choice(gateway)
            call(method, path, body, port=GATEWAY_PORT)
            token = f"a{rng.randint(0, 10**6):063x}"
            call("POST", "/control/reject", {"token": token, "status": 410, "reason": "Unregistered"}, port=GATEWAY_PORT)
            count("gateway misbehaviours")
        except Exception:
            count("toggler transport errors")


def slowloris():
    """Heads that never end and bodies at 1 byte/s: the server must cut both."""
    clients = []   # (socket, what it trickles)
    while not stop.is_set():
        while len(clients) < 40 and not stop.is_set():
            try:
                s = connect()
                if len(clients) % 2:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: soak\r\n")
                    clients.append((s, b"X-Slow: 1\r\n"))
                else:
                    s.sendall(b"POST /v1/projects/soak0/ingest/errors HTTP/1.1\r\nHost: soak\r\nContent-Length: 100000\r\n\r\n")
                    clients.append((s, b"x"))
            except OSError:
                count("slowloris connect errors")
                break
        for client in list(clients):
            s, trickle = client
            try:
                data = s.recv(4096, socket.MSG_DONTWAIT)
                cut = data == b"" or data.startswith(b"HTTP/1.1 408")
            except BlockingIOError:
                cut = False
            except OSError:
                cut = True
            if not cut:
                try:
                    s.send(trickle)
                except OSError:
                    cut = True
            if cut:
                count("slow heads cut" if trickle != b"x" else "trickled bodies cut")
                s.close()
                clients.remove(client)
        stop.wait(1)
    for s, _ in clients:
        s.close()


def never_reader(index):
    batch = b"GET /openapi.json HTTP/1.1\r\nHost: soak\r\n\r\n" * 1600
    while not stop.is_set():
        try:
            s = connect()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            s.settimeout(2)
            try:
                s.sendall(batch)
            except socket.timeout:
                pass
            count("never-reading connections")
            stop.wait(15)
            s.close()
        except OSError:
            count("never-reader errors")
            stop.wait(1)


def rapid_reset(index):
    while not stop.is_set():
        try:
            s = connect()
            s.sendall(PREFACE + settings([]) + frame(4, 1, 0))
            stream = 1
            for _ in range(40):
                if stop.is_set():
                    break
                burst = b""
                for _ in range(100):
                    burst += headers(stream, "/openapi.json") + rst(stream)
                    stream += 2
                s.sendall(burst)
                count("rapid resets", 100)
                drain(s)
                time.sleep(0.05)
            s.close()
        except OSError:
            count("rapid-reset connections ended by the server")
            stop.wait(0.5)


def zero_window(index):
    while not stop.is_set():
        try:
            s = connect()
            payload = PREFACE + settings([(4, 0)]) + frame(4, 1, 0)
            payload += b"".join(headers(2 * i + 1, "/openapi.json") for i in range(128))
            s.sendall(payload)
            count("zero-window connections")
            for _ in range(20):
                if stop.wait(1):
                    break
                drain(s)
            s.close()
        except OSError:
            count("zero-window errors")
            stop.wait(1)


def h2_uploads(index):
    """4 connections a thread (8 threads: 32), each 128 POST streams with ~1 MB sent on every one
    and never ended, held open for 20 s, then again."""
    chunk = frame(0, 0, 0, b"u" * 16384)[:9]  # a DATA frame header, stream patched below
    body = b"u" * 16384
    while not stop.is_set():
        sockets = []
        try:
            for _ in range(4):
                s = connect()
                s.sendall(PREFACE + settings([]) + frame(4, 1, 0)
                          + b"".join(post_headers(2 * k + 1, "/admin/state") for k in range(128)))
                s.setblocking(False)
                sockets.append(s)
            for _ in range(64):  # 64 x 16 KiB = 1 MiB a stream
                for s in sockets:
                    for k in range(128):
                        if stop.is_set():
                            raise OSError("stopping")
                        data = memoryview(chunk[:5] + struct.pack(">I", 2 * k + 1) + body)
                        while data:
                            try:
                                data = data[s.send(data):]
                            except BlockingIOError:
                                drain(s)
                                if stop.wait(0.002):
                                    raise OSError("stopping")
                    drain(s)
            count("h2 unfinished uploads (1 MB x 128 streams)", len(sockets))
            for _ in range(20):
                if stop.wait(1):
                    break
                for s in sockets:
                    drain(s)
        except OSError:
            count("h2 upload connections ended")
        for s in sockets:
            s.close()


CROSS_SITE = [
    # (method, path, body, headers): what a page on another origin, or a rebinding one, can send
    ("POST", "/admin/projects/{p}/rules", b'{"type": "optional_update", "below": "99.0"}',
     {"Content-Type": "text/plain;charset=UTF-8", "Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"}),
    ("POST", "/admin/projects/{p}/rules", b'{"type": "optional_update", "below": "99.0"}',
     {"Content-Type": "text/plain"}),
    ("POST", "/admin/reset", b"", {"Content-Type": "application/x-www-form-urlencoded", "Origin": "null"}),
    ("POST", "/admin/reset", b"", {"Origin": "http://evil.example"}),
    ("POST", "/admin/recording", b"{}", {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}),
    ("GET", "/admin/state", None, {"Host": "attacker.example:%d" % SERVER_PORT}),
]
# The same against the push-gateway's controls and log (its own port).
GATEWAY_CROSS_SITE = [
    ("POST", "/control/unavailable", b'{"status": 503}', {"Content-Type": "text/plain"}),
    ("POST", "/control/reject", b'{"token": "a", "status": 410}', {"Content-Type": "application/json",
                                                                  "Origin": "http://127.0.0.1:1"}),
    ("DELETE", "/deliveries", b"", {"Sec-Fetch-Site": "cross-site"}),
    ("GET", "/deliveries", None, {"Host": "attacker.example:%d" % GATEWAY_PORT}),
]


def cross_site(taken):
    rng = random.Random(7)
    while not stop.is_set():
        port = rng.choice([SERVER_PORT, SERVER_PORT, GATEWAY_PORT])
        method, path, body, headers = rng.choice(CROSS_SITE if port == SERVER_PORT else GATEWAY_CROSS_SITE)
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=10)
            conn.putrequest(method, path.format(p=rng.choice(PROJECTS)), skip_host="Host" in headers,
                            skip_accept_encoding=True)
            for name, value in headers.items():
                conn.putheader(name, value)
            conn.putheader("Content-Length", str(len(body or b"")))
            conn.endheaders(body or None)
            response = conn.getresponse()
            response.read()
            conn.close()
            count(f"cross-site {'gateway ' if port == GATEWAY_PORT else ''}{response.status}")
            if response.status < 400:
                taken.append(f"{method} {path} {headers} answered {response.status}")
        except OSError:
            count("cross-site transport errors")
        stop.wait(0.2)


# ---------------------------------------------------------------- verdict

def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def verify(expected, deleted):
    missing, resurrected = [], []
    for project in PROJECTS:
        _, rules = call("GET", f"/admin/projects/{project}/rules")
        present = {rule.get("id"): rule.get("below") for rule in first_list(rules)}
        for rule, below in expected["rules"].get(project, {}).items():
            if present.get(rule) != below:
                missing.append(f"rule {project}/{rule}")
        _, tokens = call("GET", f"/admin/projects/{project}/push-tokens")
        present_tokens = {t.get("token") for t in first_list(tokens) if isinstance(t, dict)}
        for token in expected["tokens"].get(project, set()):
            if token not in present_tokens:
                missing.append(f"token {project}/{token[:8]}…")
        resurrected += [f"rule {p}/{r}" for p, r in deleted["rules"] if p == project and r in present]
        resurrected += [f"token {p}/{t[:8]}…" for p, t in deleted["tokens"] if p == project and t in present_tokens]
    return missing, resurrected


def main():
    workdir = tempfile.mkdtemp(prefix="lerix-soak-")
    state_path = os.path.join(workdir, "state.db")
    gateway = start([BIN, "push-gateway", "--host", HOST, "--port", str(GATEWAY_PORT), "--quiet"], "push-gateway")
    black_hole()
    server = serve(state_path)
    try:
        for i, project in enumerate(PROJECTS):
            call("PUT", f"/admin/projects/{project}", {"apns_topic": f"dev.lerix.{project}", "fcm_project": project})
            for t in range(TOKENS_PER_PROJECT):
                token = f"{'a' if t % 2 else 'f'}{i:02x}{t:061x}"
                call("PUT", f"/v1/projects/{project}/push-tokens/{token}", {"platform": "ios" if t % 2 else "android"})
        expected = {"rules": {}, "tokens": {}}
        deleted = {"rules": set(), "tokens": set()}
        for project in PROJECTS:
            _, tokens = call("GET", f"/admin/projects/{project}/push-tokens")
            expected["tokens"][project] = {t["token"] for t in first_list(tokens) if isinstance(t, dict)}
        # Warm up (code paths, caches, allocator), then take the baseline.
        for _ in range(300):
            call("GET", f"/v1/projects/{PROJECTS[0]}/release-control?platform=ios&version=1.0.0")
        time.sleep(2)
        baseline = rss_mb(server.pid)
        log(f"server pid {server.pid}, baseline RSS {baseline:.1f} MB, load for {DURATION} s")

        uncertain = []
        cross_site_taken = []
        load = {
            "checks": [(checker, (i,)) for i in range(3)],
            "admin": [(admin_writer, (expected, deleted, uncertain))],
            "faults": [(fault_toggler, ())],
            "slow": [(slowloris, ())],
            "never-readers": [(never_reader, (i,)) for i in range(10)],
            "rapid-reset": [(rapid_reset, (i,)) for i in range(2)],
            "zero-window": [(zero_window, (i,)) for i in range(6)],
            "h2-uploads": [(h2_uploads, (i,)) for i in range(8)],
            "cross-site": [(cross_site, (cross_site_taken,))],
        }
        chosen = os.environ.get("SOAK_ONLY", ",".join(load)).split(",")
        workers = [threading.Thread(target=f, args=a) for name in chosen for f, a in load.get(name, [])]
        probes = probe_process(DURATION)
        for worker in workers:
            worker.daemon = True
            worker.start()
        peak = baseline
        started = time.monotonic()
        while time.monotonic() - started < DURATION:
            time.sleep(5)
            peak = max(peak, rss_mb(server.pid))
            with lock:
                summary = ", ".join(f"{k} {v}" for k, v in sorted(stats.items()) if "check" not in k)
            log(f"t={time.monotonic() - started:5.0f}s RSS {rss_mb(server.pid):6.1f} MB; {summary}")
        probed = json.loads(probes.communicate(timeout=60)[0])
        latencies, failures = probed["latencies"], probed["failures"]
        stop.set()
        for worker in workers:
            worker.join(timeout=20)
        # The load is gone; connections it left behind are closed by their clients above.
        after = rss_mb(server.pid)
        for _ in range(6):
            time.sleep(5)
            after = rss_mb(server.pid)
            if after <= baseline + RSS_SLACK_MB / 2:
                break
        _, pushes = call("GET", f"/admin/projects/{PROJECTS[0]}/pushes")
        push_records = first_list(pushes)

        log("kill -9, restart on the same --state file")
        server.send_signal(signal.SIGKILL)
        server.wait()
        server = serve(state_path)
        missing, resurrected = verify(expected, deleted)
    finally:
        server.kill()
        gateway.kill()

    acknowledged = sum(len(r) for r in expected["rules"].values()) + sum(len(t) for t in expected["tokens"].values())
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    print("\n== soak figures")
    print(f"load               {DURATION} s, {len(workers)} client threads ({', '.join(chosen)}), probes in their own process")
    print(f"probes             {len(latencies)}, failed {len(failures)}, p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
          f"max {max(latencies or [0]):.1f} ms")
    print(f"server RSS         baseline {baseline:.1f} MB, peak {peak:.1f} MB, after the load {after:.1f} MB")
    print(f"durable writes     {acknowledged} acknowledged rules/tokens present: {acknowledged - len(missing)}, "
          f"missing {len(missing)}; acknowledged deletes come back: {len(resurrected)}; unacknowledged {len(uncertain)}")
    print(f"pushes (project {PROJECTS[0]}) {len(push_records)} recorded")
    for name in sorted(stats):
        print(f"  {name:40} {stats[name]}")
    problems = []
    if failures:
        problems.append(f"{len(failures)} probes failed, e.g. {failures[0]}")
    if not p99 <= P99_LIMIT_MS:
        problems.append(f"probe p99 {p99:.1f} ms is over {P99_LIMIT_MS:.0f} ms")
    if peak > PEAK_MB:
        problems.append(f"peak RSS {peak:.1f} MB is over {PEAK_MB:.0f} MB")
    if cross_site_taken:
        problems.append(f"{len(cross_site_taken)} cross-site requests were taken, e.g. {cross_site_taken[0]}")
    if after > baseline + RSS_SLACK_MB:
        problems.append(f"RSS {after:.1f} MB did not return within {RSS_SLACK_MB:.0f} MB of the {baseline:.1f} MB baseline")
    if missing or resurrected:
        problems.append(f"after the restart {len(missing)} acknowledged writes are missing ({missing[:3]}) "
                        f"and {len(resurrected)} deletes came back ({resurrected[:3]})")
    if problems:
        print("\nsoak: FAILED\n  " + "\n  ".join(problems))
        return 1
    print("\nsoak: passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--probe":
        probe_main(float(sys.argv[2]))
        sys.exit(0)
    sys.exit(main())
