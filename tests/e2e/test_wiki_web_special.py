"""The wiki's Special pages in a real browser: Playwright drives Debian's Chromium against a real
`atrium serve`. An image uploaded through Special:Upload shows on its file page and in an
article; a category page lists its members; an administrator protects a page through the form and
a member can then not edit it; an administrator blocks a member, who then sees the block notice;
an oversighter hides a summary through the history and Special:RevisionDelete.
Screenshots of each page go to tests/e2e/output/wiki_special/. No page logs a console error.

People sign in through Special:UserLogin; the API shares the browser's session.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mwclient
import pytest
from PIL import Image

from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.seed import create_wiki_users, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/w/api.php?action=query&meta=siteinfo&format=json"
SCREENSHOTS = Path(__file__).resolve().parent / "output" / "wiki_special"
PASSWORDS = {"Admin": "admin-pass-123", "Member": "member-pass-123"}
# Blocked by its test: an account of its own, so the server the module shares keeps Member usable.
DRIFTER = ("Drifter", "drifter-pass-123")
# Hides revisions: MediaWiki's default groups give `deleterevision` to `suppress` only.
OVERSEER = ("Overseer", "overseer-pass-123")


@pytest.fixture(scope="module")
def wiki_site(
    module_wiki_database_url: str | None,
    tmp_path_factory: pytest.TempPathFactory,
    sqlite_templates: Path,
) -> Iterator[tuple[str, Any]]:
    """One server per backend for the module: its tests use page titles of their own."""
    data_dir = tmp_path_factory.mktemp("wiki-special") / "atrium-data"
    data_dir.mkdir()
    database_url = module_wiki_database_url
    # The accounts `atrium wiki create-user` would make, written in-process.
    settings = prepare_data_dir(data_dir, database_url, sqlite_templates)
    create_wiki_users(
        settings,
        [
            ("Admin", PASSWORDS["Admin"], ["sysop"]),
            ("Member", PASSWORDS["Member"], []),
            (*DRIFTER, []),
            (*OVERSEER, ["sysop", "suppress"]),
        ],
    )
    env = atrium_env(data_dir, database_url)
    with running_server(env, READY) as server:
        site = mwclient.Site(server.url.removeprefix("http://"), path="/w/", scheme="http")
        site.login("Admin", PASSWORDS["Admin"])
        yield server.url, site


@dataclass
class Person:
    """One person's browser context (own cookies) and page, with every console error."""

    base: str
    page: Any
    errors: list[str] = field(default_factory=list)

    def watch(self) -> None:
        # A failed load shows in the console without its URL: failed responses are recorded
        # with theirs instead, all but the favicon the browser asks for on its own.
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on(
            "response",
            lambda r: (
                r.status >= 400
                and not r.url.endswith("/favicon.ico")
                and r.request.resource_type != "document"
                and self.errors.append(f"HTTP {r.status} {r.url}")
            ),
        )

    def sign_in(self, name: str) -> None:
        """Through Special:UserLogin, as a person does."""
        self.go("/wiki/Special:UserLogin")
        self.page.fill("#wpName1", name)
        self.page.fill("#wpPassword1", dict([DRIFTER, OVERSEER], **PASSWORDS)[name])
        self.page.click("[name=wploginattempt]")
        self.page.wait_for_selector("#pt-userpage")

    def _console(self, message: Any) -> None:
        if message.type != "error" or message.text.startswith("Failed to load resource"):
            return
        self.errors.append(f"console on {self.page.url}: {message.text}")

    def go(self, path: str) -> Any:
        return self.page.goto(self.base + path)

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def chromium(browser_server: BrowserServer) -> Iterator[Any]:
    """One browser for the module; each test's people get fresh contexts (their own cookies)."""
    with connected_browser(browser_server) as connected:
        yield connected


@pytest.fixture
def people(wiki_site: tuple[str, Any], chromium: Any) -> Iterator[dict[str, Person]]:
    base, _site = wiki_site
    contexts = []
    try:
        found = {}
        for name in PASSWORDS:
            context = chromium.new_context()
            contexts.append(context)
            person = Person(base, context.new_page())
            person.watch()
            person.sign_in(name)
            found[name] = person
        yield found
        for person in found.values():
            assert person.errors == [], "\n".join(person.errors)
    finally:
        for context in contexts:
            context.close()


def _png_file(path: Path) -> Path:
    image = Image.new("RGB", (640, 400), (30, 110, 200))
    for x in range(0, 640, 40):
        for y in range(400):
            image.putpixel((x, y), (250, 200, 40))
    out = io.BytesIO()
    image.save(out, format="PNG")
    path.write_bytes(out.getvalue())
    return path


def _image_loaded(page: Any, selector: str) -> bool:
    return bool(page.eval_on_selector(selector, "img => img.complete && img.naturalWidth > 0"))


def test_upload_an_image_and_see_it_on_its_page_and_in_an_article(
    people: dict[str, Person], wiki_site: tuple[str, Any], tmp_path: Path
) -> None:
    member = people["Member"]
    member.go("/wiki/Special:Upload")
    member.page.set_input_files("#wpUploadFile", str(_png_file(tmp_path / "Harbour.png")))
    member.page.fill("#wpDestFile", "Harbour view.png")
    member.page.fill("#wpUploadDescription", "The harbour at dusk")
    member.shot("upload-form")
    member.page.click("#wpUpload")
    member.page.wait_for_url("**/wiki/File:Harbour_view.png")
    member.page.wait_for_selector("#file img")
    assert _image_loaded(member.page, "#file img")
    assert "The harbour at dusk" in member.page.inner_text("#filehistory + div")
    member.shot("file-page")
    _base, site = wiki_site
    site.pages["Port"].edit("[[File:Harbour view.png|thumb|Boats at rest]]\nThe port.", summary="p")
    member.go("/wiki/Port")
    member.page.wait_for_selector(".thumb img")
    assert _image_loaded(member.page, ".thumb img")
    assert member.page.inner_text(".thumbcaption").strip() == "Boats at rest"
    member.shot("article-with-image")
    member.go("/wiki/File:Harbour_view.png")
    assert "Port" in member.page.inner_text("#mw-imagepage-section-linkstoimage")


def test_category_page_lists_members(people: dict[str, Person], wiki_site: tuple[str, Any]) -> None:
    _base, site = wiki_site
    site.pages["Category:Birds"].edit("Birds of the coast.", summary="c")
    site.pages["Category:Gulls"].edit("[[Category:Birds]]", summary="c")
    for name in ("Heron", "Tern", "Cormorant"):
        site.pages[name].edit(f"A {name.lower()}. [[Category:Birds]]", summary="b")
    member = people["Member"]
    member.go("/wiki/Category:Birds")
    assert member.page.inner_text("#mw-subcategories a") == "Gulls"
    listed = member.page.locator("#mw-pages li a").all_inner_texts()
    assert listed == ["Cormorant", "Heron", "Tern"]
    member.shot("category-page")
    member.page.click("#mw-pages a:text('Heron')")
    member.page.wait_for_url("**/wiki/Heron")


def test_administrator_protects_a_page_and_member_cannot_edit(
    people: dict[str, Person], wiki_site: tuple[str, Any]
) -> None:
    _base, site = wiki_site
    site.pages["Harbour rules"].edit("No swimming.", summary="r")
    admin, member = people["Admin"], people["Member"]
    admin.go("/w/index.php?title=Harbour_rules&action=protect")
    admin.page.select_option("#mwProtect-level-edit", "sysop")
    admin.page.select_option("#mwProtect-level-move", "sysop")
    admin.page.fill("#mwProtect-reason", "Keep the rules stable")
    admin.shot("protect-form")
    admin.page.click("#mw-Protect-submit")
    admin.page.wait_for_url("**/wiki/Harbour_rules")
    member.go("/w/index.php?title=Harbour_rules&action=protect")
    assert member.page.is_disabled("#mwProtect-level-edit")
    assert member.page.eval_on_selector("#mwProtect-level-edit", "s => s.value") == "sysop"
    member.shot("protect-view-as-member")
    member.go("/w/index.php?title=Harbour_rules&action=edit")
    assert "This page has been protected" in member.page.inner_text("#mw-content-text")
    assert member.page.locator("#wpSave").count() == 0
    member.shot("protected-edit-as-member")
    api = member.base + "/w/api.php"
    request = member.page.context.request
    token = request.get(api, params={"action": "query", "meta": "tokens", "format": "json"}).json()
    refused = request.post(
        api,
        form={"action": "edit", "title": "Harbour rules", "text": "Swim!", "format": "json",
              "token": token["query"]["tokens"]["csrftoken"]},
    ).json()  # fmt: skip
    assert refused["error"]["code"] == "protectedpage"


def test_administrator_blocks_member_who_sees_the_block_notice(
    people: dict[str, Person], wiki_site: tuple[str, Any], chromium: Any
) -> None:
    admin = people["Admin"]
    context = chromium.new_context()
    member = Person(wiki_site[0], context.new_page())
    member.watch()
    member.sign_in("Drifter")
    admin.go("/wiki/Special:Block/Drifter")
    admin.page.fill("#mw-input-wpReason-other", "Cooling off")
    admin.shot("block-form")
    admin.page.click("#mw-block-submit")
    admin.page.wait_for_selector("text=has been blocked")
    admin.go("/wiki/Special:BlockList")
    assert "Drifter" in admin.page.inner_text("table.mw-blocklist")
    admin.shot("block-list")
    for path, shot in (
        ("/w/index.php?title=Anything&action=edit", "block-notice-edit"),
        ("/wiki/Special:Upload", "block-notice-upload"),
    ):
        member.go(path)
        notice = member.page.inner_text("#mw-blocked-text")
        assert "Your username or IP address has been blocked" in notice
        assert "Cooling off" in notice and "Admin" in notice
        member.shot(shot)
    assert member.errors == [], "\n".join(member.errors)
    context.close()


def test_oversighter_hides_a_summary_from_the_history(
    people: dict[str, Person], wiki_site: tuple[str, Any], chromium: Any
) -> None:
    """The history's check boxes and "Change visibility of selected revisions" lead to
    Special:RevisionDelete, whose form hides the summary; a member then reads it as removed.
    Its empty state and bad input answer "Invalid target revision"; a member is refused."""
    _base, site = wiki_site
    site.pages["Logbook"].edit("Day one.", summary="call me on 555-0199")
    site.pages["Logbook"].edit("Day one. Day two.", summary="second day")
    first = min(r["revid"] for r in site.pages["Logbook"].revisions())
    member = people["Member"]
    context = chromium.new_context()
    overseer = Person(wiki_site[0], context.new_page())
    overseer.watch()
    overseer.sign_in(OVERSEER[0])
    overseer.go("/w/index.php?title=Logbook&action=history")
    overseer.page.check(f'input[name="ids[{first}]"]')
    overseer.shot("revisiondelete-history")
    overseer.page.click(".mw-history-revisiondelete-button >> nth=0")
    overseer.page.wait_for_selector("#mw-revdel-form-revisions")
    assert "555-0199" in overseer.page.inner_text(".mw-revdel-items")
    overseer.page.check("#wpHideComment")
    overseer.page.fill("#wpReason", "personal information")
    overseer.shot("revisiondelete-form")
    overseer.page.click("[name=wpSubmit]")
    overseer.page.wait_for_selector("text=Revision visibility updated.")
    assert overseer.page.is_checked("#wpHideComment")
    overseer.shot("revisiondelete-done")
    member.go("/w/index.php?title=Logbook&action=history")
    history = member.page.inner_text("#pagehistory")
    assert "555-0199" not in history and "(edit summary removed)" in history
    assert member.page.locator(".mw-revdel-checkbox").count() == 0
    member.go(f"/wiki/Special:RevisionDelete?type=revision&ids={first}")
    assert "Permission error" in member.page.inner_text("#firstHeading")
    assert "555-0199" not in member.page.content()
    # Nothing selected; an id that names no revision (and so no page: MediaWiki's pointer to
    # the deletion log).
    for path, says in (
        ("/wiki/Special:RevisionDelete", "Invalid target revision"),
        ("/wiki/Special:RevisionDelete?type=revision&ids=x", "the deletion log"),
    ):
        overseer.go(path)
        assert says in overseer.page.inner_text("#content")
        assert overseer.page.locator("#mw-revdel-form-revisions").count() == 0
    overseer.shot("revisiondelete-empty")
    assert overseer.errors == [], "\n".join(overseer.errors)
    context.close()
