"""Authentication, rate limits, routing errors and the parameter conventions every endpoint shares."""

from __future__ import annotations

import base64
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.runtime import ChatRuntime
from atrium.core.secrets import hash_password
from atrium.server import create_app
from atrium.settings import RateLimits
from tests.chat.conftest import ChatHarness, assert_json_error, assert_json_success, chat_settings

pytestmark = pytest.mark.anyio


def basic(email: str, key: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{key}".encode()).decode()}


async def test_missing_credentials(chat: ChatHarness) -> None:
    resp = await chat.get("/users/me", None)
    assert_json_error(
        resp,
        "Not logged in: API authentication or user session required",
        status=401,
        code="UNAUTHORIZED",
    )
    assert resp.headers["www-authenticate"] == 'Basic realm="zulip"'


async def test_wrong_and_malformed_credentials(chat: ChatHarness) -> None:
    hamlet = chat.hamlet
    cases = [
        (basic(hamlet.email, "x" * 32), "Invalid API key"),
        (basic(hamlet.email, "short"), "Malformed API key"),
        (basic(chat.cordelia.email, hamlet.api_key), "Invalid API key"),
        ({"Authorization": "Basic %%%notbase64"}, "Invalid authorization header for basic auth"),
        (
            {"Authorization": "Basic " + base64.b64encode(b"no-colon").decode()},
            "Invalid authorization header for basic auth",
        ),
    ]
    for headers, msg in cases:
        resp = await chat.request("GET", "/users/me", None, headers=headers)
        assert_json_error(resp, msg, status=401, code="UNAUTHORIZED")
    resp = await chat.request("GET", "/users/me", None, headers={"Authorization": "Bearer abc"})
    assert_json_error(resp, "This endpoint requires HTTP basic authentication.")


async def test_deactivated_user_and_realm_cannot_authenticate(chat: ChatHarness) -> None:
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.user).where(schema.user.c.id == chat.hamlet.id).values(is_active=False)
        )
    )
    resp = await chat.get("/users/me", chat.hamlet)
    assert_json_error(resp, "Account is deactivated", status=401, code="UNAUTHORIZED")
    await chat.runtime.db.write(
        lambda conn: conn.execute(sa.update(schema.realm).values(deactivated=True))
    )
    resp = await chat.get("/users/me", chat.cordelia)
    assert_json_error(
        resp, "This organization has been deactivated", status=401, code="UNAUTHORIZED"
    )


async def test_unknown_route_and_wrong_method(chat: ChatHarness) -> None:
    resp = await chat.get("/no/such/endpoint", chat.hamlet)
    assert_json_error(resp, "Not Found", status=404)
    resp = await chat.request("PUT", "/messages", chat.hamlet)
    assert resp.status_code == 405
    assert resp.json() == {
        "result": "error",
        "msg": "Method Not Allowed",
        "allowed_methods": ["GET", "POST"],
    }


async def test_parameter_type_errors(chat: ChatHarness) -> None:
    resp = await chat.get("/messages", chat.hamlet, anchor="newest", num_before="x", num_after=0)
    assert_json_error(resp, "num_before is not valid JSON")
    resp = await chat.get("/messages", chat.hamlet, anchor="newest", num_before="1.5", num_after=0)
    assert_json_error(resp, "num_before is not an integer")
    resp = await chat.get("/messages", chat.hamlet, anchor="newest", num_after=0)
    body = assert_json_error(resp, "Missing 'num_before' argument", code="REQUEST_VARIABLE_MISSING")
    assert body["var_name"] == "num_before"
    resp = await chat.get("/users", chat.hamlet, client_gravatar='"yes"')
    assert_json_error(resp, "client_gravatar is not a boolean")
    resp = await chat.post("/users/me/subscriptions", chat.hamlet, subscriptions='[{"name": 1}]')
    assert_json_error(resp, "subscriptions[0]['name'] is not a string")


async def test_parameters_from_query_string_on_post(chat: ChatHarness) -> None:
    await chat.make_stream("Verona", [chat.hamlet])
    resp = await chat.client.post(
        "/api/v1/messages?type=stream&to=Verona&topic=q",
        data={"content": "from the body"},
        headers=chat.hamlet.auth(),
    )
    assert_json_success(resp)


async def test_server_settings_needs_no_auth(chat: ChatHarness) -> None:
    body = assert_json_success(await chat.get("/server_settings", None))
    assert body["zulip_feature_level"] == 185
    assert body["realm_name"] == "Zulip Test"
    assert body["authentication_methods"]["password"] is True
    assert body["email_auth_enabled"] is True


async def test_fetch_api_key(chat: ChatHarness) -> None:
    pw_hash = hash_password("secret-pw")
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.user)
            .where(schema.user.c.id == chat.hamlet.id)
            .values(password_hash=pw_hash)
        )
    )
    body = assert_json_success(
        await chat.post("/fetch_api_key", None, username=chat.hamlet.email, password="secret-pw")
    )
    assert body["api_key"] == chat.hamlet.api_key
    assert body["user_id"] == chat.hamlet.id
    assert body["email"] == chat.hamlet.email
    resp = await chat.post("/fetch_api_key", None, username=chat.hamlet.email, password="nope")
    assert_json_error(
        resp, "Your username or password is incorrect", status=401, code="AUTHENTICATION_FAILED"
    )
    resp = await chat.post("/fetch_api_key", None, username="ghost@zulip.test", password="nope")
    assert_json_error(
        resp, "Your username or password is incorrect", status=401, code="AUTHENTICATION_FAILED"
    )
    await chat.runtime.db.write(
        lambda conn: conn.execute(
            sa.update(schema.user).where(schema.user.c.id == chat.hamlet.id).values(is_active=False)
        )
    )
    resp = await chat.post("/fetch_api_key", None, username=chat.hamlet.email, password="secret-pw")
    assert_json_error(resp, "Account is deactivated", status=401, code="USER_DEACTIVATED")


@pytest.mark.parametrize("database_url", [None], indirect=False)
async def test_rate_limits(data_dir: Path, database_url: str | None) -> None:
    settings = chat_settings(data_dir, database_url).with_(
        rate_limits=RateLimits(enabled=True, api_requests=3, password_attempts=2)
    )
    app = create_app(settings, services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            from atrium.chat.actions.realm import create_realm
            from atrium.chat.actions.users import NewUser, create_user

            realm_id = await runtime.db.write(create_realm, "Zulip", "zulip")
            await runtime.db.write(
                create_user, realm_id, NewUser("h@zulip.test", "Hamlet", role=400)
            )
            key = await runtime.db.read(lambda conn: conn.scalar(sa.select(schema.user.c.api_key)))
            headers = basic("h@zulip.test", key)
            for remaining in (2, 1, 0):
                resp = await client.get("/api/v1/users/me", headers=headers)
                assert resp.status_code == 200
                assert resp.headers["x-ratelimit-limit"] == "3"
                assert resp.headers["x-ratelimit-remaining"] == str(remaining)
            resp = await client.get("/api/v1/users/me", headers=headers)
            body = assert_json_error(
                resp, "API usage exceeded rate limit", status=429, code="RATE_LIMIT_HIT"
            )
            assert body["retry-after"] > 0
            assert int(resp.headers["retry-after"]) >= 1
            # Password attempts have their own, stricter limit.
            for _ in range(2):
                resp = await client.post(
                    "/api/v1/fetch_api_key", data={"username": "h@zulip.test", "password": "x"}
                )
                assert resp.status_code == 401
            resp = await client.post(
                "/api/v1/fetch_api_key", data={"username": "h@zulip.test", "password": "x"}
            )
            assert resp.status_code == 429


async def test_deactivation_takes_effect_at_once_despite_the_credential_cache(
    chat: ChatHarness,
) -> None:
    assert_json_success(await chat.get("/users/me", chat.hamlet))  # now cached
    assert_json_success(await chat.delete(f"/users/{chat.hamlet.id}", chat.iago))
    resp = await chat.get("/users/me", chat.hamlet)
    assert_json_error(resp, "Account is deactivated", status=401, code="UNAUTHORIZED")
    # A role change is seen at once too.
    assert_json_success(await chat.get("/users", chat.cordelia))
    assert_json_success(await chat.patch(f"/users/{chat.cordelia.id}", chat.desdemona, role=200))
    resp = await chat.post(
        "/users", chat.cordelia, email="new@zulip.test", password="pw-1234", full_name="New One"
    )
    assert_json_success(resp)
