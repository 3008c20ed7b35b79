"""`meta=siteinfo` `extensions`, `libraries`, `showhooks` and `languagevariants`, as MediaWiki
1.39 answers them."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from tests.reference import reference_path
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

SAMPLES = reference_path("mediawiki-samples")
MW_HOST = "http://127.0.0.1:8181/w/api.php"
OUR_HOST = "http://127.0.0.1:8080/w/api.php"
NS = "{http://www.mediawiki.org/xml/export-0.11/}"


def _sample(name: str) -> tuple[dict[str, Any], Any]:
    case = json.loads((SAMPLES / "_index.json").read_text())[name]
    body = json.loads((SAMPLES / f"{name}.json").read_text().replace(MW_HOST, OUR_HOST))
    return case, body


# --- siteinfo ----------------------------------------------------------------------------------


async def test_siteinfo_extensions_libraries_hooks_variants(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    props = "extensions|libraries|showhooks|languagevariants"
    for fv in ("1", "2"):
        data = await wiki.api(
            client, action="query", meta="siteinfo", siprop=props, formatversion=fv
        )
        query = data["query"]
        assert query["extensions"] == []
        assert query["showhooks"] == []
        # The languages with a converter, as 1.39 lists them (test_languageinfo.py holds the
        # whole answer against the recorded one).
        assert query["languagevariants"]["sr"] == {
            "sr": {"fallbacks": ["sr-ec"]},
            "sr-ec": {"fallbacks": ["sr"]},
            "sr-el": {"fallbacks": ["sr"]},
        }
        libraries = query["libraries"]
        names = [lib["name"] for lib in libraries]
        assert names == sorted(names, key=str.lower)
        assert all(set(lib) == {"name", "version"} for lib in libraries)
        assert {"starlette", "sqlalchemy", "pydantic"} <= set(names)
        assert all(re.match(r"\d", lib["version"]) for lib in libraries)
