"""typed_endpoint: a view's signature becomes the parameters it is called with, in Zulip's terms."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

from atrium.chat.errors import ChatError
from atrium.chat.http import ApiRequest
from atrium.chat.params import REQUIRED
from atrium.chat.typed_endpoint import ApiParamConfig, Json, PathOnly, typed_endpoint


@typed_endpoint
async def _example(
    req: ApiRequest,
    *,
    message_id: PathOnly[int],
    content: str,
    topic: Annotated[str | None, ApiParamConfig(aliases=("subject",))] = None,
    stream_id: Json[int] | None = None,
    to: Json[list[int] | None] = None,
    apply_markdown: Json[bool] = True,
    from_: Annotated[str | None, ApiParamConfig(whence="from")] = None,
) -> dict[str, Any]:
    """An example view."""
    return {
        "message_id": message_id,
        "content": content,
        "topic": topic,
        "stream_id": stream_id,
        "to": to,
        "apply_markdown": apply_markdown,
        "from": from_,
    }


def _parse(values: dict[str, str]) -> dict[str, Any]:
    args, _ignored = _example.endpoint.parse(values, {"message_id": 7})
    return args


def _error(values: dict[str, str]) -> str:
    with pytest.raises(ChatError) as caught:
        _parse(values)
    return str(caught.value.body()["msg"])


def test_the_signature_declares_the_parameters() -> None:
    params = {p.name: p for p in _example.endpoint.params}
    assert list(params) == [
        "message_id",
        "content",
        "topic",
        "stream_id",
        "to",
        "apply_markdown",
        "from",
    ]
    assert params["message_id"].path
    assert params["content"].type is str and params["content"].default is REQUIRED
    assert params["topic"].aliases == ("subject",) and params["topic"].type is str
    assert params["stream_id"].type is int and params["stream_id"].default is None
    assert params["to"].type == list[int] | None
    assert params["apply_markdown"].type is bool and params["apply_markdown"].default is True
    assert _example.view.__name__ == "_example" and _example.view.__doc__ == "An example view."


def test_the_view_gets_typed_keyword_arguments() -> None:
    args = _parse({"content": "hi", "subject": "t", "stream_id": "3", "to": "[1,2]", "from": "x"})
    data = asyncio.run(_example.view(None, args))  # type: ignore[arg-type]
    assert data == {
        "message_id": 7,
        "content": "hi",
        "topic": "t",
        "stream_id": 3,
        "to": [1, 2],
        "apply_markdown": True,
        "from": "x",
    }


def test_errors_keep_zulips_wording() -> None:
    assert _error({}) == "Missing 'content' argument"
    assert _error({"content": "x", "stream_id": "abc"}) == "stream_id is not valid JSON"
    assert _error({"content": "x", "stream_id": '"3"'}) == "stream_id is not an integer"
    assert _error({"content": "x", "to": '[1, "a"]'}) == "to[1] is not an integer"
    assert _error({"content": "x", "apply_markdown": "1"}) == "apply_markdown is not a boolean"
    assert (
        _error({"content": "x", "topic": "a", "subject": "b"})
        == "Can't decide between 'topic' and 'subject' arguments"
    )


def test_null_is_accepted_only_inside_json() -> None:
    assert _parse({"content": "x", "to": "null"})["to"] is None
    assert _error({"content": "x", "stream_id": "null"}) == "stream_id is not an integer"


def test_an_untyped_parameter_is_refused_at_import() -> None:
    with pytest.raises(TypeError, match="must be str, Json"):

        @typed_endpoint
        async def bad(req: ApiRequest, *, count: int) -> dict[str, Any]:
            return {}

    with pytest.raises(TypeError, match="keyword-only"):

        @typed_endpoint
        async def positional(req: ApiRequest, count: str) -> dict[str, Any]:
            return {}
