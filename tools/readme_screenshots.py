"""Take the README's screenshots from the demo organization: `atrium demo` in a fresh data
directory, `atrium serve` on a free loopback port, and Debian's Chromium through Playwright.

    make screenshots      (or: .venv/bin/python -m tools.readme_screenshots)

An administrator of the demo chooses `#general` for the pages' discussions and posts wiki
changes there; Maya follows the red `[[Meeting notes]]` link of the demo's conversation, writes
the page, and mentions it in its topic. The pictures go to docs/screenshots/.
"""

from __future__ import annotations

import configparser
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.chat_browser import CHROMIUM, CHROMIUM_ARGS
from tests.e2e.server import atrium, atrium_env, running_server

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
PASSWORD = "atrium-demo"  # every demo person's (atrium.chat.demo.DEMO_PASSWORD)
ADAM, MAYA = "adam@atrium.example", "maya@atrium.example"


def api_client(env: dict[str, str], url: str, email: str) -> httpx.Client:
    config = configparser.ConfigParser()
    config.read_string(atrium(env, "chat", "api-key", email))
    return httpx.Client(base_url=url + "/api/v1", auth=(email, config["api"]["key"]), timeout=30)


def call(client: httpx.Client, method: str, path: str, **data: Any) -> dict[str, Any]:
    response = client.request(method, path, data=data if method != "GET" else None,
                              params=data if method == "GET" else None)  # fmt: skip
    body: dict[str, Any] = response.json()
    assert body.get("result") == "success", (path, body)
    return body


def sign_in(page: Any, url: str, email: str) -> None:
    page.goto(url + "/")
    page.fill("#login-email", email)
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector("body[data-ready=true]", timeout=30_000)


def main() -> None:
    if CHROMIUM is None:
        sys.exit("Debian's chromium is needed: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    data_dir = Path(tempfile.mkdtemp(prefix="atrium-screenshots-"))
    env = atrium_env(
        data_dir, None, ATRIUM_WIKI_MAIN_PAGE="1", ATRIUM_WIKI_AUDIENCE="read",
        ATRIUM_WIKI_FEED_SECONDS="0.5",
    )  # fmt: skip
    try:
        atrium(env, "demo")
        with running_server(env) as server, sync_playwright() as playwright:
            url = server.url
            adam = api_client(env, url, ADAM)
            general = call(adam, "GET", "/get_stream_id", stream="general")["stream_id"]
            call(adam, "PATCH", "/atrium/workspace_settings", discussion_stream_id=general)
            call(adam, "POST", "/atrium/wiki_feed/rules", stream_id=general, scope="all",
                 events='["create", "edit"]')  # fmt: skip
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            OUT.mkdir(parents=True, exist_ok=True)
            maya_context = browser.new_context(viewport={"width": 1280, "height": 760})
            maya = maya_context.new_page()
            sign_in(maya, url, MAYA)
            # From the demo's red link to a new page, signed in once.
            maya.goto(url + "/w/index.php?title=Meeting_notes&action=edit&redlink=1")
            maya.fill(
                "#wpTextbox1",
                "Notes of our weekly meetings.\n\n== Monday ==\n* Agenda: the launch plan\n"
                "* Decided: ship on Friday\n\nSee also [[Apple]] and [[Banana]].",
            )
            maya.fill("#wpSummary", "first notes")
            maya.click("#wpSave")
            maya.wait_for_url("**/wiki/Meeting_notes")
            time.sleep(2)  # the feed posts the new page to #general
            maya_api = api_client(env, url, MAYA)
            call(maya_api, "POST", "/messages", type="stream", to="general",
                 topic="Meeting notes",
                 content="I wrote up Monday's agenda in [[Meeting notes]]; add yours!")  # fmt: skip

            adam_context = browser.new_context(viewport={"width": 1280, "height": 760})
            page = adam_context.new_page()
            sign_in(page, url, ADAM)
            page.evaluate(
                "h => { location.hash = h; }",
                f"#narrow/stream/{general}-general/topic/Meeting.20notes",
            )
            page.wait_for_selector("article.message .wiki-preview", timeout=20_000)
            page.screenshot(path=str(OUT / "chat-topic.png"))

            page.goto(url + "/wiki/Meeting_notes")
            page.wait_for_selector("#ca-chat")
            page.screenshot(path=str(OUT / "wiki-page.png"))

            page.goto(url + "/")
            page.wait_for_selector("body[data-ready=true]", timeout=30_000)
            page.fill("#search-input", "agenda")
            page.press("#search-input", "Enter")
            page.wait_for_selector("#wiki-results:not([hidden]) .wiki-result", timeout=20_000)
            page.wait_for_selector("article.message", timeout=20_000)
            page.screenshot(path=str(OUT / "one-search.png"))

            page.goto(url + "/wiki/Special:WorkspaceSettings")
            page.wait_for_selector("#atrium-feed-rules")
            page.screenshot(path=str(OUT / "wiki-workspace-settings.png"))
            browser.close()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"Screenshots written to {OUT}")


if __name__ == "__main__":
    main()
