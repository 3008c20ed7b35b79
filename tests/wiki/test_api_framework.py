"""api.php conventions: errors and warnings in every errorformat, formatversions, limits, multi-values,
asserts, maxlag, CORS, continuation — compared with MediaWiki 1.39's captured responses where the
data set does not matter (error cases), and with MediaWiki's rules elsewhere."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from tests.reference import reference_path, skip_without
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

SAMPLES = reference_path("mediawiki-samples")
MW_DOCREF_HOST = "http://127.0.0.1:8181/w/api.php"
OUR_DOCREF_HOST = "http://127.0.0.1:8080/w/api.php"

# Error cases whose response does not depend on the wiki's content or configuration.
SAMPLE_ERRORS = [
    "err-badvalue-action",
    "err-badvalue-enum",
    "err-badvalue-enum-fv2",
    "err-badvalue-errorformat-plaintext",
    "err-badvalue-errorformat-html",
    "err-badvalue-errorformat-raw",
    "err-badvalue-errorformat-none",
    "err-badvalue-errorformat-wikitext",
    "err-badinteger-limit",
    "err-multi-on-single-param",
    "err-toomanyvalues-titles",
    "err-titles-and-pageids",
    "err-maxlag",
    "err-maxlag-minus2",
    "err-maxlag-minus2-fv2-plaintext",
    "err-assert-user-anon",
    "err-assert-badvalue",
    "err-assertuser-mismatch",
    "err-notoken-edit",
    "err-mustbeposted-edit",
    "err-badtoken-edit",
    "err-formatversion-3",
    "err-bad-namespace",
    "err-generator-plus-titles",
]


def _index() -> dict[str, Any]:
    return json.loads((SAMPLES / "_index.json").read_text())  # type: ignore[no-any-return]


def _expected(name: str) -> Any:
    text = (SAMPLES / f"{name}.json").read_text().replace(MW_DOCREF_HOST, OUR_DOCREF_HOST)
    return json.loads(text)


@skip_without("mediawiki-samples")
@pytest.mark.parametrize("name", SAMPLE_ERRORS)
async def test_error_matches_mediawiki(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str
) -> None:
    case = _index()[name]
    expected = _expected(name)
    if "error" not in expected and "errors" not in expected:
        pytest.skip("sample is not an error with our data set")
    if case["method"] == "POST":
        response = await client.post("/w/api.php", data=case["params"])
    else:
        response = await client.get("/w/api.php", params=case["params"])
    assert response.status_code == case["http_status"]
    assert response.headers.get("mediawiki-api-error") == case["mediawiki_api_error"]
    assert response.json() == expected
    if case["retry_after"] is not None:
        assert response.headers["retry-after"] == case["retry_after"]
        assert response.headers["x-database-lag"] == case["x_database_lag"]


async def test_invalid_method(client: httpx.AsyncClient) -> None:
    response = await client.put("/w/api.php", params={"action": "query", "format": "json"})
    assert response.status_code == 405
    assert response.headers["mediawiki-api-error"] == "invalidmethod"
    assert response.json()["error"]["info"] == "Invalid HTTP method. Consider using GET or POST."


async def test_origin(client: httpx.AsyncClient) -> None:
    response = await client.get(
        "/w/api.php",
        params={
            "action": "query",
            "meta": "userinfo",
            "format": "json",
            "origin": "http://a.example",
        },
        headers={"Origin": "http://b.example"},
    )
    assert response.status_code == 403
    assert response.text.startswith("'origin' parameter does not match Origin header")
    response = await client.get(
        "/w/api.php",
        params={"action": "query", "meta": "userinfo", "format": "json", "origin": "*"},
    )
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.json()["query"]["userinfo"]["anon"] == ""


async def test_warnings_in_each_errorformat(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    params = {"action": "query", "list": "allpages|nosuchlist", "aplimit": "600", "foo": "1"}
    bc1 = await wiki.api(client, **params)
    assert bc1["warnings"] == {
        "main": {"*": "Unrecognized parameter: foo."},
        "allpages": {"*": 'The value "600" for parameter "aplimit" must be between 1 and 500.'},
        "query": {"*": 'Unrecognized value for parameter "list": nosuchlist'},
    }
    raw = await wiki.api(client, errorformat="raw", formatversion="2", **params)
    by_code = {w["code"]: w for w in raw["warnings"]}
    assert by_code["outofrange"]["data"] == {"min": 1, "curmax": 500, "max": 500, "highmax": 5000}
    assert by_code["outofrange"]["module"] == "query+allpages"
    assert by_code["unrecognizedvalues"]["key"] == "paramvalidator-unrecognizedvalues"
    # The list keeps each name's position among the request's values (errorformat, formatversion,
    # action, list, aplimit, foo, format), as ApiMain's array_diff does.
    assert by_code["unrecognizedparams"]["params"] == [{"list": {"5": "foo"}, "type": "comma"}, 1]
    html = await wiki.api(client, errorformat="html", formatversion="2", **params)
    assert {w["code"] for w in html["warnings"]} == {
        "outofrange",
        "unrecognizedvalues",
        "unrecognizedparams",
    }
    assert all("html" in w for w in html["warnings"])


async def test_limit_max_and_highlimits(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await wiki.api(client, action="query", list="allpages", aplimit="max", formatversion="2")
    assert data["limits"] == {"allpages": 500}
    await wiki.login(client, "Admin")
    data = await wiki.api(client, action="query", list="allpages", aplimit="max", formatversion="2")
    assert data["limits"] == {"allpages": 5000}
    data = await wiki.api(
        client, action="query", list="allpages", aplimit="6000", formatversion="2"
    )
    assert data["warnings"]["allpages"]["warnings"] == (
        'The value "6000" for parameter "aplimit" must be between 1 and 5,000.'
    )


async def test_unit_separator_and_duplicates(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Apple", "fruit")
    data = await wiki.api(
        client, action="query", titles="\x1fApple\x1fBanana|Cherry", formatversion="2"
    )
    pages = data["query"]["pages"]
    assert pages[0] == {
        "title": "Banana|Cherry",
        "invalidreason": 'The requested page title contains invalid characters: "|".',
        "invalid": True,
    }
    assert pages[1]["title"] == "Apple"
    data = await wiki.api(client, action="query", titles="Apple|Apple", formatversion="2")
    assert len(data["query"]["pages"]) == 1


async def test_formatversions_and_flags(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Apple", "fruit")
    await wiki.edit_page("Pomme", "#REDIRECT [[Apple#History]]")
    fv1 = await wiki.api(
        client, action="query", prop="info", titles="apple|Pomme|Nope|Bad<t>", redirects="1"
    )
    query = fv1["query"]
    assert query["normalized"] == [{"from": "apple", "to": "Apple"}]
    assert query["redirects"] == [{"from": "Pomme", "to": "Apple", "tofragment": "History"}]
    assert set(query["pages"]) == {
        "-1",
        "-2",
        str(next(int(k) for k in query["pages"] if int(k) > 0)),
    }
    missing = next(p for p in query["pages"].values() if p.get("title") == "Nope")
    assert missing["missing"] == ""
    assert fv1["batchcomplete"] == ""
    fv2 = await wiki.api(client, action="query", titles="apple", formatversion="latest")
    assert fv2["batchcomplete"] is True
    assert fv2["query"]["normalized"] == [{"fromencoded": False, "from": "apple", "to": "Apple"}]


async def test_continuation_and_rawcontinue(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for title in ("Apple", "Banana", "Cherry", "Damson"):
        await wiki.edit_page(title, title.lower())
    first = await wiki.api(client, action="query", list="allpages", aplimit="2", formatversion="2")
    assert first["continue"] == {"apcontinue": "Cherry", "continue": "-||"}
    assert first["batchcomplete"] is True
    second = await wiki.api(
        client, action="query", list="allpages", aplimit="2", formatversion="2", **first["continue"]
    )
    assert [p["title"] for p in second["query"]["allpages"]] == ["Cherry", "Damson"]
    assert "continue" not in second
    raw = await wiki.api(client, action="query", list="allpages", aplimit="2", rawcontinue="1")
    assert raw["query-continue"] == {"allpages": {"apcontinue": "Cherry"}}
    assert "batchcomplete" not in raw
    gen = await wiki.api(
        client, action="query", generator="allpages", gaplimit="3", prop="info", formatversion="2"
    )
    assert gen["continue"] == {"gapcontinue": "Damson", "continue": "gapcontinue||"}
    bad = await wiki.api(
        client, action="query", list="allpages", apcontinue="a|b", formatversion="2"
    )
    assert bad["error"]["code"] == "badcontinue"
    bad = await wiki.api(client, action="query", list="allpages", **{"continue": "nonsense"})
    assert bad["error"]["code"] == "badcontinue"


async def test_curtimestamp_requestid_responselanginfo(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    data = await wiki.api(
        client,
        action="query",
        meta="userinfo",
        curtimestamp="1",
        requestid="abc",
        responselanginfo="1",
        uselang="de",
        formatversion="2",
    )
    assert data["requestid"] == "abc"
    assert data["curtimestamp"].endswith("Z")
    assert data["uselang"] == "de"
    assert data["errorlang"] == "en"  # bc errors are English whatever uselang says


async def test_jsonfm_is_html(client: httpx.AsyncClient) -> None:
    response = await client.get("/w/api.php", params={"action": "query", "meta": "userinfo"})
    assert response.headers["content-type"].startswith("text/html")
    assert "api-pretty-content" in response.text


async def test_json_escapes_unicode_in_fv1_only(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Äpfel", "x")
    fv1 = await client.get(
        "/w/api.php", params={"action": "query", "titles": "Äpfel", "format": "json"}
    )
    assert "\\u00c4pfel" in fv1.text
    utf8 = await client.get(
        "/w/api.php", params={"action": "query", "titles": "Äpfel", "format": "json", "utf8": "1"}
    )
    assert "Äpfel" in utf8.text
    fv2 = await client.get(
        "/w/api.php",
        params={"action": "query", "titles": "Äpfel", "format": "json", "formatversion": "2"},
    )
    assert "Äpfel" in fv2.text


async def test_only_running_modules_are_dispatched(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    # Every declared module runs; a name that is no module is dropped the same way.
    data = await wiki.api(client, action="query", list="nosuchlist", formatversion="2")
    assert (
        data["warnings"]["query"]["warnings"]
        == 'Unrecognized value for parameter "list": nosuchlist'
    )
    assert "query" not in data
