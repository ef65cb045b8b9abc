"""The one list of linter notes lerix-mock accepts on purpose, each with its reason.

Both linters read it: redbot_lint.py (REDbot on each GET endpoint; `where` is the case's
label, e.g. "/admin/projects/{project}/rules" or "gateway error: bad provider (400)") and
httplint_recorded.py (every response the Swift tests received; `where` is the request path,
glob patterns allowed). "*" matches everywhere. Keep each reason one a reviewer would sign.
"""

from fnmatch import fnmatchcase

# Notes that only restate an error status, on answers to requests made wrong on purpose (the
# tests' malformed requests, the lint's bad query): the status is the right answer, and the
# answer's headers are still linted.
_STATUS_RESTATED = ("the status is the right answer to a request made wrong on purpose; "
                    "the linter notes the status itself, the answer's headers are still linted")

ACCEPTED = [
    ("STATUS_BAD_REQUEST", "*", _STATUS_RESTATED),
    ("STATUS_URI_TOO_LONG", "*", _STATUS_RESTATED),
    ("STATUS_VERSION_NOT_SUPPORTED", "*", _STATUS_RESTATED),
]


def accepted(note_id, where):
    """The ACCEPTED entry (note id, pattern, reason) that covers `note_id` at `where`, or None."""
    for entry in ACCEPTED:
        accepted_id, pattern, _reason = entry
        if accepted_id == note_id and (pattern in ("*", where) or fnmatchcase(where, pattern)):
            return entry
    return None
