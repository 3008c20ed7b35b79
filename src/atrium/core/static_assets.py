"""Static files of a service's pages, served under content-hashed names with long cache lifetimes.

Each file's URL carries a hash of its content, so a browser may keep it for a year and still never
run a stale copy. ES modules import each other by relative name (`./feed.js`); those specifiers
are rewritten to the hashed names, so a module's hash covers the modules it imports. The import
graph must therefore be acyclic (checked at start-up). A service may add generated files (text
built at start-up) beside the ones in its directory.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.page_headers import PAGE_HEADERS

_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])\./([\w.-]+\.js)\2""")
_MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
_IMMUTABLE = "public, max-age=31536000, immutable"


@dataclass(frozen=True)
class Asset:
    name: str
    hashed_name: str
    body: bytes
    gzipped: bytes
    media_type: str


def _hashed(name: str, body: bytes) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{hashlib.sha256(body).hexdigest()[:12]}{dot}{ext}"


class StaticAssets:
    """Every static file of one service's pages, loaded once, by original and by hashed name.

    Routes serve `prefix + "{name}"` with `response`; templates link `url(name)`.
    """

    def __init__(
        self, directory: Path, prefix: str, generated: Mapping[str, str] | None = None
    ) -> None:
        self.prefix = prefix
        sources = {p.name: p.read_text("utf-8") for p in sorted(directory.iterdir()) if p.is_file()}
        sources.update(generated or {})
        self.by_name: dict[str, Asset] = {}
        visiting: set[str] = set()

        def build(name: str) -> Asset:
            done = self.by_name.get(name)
            if done is not None:
                return done
            if name in visiting:
                raise RuntimeError(f"static module import cycle through {name}")
            if name not in sources:
                raise RuntimeError(f"static module {name} imports a missing module")
            visiting.add(name)
            text = sources[name]
            if name.endswith(".js"):
                text = _IMPORT.sub(
                    lambda m: (
                        f"{m.group(1)}{m.group(2)}./{build(m.group(3)).hashed_name}{m.group(2)}"
                    ),
                    text,
                )
            visiting.discard(name)
            body = text.encode()
            suffix = name[name.rfind(".") :]
            asset = Asset(
                name,
                _hashed(name, body),
                body,
                gzip.compress(body, 9, mtime=0),
                _MEDIA_TYPES.get(suffix, "application/octet-stream"),
            )
            self.by_name[name] = asset
            return asset

        for name in sources:
            build(name)
        self.by_hashed = {a.hashed_name: a for a in self.by_name.values()}

    def url(self, name: str) -> str:
        return self.prefix + self.by_name[name].hashed_name

    def modules(self) -> list[str]:
        """Every module's URL, for `modulepreload` links (one round trip instead of a chain)."""
        return [self.url(n) for n in sorted(self.by_name) if n.endswith(".js")]

    def response(self, request: Request) -> Response:
        asset = self.by_hashed.get(request.path_params["name"])
        if asset is None:
            return Response("Not Found", 404, media_type="text/plain")
        headers = {
            "Cache-Control": _IMMUTABLE,
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": PAGE_HEADERS["Content-Security-Policy"],
            "Vary": "Accept-Encoding",
            "ETag": f'"{asset.hashed_name}"',
        }
        body = asset.body
        if "gzip" in request.headers.get("accept-encoding", ""):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        return Response(body, media_type=asset.media_type, headers=headers)
