"""Who may read the wiki: `ATRIUM_WIKI_AUDIENCE` (MediaWiki's `$wgGroupPermissions['*']`).

The attack: the wiki shares its origin with a team's private chat, and it used to let anyone
read, edit and register. Here an anonymous visitor of a private wiki tries every read path
(api.php's actions, query modules and generators, export, opensearch, the pages and their
actions, every special page, `/images/` and thumbnails) for a page, its history and an uploaded
file that carry a secret marker, and tries to edit and to register. A public-read wiki lets them
read but not write or register; an open one behaves as MediaWiki does by default. The chosen
audience is recorded, so an existing wiki keeps its rights across restarts.
"""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from PIL import Image, PngImagePlugin

from atrium.server import create_app
from atrium.settings import Settings
from atrium.wiki import schema
from atrium.wiki.api.query.modules import RUNNABLE
from atrium.wiki.api.registry import ACTIONS
from atrium.wiki.web import specialpages
from atrium.wiki.web.views import READABLE_WHEN_PRIVATE
from tests.wiki.conftest import PASSWORDS, WikiHarness, client, wiki  # noqa: F401

pytestmark = pytest.mark.anyio

# In the page text, the edit summaries, the file's description and the file's own bytes; never in
# a request, so no echo of a request can be mistaken for a leak.
SECRET = "zq7orbitalsecret"
PAGE = "Kestrel plan"


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


@dataclass
class Content:
    first: int  # the page's first revision
    second: int
    image: str  # the file's /images/ path
    thumb: str  # a thumbnail's /images/thumb/ path


def _png_with_text() -> bytes:
    out = io.BytesIO()
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", SECRET)
    Image.new("RGB", (80, 40), (200, 30, 30)).save(out, "PNG", pnginfo=info)
    return out.getvalue()


@pytest.fixture
async def content(wiki: WikiHarness) -> Content:  # noqa: F811
    """A page with two revisions, a template and an uploaded picture, all carrying SECRET,
    made by Admin on the open wiki of the harness."""
    first = await wiki.edit_page(
        PAGE, f"The launch is {SECRET}. [[Category:Plans]] [[File:Kestrel.png]]", summary=SECRET
    )
    second = await wiki.edit_page(PAGE, f"The launch is {SECRET}, revised.", summary=SECRET)
    await wiki.edit_page("Template:Orbit", f"orbit {SECRET}")
    await wiki.edit_page("Category:Plans", f"plans {SECRET}")
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        token = await wiki.csrf(admin)
        upload = await admin.post(
            "/w/api.php",
            data={"action": "upload", "filename": "Kestrel.png", "token": token,
                  "comment": SECRET, "text": f"photo {SECRET}", "format": "json"},
            files={"file": ("Kestrel.png", _png_with_text(), "application/octet-stream")},
        )  # fmt: skip
        assert upload.json()["upload"]["result"] == "Success", upload.text
        info = await wiki.api(
            admin, action="query", titles="File:Kestrel.png", prop="imageinfo",
            iiprop="url", iiurlwidth="40", formatversion="2",
        )  # fmt: skip
    image = info["query"]["pages"][0]["imageinfo"][0]
    local = "http://127.0.0.1:8080"
    return Content(
        first, second, image["url"].removeprefix(local), image["thumburl"].removeprefix(local)
    )


@asynccontextmanager
async def _served(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The wiki started again over the same data with `settings`; a client with no cookies."""
    app = create_app(settings, services=("wiki",))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 12345))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as c:
            yield c


def _settings(data_dir: Path, database_url: str | None, audience: str | None) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        port=8080,
        wiki_main_page=False,
        wiki_audience=audience,
    )


def _leaks(response: httpx.Response, request_text: str) -> list[str]:
    """What of the protected content the response shows: the secret always counts; the page's
    and the file's names count when the request did not name them."""
    body = response.content.decode("utf-8", "replace").lower()
    found = [SECRET] if SECRET in body else []
    for name in ("kestrel", "orbit"):
        if name not in request_text.lower() and name in body:
            found.append(name)
    return found


async def _api(c: httpx.AsyncClient, params: dict[str, Any]) -> tuple[httpx.Response, Any]:
    response = await c.get("/w/api.php", params={"format": "json", **params})
    return response, response.json()


def _api_probes(content: Content) -> list[dict[str, Any]]:
    """api.php requests that would show the page, its history, the template or the file."""
    revs = "content|comment|user|ids"
    return [
        {"action": "query", "list": "allpages"},
        {"action": "query", "list": "recentchanges", "rcprop": "title|comment|user|ids"},
        {"action": "query", "list": "search", "srsearch": "launch", "srprop": "snippet"},
        {"action": "query", "list": "prefixsearch", "pssearch": "K"},
        {"action": "query", "list": "allimages", "aiprop": "url|comment|metadata"},
        {"action": "query", "list": "allrevisions", "arvprop": revs, "arvslots": "main"},
        {"action": "query", "list": "categorymembers", "cmtitle": "Category:Plans"},
        {"action": "query", "list": "logevents", "leprop": "title|comment|details"},
        {"action": "query", "list": "usercontribs", "ucuser": "Admin", "ucprop": "title|comment"},
        {"action": "query", "list": "random", "rnlimit": "20"},
        {"action": "query", "list": "allcategories"},
        {"action": "query", "list": "alltransclusions"},
        {"action": "query", "titles": PAGE, "prop": "revisions", "rvprop": revs, "rvslots": "main"},
        {"action": "query", "revids": str(content.first), "prop": "revisions", "rvprop": revs},
        {"action": "query", "pageids": "1|2|3|4", "prop": "revisions|info", "rvprop": revs},
        {"action": "query", "generator": "allpages", "prop": "revisions", "rvprop": revs},
        {"action": "query", "generator": "search", "gsrsearch": "launch", "prop": "info"},
        {"action": "query", "generator": "recentchanges", "prop": "revisions", "rvprop": revs},
        {"action": "query", "generator": "allimages", "prop": "imageinfo",
         "iiprop": "url|comment|metadata"},
        {"action": "query", "titles": "File:Kestrel.png", "prop": "imageinfo",
         "iiprop": "url|comment|metadata|commonmetadata"},
        {"action": "query", "titles": "Category:Plans", "prop": "categoryinfo|revisions",
         "rvprop": "content"},
        {"action": "query", "export": "1", "titles": PAGE},
        {"action": "query", "export": "1", "exportnowrap": "1", "generator": "allpages"},
        {"action": "query", "meta": "siteinfo", "siprop": "statistics|general"},
        {"action": "query", "meta": "userinfo|siteinfo"},
        {"action": "query", "meta": "tokens", "titles": PAGE},
        {"action": "parse", "page": PAGE},
        {"action": "parse", "oldid": str(content.first), "prop": "text|wikitext|sections"},
        {"action": "parse", "text": "{{:Kestrel plan}} {{Orbit}}", "contentmodel": "wikitext"},
        {"action": "parse", "summary": "[[Kestrel plan]]", "prop": ""},
        {"action": "expandtemplates", "text": "{{:Kestrel plan}}{{Orbit}}", "prop": "wikitext"},
        {"action": "compare", "fromrev": str(content.first), "torev": str(content.second)},
        {"action": "compare", "fromtitle": PAGE, "totext": "x", "prop": "diff|comment"},
        {"action": "opensearch", "search": "K"},
        {"action": "opensearch", "search": "Kes", "profile": "fuzzy"},
    ]  # fmt: skip


def _page_probes(content: Content) -> list[str]:
    """Browser paths to the same content: the page, its actions and the special pages."""
    page, first, second = "Kestrel_plan", content.first, content.second
    paths = [
        f"/wiki/{page}",
        f"/wiki/{page}?oldid={first}",
        f"/wiki/{page}?diff={second}&oldid={first}",
        f"/w/index.php?title={page}",
        f"/w/index.php?title={page}&action=raw",
        f"/w/index.php?title={page}&action=raw&oldid={first}",
        f"/w/index.php?title={page}&action=history",
        f"/w/index.php?title={page}&action=info",
        f"/w/index.php?title={page}&action=edit",
        f"/w/index.php?title={page}&action=render",
        f"/w/index.php?title={page}&diff=prev&oldid={second}",
        f"/w/index.php?oldid={first}",
        f"/w/index.php?diff={second}",
        "/w/index.php?search=launch",
        "/w/index.php?search=launch&fulltext=1",
        "/w/index.php?title=Template:Orbit&action=raw",
        "/wiki/File:Kestrel.png",
        "/wiki/Category:Plans",
        "/wiki/Special:Contributions/Admin",
        "/wiki/Special:Export/Kestrel_plan",
        "/wiki/Special:RecentChanges?feed=atom",
        "/wiki/Special:Search?search=launch&fulltext=1",
        "/wiki/Special:WhatLinksHere/File:Kestrel.png",
        "/wiki/Special:PrefixIndex/K",
        "/wiki/Special:Log/upload",
        "/wiki/Special:CreateAccount",
    ]
    for special in specialpages._PAGES.values():
        if special.name not in READABLE_WHEN_PRIVATE:
            paths.append(f"/wiki/Special:{special.name}")
    return paths


async def test_private_wiki_shows_anonymous_visitors_nothing(
    wiki: WikiHarness,  # noqa: F811
    content: Content,
    data_dir: Path,
    database_url: str | None,
) -> None:
    async with _served(_settings(data_dir, database_url, "private")) as anon:
        for params in _api_probes(content):
            response, data = await _api(anon, params)
            assert data.get("error", {}).get("code") == "readapidenied", (params, data)
            assert not _leaks(response, str(params)), (params, response.text)
            posted = await anon.post("/w/api.php", data={"format": "json", **params})
            assert posted.json()["error"]["code"] == "readapidenied", params
            assert not _leaks(posted, str(params)), (params, posted.text)
        for path in _page_probes(content):
            response = await anon.get(path)
            # MediaWiki's "Login required" page answers 200 (its permissions error sets none).
            assert response.status_code == 200, (path, response.status_code)
            assert "Login required" in response.text, path
            assert 'href="/wiki/Special:UserLogin' in response.text, path
            assert not _leaks(response, path), (path, response.text)
        for path in (content.image, content.thumb):
            response = await anon.get(path)
            assert response.status_code == 403, (path, response.status_code)
            assert "Access denied" in response.text
            assert not _leaks(response, "kestrel"), (path, response.text)
        # The sign-in page itself is open, and shows nothing of the wiki's content.
        login = await anon.get("/wiki/Special:UserLogin")
        assert login.status_code == 200 and not _leaks(login, "")
        # No invitation to register where registering is refused (MediaWiki hides both links).
        assert 'id="pt-createaccount"' not in login.text
        assert 'id="mw-createaccount-join"' not in login.text


async def test_private_wiki_refuses_every_read_module(
    wiki: WikiHarness,  # noqa: F811
    data_dir: Path,
    database_url: str | None,
) -> None:
    """Every action and `meta` module that needs the read right refuses; the few that do not
    (signing in, login tokens, help) are MediaWiki's own list."""
    async with _served(_settings(data_dir, database_url, "private")) as anon:
        for name, action in ACTIONS.items():
            # With the anonymous token: MediaWiki checks a token before the read right.
            posted = await anon.post(
                "/w/api.php", data={"action": name, "token": "+\\", "format": "json"}
            )
            data = posted.json() if "json" in posted.headers["content-type"] else {}
            refused = data.get("error", {}).get("code") == "readapidenied"
            assert refused == action.spec.readrights, (name, data)
        for name, module in RUNNABLE.items():
            _, data = await _api(anon, {"action": "query", "meta": name})
            if "error" in data and data["error"]["code"] != "readapidenied":
                continue  # not a meta module: `meta=` does not accept it
            refused = "error" in data
            assert refused == module.spec.readrights, (name, data)
        _, data = await _api(anon, {"action": "query", "list": "no-such-list"})
        assert data["error"]["code"] == "readapidenied"


async def test_private_wiki_refuses_anonymous_edits_and_accounts(
    wiki: WikiHarness,  # noqa: F811
    content: Content,
    data_dir: Path,
    database_url: str | None,
) -> None:
    async with _served(_settings(data_dir, database_url, "private")) as anon:
        for title in (PAGE, "Fresh page"):
            done = await anon.post(
                "/w/api.php",
                data={"action": "edit", "title": title, "text": "defaced", "token": "+\\",
                      "format": "json"},
            )  # fmt: skip
            assert done.json()["error"]["code"] == "readapidenied", done.text
        form = await anon.post(
            "/w/index.php?title=Fresh_page&action=submit",
            data={"wpTextbox1": "defaced", "wpEditToken": "+\\", "wpSave": "Save"},
        )
        assert form.status_code == 200 and "Login required" in form.text
        tokens = await _api(anon, {"action": "query", "meta": "tokens", "type": "createaccount"})
        token = tokens[1]["query"]["tokens"]["createaccounttoken"]
        created = await anon.post(
            "/w/api.php",
            data={"action": "createaccount", "username": "Mallory", "password": "mallory-pw-1",
                  "retype": "mallory-pw-1", "createreturnurl": "http://127.0.0.1:8080/",
                  "createtoken": token, "format": "json"},
        )  # fmt: skip
        assert created.json()["error"]["code"] == "permissiondenied", created.text
        page = await anon.post(
            "/wiki/Special:CreateAccount",
            data={"wpName": "Mallory", "wpPassword": "mallory-pw-1", "retype": "mallory-pw-1"},
        )
        assert page.status_code in (200, 405)
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        data = await wiki.api(
            admin, action="query", titles=f"{PAGE}|Fresh page", prop="revisions",
            rvprop="content", rvslots="main", formatversion="2",
        )  # fmt: skip
        pages = {p["title"]: p for p in data["query"]["pages"]}
        assert pages["Fresh page"].get("missing") is True
        assert "defaced" not in str(pages[PAGE])
        users = await wiki.api(admin, action="query", list="users", ususers="Mallory")
        assert "missing" in users["query"]["users"][0]


async def test_private_wiki_serves_signed_in_users(
    wiki: WikiHarness,  # noqa: F811
    content: Content,
    data_dir: Path,
    database_url: str | None,
) -> None:
    async with _served(_settings(data_dir, database_url, "private")) as alice:
        tokens = await _api(alice, {"action": "query", "meta": "tokens", "type": "login"})
        login = await alice.post(
            "/w/api.php",
            data={"action": "clientlogin", "username": "Alice", "password": PASSWORDS["Alice"],
                  "logintoken": tokens[1]["query"]["tokens"]["logintoken"],
                  "loginreturnurl": "http://127.0.0.1:8080/", "format": "json"},
        )  # fmt: skip
        assert login.json()["clientlogin"]["status"] == "PASS"
        page = await alice.get("/wiki/Kestrel_plan")
        assert page.status_code == 200 and SECRET in page.text
        raw = await alice.get("/w/index.php?title=Kestrel_plan&action=raw")
        assert SECRET in raw.text
        _, parsed = await _api(alice, {"action": "parse", "page": PAGE})
        assert SECRET in str(parsed)
        image = await alice.get(content.image)
        assert image.status_code == 200 and SECRET.encode() in image.content
        # Only the signed-in browser may keep the file: no shared cache hands it on.
        assert image.headers["cache-control"].startswith("private")
        thumb = await alice.get(content.thumb)
        assert thumb.status_code == 200 and thumb.headers["cache-control"].startswith("private")
        edit = await alice.post(
            "/w/api.php",
            data={"action": "edit", "title": "Alice notes", "text": "mine",
                  "token": (await _api(alice, {"action": "query", "meta": "tokens"}))[1][
                      "query"]["tokens"]["csrftoken"], "format": "json"},
        )  # fmt: skip
        assert edit.json()["edit"]["result"] == "Success"


async def test_read_audience_reads_but_refuses_edits_and_accounts(
    wiki: WikiHarness,  # noqa: F811
    content: Content,
    data_dir: Path,
    database_url: str | None,
) -> None:
    async with _served(_settings(data_dir, database_url, "read")) as anon:
        page = await anon.get("/wiki/Kestrel_plan")
        assert page.status_code == 200 and SECRET in page.text
        _, revisions = await _api(
            anon, {"action": "query", "titles": PAGE, "prop": "revisions", "rvprop": "content"}
        )
        assert SECRET in str(revisions)
        image = await anon.get(content.image)
        assert image.status_code == 200
        done = await anon.post(
            "/w/api.php",
            data={"action": "edit", "title": PAGE, "text": "defaced", "token": "+\\",
                  "format": "json"},
        )  # fmt: skip
        assert done.json()["error"]["code"] == "permissiondenied", done.text
        form = await anon.get("/w/index.php?title=Kestrel_plan&action=edit")
        assert "View source" in form.text, form.text
        token = re.search(r'name="wpEditToken" value="([^"]*)"', form.text)
        submitted = await anon.post(
            "/w/index.php?title=Kestrel_plan&action=submit",
            data={"wpTextbox1": "defaced", "wpSave": "Save changes",
                  "wpEditToken": token.group(1) if token else "+\\"},
        )  # fmt: skip
        # EditPage's answer to a refused save: the source with the reason, at 200.
        assert submitted.status_code == 200 and "View source" in submitted.text
        _, rights = await _api(anon, {"action": "query", "meta": "userinfo", "uiprop": "rights"})
        assert "read" in rights["query"]["userinfo"]["rights"]
        for right in ("edit", "createpage", "createaccount"):
            assert right not in rights["query"]["userinfo"]["rights"], right
        _, groups = await _api(
            anon, {"action": "query", "meta": "siteinfo", "siprop": "usergroups"}
        )
        star = next(g for g in groups["query"]["usergroups"] if g["name"] == "*")
        assert "read" in star["rights"] and "edit" not in star["rights"]
        assert "createaccount" not in star["rights"]
        token = (await _api(anon, {"action": "query", "meta": "tokens", "type": "createaccount"}))[
            1
        ]["query"]["tokens"]["createaccounttoken"]
        created = await anon.post(
            "/w/api.php",
            data={"action": "createaccount", "username": "Mallory", "password": "mallory-pw-1",
                  "retype": "mallory-pw-1", "createreturnurl": "http://127.0.0.1:8080/",
                  "createtoken": token, "format": "json"},
        )  # fmt: skip
        assert created.json()["error"]["code"] == "permissiondenied", created.text
        special = await anon.get("/wiki/Special:CreateAccount")
        assert special.status_code == 403
    async with wiki.client() as admin:
        data = await wiki.api(
            admin, action="query", titles=PAGE, prop="revisions", rvprop="content"
        )
        assert "defaced" not in str(data)


async def test_edit_audience_is_mediawikis_default(
    wiki: WikiHarness,  # noqa: F811
    data_dir: Path,
    database_url: str | None,
) -> None:
    async with _served(_settings(data_dir, database_url, "edit")) as anon:
        done = await anon.post(
            "/w/api.php",
            data={"action": "edit", "title": "Open page", "text": "hello", "token": "+\\",
                  "format": "json"},
        )  # fmt: skip
        assert done.json()["edit"]["result"] == "Success", done.text
        _, rights = await _api(anon, {"action": "query", "meta": "userinfo", "uiprop": "rights"})
        for right in ("read", "edit", "createaccount"):
            assert right in rights["query"]["userinfo"]["rights"], right
        login = await anon.get("/wiki/Special:UserLogin")
        assert 'id="pt-createaccount"' in login.text


async def _audience(database: Any) -> str | None:
    return await database.read(
        lambda conn: conn.scalar(
            sa.select(schema.site_config.c.sc_value).where(
                schema.site_config.c.sc_name == "audience"
            )
        )
    )


async def _anonymous_reads(c: httpx.AsyncClient) -> bool:
    _, data = await _api(c, {"action": "query", "list": "allpages"})
    return "error" not in data


async def test_new_wiki_starts_private_and_keeps_its_recorded_audience(
    data_dir: Path, database_url: str | None
) -> None:
    async with _served(_settings(data_dir, database_url, None)) as anon:
        assert not await _anonymous_reads(anon)
    async with _served(_settings(data_dir, database_url, "read")) as anon:
        assert await _anonymous_reads(anon)
    # Restarted without the setting: the audience chosen last stays.
    async with _served(_settings(data_dir, database_url, None)) as anon:
        assert await _anonymous_reads(anon)
        edit = await anon.post(
            "/w/api.php",
            data={"action": "edit", "title": "X", "text": "y", "token": "+\\", "format": "json"},
        )
        assert edit.json()["error"]["code"] == "permissiondenied"


async def test_existing_wiki_keeps_the_rights_it_had(
    wiki: WikiHarness,  # noqa: F811
    data_dir: Path,
    database_url: str | None,
) -> None:
    """A wiki from before the setting existed (namespaces made, no audience recorded) stays
    open to reading and editing when it starts without the setting."""
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.delete(schema.site_config).where(schema.site_config.c.sc_name == "audience")
        )
    )
    async with _served(_settings(data_dir, database_url, None)) as anon:
        assert await _anonymous_reads(anon)
    assert await _audience(wiki.db) == "edit"


def test_the_setting_is_checked_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATRIUM_WIKI_AUDIENCE", "Public")
    with pytest.raises(SystemExit, match="ATRIUM_WIKI_AUDIENCE must be one of private, read, edit"):
        Settings.from_env()
    monkeypatch.setenv("ATRIUM_WIKI_AUDIENCE", " Read ")
    assert Settings.from_env().wiki_audience == "read"
    monkeypatch.delenv("ATRIUM_WIKI_AUDIENCE")
    assert Settings.from_env().wiki_audience is None


async def test_wiki_made_private_before_the_setting_stays_private(
    wiki: WikiHarness,  # noqa: F811
    data_dir: Path,
    database_url: str | None,
) -> None:
    """The old way to make a wiki private (a site_config row `private` = "1") still holds."""

    def old_private(conn: Any) -> None:
        config = schema.site_config
        conn.execute(sa.delete(config).where(config.c.sc_name == "audience"))
        conn.execute(sa.insert(config).values(sc_name="private", sc_value="1"))

    await wiki.db.write(old_private)
    async with _served(_settings(data_dir, database_url, None)) as anon:
        assert not await _anonymous_reads(anon)
    assert await _audience(wiki.db) == "private"
