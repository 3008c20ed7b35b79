"""Password guessing on the chat: `fetch_api_key` and the sign-in page share Zulip's limit of
failed passwords per username (and a wider one per address), answer 429 with `Retry-After`,
count failures only, and verify an unknown address against a dummy hash in the worker pool."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.runtime import ChatRuntime
from atrium.chat.views import server
from atrium.core import secrets, workers
from atrium.server import create_app
from atrium.settings import RateLimits, Settings
from tests.chat.test_web_sessions import sign_in

pytestmark = pytest.mark.anyio

PASSWORD = "kent-password-1"


@pytest.fixture
async def limited(data_dir: Path, database_url: str | None) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        data_dir=data_dir, database_url=database_url, rate_limits=RateLimits(enabled=True)
    )
    app = create_app(settings, services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        realm_id = await runtime.db.write(create_realm, "Limited", "limited")
        for name in ("kent", "edmund"):
            new = NewUser(email=f"{name}@x.test", full_name=name.title(), password=PASSWORD)
            await runtime.db.write(create_user, realm_id, new)
        transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 4000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c


async def _fetch(client: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    return await client.post(
        "/api/v1/fetch_api_key", data={"username": username, "password": password}
    )


async def test_fetch_api_key_guessing_gets_429_with_retry_after(
    limited: httpx.AsyncClient,
) -> None:
    for i in range(5):
        assert (await _fetch(limited, "kent@x.test", f"wrong{i}")).status_code == 401
    refused = await _fetch(limited, "kent@x.test", PASSWORD)
    assert refused.status_code == 429
    body = refused.json()
    assert body["result"] == "error" and body["code"] == "RATE_LIMIT_HIT"
    assert 0 < body["retry-after"] <= 1800
    assert 1 <= int(refused.headers["Retry-After"]) <= 1800
    # The sign-in page counts the same failures.
    page = await sign_in(limited, "kent@x.test", PASSWORD)
    assert page.status_code == 429 and "Too many sign-in attempts" in page.text


async def test_sign_in_page_guessing_is_throttled(limited: httpx.AsyncClient) -> None:
    for i in range(5):
        assert (await sign_in(limited, "kent@x.test", f"wrong{i}")).status_code == 401
    page = await sign_in(limited, "kent@x.test", PASSWORD)
    assert page.status_code == 429 and 1 <= int(page.headers["Retry-After"]) <= 1800
    assert (await _fetch(limited, "kent@x.test", PASSWORD)).status_code == 429


async def test_successes_are_not_counted(limited: httpx.AsyncClient) -> None:
    for _ in range(6):
        assert (await _fetch(limited, "kent@x.test", PASSWORD)).status_code == 200
    assert (await _fetch(limited, "kent@x.test", "wrong")).status_code == 401


async def test_one_address_cannot_spray_every_account(
    data_dir: Path, database_url: str | None
) -> None:
    settings = Settings(data_dir=data_dir, database_url=database_url)
    tight = replace(settings.rate_limits, password_attempts_per_address=3)
    app = create_app(replace(settings, rate_limits=tight), services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        realm_id = await runtime.db.write(create_realm, "Limited", "limited")
        new = NewUser(email="kent@x.test", full_name="Kent", password=PASSWORD)
        await runtime.db.write(create_user, realm_id, new)
        transport = httpx.ASGITransport(app=app, client=("203.0.113.8", 4000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            for i in range(3):
                assert (await _fetch(c, f"user{i}@x.test", "guess")).status_code == 401
            assert (await _fetch(c, "kent@x.test", PASSWORD)).status_code == 429


async def test_unknown_users_cost_a_dummy_verification_in_the_pool(
    limited: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []
    real_run = workers.run

    async def spy(fn: Any, *args: object) -> Any:
        ran.append(fn.__name__)
        return await real_run(fn, *args)

    monkeypatch.setattr(workers, "run", spy)
    assert (await _fetch(limited, "ghost@x.test", "x")).status_code == 401
    assert (await _fetch(limited, "kent@x.test", "x")).status_code == 401
    assert (await _fetch(limited, "edmund@x.test", PASSWORD)).status_code == 200
    assert ran == ["verify_dummy_password", "verify_password", "verify_password"]
    assert server.verify_dummy_password is secrets.verify_dummy_password
