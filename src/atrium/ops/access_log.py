"""JSON access logs (`ATRIUM_LOG_FORMAT=json`): one line per request on standard error.

Each line carries the request id the response also carries (`X-Request-Id`), so a user's report
of a failing request can be found in the log. A proxy's well-formed `X-Request-Id` is kept, so
the same id follows the request through the proxy's log; anything else is replaced. The query
string is left out: API keys and passwords travel there in some clients' requests.
"""

from __future__ import annotations

import datetime
import os
import re
import sys
from typing import TextIO

import orjson
from starlette.types import Scope

_GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


def request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text: str = value.decode("latin-1")
            if _GIVEN_ID.fullmatch(text):
                return text
            break
    return os.urandom(16).hex()  # a random 128-bit id, as uuid4's hex but cheaper to make


class AccessLog:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr

    def write(self, scope: Scope, rid: str, status: int, elapsed: float, sent: int) -> None:
        client = scope.get("client")
        headers = dict(scope.get("headers", ()))
        line = {
            "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
            "request_id": rid,
            "method": scope["method"],
            "path": scope["path"],
            "route": getattr(scope.get("route"), "path", None),
            "status": status,
            "duration_ms": round(elapsed * 1000, 2),
            "bytes": sent,
            "client": client[0] if client else None,
            "user_agent": headers.get(b"user-agent", b"").decode("latin-1")[:200] or None,
        }
        self.stream.write(orjson.dumps(line).decode() + "\n")
        self.stream.flush()
