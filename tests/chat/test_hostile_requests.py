"""Request bodies and integers no parser should choke on: each answers 400 in Zulip's envelope.

The reproducers of the reliability review: a multipart body without a boundary, ids beyond
64 bits in paths and parameters, bodies that are not UTF-8 or are too large.
"""

from __future__ import annotations

import pytest
from starlette.requests import Request

from atrium.chat.http import ApiRequest, api, limited
from atrium.chat.params import Endpoint
from tests.chat.conftest import ChatHarness, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio

HUGE = "9223372036854775808"  # 2**63, one past the largest signed 64-bit integer
# One past the largest INTEGER of PostgreSQL, where every id column is 32-bit.
PAST_32_BITS = "2147483648"


async def test_multipart_without_boundary_is_a_bad_request(chat: ChatHarness) -> None:
    resp = await chat.client.post(
        "/api/v1/messages",
        content=b"type=stream&to=general&topic=t&content=x",
        headers={**chat.hamlet.auth(), "Content-Type": "multipart/form-data"},
    )
    assert_json_error(resp, "Malformed request body: Missing boundary in multipart.")


@pytest.mark.parametrize(
    "body",
    [
        b'--XX\r\nContent-Disposition: form-data; name="content"\r\n\r\nx',  # never closed
        b"garbage without any boundary line",
        b"--XX\r\nno headers here\r\n--XX--\r\n",
    ],
)
async def test_broken_multipart_is_a_bad_request(chat: ChatHarness, body: bytes) -> None:
    resp = await chat.client.request(
        "PATCH",
        "/api/v1/settings",
        content=body,
        headers={**chat.hamlet.auth(), "Content-Type": "multipart/form-data; boundary=XX"},
    )
    assert resp.status_code in {200, 400}, resp.text
    assert resp.json()["result"] == ("success" if resp.status_code == 200 else "error")


async def test_multipart_form_fields_are_read(chat: ChatHarness) -> None:
    await chat.make_stream("general", [chat.hamlet])
    resp = await chat.client.post(
        "/api/v1/messages",
        data={"type": "stream", "to": "general", "topic": "t", "content": "multipart"},
        files={"ignored": ("a.txt", b"file body")},
        headers=chat.hamlet.auth(),
    )
    assert_json_success(resp)


async def test_body_not_utf8_is_a_bad_request(chat: ChatHarness) -> None:
    resp = await chat.client.post(
        "/api/v1/messages/render",
        content=b"content=\xff\xfe",
        headers={**chat.hamlet.auth(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_json_error(resp, "Malformed request body: not UTF-8")


async def test_body_over_the_limit_is_refused(chat: ChatHarness) -> None:
    limit = chat.runtime.settings.max_body_bytes
    resp = await chat.client.post(
        "/api/v1/messages/render",
        content=b"content=" + b"a" * limit,
        headers={**chat.hamlet.auth(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_json_error(resp, f"Request body too large (limit: {limit} bytes)")


async def test_chunked_body_over_the_limit_is_refused(chat: ChatHarness) -> None:
    limit = chat.runtime.settings.max_body_bytes

    async def chunks():  # type: ignore[no-untyped-def]
        yield b"content="
        for _ in range(limit // 65536 + 2):
            yield b"a" * 65536

    resp = await chat.client.post(
        "/api/v1/messages/render",
        content=chunks(),
        headers={**chat.hamlet.auth(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_json_error(resp, f"Request body too large (limit: {limit} bytes)")


async def test_a_view_may_declare_its_own_body_limit() -> None:
    async def view(req: ApiRequest, args: dict[str, object]) -> dict[str, object]:
        return {}

    spec = api(Endpoint(), max_body_bytes=50 * 1024 * 1024)(view)
    assert spec.max_body_bytes == 50 * 1024 * 1024


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/messages/{huge}"),
        ("PATCH", "/messages/{huge}"),
        ("DELETE", "/messages/{huge}"),
        ("GET", "/messages/{huge}/history"),
        ("POST", "/messages/{huge}/reactions"),
        ("GET", "/messages/{huge}/read_receipts"),
    ],
)
async def test_message_id_beyond_64_bits_is_an_invalid_message(
    chat: ChatHarness, method: str, path: str
) -> None:
    for huge in (HUGE, PAST_32_BITS):
        resp = await chat.request(method, path.format(huge=huge), chat.hamlet, {"content": "x"})
        assert_json_error(resp, "Invalid message(s)")


async def test_flag_of_a_message_id_beyond_64_bits(chat: ChatHarness) -> None:
    resp = await chat.client.post(
        "/api/v1/messages/flags",
        data={"messages": f"[{HUGE}]", "op": "add", "flag": "starred"},
        headers=chat.hamlet.auth(),
    )
    assert_json_error(resp, "Invalid message(s)")


async def test_user_id_beyond_64_bits_is_no_such_user(chat: ChatHarness) -> None:
    for method, path in [
        ("GET", f"/users/{HUGE}"),
        ("GET", f"/users/{PAST_32_BITS}"),
        ("PATCH", f"/users/{HUGE}"),
        ("DELETE", f"/users/{HUGE}"),
        ("POST", f"/users/{HUGE}/reactivate"),
        ("GET", "/users/\u00b2/presence"),
        ("GET", f"/users/{HUGE}/presence"),
        ("GET", "/users/\u00b2"),  # a superscript two: str.isdigit() says yes, int() says no
    ]:
        resp = await chat.request(method, path, chat.desdemona, {"full_name": "x"})
        assert_json_error(resp, "No such user")


@pytest.mark.parametrize(
    ("method", "path", "name"),
    [
        ("DELETE", "/drafts/{huge}", "draft_id"),
        ("DELETE", "/scheduled_messages/{huge}", "scheduled_message_id"),
        ("GET", "/streams/{huge}", "stream_id"),
        ("PATCH", "/streams/{huge}", "stream_id"),
        ("DELETE", "/streams/{huge}", "stream_id"),
        ("GET", "/streams/{huge}/members", "stream_id"),
        ("DELETE", "/user_groups/{huge}", "user_group_id"),
        ("GET", "/user_groups/{huge}/members", "user_group_id"),
        ("DELETE", "/realm/filters/{huge}", "filter_id"),
        ("DELETE", "/realm/playgrounds/{huge}", "playground_id"),
    ],
)
async def test_path_id_beyond_64_bits_is_a_bad_value(
    chat: ChatHarness, method: str, path: str, name: str
) -> None:
    for huge in (HUGE, PAST_32_BITS):
        resp = await chat.request(method, path.format(huge=huge), chat.desdemona)
        body = assert_json_error(
            resp, f"Bad value for '{name}': {huge}", code="REQUEST_VARIABLE_INVALID"
        )
        assert body["var_name"] == name


@pytest.mark.parametrize(
    ("method", "path", "params", "name"),
    [
        ("POST", "/default_streams", {"stream_id": HUGE}, "stream_id"),
        ("DELETE", "/default_streams", {"stream_id": HUGE}, "stream_id"),
        ("POST", "/mark_stream_as_read", {"stream_id": HUGE}, "stream_id"),
        ("POST", "/mark_topic_as_read", {"stream_id": HUGE, "topic_name": "t"}, "stream_id"),
        ("PATCH", "/scheduled_messages/1", {"to": HUGE}, "to"),
        (
            "POST",
            "/scheduled_messages",
            {
                "type": "stream",
                "to": HUGE,
                "topic": "t",
                "content": "x",
                "scheduled_delivery_timestamp": "1",
            },
            "to",
        ),
        ("GET", "/messages", {"num_before": HUGE, "num_after": "0"}, "num_before"),
    ],
)
async def test_parameter_beyond_64_bits_is_a_bad_value(
    chat: ChatHarness, method: str, path: str, params: dict[str, str], name: str
) -> None:
    resp = await chat.request(method, path, chat.desdemona, params)
    assert_json_error(resp, f"Bad value for '{name}': {HUGE}", code="REQUEST_VARIABLE_INVALID")
    past = {key: PAST_32_BITS if value == HUGE else value for key, value in params.items()}
    if path == "/scheduled_messages":  # a timestamp may pass 32 bits: only the id is refused
        past["scheduled_delivery_timestamp"] = PAST_32_BITS
    resp = await chat.request(method, path, chat.desdemona, past)
    assert_json_error(
        resp, f"Bad value for '{name}': {PAST_32_BITS}", code="REQUEST_VARIABLE_INVALID"
    )


async def test_moving_a_message_to_a_stream_id_beyond_64_bits(chat: ChatHarness) -> None:
    await chat.make_stream("general", [chat.hamlet])
    message_id = await chat.send_stream(chat.hamlet, "general", "t", "x")
    resp = await chat.patch(f"/messages/{message_id}", chat.hamlet, stream_id=int(HUGE))
    assert_json_error(resp, f"Bad value for 'stream_id': {HUGE}", code="REQUEST_VARIABLE_INVALID")


async def test_stream_id_too_long_for_json_integers_keeps_its_digits(chat: ChatHarness) -> None:
    """Sent as a number JSON can only read as a float, the id is reported as it was sent."""
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="99999999999999999999", topic="t", content="x"
    )
    assert_json_error(
        resp, "Stream '99999999999999999999' does not exist", code="STREAM_DOES_NOT_EXIST"
    )


async def test_narrow_operands_that_are_not_ascii_ids(chat: ChatHarness) -> None:
    for narrow in (
        [{"operator": "id", "operand": "\u00b2"}],
        [{"operator": "sender", "operand": "\u00b2"}],
        [{"operator": "sender", "operand": HUGE}],
        [{"operator": "sender", "operand": int(PAST_32_BITS)}],
        [{"operator": "stream", "operand": int(PAST_32_BITS)}],
        [{"operator": "stream", "operand": HUGE}],
    ):
        resp = await chat.get(
            "/messages", chat.hamlet, anchor="newest", num_before=1, num_after=0, narrow=narrow
        )
        assert resp.status_code == 400, resp.text
        # A narrow's integers are bounded where parameters are parsed; its strings by the narrow.
        assert resp.json()["code"] in {"BAD_NARROW", "REQUEST_VARIABLE_INVALID"}


async def test_nul_is_refused_in_every_name_and_text(chat: ChatHarness) -> None:
    """PostgreSQL cannot store NUL in text; every parameter refuses it, in its own name."""
    cases = [
        ("GET", "/get_stream_id", {"stream": "a\x00b"}, "stream"),
        (
            "POST",
            "/users/me/subscriptions",
            {"subscriptions": '[{"name": "a\\u0000b"}]'},
            "subscriptions",
        ),
        ("GET", "/users/a%00b@zulip.test", {}, "user"),
        (
            "POST",
            "/messages",
            {"type": "stream", "to": "a\x00b", "topic": "t", "content": "x"},
            "to",
        ),
    ]
    for method, path, params, name in cases:
        resp = await chat.request(method, path, chat.hamlet, params)
        assert_json_error(resp, f"'{name}' must not contain null bytes")
    # Content and topic keep Zulip's own wording.
    await chat.make_stream("Verona", [chat.hamlet])
    resp = await chat.post(
        "/messages", chat.hamlet, type="stream", to="Verona", topic="t", content="a\x00b"
    )
    assert_json_error(resp, "Message must not contain null bytes")


async def test_content_length_that_is_not_ascii_digits() -> None:
    """A superscript two is a digit to str.isdigit() but not to int(): the body is read."""

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"content=x", "more_body": False}

    scope = {"type": "http", "method": "POST", "headers": [(b"content-length", b"\xb2")]}
    body = await limited(Request(scope, receive), 100).body()
    assert body == b"content=x"
