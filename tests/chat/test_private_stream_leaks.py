"""No read endpoint tells a user who cannot access a private stream its name, description,
subscribers or messages."""

from __future__ import annotations

import orjson
import pytest

from tests.chat.conftest import ChatHarness, Member, assert_json_success

pytestmark = pytest.mark.anyio

NAME = "Elsinore-cellar"
DESCRIPTION = "Whispered-plans-kept-below"
CONTENT = "the-ghost-walks-at-midnight"
TOPIC = "battlements-secret-topic"


@pytest.mark.parametrize("who", ["cordelia", "shiva", "polonius"])
async def test_read_endpoints_do_not_leak_private_streams(chat: ChatHarness, who: str) -> None:
    outsider: Member = chat.users[who]
    insider = await chat.make_user("horatio", full_name="Horatio")
    sid = await chat.make_stream(NAME, [chat.hamlet, insider], invite_only=True)
    assert_json_success(await chat.patch(f"/streams/{sid}", chat.iago, description=DESCRIPTION))
    mid = await chat.send_stream(chat.hamlet, NAME, TOPIC, CONTENT)
    await chat.make_stream("Verona", [chat.hamlet, outsider])
    other_mid = await chat.send_stream(chat.hamlet, "Verona", "t", "nothing to see")
    group = await chat.runtime.db.read(
        lambda conn: conn.scalar(
            "SELECT id FROM user_group WHERE name = '@role:members'"  # any group id will do
        )
    )

    requests: list[tuple[str, str, dict[str, object]]] = [
        ("GET", "/streams", {}),
        ("GET", "/streams", {"include_public": True, "include_subscribed": True}),
        ("GET", "/streams", {"include_web_public": True}),
        ("GET", f"/streams/{sid}", {}),
        ("GET", f"/streams/{sid}/members", {}),
        ("GET", "/get_stream_id", {"stream": NAME}),
        ("GET", "/users/me/subscriptions", {"include_subscribers": True}),
        ("GET", "/users", {}),
        ("GET", "/users/me", {}),
        ("GET", f"/users/{chat.hamlet.id}", {}),
        ("GET", "/user_groups", {}),
        ("GET", f"/user_groups/{group}/members", {}),
        ("GET", "/realm/linkifiers", {}),
        ("GET", "/server_settings", {}),
        ("GET", f"/messages/{mid}", {}),
        ("GET", f"/messages/{other_mid}", {}),
        ("GET", "/messages", {"anchor": "newest", "num_before": 100, "num_after": 0}),
        (
            "GET",
            "/messages",
            {
                "anchor": "newest",
                "num_before": 100,
                "num_after": 0,
                "narrow": [{"operator": "stream", "operand": NAME}],
            },
        ),
        (
            "GET",
            "/messages",
            {
                "anchor": "newest",
                "num_before": 100,
                "num_after": 0,
                "narrow": [{"operator": "search", "operand": "ghost"}],
            },
        ),
        ("POST", "/messages/render", {"content": f"#**{NAME}**"}),
    ]
    for method, path, params in requests:
        resp = await chat.request(method, path, outsider, params)
        text = resp.text
        for secret in (NAME, DESCRIPTION, CONTENT, TOPIC):
            # The caller's own words may come back (a name they asked about); nothing more.
            asked = secret in orjson.dumps(params).decode()
            if asked:
                assert text.count(secret) <= orjson.dumps(params).decode().count(secret), (
                    method,
                    path,
                )
            else:
                assert secret not in text, (method, path, secret)
        body = resp.json()
        for stream in body.get("streams", []) + body.get("subscriptions", []):
            assert stream.get("stream_id") != sid, (method, path)
        assert body.get("subscribers") is None or insider.id not in body["subscribers"]
        assert f'data-stream-id="{sid}"' not in text, (method, path)
    # Registering for events is a read too: its initial state must not carry the stream.
    resp = await chat.post("/register", outsider)
    if resp.status_code == 200:
        for secret in (NAME, DESCRIPTION, CONTENT, TOPIC):
            assert secret not in resp.text
