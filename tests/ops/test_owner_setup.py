"""`atrium init --link`: the one-time page where the owner sets their email, name and password.

The attacks: a forged or reused link, a form posted from another site (no CSRF token), oversized
fields, and markup in what the page echoes back.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from atrium.ops.init import InitError
from atrium.ops.owner_setup import SETUP_FILE, issue_link
from atrium.server import create_app
from atrium.settings import Settings
from tests.conftest import copy_sqlite_templates

pytestmark = pytest.mark.anyio

EMAIL, NAME, PASSWORD = "lead@crew.test", "Lee Lead", "marmalade-sky-77"


@pytest.fixture
def settings(data_dir: Path, sqlite_templates: Path) -> Settings:
    copy_sqlite_templates(sqlite_templates, data_dir)
    return Settings(data_dir=data_dir, port=8080, migrate_on_start=False)


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url=settings.base_url) as c:
            yield c


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, html
    return match.group(1)


async def _form(client: httpx.AsyncClient, path: str) -> str:
    page = await client.get(path)
    assert page.status_code == 200, page.text
    assert "script-src" not in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    return _csrf(page.text)


async def test_link_creates_owner_once(client: httpx.AsyncClient, settings: Settings) -> None:
    link = issue_link(settings, "Crew Co")
    path = link.removeprefix(settings.base_url)
    assert (settings.data_dir / SETUP_FILE).stat().st_mode & 0o077 == 0
    assert path.removeprefix("/setup/") not in (settings.data_dir / SETUP_FILE).read_text()

    assert (await client.get("/setup/not-the-token")).status_code == 404
    csrf = await _form(client, path)
    fields = {"email": EMAIL, "full_name": NAME, "password": PASSWORD}
    # Another site's form: no token, or a token without the cookie.
    forged = await client.post(path, data=fields)
    assert forged.status_code == 403
    client.cookies.clear()
    assert (await client.post(path, data={**fields, "csrf_token": csrf})).status_code == 403

    csrf = await _form(client, path)
    done = await client.post(path, data={**fields, "csrf_token": csrf})
    assert done.status_code == 200, done.text
    assert "Crew Co is ready" in done.text
    assert not (settings.data_dir / SETUP_FILE).exists()
    # Once: the link is gone.
    assert (await client.get(path)).status_code == 404
    assert (await client.post(path, data={**fields, "csrf_token": csrf})).status_code == 404

    key = await client.post("/api/v1/fetch_api_key", data={"username": EMAIL, "password": PASSWORD})
    assert key.json()["result"] == "success", key.text
    me = await client.get("/api/v1/users/me", auth=(EMAIL, key.json()["api_key"]))
    assert me.json()["role"] == 100
    token = (
        await client.get("/w/api.php", params={"action": "query", "meta": "tokens",
                                               "type": "login", "format": "json"})
    ).json()["query"]["tokens"]["logintoken"]  # fmt: skip
    login = await client.post(
        "/w/api.php",
        data={"action": "login", "lgname": NAME, "lgpassword": PASSWORD, "lgtoken": token,
              "format": "json"},
    )  # fmt: skip
    assert login.json()["login"]["result"] == "Success", login.text

    # Nothing more can be set up on a data directory with an organization.
    with pytest.raises(InitError, match="already has an organization"):
        issue_link(settings, "Second")


async def test_bad_fields_are_refused_and_echoed_escaped(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    path = issue_link(settings, "Crew <b>Co</b>").removeprefix(settings.base_url)
    csrf = await _form(client, path)
    long_name = await client.post(
        path,
        data={"email": EMAIL, "full_name": "x" * 101, "password": PASSWORD, "csrf_token": csrf},
    )
    assert long_name.status_code == 400 and "Full name is too long" in long_name.text
    csrf = _csrf(long_name.text)
    short = await client.post(
        path,
        data={"email": EMAIL, "full_name": "<script>x</script>", "password": "short",
              "csrf_token": csrf},
    )  # fmt: skip
    assert short.status_code == 400
    assert "<script>x" not in short.text and "&lt;script&gt;x" in short.text
    assert "<b>Co</b>" not in short.text
    # The link still works after refusals.
    assert (await client.get(path)).status_code == 200
