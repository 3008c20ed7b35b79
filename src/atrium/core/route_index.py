"""A router that tries only the routes that can match a path's first segment.

Starlette's router tries every route in order until one matches. With both services and the
workspace behind one app that is over 200 regular expressions before the wiki's `api.php`, tried
on every request. Routes are indexed here by the literal first segment of their path; a request
tries, in the original order, the routes with its own first segment and those whose first
segment is a parameter. The first match is the one Starlette would have found.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Router
from starlette.types import Receive, Scope, Send

# The key of routes whose first segment is a parameter (or that have no path): tried always.
_ANY = None


def _first_segment(path: str) -> str:
    return path[1:].split("/", 1)[0]


def _key(route: BaseRoute) -> str | None:
    path = getattr(route, "path", None)
    if not isinstance(path, str) or not path.startswith("/"):
        return _ANY
    segment = _first_segment(path)
    return _ANY if "{" in segment else segment


class IndexedRouter(Router):
    def _candidates(self, segment: str) -> Sequence[BaseRoute]:
        if getattr(self, "_indexed_count", -1) != len(self.routes):
            keys = [_key(route) for route in self.routes]
            self._by_segment: dict[str, list[BaseRoute]] = {}
            for segment_key in {k for k in keys if k is not _ANY}:
                self._by_segment[segment_key] = [
                    r for r, k in zip(self.routes, keys, strict=True) if k in (segment_key, _ANY)
                ]
            self._any = [r for r, k in zip(self.routes, keys, strict=True) if k is _ANY]
            self._indexed_count = len(self.routes)
        return self._by_segment.get(segment, self._any)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().app(scope, receive, send)
            return
        scope.setdefault("router", self)
        path, root = scope["path"], scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        candidates = self._candidates(_first_segment(path))
        for route in candidates:
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                scope["route"] = route
                scope.update(child_scope)
                await route.handle(scope, receive, send)
                return
            if match is Match.PARTIAL:
                break
        # A partial match (405), a slash to redirect or nothing: Starlette's own walk decides.
        await super().app(scope, receive, send)
