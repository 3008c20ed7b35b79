"""`action=parse` of a typical 50 KB article and `action=compare` of two of its revisions, on
Atrium and on the reference MediaWiki 1.39 in the same run.

Both wikis are fresh and get the same pages through their own Action API (logged in, `action=edit`):
the template the article uses, the article (`bench.wiki_props.big_page_text`: sections, links and
red links, a template, lists, tables, external links) and a second revision of it with a typical
edit (words changed in some paragraphs, list items added, a few lines removed). Before anything is
timed, both must answer each request without an error, and the two diffs must show the same
changed lines.

Then, one after the other on the same pinned core, each request is measured on each server at one
connection: `GET action=parse&page=<article>` (the current revision rendered with every default
prop; MediaWiki keeps parser output in its parser cache, Atrium in its own, both invalidated when
the wiki changes) and `GET action=compare&fromrev=<first>&torev=<second>`. The target:
Atrium's median latency at most a fifth of MediaWiki's, attached to Atrium's row as an absolute
limit derived from MediaWiki's figure of the same run.

Needs MediaWiki 1.39 and PHP (installed by `mediawiki-ref.sh` through apt when run as root); when
they cannot be had, the family prints why and is skipped. Run it alone with
`python -m bench --only wiki_parse_vs_mediawiki`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

import httpx
from rich.console import Console

from bench import mediawiki_ref
from bench.harness import (
    DATA_DIR,
    REPO,
    BenchError,
    HttpRequest,
    Measurement,
    Row,
    ScenarioResult,
    Server,
    Settings,
    Target,
    measure,
    running,
)
from bench.wiki_foundation import atrium_server
from bench.wiki_props import big_page_text

FAMILY = "wiki_parse_vs_mediawiki"
CONNECTIONS = (1,)
RATIO = 5.0  # Atrium's median at most a fifth of MediaWiki's
ARTICLE = "Bench article"
TEMPLATE = ("Template:Box 1", "<div class=\"box\">'''{{{name|}}}''' box</div>")
ATRIUM_USER = ("Benchadmin", "bench-password-1")
_CHANGED_LINE = re.compile(r'id=\\?"mw-diff-left-l(\d+)')


def edited(text: str) -> str:
    """A typical second revision: words changed in some paragraphs, list items added, a few lines
    removed, the rest as it was."""
    out: list[str] = []
    for number, line in enumerate(text.split("\n")):
        if number % 37 == 5 and line[:1].isalpha():
            words = line.split(" ")
            words[3:5] = ["changed", "words", "here"]
            out.append(" ".join(words))
        elif number % 53 == 7:
            out.extend((line, "* an added item with a [[New link]]"))
        elif number % 61 == 9:
            continue
        else:
            out.append(line)
    return "\n".join(out)


def login_and_token(client: httpx.Client, user: str, password: str) -> str:
    api = "/w/api.php"
    token = client.get(
        api, params={"action": "query", "meta": "tokens", "type": "login", "format": "json"}
    ).json()["query"]["tokens"]["logintoken"]
    result = client.post(
        api,
        data={
            "action": "clientlogin",
            "username": user,
            "password": password,
            "logintoken": token,
            "loginreturnurl": str(client.base_url),
            "format": "json",
        },
    ).json()
    if result.get("clientlogin", {}).get("status") != "PASS":
        raise BenchError(f"login as {user} failed: {result}")
    csrf: str = client.get(
        api, params={"action": "query", "meta": "tokens", "format": "json"}
    ).json()["query"]["tokens"]["csrftoken"]
    return csrf


def _fill(base: str, user: str, password: str) -> tuple[int, int, int]:
    """The template and two revisions of the article; (first, second revision id, bytes)."""
    text = big_page_text()
    with httpx.Client(base_url=base, timeout=120) as client:
        csrf = login_and_token(client, user, password)
        revisions = []
        for title, content in (TEMPLATE, (ARTICLE, text), (ARTICLE, edited(text))):
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
    return revisions[1], revisions[2], len(text.encode())


def _paths(first: int, second: int) -> dict[str, str]:
    parse = urlencode({"action": "parse", "page": ARTICLE, "format": "json"})
    compare = urlencode({"action": "compare", "fromrev": first, "torev": second, "format": "json"})
    return {"parse": f"/w/api.php?{parse}", "compare": f"/w/api.php?{compare}"}


def _checked(base: str, path: str, marker: str) -> str:
    answer = httpx.get(base + path, timeout=120)
    if answer.status_code != 200 or marker not in answer.text or '"error"' in answer.text[:200]:
        raise BenchError(f"{base}{path} failed: {answer.status_code} {answer.text[:500]}")
    return answer.text


def reference_wiki(console: Console, name: str) -> tuple[Server, Path]:
    """A fresh reference MediaWiki in its own directory `name` of `bench/.data/`."""
    root = DATA_DIR / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    env = {**os.environ, "MWREF_DIR": str(root)}
    console.print(f"Installing the reference MediaWiki in {root.relative_to(REPO)} …")
    done = subprocess.run(
        ["bash", str(mediawiki_ref.SCRIPT), "install"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"mediawiki-ref.sh install failed:\n{done.stderr[-2000:]}")
    return mediawiki_ref.Reference(root, {}).server(), root


def atrium_wiki(prefix: str) -> tuple[Server, str, Path]:
    """A fresh Atrium wiki in a temporary directory, with an administrator `ATRIUM_USER`."""
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    env = {**os.environ, "ATRIUM_DATA_DIR": str(data_dir)}
    created = subprocess.run(
        [sys.executable, "-m", "atrium.cli", "wiki", "create-user", ATRIUM_USER[0],
         "--password", ATRIUM_USER[1], "--groups", "sysop"],
        env=env, cwd=REPO, check=False, capture_output=True, text=True,
    )  # fmt: skip
    if created.returncode != 0:
        raise BenchError(f"atrium wiki create-user failed:\n{created.stderr[-2000:]}")
    server, served_by = atrium_server(data_dir)
    return server, served_by, data_dir


def latency_result(
    family: str,
    key: str,
    title: str,
    description: str,
    atrium: Measurement,
    reference: Measurement,
) -> ScenarioResult:
    """One request's figures on both wikis, Atrium's row carrying the target derived from
    MediaWiki's median of the same run."""
    ratio = reference.p50_ms / atrium.p50_ms if atrium.p50_ms else 0.0
    return ScenarioResult(
        family=family,
        key=key,
        title=f"{title}: Atrium and MediaWiki 1.39",
        description=description,
        rows=[
            Row(atrium, (Target("p50_ms", reference.p50_ms / RATIO),)),
            Row(reference, ()),
        ],
        notes=[
            f"Median latency at 1 connection: Atrium {atrium.p50_ms:.2f} ms, MediaWiki "
            f"{reference.p50_ms:.2f} ms: Atrium takes 1/{ratio:.1f} of MediaWiki's time "
            f"(target ≥ {RATIO:g}×)."
        ],
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    reason = mediawiki_ref.unavailable_reason()
    if reason is not None:
        console.print(f"[yellow]{FAMILY} skipped: {reason}[/yellow]")
        return []
    reference, root = reference_wiki(console, "mwref-parse")
    server, served_by, data_dir = atrium_wiki("bench-wiki-parse-")
    password = (root / "admin.pass").read_text().strip()
    try:
        with running(server), running(reference) as mw:
            ours = _fill(server.base_url, *ATRIUM_USER)
            theirs = _fill(mw.base_url, "Admin", password)
            size = ours[2]
            ours_paths, theirs_paths = _paths(*ours[:2]), _paths(*theirs[:2])
            for paths, base in ((ours_paths, server.base_url), (theirs_paths, mw.base_url)):
                _checked(base, paths["parse"], "mw-parser-output")
            diffs = [
                _checked(base, paths["compare"], "diff-lineno")
                for paths, base in ((ours_paths, server.base_url), (theirs_paths, mw.base_url))
            ]
            blocks = [_CHANGED_LINE.findall(diff) for diff in diffs]
            if blocks[0] != blocks[1]:
                raise BenchError(f"the two diffs differ in their blocks: {blocks}")
            console.print(f"Both diffs show the same {len(blocks[0])} blocks of changes.")
            described = (
                f"Fresh wikis with the same pages: Atrium ({served_by}) and MediaWiki "
                f"{mediawiki_ref.mediawiki_version()} (Debian package) on SQLite, `php -S` with "
                f"{mediawiki_ref.WORKERS} workers and opcache (`mediawiki-ref.sh install` in "
                f"`{root.relative_to(REPO)}`), one connection, measured one after the other."
            )
            cases = (
                ("parse-50kb", f"action=parse of a {size / 1000:.0f} KB article",
                 f"`GET action=parse&page={ARTICLE}` with the default props: {size:,} bytes of "
                 "wikitext (sections, links and red links, a template, lists, tables, external "
                 "links), the current revision as each wiki's parser cache keeps it."),
                ("compare-revisions", "action=compare of two revisions of the article",
                 "`GET action=compare&fromrev=…&torev=…`: the article and its edited second "
                 f"revision (words changed, items added, lines removed: {len(blocks[0])} blocks)."),
            )  # fmt: skip
            results = []
            for key, title, description in cases:
                request = "parse" if key.startswith("parse") else "compare"
                marker = "mw-parser-output" if request == "parse" else "diff-lineno"
                console.rule(f"{FAMILY} / {key}")
                atrium = measure(
                    settings, console, server, "Atrium, 1 connection", 1,
                    [HttpRequest("GET", ours_paths[request])], marker,
                )  # fmt: skip
                # php -S closes the connection after every response (no keep-alive).
                theirs_m = measure(
                    settings, console, mw, "MediaWiki, 1 connection", 1,
                    [HttpRequest("GET", theirs_paths[request])], marker, True,
                )  # fmt: skip
                results.append(
                    latency_result(
                        FAMILY, key, title, f"{description} {described}", atrium, theirs_m
                    )
                )
            return results
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
