"""The one error type of the wiki API; `main.render_error` turns it into MediaWiki's error shapes."""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.messages import Message


class ApiUsageError(Exception):
    """An API error: MediaWiki's `code`, the message (key, params, English text) and extra members.

    `module` is the path of the module that raised it (`main`, `query+allpages`); `extra` members
    sit next to `code` and `info` (bc) or under `data` (other error formats).
    """

    def __init__(
        self,
        code: str,
        message: Message,
        *,
        module: str | None = None,
        extra: dict[str, Any] | None = None,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message.text)
        self.code = code
        self.message = message
        self.module = module
        self.extra = extra or {}
        self.status = status
        self.headers = headers or {}
