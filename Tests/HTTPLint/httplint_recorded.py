#!/usr/bin/env python3
"""httplint (REDbot's message linter) over every response the Swift tests received through
TestHTTPClient: `make test` runs the tests with LERIX_HTTPLINT_DIR set, TestSupport's
ExchangeRecorder writes one JSON line per response there, and this script lints them all.
So every endpoint a test touches is linted, new ones included, without a test of its own.

Any WARN or BAD note fails the run and is printed once per kind of response (note, status,
path), with how often it was seen, unless ACCEPTED in accepted.py names it.

usage: httplint_recorded.py DIRECTORY
"""

import base64
import glob
import json
import os
import re
import sys
import textwrap
from collections import defaultdict

from httplint import HttpRequestLinter, HttpResponseLinter
from httplint.note import levels

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accepted import accepted  # noqa: E402


def lint(exchange):
    request = None
    target = "-"
    if exchange["request"] is not None:
        target = exchange["request"]["target"]
        request = HttpRequestLinter()
        request.process_request_topline(exchange["request"]["method"].encode(),
                                        f"http://127.0.0.1{target}".encode(), b"1.1")
        request.process_headers([(n.encode(), v.encode()) for n, v in exchange["request"]["headers"]])
        request.finish_content(True)
    # No start_time: servers on a manual clock send the manual clock's Date on purpose.
    response = HttpResponseLinter(_related=request)
    if request is not None:
        request.response = response
        response.is_head_response = exchange["request"]["method"] == "HEAD"
    parts = exchange["status_line"].split(" ", 2)
    response.process_response_topline(parts[0].removeprefix("HTTP/").encode(), parts[1].encode(),
                                      parts[2].encode() if len(parts) > 2 else b"")
    response.process_headers([(n.encode(), v.encode()) for n, v in exchange["headers"]])
    response.feed_content(base64.b64decode(exchange["body"]))
    response.finish_content(True)
    return target, response


def notes(linter):
    for note in linter.notes:
        yield note
        yield from note.subnotes


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    files = glob.glob(os.path.join(sys.argv[1], "*.jsonl"))
    exchanges = [json.loads(line) for path in files for line in open(path, encoding="utf-8") if line.strip()]
    if not exchanges:
        sys.exit(f"httplint-recorded: no responses recorded under {sys.argv[1]}: was LERIX_HTTPLINT_DIR passed to swift test?")
    found = defaultdict(list)   # (note id, status, path) -> [(target, note)]
    taken = defaultdict(int)   # (note id, path, reason) -> count
    failing = set()
    for index, exchange in enumerate(exchanges):
        target, response = lint(exchange)
        path = target.split("?", 1)[0]
        for note in notes(response):
            if note.level not in (levels.WARN, levels.BAD):
                continue
            note_id = type(note).__name__
            entry = accepted(note_id, path)
            if entry:
                taken[(note_id, path, entry[2])] += 1
                continue
            found[(note_id, response.status_code, path)].append((target, note))
            failing.add(index)
    for (note_id, path, reason), count in sorted(taken.items()):
        print(f"  accepted {note_id} on {path} ({count}x): {reason}")
    for (note_id, status, path), seen in sorted(found.items(), key=str):
        target, note = seen[0]
        detail = re.sub(r"<[^>]+>", "", re.sub(r"\s\s+", " ", str(note.detail)))
        print(f"FAIL {note.level.value} {note_id} on {status} {path} ({len(seen)}x, e.g. {target}): {note.summary}")
        print(textwrap.indent(textwrap.fill(detail, 96), "      "))
    failed = len(failing)
    print(f"httplint-recorded: {len(exchanges) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
