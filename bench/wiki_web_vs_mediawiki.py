"""The wiki's pages in a browser: the view of a typical 50 KB article (anonymous and signed in),
its history page and a diff page, on Atrium and on the reference MediaWiki 1.39 in the same run.

Both wikis are fresh and get the same pages through their own Action API (logged in,
`action=edit`): the template the article uses, then 50 revisions of the article
(`bench.wiki_props.big_page_text`: sections, links and red links, a template, lists, tables,
external links), each a small edit of the one before, the last one a typical larger edit
(`bench.wiki_parse_vs_mediawiki.edited`). Before anything is timed, every page must answer 200
with its marker on both wikis, both histories must list the 50 revisions, the signed-in view must
name the signed-in user, and the two diffs must show the same changed lines.

Then, one after the other, each page is measured on each server at one connection:
`GET /wiki/<article>` (both serve the body from their parser cache: MediaWiki's ParserCache,
Atrium's keyed by the page's render version), the same with the session cookie of a signed-in
administrator, `GET index.php?title=<article>&action=history&limit=50` and
`GET index.php?title=<article>&diff=<50th>&oldid=<49th>`. The target: Atrium's median
latency at most a fifth of MediaWiki's, attached to Atrium's row as an absolute limit derived from
MediaWiki's figure of the same run.

Needs MediaWiki 1.39 and PHP (installed by `mediawiki-ref.sh` through apt when run as root); when
they cannot be had, the family prints why and is skipped. Run it alone with
`python -m bench --only wiki_web_vs_mediawiki`.
"""

from __future__ import annotations

import html
import re
import shutil
from urllib.parse import quote, urlencode

import httpx
from rich.console import Console

from bench import mediawiki_ref
from bench.harness import (
    REPO,
    BenchError,
    HttpRequest,
    ScenarioResult,
    Settings,
    measure,
    running,
)
from bench.wiki_parse_vs_mediawiki import (
    ARTICLE,
    ATRIUM_USER,
    TEMPLATE,
    atrium_wiki,
    edited,
    latency_result,
    login_and_token,
    reference_wiki,
)
from bench.wiki_props import big_page_text

FAMILY = "wiki_web_vs_mediawiki"
CONNECTIONS = (1,)
REVISIONS = 50
_CHANGED_LINE = re.compile(r'id="mw-diff-left-l(\d+)')
_REVID = re.compile(r'data-mw-revid="(\d+)"')


def revision_texts(text: str) -> list[str]:
    """The article's revisions: small edits one after the other (a line added to the last
    section), then a typical larger edit."""
    texts = [text]
    for number in range(1, REVISIONS - 1):
        texts.append(texts[-1] + f"\nA line added by edit number {number}.")
    texts.append(edited(texts[-1]))
    return texts


def _fill(base: str, user: str, password: str) -> tuple[list[int], str, int]:
    """The template and the article's revisions; (revision ids, signed-in cookie header, bytes
    of the last revision)."""
    texts = revision_texts(big_page_text())
    with httpx.Client(base_url=base, timeout=120) as client:
        csrf = login_and_token(client, user, password)
        revisions = []
        for title, content in [TEMPLATE, *((ARTICLE, text) for text in texts)]:
            result = client.post(
                "/w/api.php",
                data={
                    "action": "edit",
                    "title": title,
                    "text": content,
                    "token": csrf,
                    "format": "json",
                },
            ).json()
            if result.get("edit", {}).get("result") != "Success":
                raise BenchError(f"edit of {title} on {base} failed: {result}")
            revisions.append(int(result["edit"]["newrevid"]))
    return revisions[1:], browser_cookies(base, user, password), len(texts[-1].encode())


_HIDDEN = re.compile(r"<input\b[^>]*>")
_ATTR = re.compile(r'(\w+)="([^"]*)"')
LOGIN = "/w/index.php?title=Special:UserLogin"


def browser_cookies(base: str, user: str, password: str) -> str:
    """The Cookie header of a browser signed in through `Special:UserLogin`'s form (its hidden
    fields as the form gives them, then name and password)."""
    with httpx.Client(base_url=base, timeout=120) as client:
        page = client.get(LOGIN).text
        # The login form's own fields only: the header's search form has a `title` too.
        start = page.index('id="wpName1"')
        form = page[page.rindex("<form", 0, start) : page.index("</form>", start)]
        fields: dict[str, str] = {}
        for tag in _HIDDEN.findall(form):
            attrs = {k: html.unescape(v) for k, v in _ATTR.findall(tag)}
            if attrs.get("type") == "hidden" and "name" in attrs:
                fields[attrs["name"]] = attrs.get("value", "")
        fields |= {"wpName": user, "wpPassword": password, "wploginattempt": "Log in"}
        done = client.post(LOGIN, data=fields)
        if done.status_code not in (200, 302, 303):
            raise BenchError(f"signing in to {base} failed: {done.status_code}")
        return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


def _paths(revisions: list[int]) -> dict[str, str]:
    title = ARTICLE.replace(" ", "_")
    history = urlencode({"title": title, "action": "history", "limit": REVISIONS})
    diff = urlencode({"title": title, "diff": revisions[-1], "oldid": revisions[-2]})
    return {
        "view": f"/wiki/{quote(title)}",
        "history": f"/w/index.php?{history}",
        "diff": f"/w/index.php?{diff}",
    }


def _checked(base: str, path: str, marker: str, cookies: str = "") -> str:
    headers = {"Cookie": cookies} if cookies else {}
    answer = httpx.get(base + path, headers=headers, timeout=120)
    if answer.status_code != 200 or marker not in answer.text:
        raise BenchError(f"{base}{path} failed: {answer.status_code} {answer.text[:500]}")
    return answer.text


MARKERS = {
    "view": "mw-parser-output",
    "history": "data-mw-revid",
    "diff": 'class="diff diff-contentalign-left',
}


def _check_both(
    sides: list[tuple[str, dict[str, str], str, str, list[int]]],
) -> int:
    """Every page answers on both wikis, as the timed requests will ask; returns the number of
    changed blocks the diffs show."""
    blocks = []
    for base, paths, cookies, user, revisions in sides:
        for name, path in paths.items():
            _checked(base, path, MARKERS[name])
        signed_in = _checked(base, paths["view"], MARKERS["view"], cookies)
        if f">{user}<" not in signed_in:
            raise BenchError(f"{base}: the signed-in view does not name {user}")
        listed = {int(i) for i in _REVID.findall(_checked(base, paths["history"], "data-mw"))}
        if not set(revisions) <= listed:
            raise BenchError(f"{base}: the history lists {len(listed)} of the revisions")
        blocks.append(_CHANGED_LINE.findall(_checked(base, paths["diff"], MARKERS["diff"])))
    if blocks[0] != blocks[1]:
        raise BenchError(f"the two diffs differ in their blocks: {blocks}")
    return len(blocks[0])


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    reason = mediawiki_ref.unavailable_reason()
    if reason is not None:
        console.print(f"[yellow]{FAMILY} skipped: {reason}[/yellow]")
        return []
    reference, root = reference_wiki(console, "mwref-web")
    server, served_by, data_dir = atrium_wiki("bench-wiki-web-")
    password = (root / "admin.pass").read_text().strip()
    try:
        with running(server), running(reference) as mw:
            console.print(f"Saving {REVISIONS} revisions of the article on both wikis …")
            ours, our_cookies, size = _fill(server.base_url, *ATRIUM_USER)
            theirs, their_cookies, _ = _fill(mw.base_url, "Admin", password)
            ours_paths, theirs_paths = _paths(ours), _paths(theirs)
            blocks = _check_both(
                [
                    (server.base_url, ours_paths, our_cookies, ATRIUM_USER[0], ours),
                    (mw.base_url, theirs_paths, their_cookies, "Admin", theirs),
                ]
            )
            console.print(f"Both diffs show the same {blocks} blocks of changes.")
            described = (
                f"Fresh wikis with the same pages: Atrium ({served_by}) and MediaWiki "
                f"{mediawiki_ref.mediawiki_version()} (Debian package) on SQLite, `php -S` with "
                f"{mediawiki_ref.WORKERS} workers and opcache (`mediawiki-ref.sh install` in "
                f"`{root.relative_to(REPO)}`), one connection, measured one after the other."
            )
            kb = f"{size / 1000:.0f} KB"
            cases = (
                ("view-anonymous", "view", False, f"Page view of a {kb} article, anonymous",
                 f"`GET /wiki/{ARTICLE.replace(' ', '_')}` without a session: {size:,} bytes of "
                 "wikitext (sections, links and red links, a template, lists, tables, external "
                 "links), the body from each wiki's parser cache, the skin around it."),
                ("view-signed-in", "view", True, f"Page view of a {kb} article, signed in",
                 "The same page with the session cookie of a signed-in administrator (personal "
                 "tools, edit links and tokens of that user)."),
                ("history-50", "history", False, f"History page of {REVISIONS} revisions",
                 f"`GET index.php?action=history&limit={REVISIONS}` of the article: every "
                 "revision listed with its links, user, size and summary."),
                ("diff-page", "diff", False, "Diff page of two revisions of the article",
                 "`GET index.php?diff=<50th>&oldid=<49th>`: the two-column diff table of a "
                 f"typical edit ({blocks} blocks: words changed, items added, lines removed) "
                 "with the revision headers, and the page below it as each wiki shows it."),
            )  # fmt: skip
            results = []
            for key, page, signed_in, title, description in cases:
                console.rule(f"{FAMILY} / {key}")
                ours_headers = {"Cookie": our_cookies} if signed_in else {}
                theirs_headers = {"Cookie": their_cookies} if signed_in else {}
                atrium = measure(
                    settings, console, server, "Atrium, 1 connection", 1,
                    [HttpRequest("GET", ours_paths[page], ours_headers)], MARKERS[page],
                )  # fmt: skip
                # php -S closes the connection after every response (no keep-alive).
                theirs_m = measure(
                    settings, console, mw, "MediaWiki, 1 connection", 1,
                    [HttpRequest("GET", theirs_paths[page], theirs_headers)], MARKERS[page],
                    True,
                )  # fmt: skip
                results.append(
                    latency_result(
                        FAMILY, key, title, f"{description} {described}", atrium, theirs_m
                    )
                )
            return results
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
