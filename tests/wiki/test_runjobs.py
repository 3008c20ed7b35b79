"""Special:RunJobs: the signed POST to index.php that job runners send, and the secret key."""

from __future__ import annotations

import hashlib
import hmac
import stat
import time
from pathlib import Path
from urllib.parse import quote_plus

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.settings import Settings
from atrium.wiki.secret_key import wiki_secret_key

pytestmark = pytest.mark.anyio


def _signed(key: str, **overrides: str) -> dict[str, str]:
    """The parameters api-testing's runJobs() sends, signed the way it signs them."""
    params = {
        "title": "Special:RunJobs",
        "maxjobs": "10",
        "maxtime": "100",
        "async": "",
        "stats": "1",
        "tasks": "",
        "sigexpiry": str(int(time.time()) + 3600),
    }
    params.update(overrides)
    query = "&".join(f"{k}={quote_plus(params[k], safe='-_.')}" for k in sorted(params))
    params["signature"] = hmac.new(key.encode(), query.encode(), hashlib.sha1).hexdigest()
    return params


async def test_signed_request_reports_an_empty_queue(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    response = await client.post("/w/index.php", data=_signed(wiki.site.secret))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"jobs": [], "reached": "none-ready", "backoffs": [], "elapsed": 0}


async def test_asynchronous_run_is_accepted(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    response = await client.post("/w/index.php", data=_signed(wiki.site.secret, **{"async": "1"}))
    assert response.status_code == 202


async def test_bad_signature_is_refused(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    params = _signed("some other key")
    response = await client.post("/w/index.php", data=params)
    assert response.status_code == 400
    assert "Invalid or stale signature provided." in response.text
    # A parameter changed after signing breaks the signature too.
    params = _signed(wiki.site.secret)
    params["maxjobs"] = "11"
    response = await client.post("/w/index.php", data=params)
    assert response.status_code == 400


async def test_stale_signature_is_refused(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    params = _signed(wiki.site.secret, sigexpiry=str(int(time.time()) - 5))
    response = await client.post("/w/index.php", data=params)
    assert response.status_code == 400
    assert "Invalid or stale signature provided." in response.text


async def test_missing_parameters_and_get(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    response = await client.post("/w/index.php", data={"title": "Special:RunJobs"})
    assert response.status_code == 400
    assert "Missing parameters: tasks, signature, sigexpiry" in response.text
    response = await client.get("/w/index.php", params=_signed(wiki.site.secret))
    assert response.status_code == 400
    assert "Request must be POSTed." in response.text


async def test_other_titles_still_view_on_post(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Plain", "hello")
    response = await client.post("/w/index.php", data={"title": "Plain"})
    assert response.status_code == 200
    assert "hello" in response.text


def test_secret_key_from_setting_or_generated_once(tmp_path: Path) -> None:
    assert wiki_secret_key(Settings(data_dir=tmp_path, wiki_secret_key="given")) == "given"
    settings = Settings(data_dir=tmp_path)
    first = wiki_secret_key(settings)
    assert len(first) == 64
    assert wiki_secret_key(settings) == first
    mode = stat.S_IMODE(settings.wiki_secret_key_path.stat().st_mode)
    assert mode == 0o600
