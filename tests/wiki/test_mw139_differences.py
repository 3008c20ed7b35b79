"""Answers that once differed from MediaWiki 1.39's, held against the answers a real 1.39 gave
for the same requests on the same pages (`data/mw139_api_differences.json`): self-links and
pagelinks, the protection filter of `allpages`, `generator=allpages` with `redirects`,
`dbrepllag`, `authmanagerinfo`, the numbering of missing titles, `allmessages`' spaces and
paraminfo of `revisions` and `tokens`.

Page ids differ between the two wikis, so they are compared by title.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.seed import seed

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_api_differences.json").read_text())

# The reference wiki's extra pages: a template linking to the page that includes it, a page
# linking to itself bare, by another spelling and through the template, one linking to itself
# with a section.
EXTRA = [
    ("Template:Nav", "[[Selfie]] [[Apple]] [[Template:Nav]]"),
    ("Selfie", "See [[Selfie]], [[selfie|me]] and [[Banana]]. {{Nav}}"),
    ("Other", "{{Nav}}"),
    ("Fragself", "[[Fragself#Top|top]] [[#Bottom]]"),
]
PROTECTIONS = [
    ("Apple", "edit=sysop|move=sysop", "infinite", False),
    ("Banana", "move=autoconfirmed", "infinite", False),
    ("Cherry", "edit=autoconfirmed", "1 year", False),
    ("Main Page", "edit=sysop", "infinite", True),
]


async def _reference_wiki(wiki: WikiHarness, client: httpx.AsyncClient) -> WikiHarness:
    """The reference wiki's pages and protections, made in the test (a fixture's set-up time is
    held to a budget; this takes seconds)."""
    await seed(wiki, client)
    token = await wiki.csrf(client)
    for title, text in EXTRA:
        done = await wiki.post(client, action="edit", title=title, text=text, token=token)
        assert done["edit"]["result"] == "Success", done
    for title, protections, expiry, cascade in PROTECTIONS:
        params = {"title": title, "protections": protections, "expiry": expiry, "token": token}
        if cascade:
            params["cascade"] = "1"
        done = await wiki.post(client, action="protect", **params)
        assert "error" not in done, done
    await wiki.post(client, action="logout", token=token)
    return wiki


def _without_ids(value: Any) -> Any:
    """The answer with page ids (which differ between the wikis) and docref (which names the
    wiki's address) left out."""
    if isinstance(value, dict):
        return {
            k: _without_ids(v)
            for k, v in value.items()
            if k not in ("pageid", "fromid", "*", "docref", "licenselink")
            or (k == "*" and not isinstance(v, str))
        }
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return value


async def _ask(wiki: WikiHarness, client: httpx.AsyncClient, name: str) -> tuple[Any, Any]:
    case = RECORDED[name]
    params = dict(parse_qsl(case["request"], keep_blank_values=True))
    actual = await wiki.api(client, **params)
    return actual, copy.deepcopy(case["response"])


SAME_ANSWERS = [
    "authmanagerinfo-fv1",
    "authmanagerinfo-fv2",
    "dbrepllag",
    "gen-allpages-redirects-all",
    "gen-allpages-redirects-redirects",
    "gen-allpages-redirects-nonredirects",
    "allpages-prtype-edit",
    "allpages-prtype-move",
    "allpages-prtype-level-sysop",
    "allpages-prlevel-alone",
    "allpages-cascading",
    "allpages-noncascading",
    "allpages-definite",
    "allpages-indefinite-alone",
    "allpages-prtype-limit",
    "allpages-prtype-upload",
    "gen-allpages-prtype",
    "titles-numbering-fv2",
    "allmessages-separators",
    "backlinks-selfie",
    "links-selfie",
    "backlinks-fragself",
]


async def test_answers_as_mediawiki(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """Each recorded request answered as 1.39 did (one wiki for all: each costs a second)."""
    refwiki = await _reference_wiki(wiki, client)
    differing = []
    for name in SAME_ANSWERS:
        actual, expected = await _ask(refwiki, client, name)
        if _without_ids(actual) != _without_ids(expected):
            differing.append((name, actual, expected))
    assert not differing
    # One wiki for the checks of particular shapes too.
    await _parse_links_leave_out_bare_self_links(refwiki, client)
    await _missing_titles_numbered_by_namespace(refwiki, client)
    await _authmanagerinfo_preserved_state_with_requests(refwiki, client)
    await _paraminfo_revisions_and_tokens(refwiki, client)
    await _self_link_dropped_on_every_path(refwiki, client)
    await _protect_errors_in_apiprotect_order(refwiki, client)
    await _unknown_content_model(refwiki, client)


async def _parse_links_leave_out_bare_self_links(
    refwiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    actual, expected = await _ask(refwiki, client, "parse-links-selfie")

    def links(data: Any) -> list[Any]:
        return sorted(data["parse"]["links"], key=lambda link: (link["ns"], link["title"]))

    assert links(actual) == links(expected)


async def _missing_titles_numbered_by_namespace(
    refwiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """Invalid and special titles are numbered as they are read, missing ones afterwards by
    namespace; formatversion 1 lists missing, invalid, then special pages."""
    actual, expected = await _ask(refwiki, client, "titles-numbering")
    assert list(actual["query"]["pages"]) == list(expected["query"]["pages"])
    assert _without_ids(actual) == _without_ids(expected)


async def _authmanagerinfo_preserved_state_with_requests(
    refwiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """The preserved-state fields come with `requestsfor`, in both formatversions; the
    requests themselves are compared elsewhere."""
    for name in ("authmanagerinfo-login-fv1", "authmanagerinfo-login-fv2"):
        actual, expected = await _ask(refwiki, client, name)
        info, wanted = actual["query"]["authmanagerinfo"], expected["query"]["authmanagerinfo"]
        for key in ("requests",):
            info.pop(key), wanted.pop(key)
        assert info == wanted


async def _paraminfo_revisions_and_tokens(refwiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """1.39's records (the specification's summary lists `limit` after the diff parameters and
    omits the `*` all-specifier of tokens' `type`; a real 1.39 answers as here)."""
    actual, expected = await _ask(refwiki, client, "paraminfo-revisions-tokens")
    mine = {m["name"]: m for m in actual["paraminfo"]["modules"]}
    for record in expected["paraminfo"]["modules"]:
        params = {p["name"]: p for p in mine[record["name"]]["parameters"]}
        for wanted in record["parameters"]:
            if wanted["name"] in ("limit", "type"):
                assert json.dumps(params[wanted["name"]]) == json.dumps(wanted)


async def _self_link_dropped_on_every_path(refwiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """No bare self-link reaches the link tables: not in the category counts' generators nor
    in `alllinks`, and a page's own later edits keep it out."""
    data = await refwiki.api(
        client, action="query", list="alllinks", alfrom="Selfie", alto="Selfie", alprop="ids",
        formatversion="2",
    )  # fmt: skip
    assert len(data["query"]["alllinks"]) == 2  # Template:Nav and Other, not Selfie
    gen = await refwiki.api(
        client, action="query", generator="backlinks", gbltitle="Selfie", formatversion="2"
    )
    assert sorted(p["title"] for p in gen["query"]["pages"]) == ["Other", "Template:Nav"]


async def _protect_errors_in_apiprotect_order(
    refwiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """Existence against `create` first, then the type, then the level; nothing changes."""
    await refwiki.login(client, "Admin")
    token = await refwiki.csrf(client)
    for case in RECORDED["protect-order"]["response"]:
        answer = await refwiki.post(
            client, action="protect", title=case["title"], protections=case["protections"],
            token=token,
        )  # fmt: skip
        assert (answer["error"]["code"], answer["error"]["info"]) == (case["code"], case["info"])
    info = await refwiki.api(
        client, action="query", titles="Banana", prop="info", inprop="protection",
        formatversion="2",
    )  # fmt: skip
    assert info["query"]["pages"][0]["protection"] == [
        {"type": "move", "level": "autoconfirmed", "expiry": "infinity"}
    ]


async def _unknown_content_model(refwiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """`unknown` is a model edit knows and refuses to write; a format the model cannot read is
    refused by name."""
    token = await refwiki.csrf(client)
    for case in RECORDED["edit-content-models"]["response"]:
        answer = await refwiki.post(
            client, action="edit", title="Unk test", text="x", token=token, **case["params"]
        )
        assert (answer["error"]["code"], answer["error"]["info"]) == (case["code"], case["info"])
    info = await refwiki.api(client, action="paraminfo", modules="edit", formatversion="2")
    params = {p["name"]: p for p in info["paraminfo"]["modules"][0]["parameters"]}
    assert "unknown" in params["contentmodel"]["type"]
    assert "unknown/unknown" in params["contentformat"]["type"]
