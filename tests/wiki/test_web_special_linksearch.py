"""`Special:LinkSearch` over HTTP: pages by the external links they hold, with wildcards,
protocols, a namespace, paging, the empty state, a refused pattern and hostile input escaped."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit

pytestmark = pytest.mark.anyio


def _lines(text: str) -> list[tuple[str, str]]:
    return re.findall(
        r'<li><a rel="nofollow" class="external" href="([^"]*)">[^<]*</a> is linked from '
        r'<a href="[^"]*" title="([^"]*)"',
        text,
    )


async def test_link_search(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    form = await client.get("/wiki/Special:LinkSearch")
    assert form.status_code == 200 and 'name="target"' in form.text
    assert "There are no results" not in form.text
    await edit(
        wiki,
        "Guide",
        "See [https://docs.example.org/guide the guide] and "
        "[http://www.example.org/ home] and [mailto:team@example.org mail].",
    )
    await edit(wiki, "Talk:Guide", "Also http://docs.example.org/talk here.")
    await edit(wiki, 'Quote"&amp', "Link https://example.org/a?b=%3Cscript%3E&c=1 here.")
    docs = (await client.get("/wiki/Special:LinkSearch/*.example.org")).text
    assert _lines(docs) == [
        ("http://docs.example.org/talk", "Talk:Guide"),
        ("http://www.example.org/", "Guide"),
    ]
    secure = (
        await client.get("/wiki/Special:LinkSearch", params={"target": "https://*.example.org"})
    ).text
    assert ("https://docs.example.org/guide", "Guide") in _lines(secure)
    assert ("https://example.org/a?b=%3Cscript%3E&amp;c=1", "Quote&#34;&amp;") in _lines(secure)
    mail = (
        await client.get("/wiki/Special:LinkSearch", params={"target": "mailto:*@example.org"})
    ).text
    assert _lines(mail) == [("mailto:team@example.org", "Guide")]
    main_only = await client.get(
        "/wiki/Special:LinkSearch", params={"target": "*.example.org", "namespace": "0"}
    )
    assert _lines(main_only.text) == [("http://www.example.org/", "Guide")]
    first = (await client.get("/wiki/Special:LinkSearch/*.example.org?limit=1")).text
    assert len(_lines(first)) == 1 and 'class="mw-nextlink"' in first
    second = (await client.get("/wiki/Special:LinkSearch/*.example.org?limit=1&offset=1")).text
    assert _lines(second) == [("http://www.example.org/", "Guide")] and '<ol start="2"' in second
    nothing = (await client.get("/wiki/Special:LinkSearch/nowhere.example.net")).text
    assert "There are no results for this report." in nothing


@pytest.mark.parametrize(
    "target",
    ["www.*.example.org", "<script>alert(1)</script>", "x" * 5000, "%00", "http://[::1", "*"],
)
async def test_bad_patterns_never_fail(
    wiki: WikiHarness, client: httpx.AsyncClient, target: str
) -> None:
    response = await client.get(
        "/wiki/Special:LinkSearch", params={"target": target, "namespace": "zz", "limit": "x"}
    )
    assert response.status_code == 200
    assert "<script>alert" not in response.text
    if target == "www.*.example.org":
        assert "Wildcards may appear only at the start of the hostname." in response.text
