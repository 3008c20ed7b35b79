"""`Special:RunJobs`: the signed POST that job runners (and MediaWiki's api-testing library) send
to `index.php` to run queued jobs.

Atrium keeps no job queue (every secondary update runs in the edit's own transaction), so once the
signature is checked the faithful answer is MediaWiki's JobRunner result for an empty queue.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import time
from collections.abc import Mapping
from urllib.parse import quote_plus

import orjson
from starlette.responses import HTMLResponse, Response

_REQUIRED = ("title", "tasks", "signature", "sigexpiry")


def _php_urlencode(value: str) -> str:
    # PHP's urlencode(): everything but alphanumerics and -_. is escaped, spaces become '+'.
    return quote_plus(value, safe="-_.")


def query_signature(params: Mapping[str, str], key: str) -> str:
    """HMAC-SHA1 of the key-sorted query in wfArrayToCgi() form, as SpecialRunJobs signs it."""
    query = "&".join(
        f"{_php_urlencode(name)}={_php_urlencode(params[name])}"
        for name in sorted(params, key=lambda n: n.encode())
    )
    return hmac.new(key.encode(), query.encode(), hashlib.sha1).hexdigest()


def _error(status: int, text: str) -> Response:
    # wfHttpError()'s page: the status reason as title and heading, the text escaped below it.
    body = (
        "<!DOCTYPE html><html><head><title>Bad Request</title></head><body>"
        f"<h1>Bad Request</h1><p>{html.escape(text, quote=False)}</p></body></html>\n"
    )
    return HTMLResponse(body, status_code=status)


def run_jobs(method: str, form: Mapping[str, str], key: str, now: float | None = None) -> Response:
    """Answer one Special:RunJobs request; `form` is the POST body only, as MediaWiki reads it."""
    if method != "POST":
        return _error(400, "Request must be POSTed.")
    missing = [name for name in _REQUIRED if name not in form]
    if missing:
        return _error(400, "Missing parameters: " + ", ".join(missing))
    signed = {name: value for name, value in form.items() if name != "signature"}
    expected = query_signature(signed, key)
    try:
        expiry = int(form["sigexpiry"])
    except ValueError:
        expiry = 0
    current = time.time() if now is None else now
    if not hmac.compare_digest(expected, form["signature"]) or expiry < current:
        return _error(400, "Invalid or stale signature provided.")
    if form.get("async"):
        # MediaWiki accepts an asynchronous run with 202 and runs it after the response.
        return Response(status_code=202, media_type="text/plain")
    body = {"jobs": [], "reached": "none-ready", "backoffs": [], "elapsed": 0}
    return Response(orjson.dumps(body), media_type="application/json")
