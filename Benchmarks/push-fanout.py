#!/usr/bin/env python3
"""Helpers for bench-push.sh: write the 100k-token config, trigger a blocking change and time
the fan-out until the push record shows no pending token.

  push-fanout.py config FILE N            write a --config with N tokens (60% ios/macos, 40% android)
  push-fanout.py reset SERVER             back to the seed and past the throttle window, so the next
                                          blocking change pushes at once (and is push 1 again)
  push-fanout.py fanout SERVER GATEWAY N KNOWN [POLL_S]
                                          one blocking change (KNOWN pushes exist already), then poll
                                          the push's summary (every POLL_S seconds, 0.01) until no
                                          token is pending; prints timings, with the fan-out's
                                          window in microseconds since the epoch (start_us: the
                                          change is sent; done_us: the summary showing pending 0
                                          arrived), for matching against h2load's --log-file
"""
import json, sys, time, urllib.error, urllib.request

def config(path, n):
    tokens = []
    for i in range(n):
        if i % 5 < 3:
            tokens.append({"token": "%064x" % (i + 1), "platform": "macos" if i % 10 == 0 else "ios"})
        else:
            tokens.append({"token": "fcm-token-%08d" % i, "platform": "android"})
    with open(path, "w") as f:
        json.dump({"projects": [{"key": "demo", "apns_topic": "dev.lerix.demo", "fcm_project": "demo-fcm",
                                 "rules": [], "push_tokens": tokens}]}, f)

def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        raw = r.read()
        return r.status, (json.loads(raw) if raw else None)

def summary(server, push_id):
    """The push's counts (its summary: the listing and this carry no per-token results), and when
    the answer arrived."""
    try:
        _, push = call("GET", server + "/admin/projects/demo/pushes/%d" % push_id)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None, time.monotonic(), time.time_ns() // 1000
        raise
    answered, answered_us = time.monotonic(), time.time_ns() // 1000
    return {"tokens": sum(push["tokens"].values()), "delivered": push["delivered"], "failed": push["failed"],
            "pending": push["pending"]}, answered, answered_us

def reset(server):
    """Back to the seed (every token registered again, no push yet), and past any throttle
    window, so the next change's push goes at once like the first one."""
    call("POST", server + "/admin/reset", {})
    call("POST", server + "/admin/clock", {"advance_seconds": 61})

def fanout(server, gateway, n, known, poll=0.01):
    """`known` pushes exist already."""
    _, before = call("GET", gateway + "/stats")
    start, start_us = time.monotonic(), time.time_ns() // 1000
    # A required update is a blocking change: its push is recorded and handed to the sink
    # before the answer.
    call("POST", server + "/admin/projects/demo/rules",
         {"type": "required_update", "platforms": ["ios", "android", "macos"], "below": "9.%d.0" % known,
          "store_url": "https://example.com/app", "message": "please update"})
    triggered = time.monotonic() - start
    # The push's summary is cheap (counts only), so it is polled directly, every 10 ms (callgrind
    # runs poll less: a slowed-down server would otherwise count thousands of polls).
    record = None
    done = done_us = None
    while time.monotonic() - start < 600:
        record, answered, answered_us = summary(server, known + 1)
        if record is not None and record["pending"] == 0:
            done, done_us = answered - start, answered_us   # an upper bound: the server read the record before this
            break
        time.sleep(poll)
    if done is None:
        print(json.dumps({"error": "push did not finish in time", "last": record}))
        sys.exit(1)
    _, after = call("GET", gateway + "/stats")
    print(json.dumps({"tokens": record["tokens"], "delivered": record["delivered"],
                      "failed": record["failed"], "triggered_s": round(triggered, 3),
                      "gateway_requests": after["requests"] - before["requests"], "done_s": round(done, 3),
                      "start_us": start_us, "done_us": done_us}))

if __name__ == "__main__":
    if sys.argv[1] == "config":
        config(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "reset":
        reset(sys.argv[2])
    elif sys.argv[1] == "fanout":
        fanout(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]) if len(sys.argv) > 6 else 0.01)
