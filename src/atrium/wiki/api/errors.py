"""The one error type of the wiki API; `main._error_body` turns it into MediaWiki's error shapes."""

from __future__ import annotations

from typing import Any

from atrium.core.exceptions import exception_class
from atrium.wiki.messages.messages import Message


class ApiUsageError(Exception):
    """An API error: MediaWiki's `code`, the message (key, params, English text) and extra members.

    `module` is the path of the module that raised it (`main`, `query+allpages`); `extra` members
    sit next to `code` and `info` (bc) or under `data` (other error formats). `more` are the
    errors raised with it (a MediaWiki Status with several errors): the other error formats list
    them after this one, bc shows only this one, and all their codes make the
    `MediaWiki-API-Error` header.
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
        more: tuple[ApiUsageError, ...] = (),
    ) -> None:
        super().__init__(message.text)
        self.code = code
        self.message = message
        self.module = module
        self.extra = extra or {}
        self.status = status
        self.headers = headers or {}
        self.more = more

    @property
    def all_errors(self) -> tuple[ApiUsageError, ...]:
        return (self, *self.more)


class InternalApiError(ApiUsageError):
    """An unexpected exception, answered as ApiMain::errorMessagesFromException does without
    `$wgShowExceptionDetails`: `internal_api_error_<Class>`, the request id and the class name
    only (the details go to the log under that id), no `docref`, no module."""

    def __init__(self, exc: BaseException, request_id: str) -> None:
        errorclass = exception_class(exc)
        super().__init__(
            f"internal_api_error_{type(exc).__name__}",
            Message("apierror-exceptioncaughttype", (request_id, errorclass)),
            extra={"errorclass": errorclass},
        )
        self.request_id = request_id
