#!/usr/bin/env python3
"""REDbot (the HTTP working group chair's HTTP linter) over every GET endpoint of
`lerix-mock serve` and `lerix-mock push-gateway`, on loopback ports the kernel picks.

Endpoints are discovered, not listed: the server's GET operations come from its own
`/openapi.json`, the gateway's from the `GET` lines of its `/` index. So a new GET endpoint
is linted without touching this file, unless its path has a parameter this file has no value
for (the run then fails and says which). A stream (text/event-stream in the document) never
ends, so REDbot would wait for ever: httplint lints its head instead.

On top come the answers discovery cannot reach: errors (404, 405, 422) and conditional
requests answered 304. REDbot also makes its own sub-requests (If-None-Match, gzip, Range)
and lints those answers too.

Any WARN or BAD note fails the run and is printed with REDbot's explanation, unless
accepted.py's ACCEPTED list names that note on that endpoint with the reason it is deliberate.

usage: redbot_lint.py PATH/TO/lerix-mock
"""

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import urllib.parse
import urllib.request
from configparser import ConfigParser

import thor
from httplint import HttpResponseLinter
from httplint.note import levels
from redbot.resource import HttpResource

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accepted import accepted  # noqa: E402


# Values for path parameters of discovered endpoints ({rule} is filled in once created).
PATH_VALUES = {
    "project": "demo",
    "asset": "dashboard.js",
    "token": "8f1e3c9b0a4d7e2f6c5b8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b",
    "push": "1",   # the seed's rule is a blocking change: push 1 is recorded
}

APNS_TOKEN = PATH_VALUES["token"]
PER_URL_TIMEOUT = 30


def start(binary, args):
    process = subprocess.Popen([binary, *args, "--port", "0", "--quiet"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    match = re.match(r"listening on (http://\S+)$", line)
    if not match:
        process.kill()
        sys.exit(f"redbot-lint: `lerix-mock {' '.join(args)}` did not start: {line!r} {process.stderr.read()}")
    return process, match.group(1)


def call(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    headers = dict(headers or {})
    if data is not None:
        # urllib would send application/x-www-form-urlencoded, which admin writes refuse (415).
        headers.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def seed(serve, gateway):
    """Enough state that every listing has something in it."""
    call("PUT", f"{serve}/admin/projects/demo", {"apns_topic": "dev.lerix.demo", "fcm_project": "demo"})
    status, _, body = call("POST", f"{serve}/admin/projects/demo/rules",
                           {"type": "required_update", "platforms": ["ios"], "below": "2.4.0",
                            "store_url": "https://apps.apple.com/app/id1",
                            # Long enough that the check's answer is gzipped (and says Vary).
                            "message": "Please update: this version stops working soon. " * 6})
    if status != 201:
        sys.exit(f"redbot-lint: could not create a rule: {status} {body!r}")
    PATH_VALUES["rule"] = json.loads(body)["id"]
    call("PUT", f"{serve}/v1/projects/demo/push-tokens/{APNS_TOKEN}", {"platform": "ios"})
    call("GET", f"{serve}/v1/projects/demo/release-control?platform=ios&version=2.3.0")
    call("POST", f"{gateway}/3/device/{APNS_TOKEN}", {"aps": {"content-available": 1}},
         {"apns-topic": "dev.lerix.demo", "apns-push-type": "background", "apns-priority": "5"})


def fill(pattern):
    def value(match):
        name = match.group(1)
        if name not in PATH_VALUES:
            sys.exit(f"redbot-lint: no value for path parameter {{{name}}} in GET {pattern}: "
                     f"add one to PATH_VALUES in {__file__}")
        return PATH_VALUES[name]
    return re.sub(r"\{([^}]+)\}", value, pattern)


def required_query(operation, pattern):
    pairs = []
    for parameter in operation.get("parameters", []):
        if parameter.get("in") != "query" or not parameter.get("required"):
            continue
        schema = parameter.get("schema", {})
        example = parameter.get("example", schema.get("example", (schema.get("enum") or [None])[0]))
        if example is None:
            sys.exit(f"redbot-lint: required query parameter {parameter['name']} of GET {pattern} has no "
                     f"enum or example in /openapi.json to lint with")
        pairs.append(f"{parameter['name']}={example}")
    return ("?" + "&".join(pairs)) if pairs else ""


def is_stream(operation):
    for response in operation.get("responses", {}).values():
        if "text/event-stream" in response.get("content", {}):
            return True
    return False


def serve_endpoints(serve):
    _, _, body = call("GET", f"{serve}/openapi.json")
    document = json.loads(body)
    cases, streams = [], []
    for pattern, item in document["paths"].items():
        operation = item.get("get")
        if operation is None:
            continue
        if is_stream(operation):
            streams.append((pattern, f"{serve}{fill(pattern)}"))
            continue
        cases.append((pattern, f"{serve}{fill(pattern)}{required_query(operation, pattern)}", {}))
    return cases, streams


def gateway_endpoints(gateway):
    _, _, body = call("GET", f"{gateway}/")
    cases = []
    for line in body.decode().splitlines():
        match = re.match(r"\s+GET\s+(/\S*)", line)
        if match:
            path = re.sub(r"\[.*?\]", "", match.group(1))
            cases.append((f"gateway {path}", f"{gateway}{fill(path)}", {}))
    if not cases:
        sys.exit("redbot-lint: the gateway's GET / lists no GET endpoints")
    return cases


def etag_of(url):
    _, headers, _ = call("GET", url)
    etag = {k.lower(): v for k, v in headers.items()}.get("etag")
    if etag is None:
        sys.exit(f"redbot-lint: {url} has no ETag to make a 304 with")
    return etag


def extra_cases(serve, gateway):
    check = f"{serve}/v1/projects/demo/release-control?platform=ios&version=2.3.0"
    return [
        ("the check, blocked (gzip-sized answer)", check, {}),
        ("error: unknown project (404)", f"{serve}/v1/projects/nope/release-control?platform=ios", {}),
        ("error: missing platform (422)", f"{serve}/v1/projects/demo/release-control", {}),
        ("error: unknown path (404)", f"{serve}/no/such/endpoint", {}),
        ("error: method not allowed (405)", f"{serve}/admin/reset", {}),
        ("error: unknown rule (404)", f"{serve}/admin/projects/demo/rules/r999", {}),
        ("304: the check", check, {"If-None-Match": etag_of(check)}),
        ("304: the index", f"{serve}/", {"If-None-Match": etag_of(f"{serve}/")}),
        ("304: openapi.json", f"{serve}/openapi.json", {"If-None-Match": etag_of(f"{serve}/openapi.json")}),
        ("gateway error: unknown path (404)", f"{gateway}/no/such/endpoint", {}),
        ("gateway error: bad provider (400)", f"{gateway}/deliveries?provider=carrier-pigeon", {}),
        ("gateway error: method not allowed (405)", f"{gateway}/control/reject", {}),
        ("gateway 304: the index", f"{gateway}/", {"If-None-Match": etag_of(f"{gateway}/")}),
    ]


def lint(cases):
    """Runs REDbot on every case at once; returns {label: (resource, timed_out)}."""
    config_parser = ConfigParser()
    config_parser.read_dict({"redbot": {"enable_local_access": "True"}})
    config = config_parser["redbot"]
    resources = {}
    pending = set()
    for label, url, headers in cases:
        resource = HttpResource(config)
        resource.set_request(url, headers=list(headers.items()))
        resources[label] = resource
        pending.add(label)

        def done(label=label):
            pending.discard(label)
            if not pending:
                thor.stop()
        resource.on("check_done", done)
    for resource in resources.values():
        resource.check()
    thor.schedule(PER_URL_TIMEOUT + len(cases), thor.stop)
    thor.run()
    return resources, set(pending)


def lint_stream_head(url):
    """httplint over the head of a stream that never ends (REDbot would wait for its end):
    the WARN/BAD notes, and the status."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as connection:
        connection.sendall(f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                           "Accept: text/event-stream\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = connection.recv(4096)
            if not chunk:
                break
            head += chunk
    lines = head.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
    version, status, *phrase = lines[0].split(b" ", 2)
    response = HttpResponseLinter(no_content=True)
    response.process_response_topline(version.removeprefix(b"HTTP/"), status, phrase[0] if phrase else b"")
    response.process_headers([tuple(part.strip() for part in line.split(b":", 1)) for line in lines[1:] if b":" in line])
    response.finish_content(False)
    notes = [note for top in response.notes for note in [top, *top.subnotes] if note.level in (levels.WARN, levels.BAD)]
    return response.status_code, notes


def notes_of(resource):
    """The resource's notes and its sub-requests' (their 304, gzip and Range answers), once each."""
    seen, out = set(), []
    responses = [("", resource.response)] + [(f" [{name} sub-request]", sub.response)
                                            for name, sub in resource.subreqs.items()]
    for where, response in responses:
        for note in response.notes:
            for item in [note, *note.subnotes]:
                key = (type(item).__name__, item.summary)
                if key not in seen:
                    seen.add(key)
                    out.append((where, item))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    serve_process, serve = start(binary, ["serve"])
    guarded_process, guarded = start(binary, ["serve", "--admin-token", "lint-token"])
    gateway_process, gateway = start(binary, ["push-gateway"])
    try:
        seed(serve, gateway)
        discovered, stream_urls = serve_endpoints(serve)
        cases = discovered + gateway_endpoints(gateway) + extra_cases(serve, gateway) + [
            ("error: no admin token (401)", f"{guarded}/admin/projects", {}),
            ("error: wrong admin token (401)", f"{guarded}/admin/projects", {"Authorization": "Bearer wrong"}),
            ("with the admin token", f"{guarded}/admin/projects", {"Authorization": "Bearer lint-token"}),
        ]
        resources, unfinished = lint(cases)
        # A stream never ends, so REDbot would wait for ever: httplint reads its head instead.
        streams = [(pattern, url, *lint_stream_head(url)) for pattern, url in stream_urls]
    finally:
        for process in (serve_process, guarded_process, gateway_process):
            process.terminate()
            process.wait(timeout=10)

    failed = 0
    for label, url, headers in cases:
        resource = resources[label]
        problems = []
        if label in unfinished:
            problems.append(f"REDbot did not finish within {PER_URL_TIMEOUT} s")
        elif not resource.response.complete:
            problems.append(f"no complete response: {resource.fetch_error}")
        status = resource.response.status_code if resource.response.complete else "-"
        for where, note in notes_of(resource):
            if note.level not in (levels.WARN, levels.BAD):
                continue
            note_id = type(note).__name__
            entry = accepted(note_id, label)
            if entry:
                print(f"  accepted {note.level.value} {note_id} on {label}: {entry[2]}")
                continue
            detail = re.sub(r"<[^>]+>", "", re.sub(r"\s\s+", " ", str(note.detail)))
            problems.append(f"{note.level.value} {note_id}{where}: {note.summary}\n"
                            + textwrap.indent(textwrap.fill(detail, 96), "      "))
        sent = "".join(f" ({k}: {v})" for k, v in headers.items())
        if problems:
            failed += 1
            print(f"FAIL {label}: GET {url}{sent} -> {status}")
            for problem in problems:
                print(f"    {problem}")
        else:
            print(f"ok   {label}: GET {url}{sent} -> {status}")
    for pattern, url, status, notes in streams:
        problems = [f"{note.level.value} {type(note).__name__}: {note.summary}" for note in notes
                    if not accepted(type(note).__name__, pattern)]
        if status != 200:
            problems.append(f"status {status}, not 200")
        failed += 1 if problems else 0
        print(f"{'FAIL' if problems else 'ok  '} {pattern} (stream, head linted by httplint): GET {url} -> {status}")
        for problem in problems:
            print(f"    {problem}")
    print(f"redbot-lint: {len(cases) + len(streams) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
