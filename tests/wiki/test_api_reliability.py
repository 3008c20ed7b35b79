"""api.php answers hostile values in MediaWiki's own way, never with a 500: integers beyond 64
bits (`badinteger`), ids that do not exist (missing), `purge` by revision, over-long prefixes,
unreadable bodies, and any unexpected exception (`internal_api_error_<Class>`)."""

from __future__ import annotations

import logging
import re
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.api import main
from atrium.wiki.api.params import INTEGER, LIMIT
from atrium.wiki.api.registry import ACTIONS
from atrium.wiki.api.registry import children as submodules
from atrium.wiki.web import views

pytestmark = pytest.mark.anyio

TOO_BIG = "9223372036854775808"  # 2**63
INT64_MAX = "9223372036854775807"


async def test_pageids_beyond_64_bits_is_badinteger(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    response = await client.get(
        "/w/api.php", params={"action": "query", "format": "json", "pageids": TOO_BIG}
    )
    assert response.status_code == 200
    assert response.headers["MediaWiki-API-Error"] == "badinteger"
    error = response.json()["error"]
    assert error["code"] == "badinteger"
    assert error["info"] == f'Invalid value "{TOO_BIG}" for integer parameter "pageids".'
    below = await wiki.api(client, action="query", pageids="-9223372036854775809")
    assert below["error"]["code"] == "badinteger"
    # An explicit plus at the end of the range: IntegerDef sees PHP's intval saturate.
    plus = await wiki.api(client, action="query", pageids="+" + INT64_MAX)
    assert plus["error"]["code"] == "badinteger"


async def test_largest_ids_are_missing(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    pages = await wiki.api(client, action="query", pageids=INT64_MAX, formatversion="2")
    assert pages["query"]["pages"] == [{"pageid": int(INT64_MAX), "missing": True}]
    revs = await wiki.api(client, action="query", revids=INT64_MAX, formatversion="2")
    assert revs["query"]["badrevids"] == {INT64_MAX: {"revid": int(INT64_MAX), "missing": True}}
    lowest = await wiki.api(
        client, action="query", pageids="-9223372036854775808", formatversion="2"
    )
    assert lowest["query"]["pages"][0]["missing"] is True


async def test_diffto_beyond_64_bits_names_no_revision(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Apple", "apple pie")
    for prop, prefix in (("revisions", "rv"), ("deletedrevisions", "drv")):
        result = await wiki.api(
            client, action="query", prop=prop, titles="Apple", **{f"{prefix}diffto": TOO_BIG}
        )
        assert result["error"]["code"] == "nosuchrevid", result


async def test_search_offset_beyond_64_bits(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Apple", "apple pie")
    result = await wiki.api(
        client, action="query", list="search", srsearch="apple", sroffset=TOO_BIG
    )
    assert result["error"]["code"] == "badinteger"
    assert result["error"]["info"] == (
        f'Invalid value "{TOO_BIG}" for integer parameter "sroffset".'
    )
    limit = await wiki.api(client, action="query", list="allpages", aplimit=TOO_BIG)
    assert limit["error"]["code"] == "badinteger"


def _integer_params() -> list[tuple[str, str, str, str]]:
    """(action, module key, parameter key, module path) for every integer and limit parameter."""
    out: list[tuple[str, str, str, str]] = []
    for name, action in sorted(ACTIONS.items()):
        for p in action.spec.params:
            if p.type in (INTEGER, LIMIT):
                out.append((name, "", action.spec.prefix + p.name, name))
    for spec in submodules("query"):
        for p in spec.params:
            if p.type in (INTEGER, LIMIT):
                out.append(("query", spec.group or "", spec.prefix + p.name, spec.path))
    return out


async def test_every_integer_parameter_refuses_65_bits(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """Anonymous and logged in, GET and POST: each integer parameter of each module, at 2**63,
    is `badinteger` (or an earlier refusal of the request), never an exception."""
    await wiki.edit_page("Sandbox", "text [[Link]] [[Category:Things]]")
    params = _integer_params()
    assert len(params) > 40
    logged_in = wiki.client()
    await wiki.login(logged_in, "Admin")
    token = await wiki.csrf(logged_in)
    badinteger = 0
    for who in (client, logged_in):
        for action, group, key, path in params:
            request: dict[str, Any] = {"action": action, "format": "json", key: TOO_BIG}
            if group:
                request[group] = path.split("+", 1)[1]
            if action != "query":
                request["token"] = token
            for method in ("GET", "POST"):
                if method == "GET":
                    response = await who.get("/w/api.php", params=request)
                else:
                    response = await who.post("/w/api.php", data=request)
                assert response.status_code < 500, (path, key)
                body = response.json()
                assert "error" in body, (path, key, body)
                assert not body["error"]["code"].startswith("internal_api_error"), (path, key)
                badinteger += body["error"]["code"] == "badinteger"
        # Inside the range: an answer, whatever the column's width (PostgreSQL's are 32-bit).
        for action, group, key, path in params:
            for value in ("2147483648", "-9223372036854775808", INT64_MAX):
                request = {"action": action, "format": "json", key: value}
                if group:
                    request[group] = path.split("+", 1)[1]
                if action != "query":
                    request["token"] = token
                response = await who.post("/w/api.php", data=request)
                assert response.status_code < 500, (path, key, value)
                header = response.headers.get("MediaWiki-API-Error", "")
                assert "internal_api_error" not in header, (path, key, value)
    await logged_in.aclose()
    # Nearly all reach the parameter; the rest are refused first (mustbeposted, missingparam).
    assert badinteger >= len(params) * 2


async def test_purge_by_revision_ids(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    rev = await wiki.edit_page("Purged", "some text")
    await wiki.edit_page("Gone", "doomed")
    result = await wiki.post(client, action="purge", revids=f"{rev}|{INT64_MAX}")
    assert result == {
        "batchcomplete": "",
        "purge": [
            {"revid": int(INT64_MAX), "missing": ""},
            {"ns": 0, "title": "Purged", "purged": ""},
        ],
    }
    refused = await wiki.post(client, action="purge", revids=TOO_BIG)
    assert refused["error"]["code"] == "badinteger"


@pytest.mark.parametrize(
    ("list_name", "param"),
    [
        ("allcategories", "acprefix"),
        ("alllinks", "alprefix"),
        ("allredirects", "arprefix"),
        ("alltransclusions", "atprefix"),
    ],
)
async def test_overlong_title_prefix_is_invalidtitle(
    wiki: WikiHarness, client: httpx.AsyncClient, list_name: str, param: str
) -> None:
    await wiki.edit_page("Sandbox", "[[aaa]] {{aaa}} [[Category:aaa]]")
    await wiki.edit_page("Redirect", "#REDIRECT [[aaa]]")
    response = await client.post(
        "/w/api.php",
        data={"action": "query", "format": "json", "list": list_name, param: "a" * 60000},
    )
    error = response.json()["error"]
    assert error["code"] == "invalidtitle"
    assert error["info"] == f'Bad title "{"a" * 60000}".'
    assert response.headers["MediaWiki-API-Error"] == "invalidtitle"


async def test_overlong_user_prefix_matches_nobody(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """MediaWiki does not check a user-name prefix: one longer than any name finds nobody."""
    await wiki.edit_page("Sandbox", "text", user="Alice")
    long = "A" * 60000
    users = await wiki.post(client, action="query", list="allusers", auprefix=long)
    assert users["query"]["allusers"] == []
    contribs = await wiki.post(client, action="query", list="usercontribs", ucuserprefix=long)
    assert contribs["query"]["usercontribs"] == []
    short = await wiki.post(client, action="query", list="usercontribs", ucuserprefix="Ali")
    assert [c["user"] for c in short["query"]["usercontribs"]] == ["Alice"]


async def test_unreadable_body_leaves_the_query_string(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """PHP leaves `$_POST` empty for a multipart body without a boundary."""
    response = await client.post(
        "/w/api.php?action=query&meta=siteinfo&format=json",
        content=b"action=edit&title=x",
        headers={"Content-Type": "multipart/form-data"},
    )
    assert response.status_code == 200
    assert response.json()["query"]["general"]["sitename"]


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise ZeroDivisionError("secret detail")


@pytest.mark.parametrize(
    ("extra", "shape"),
    [
        ({}, "bc"),
        ({"formatversion": "2"}, "bc"),
        ({"errorformat": "plaintext"}, "plaintext1"),
        ({"errorformat": "plaintext", "formatversion": "2"}, "plaintext2"),
        ({"errorformat": "raw", "formatversion": "2"}, "raw"),
    ],
)
async def test_unexpected_exception_is_internal_api_error(
    wiki: WikiHarness,
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    extra: dict[str, str],
    shape: str,
) -> None:
    monkeypatch.setattr(main, "_execute", _boom)
    with caplog.at_level(logging.ERROR, logger="atrium.wiki.api.main"):
        response = await client.get(
            "/w/api.php",
            params={"action": "query", "format": "json", "requestid": "r1", **extra},
        )
    assert response.status_code == 200  # ApiMain sends no HTTP code for a non-API exception
    assert response.headers["MediaWiki-API-Error"] == "internal_api_error_ZeroDivisionError"
    body = response.json()
    assert "secret detail" not in response.text
    [record] = [r for r in caplog.records if "ZeroDivisionError" in r.getMessage()]
    match = re.match(r"\[([0-9a-f]{24})\] GET /w/api.php", record.getMessage())
    assert match is not None
    assert record.exc_info is not None
    request_id = match.group(1)
    info = f"[{request_id}] Caught exception of type ZeroDivisionError"
    code = "internal_api_error_ZeroDivisionError"
    data = {"errorclass": "ZeroDivisionError"}
    assert body["requestid"] == "r1"
    if shape == "bc":
        assert body["error"] == {"code": code, "info": info, **data}
    elif shape == "plaintext1":
        assert body["errors"] == [{"code": code, "*": info, "data": data}]
    elif shape == "plaintext2":
        assert body["errors"] == [{"code": code, "text": info, "data": data}]
    else:
        assert body["errors"] == [
            {
                "code": code,
                "key": "apierror-exceptioncaughttype",
                "params": [request_id, "ZeroDivisionError"],
                "data": data,
            }
        ]


async def test_exception_outside_the_action_is_still_an_api_error(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(main, "_caller", _boom)
    response = await client.get(
        "/w/api.php", params={"action": "query", "format": "json", "formatversion": "2"}
    )
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == "internal_api_error_ZeroDivisionError"
    assert error["errorclass"] == "ZeroDivisionError"


async def test_page_failure_is_an_html_error_page(
    wiki: WikiHarness,
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Pages answer as MWExceptionRenderer does: an HTML "Internal error" page with the request
    id, the time and the class, the details in the log only."""
    monkeypatch.setattr(views, "view", _boom)
    monkeypatch.setattr(views, "history", _boom)
    with caplog.at_level(logging.ERROR, logger="atrium.wiki.web.views"):
        for path in ("/wiki/Sandbox", "/w/index.php?title=Sandbox&action=history"):
            response = await client.get(path)
            assert response.status_code == 500
            assert response.headers["content-type"].startswith("text/html")
            assert "<h1" in response.text and "Internal error" in response.text
            assert "secret detail" not in response.text
            match = re.search(
                r"\[([0-9a-f]{24})\] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: "
                r"Fatal exception of type \"ZeroDivisionError\"",
                response.text,
            )
            assert match is not None, response.text
            assert any(match.group(1) in r.getMessage() for r in caplog.records)


async def test_control_characters_become_replacement_characters(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """ApiParamValidatorCallbacks cleans C0 controls to U+FFFD and warns `badutf8`; PostgreSQL's
    text would refuse a NUL outright."""
    result = await wiki.post(
        client,
        action="query",
        list="allusers|allpages",
        auprefix="A\x00b",
        apfrom="x\x07y",
        errorformat="plaintext",
        formatversion="2",
    )
    assert result["query"] == {"allusers": [], "allpages": []}
    codes = [(w["code"], w["module"]) for w in result["warnings"]]
    assert codes == [("badutf8", "query+allusers"), ("badutf8", "query+allpages")]
    assert "auprefix" in result["warnings"][0]["text"]
    multi = await wiki.post(
        client, action="query", titles="\x1fSandbox\x1fA\x00B", formatversion="2"
    )
    assert multi["warnings"]["query"]["warnings"].startswith("The value passed for")
    assert "Sandbox" in [p["title"] for p in multi["query"]["pages"]]
