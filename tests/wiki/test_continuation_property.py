"""Continuation with several prop modules at once, with and without a generator: walked to the end
with `continue`, every page gets exactly what each module alone gives it, in the same order, and
a generated page comes once with each of its items once (MediaWiki's ApiContinuationManager)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

# module -> (prefix, the page member it fills)
MODULES = {
    "links": ("pl", "links"),
    "categories": ("cl", "categories"),
    "templates": ("tl", "templates"),
    "extlinks": ("el", "extlinks"),
    "langlinks": ("ll", "langlinks"),
}
PAGES = [f"Cp {n}" for n in range(9)]
LANGS = ["de", "es", "fr", "it", "nl"]


def _text(n: int) -> str:
    links = " ".join(f"[[Target {i}]]" for i in range(n % 5))
    cats = " ".join(f"[[Category:Group {j}]]" for j in range((n * 2) % 4))
    templates = "".join(f"{{{{Tpl {k}}}}}" for k in range(n % 3 + (n % 2)))
    ext = " ".join(f"http://example.org/{n}/{m}" for m in range((n + 1) % 4))
    langs = " ".join(f"[[{LANGS[m]}:Seite {n}]]" for m in range(n % 4))
    return f"Page {n}. {links} {templates} {ext} {cats} {langs}"


@pytest.fixture
async def linked(wiki: WikiHarness) -> WikiHarness:
    for k in range(3):
        await wiki.edit_page(f"Template:Tpl {k}", f"tpl {k}")
    for n, title in enumerate(PAGES):
        await wiki.edit_page(title, _text(n))
    return wiki


async def _walk(
    wiki: WikiHarness, client: httpx.AsyncClient, params: dict[str, str], members: list[str]
) -> tuple[dict[str, dict[str, list[Any]]], list[str]]:
    """Every batch merged: per page title, per member, the items in arrival order; and the
    titles of the pages in the order batches listed them (with repeats)."""
    merged: dict[str, dict[str, list[Any]]] = {}
    seen: list[str] = []
    cont: dict[str, str] = {}
    for _ in range(300):
        data = await wiki.api(client, **params, **cont, formatversion="2")
        assert "error" not in data, data
        for page in data.get("query", {}).get("pages", []):
            entry = merged.setdefault(page["title"], {m: [] for m in members})
            for member in members:
                entry[member].extend(page.get(member, []))
            seen.append(page["title"])
        if "continue" not in data:
            assert data.get("batchcomplete") is True
            return merged, seen
        cont = {k: str(v) for k, v in data["continue"].items()}
    raise AssertionError("continuation did not end")


CASES = st.fixed_dictionaries(
    {
        "modules": st.lists(st.sampled_from(sorted(MODULES)), min_size=2, max_size=3, unique=True),
        "limits": st.lists(st.integers(1, 4), min_size=3, max_size=3),
        "generator": st.one_of(st.none(), st.integers(1, 4)),
    }
)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=CASES)
async def test_several_modules_continue_to_the_union(
    linked: WikiHarness, client: httpx.AsyncClient, case: dict[str, Any]
) -> None:
    modules: list[str] = case["modules"]
    members = [MODULES[m][1] for m in modules]
    alone: dict[str, dict[str, list[Any]]] = {title: {} for title in PAGES}
    for module in modules:
        prefix, member = MODULES[module]
        full, _ = await _walk(
            linked,
            client,
            {"action": "query", "titles": "|".join(PAGES), "prop": module, prefix + "limit": "max"},
            [member],
        )
        for title in PAGES:
            alone[title][member] = full[title][member]
    params = {"action": "query", "prop": "|".join(modules)}
    for module, value in zip(modules, case["limits"], strict=False):
        params[MODULES[module][0] + "limit"] = str(value)
    if case["generator"] is None:
        params["titles"] = "|".join(PAGES)
    else:
        params |= {"generator": "allpages", "gapprefix": "Cp ", "gaplimit": str(case["generator"])}
    together, seen = await _walk(linked, client, params, members)
    if case["generator"] is None and 1 in case["limits"][: len(modules)]:
        assert len(seen) > len(PAGES)  # the modules did continue
    assert set(together) == set(PAGES)
    assert together == alone
    if case["generator"] is not None:
        # A generated page is listed again only while its prop modules continue: never in a
        # batch after the generator moved past it.
        batches_first = {title: seen.index(title) for title in PAGES}
        assert sorted(PAGES, key=lambda t: batches_first[t]) == sorted(
            PAGES, key=lambda t: int(t.split()[1])
        )
    assert any(items for page in alone.values() for items in page.values())
