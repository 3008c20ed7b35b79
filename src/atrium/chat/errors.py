"""The chat service's one error type, and the Zulip error cases that recur across endpoints.

A `ChatError` carries everything its response needs (message, code, HTTP status, extra fields);
`body()` gives Zulip's error envelope, built in one place.
"""

from __future__ import annotations

from typing import Any


class ChatError(Exception):
    """An error answered as `{"result": "error", "msg": ..., "code": ..., **data}`.

    `code=None` reproduces the few Zulip errors that carry no code at all.
    """

    def __init__(
        self,
        msg: str,
        code: str | None = "BAD_REQUEST",
        status: int = 400,
        headers: dict[str, str] | None = None,
        **data: Any,
    ) -> None:
        super().__init__(msg)
        self.msg = msg
        self.code = code
        self.status = status
        self.headers = headers or {}
        self.data = data

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"result": "error", "msg": self.msg}
        if self.code is not None:
            body["code"] = self.code
        body.update(self.data)
        return body


def missing_argument(name: str) -> ChatError:
    return ChatError(f"Missing '{name}' argument", "REQUEST_VARIABLE_MISSING", var_name=name)


def invalid_argument(name: str, value: str) -> ChatError:
    return ChatError(f"Bad value for '{name}': {value}", "REQUEST_VARIABLE_INVALID", var_name=name)


def unauthorized(msg: str) -> ChatError:
    return ChatError(msg, "UNAUTHORIZED", 401, headers={"WWW-Authenticate": 'Basic realm="zulip"'})


def must_be_admin() -> ChatError:
    return ChatError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")


def must_be_owner() -> ChatError:
    return ChatError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")


def stream_does_not_exist(name: str) -> ChatError:
    return ChatError(f"Stream '{name}' does not exist", "STREAM_DOES_NOT_EXIST", stream=name)


def stream_id_does_not_exist(stream_id: int) -> ChatError:
    return ChatError(
        f"Stream with ID '{stream_id}' does not exist", "STREAM_DOES_NOT_EXIST", stream_id=stream_id
    )


def no_such_user() -> ChatError:
    return ChatError("No such user")
