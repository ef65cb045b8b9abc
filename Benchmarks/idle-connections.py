#!/usr/bin/env python3
"""Opens N keep-alive connections to a server, one request answered on each (so each is an idle
keep-alive connection, under the idle timeout, not a silent new one under the shorter header-read
timeout, which a slow connect phase on a busy machine would outlast), holds them, then sends one
more request on each and counts the answers; prints the server's RSS (from /proc) while held and after.

usage: idle-connections.py PORT PID COUNT PATH
"""
import asyncio, sys, time

def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:
        print(f"server process {pid} has exited")
    return float("inf")

async def exchange(reader, writer, request):
    """Sends `request` and reads its whole answer; returns the status line."""
    writer.write(request)
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length:
        await asyncio.wait_for(reader.readexactly(length), 20)
    return head.split(b"\r\n", 1)[0]

async def main():
    port, pid, count, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    gate = asyncio.Semaphore(512)          # stay under the listen backlog while connecting
    conns, failures = [], 0
    async def connect():
        nonlocal failures
        async with gate:
            for attempt in range(3):
                try:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
                    await exchange(reader, writer, request)
                    conns.append((reader, writer))
                    return
                except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                    await asyncio.sleep(0.05)
            failures += 1
    t0 = time.time()
    await asyncio.gather(*(connect() for _ in range(count)))
    await asyncio.sleep(1.0)               # let the server settle with every connection held
    held = rss_mb(pid)
    print(f"connected {len(conns)}/{count} in {time.time() - t0:.1f}s, connect failures {failures}, server RSS held {held:.1f} MB")
    served = 0
    async def ask(reader, writer):
        nonlocal served
        try:
            status = await exchange(reader, writer, request)
            if status.startswith(b"HTTP/1.1 200"):
                served += 1
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
            pass
    t1 = time.time()
    await asyncio.gather(*(ask(r, w) for r, w in conns))
    after = rss_mb(pid)
    print(f"served {served}/{count} in {time.time() - t1:.1f}s, server RSS after {after:.1f} MB")
    for _, w in conns:
        w.close()
    ok = served == count and max(held, after) < 200
    print(f"memory test: {'PASS' if ok else 'FAIL'} (all {count} served, RSS under 200 MB)")
    print(f"idle summary: {held:.1f} {after:.1f} {served}")   # for bench-http.sh's table row
    sys.exit(0 if ok else 1)

asyncio.run(main())
