"""Every kind of wiki page is served under a Content-Security-Policy that runs only our own
script files, with no inline script or event handler in the HTML and framing refused."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_forms import sign_in

pytestmark = pytest.mark.anyio


def _directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


async def test_pages_allow_no_inline_script(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    first = await wiki.edit_page("Headers", "== One ==\nText [[Missing]].")
    second = await wiki.edit_page("Headers", "== One ==\nMore text.", user="Alice")
    await sign_in(client, "Admin")
    paths = [
        "/wiki/Headers",
        "/wiki/No_such_page",
        "/w/index.php?title=Headers&action=edit",
        "/w/index.php?title=Headers&action=history",
        f"/w/index.php?title=Headers&diff={second}&oldid={first}",
        f"/w/index.php?title=Headers&oldid={first}",
        "/w/index.php?title=Headers&action=info",
        "/wiki/Special:RecentChanges",
        "/wiki/Special:Search?search=text&fulltext=1",
        "/wiki/Special:SpecialPages",
        "/wiki/Special:Preferences",
        "/w/index.php?title=Special:UserLogout",
    ]
    for path in paths:
        page = await client.get(path)
        assert page.status_code in (200, 404), path
        policy = _directives(page.headers["content-security-policy"])
        assert policy["script-src"] == ["'self'"], path
        assert "'unsafe-inline'" not in policy.get("default-src", []), path
        assert "frame-ancestors" in policy or page.headers.get("x-frame-options") == "DENY"
        # Scripts only as files, and no handler attribute anywhere in the markup.
        scripts = re.findall(r"<script\b[^>]*>", page.text)
        assert all(" src=" in tag for tag in scripts), (path, scripts)
        assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", page.text, re.I), path
        assert page.headers["x-content-type-options"] == "nosniff"
