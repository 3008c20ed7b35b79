"""Every module that can be a generator works as `generator=` with `g`-prefixed parameters, alone
and with `redirects`, on the reference wiki of `test_prop_modules`."""

from __future__ import annotations

from typing import Any

import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_prop_modules import build_refwiki

from atrium.wiki.api.query.modules import RUNNABLE

pytestmark = pytest.mark.anyio

# Parameters each generator needs to produce pages on the reference wiki (None: may be empty).
PARAMS: dict[str, tuple[dict[str, str], bool]] = {
    "allpages": ({"gaplimit": "5"}, True),
    "links": ({"titles": "Apple"}, True),
    "templates": ({"titles": "Apple"}, True),
    "images": ({"titles": "P9 Files"}, True),
    "categories": ({"titles": "Apple|Banana"}, True),
    "redirects": ({"titles": "Apple"}, True),
    "linkshere": ({"titles": "Apple"}, True),
    "transcludedin": ({"titles": "Template:Stub"}, True),
    "fileusage": ({"titles": "File:P9 pic.png"}, True),
    "revisions": ({"titles": "Apple"}, True),
    "backlinks": ({"gbltitle": "Apple"}, True),
    "embeddedin": ({"geititle": "Template:Stub"}, True),
    "categorymembers": ({"gcmtitle": "Category:Fruit"}, True),
    "imageusage": ({"giutitle": "File:P9 pic.png"}, True),
    "search": ({"gsrsearch": "apple", "gsrwhat": "text"}, True),
    "prefixsearch": ({"gpssearch": "Ap"}, True),
    "alllinks": ({}, True),
    "alltransclusions": ({}, True),
    "allcategories": ({}, True),
    "allredirects": ({}, True),
    "allrevisions": ({}, True),
    "random": ({}, True),
    "recentchanges": ({}, True),
    "watchlist": ({}, True),
    "watchlistraw": ({}, True),
    "querypage": ({"gqppage": "Wantedpages"}, True),
    "pageswithprop": ({"gpwppropname": "notoc"}, True),
}


def generator_names() -> list[str]:
    return sorted(name for name, module in RUNNABLE.items() if module.generate is not None)


def test_generators_are_the_marked_modules() -> None:
    for name in generator_names():
        assert RUNNABLE[name].spec.generator, name


async def test_every_generator(wiki: WikiHarness) -> None:
    await build_refwiki(wiki)
    failures: list[str] = []
    async with wiki.client() as client:
        await wiki.login(client, "Admin")
        # The factory saves no journal rows; one edit through the API gives the journal lists
        # (recentchanges, watchlist) a page.
        token = await wiki.csrf(client)
        edited = await wiki.post(client, action="edit", title="Apple", appendtext=".", token=token)
        assert edited["edit"]["result"] == "Success", edited
        for name in generator_names():
            params, must_find = PARAMS.get(name, ({}, False))
            for extra in ({}, {"redirects": "1"}):
                request: dict[str, Any] = {
                    "action": "query",
                    "generator": name,
                    "prop": "info",
                    "formatversion": "2",
                    **params,
                    **extra,
                }
                data = await wiki.api(client, **request)
                if "error" in data:
                    # allpages refuses to generate while resolving redirects, as in 1.39.
                    allowed = name != "allpages" or bool(extra)
                    if not allowed or data["error"]["code"] != "params":
                        failures.append(f"{name} {extra}: {data['error']}")
                    continue
                pages = data.get("query", {}).get("pages", [])
                if must_find and not pages:
                    failures.append(f"{name} {extra}: no pages: {data}")
                if pages and "contentmodel" not in pages[0]:
                    failures.append(f"{name} {extra}: prop=info did not run: {pages[0]}")
    assert not failures, "\n".join(failures)
