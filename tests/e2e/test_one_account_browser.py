"""One account in Debian's Chromium (Playwright) against `atrium serve` with both services: sign
in once, on either service's form, and be signed in to both; sign out once and be out of both;
mwclient and pywikibot log in with the person's own password. Screenshots go to tests/e2e/output/workspace."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mwclient
import pytest

from tests.e2e.browser_server import BrowserServer, connected_browser
from tests.e2e.chat_browser import Person, chromium_or_skip
from tests.e2e.seed import ChatUser, create_members, prepare_data_dir
from tests.e2e.server import atrium_env, running_server

pytestmark = pytest.mark.e2e

PASSWORD = "maya-one-password"
SCREENSHOTS = Path(__file__).resolve().parent / "output" / "workspace"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, sqlite_templates: Path) -> Iterator[str]:
    chromium_or_skip()
    data_dir = tmp_path_factory.mktemp("workspace")
    settings = prepare_data_dir(data_dir, None, sqlite_templates)
    create_members(
        settings,
        "Workspace",
        [ChatUser("maya@e2e.test", "Maya Lin", password=PASSWORD, role="member")],
    )
    # Readable by anyone: pywikibot reads the API (paraminfo) before it logs in.
    env = atrium_env(data_dir, None, ATRIUM_WIKI_AUDIENCE="read")
    with running_server(env) as server:
        yield server.url


@pytest.fixture(scope="module")
def browser(site: str, browser_server: BrowserServer) -> Iterator[Any]:
    with connected_browser(browser_server) as connected:
        yield connected


def _person(browser: Any) -> tuple[Any, Person]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    person = Person(context.new_page())
    person.watch()
    return context, person


def _wiki_name(page: Any, site: str) -> str | None:
    page.goto(site + "/wiki/Special:Watchlist")
    user_link = page.locator("#pt-userpage")
    return user_link.inner_text() if user_link.count() else None


def _shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def test_sign_in_to_the_chat_once_then_out_of_the_wiki_once(browser: Any, site: str) -> None:
    context, maya = _person(browser)
    try:
        maya.sign_in(site, "maya@e2e.test", PASSWORD)
        assert _wiki_name(maya.page, site) == "Maya Lin"
        _shot(maya.page, "wiki-signed-in-from-chat")
        maya.page.click("#pt-logout button")
        maya.page.wait_for_selector("#mw-logout-confirm, #pt-login, #pt-anonuserpage")
        assert _wiki_name(maya.page, site) is None
        maya.page.goto(site + "/")
        maya.page.wait_for_selector("#login-email")
        assert console_errors(maya) == []
    finally:
        context.close()


def test_sign_in_to_the_wiki_once_then_out_of_the_chat_once(browser: Any, site: str) -> None:
    context, maya = _person(browser)
    try:
        page = maya.page
        page.goto(site + "/wiki/Special:UserLogin")
        page.fill("#wpName1", "maya@e2e.test")
        page.fill("#wpPassword1", PASSWORD)
        page.click("#wpLoginAttempt")
        page.wait_for_selector("#pt-userpage")
        page.goto(site + "/")
        maya.wait_ready()
        _shot(page, "chat-signed-in-from-wiki")
        page.click("#logout")
        page.wait_for_selector("#login-email")
        assert _wiki_name(page, site) is None
        assert console_errors(maya) == []
    finally:
        context.close()


def test_mwclient_logs_in_with_the_persons_password(site: str) -> None:
    wiki = mwclient.Site(site.removeprefix("http://"), path="/w/", scheme="http")
    wiki.login("Maya Lin", PASSWORD)
    assert wiki.username == "Maya Lin"
    wiki.pages["Notes from Maya"].edit("Written with mwclient.", summary="test")
    assert wiki.pages["Notes from Maya"].text() == "Written with mwclient."


def console_errors(person: Person) -> list[str]:
    """Script errors only: a signed-out visitor's refused pages and calls (401, 403) are the
    expected answers, which the browser also logs."""
    return [
        e for e in person.errors if not e.startswith("HTTP ") and "Failed to load resource" not in e
    ]


PYWIKIBOT_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    os.environ["PYWIKIBOT_NO_USER_CONFIG"] = "2"
    import pywikibot
    from pywikibot import config
    from pywikibot.family import AutoFamily

    api, password, workdir = sys.argv[1], sys.argv[2], sys.argv[3]
    family = AutoFamily("atrium", api)
    config.usernames["atrium"]["atrium"] = "Maya Lin"
    config.put_throttle = 0
    config.max_retries = 0
    pwfile = os.path.join(workdir, "passwords.py")
    with open(pwfile, "w") as f:
        f.write(f"('Maya Lin', {password!r})\\n")
    os.chmod(pwfile, 0o600)
    config.password_file = pwfile
    site = pywikibot.Site("atrium", family, user="Maya Lin")
    site.login()
    print("RESULT " + json.dumps({"user": site.user()}))
    """
)


def test_pywikibot_logs_in_with_the_persons_password(site: str, tmp_path: Path) -> None:
    script = tmp_path / "login.py"
    script.write_text(PYWIKIBOT_SCRIPT)
    workdir = tmp_path / "pwb"
    workdir.mkdir()
    completed = subprocess.run(
        [sys.executable, str(script), f"{site}/w/api.php", PASSWORD, str(workdir)],
        cwd=workdir,
        env={"PYWIKIBOT_DIR": str(workdir), "PATH": "/usr/bin:/bin", "HOME": str(workdir)},
        capture_output=True,
        text=True,
        timeout=180,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"pywikibot failed:\n{completed.stdout}\n{completed.stderr}"
    assert json.loads(lines[0].removeprefix("RESULT "))["user"] == "Maya Lin"
