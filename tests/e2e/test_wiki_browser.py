"""Reading the wiki in a real browser: headless Chromium loads `/wiki/<Title>` from `atrium serve`
and the DOM it builds (after any script would have run) is checked.

Needs Debian's `chromium-headless-shell` (or `chromium`) package; see tests/e2e/browser_server.py.
Outside CI the test is skipped, with that reason, when no chromium binary is found; in CI a missing
browser fails.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import mwclient
import pytest

from tests.e2e.browser_server import chromium_or_skip
from tests.e2e.seed import create_wiki_users, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

READY = "/w/api.php?action=query&meta=siteinfo&format=json"


@pytest.fixture
def browser() -> str:
    return chromium_or_skip()


@pytest.fixture(scope="module")
def wiki_server(
    module_wiki_database_url: str | None,
    tmp_path_factory: pytest.TempPathFactory,
    sqlite_templates: Path,
) -> Iterator[str]:
    """One server per backend for the module: its tests only read."""
    data_dir = tmp_path_factory.mktemp("wiki-browser") / "atrium-data"
    data_dir.mkdir()
    database_url = module_wiki_database_url
    # The account `atrium wiki create-user` would make, written in-process.
    settings = prepare_data_dir(data_dir, database_url, sqlite_templates)
    create_wiki_users(settings, [("Admin", "admin-pass-123", ["sysop"])])
    env = atrium_env(data_dir, database_url)
    with running_server(env, READY) as server:
        base = server.url
        site = mwclient.Site(base.removeprefix("http://"), path="/w/", scheme="http")
        site.login("Admin", "admin-pass-123")
        site.pages["Template:Infobox"].edit(
            "<div class=\"infobox\">'''{{{name}}}'''</div>", summary="t"
        )
        site.pages["Category:Fruit"].edit("Fruit.", summary="c")
        site.pages["Banana"].edit("Yellow.", summary="b")
        site.pages["Apple"].edit(
            "{{Infobox|name=Apple}}\nAn '''apple'''. See [[Banana]] and [[Orchard]].\n"
            "== History ==\n* grown\n"
            '{| class="wikitable"\n! Kind\n|-\n| Gala\n|}\n'
            "<img src=x onerror=\"document.title='pwned'\"> <script>document.title='pwned'</script>\n"
            "[[Category:Fruit]]",
            summary="a",
        )
        site.pages["Pomme"].edit("#REDIRECT [[Apple]]", summary="r")
        yield str(base)


def _dom(browser: str, url: str, tmp: Path) -> str:
    result = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_chromium_reads_a_page(browser: str, wiki_server: str, tmp_path: Path) -> None:
    dom = _dom(browser, f"{wiki_server}/wiki/Pomme", tmp_path / "profile")
    assert "<title>Apple - Atrium Wiki</title>" in dom
    assert "pwned" not in dom.split("</title>")[0]
    assert 'id="firstHeading"' in dom and ">Apple</h1>" in dom
    assert "(Redirected from" in dom and ">Pomme</a>" in dom
    assert '<div class="infobox"><b>Apple</b></div>' in dom
    assert '<a href="/wiki/Banana" title="Banana">Banana</a>' in dom
    assert 'class="new" title="Orchard (page does not exist)"' in dom
    assert '<span class="mw-headline" id="History">History</span>' in dom
    assert "<td>Gala" in dom
    assert '<a href="/wiki/Category:Fruit" title="Category:Fruit">Fruit</a>' in dom
    # The author's markup stays text: no element, no handler.
    assert re.search(r"<img\b", dom) is None
    assert re.search(r"<[^>]*\sonerror=", dom) is None
    assert "&lt;img src=x onerror=" in dom and "&lt;script&gt;" in dom


def test_chromium_follows_links(browser: str, wiki_server: str, tmp_path: Path) -> None:
    dom = _dom(browser, f"{wiki_server}/w/index.php?title=Apple&action=history", tmp_path / "p")
    assert 'id="pagehistory"' in dom and "Admin" in dom
