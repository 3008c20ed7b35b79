"""The wiki scenarios of prop modules, generators and reading pages, on the generated
100,000-page wiki of `bench.wiki_foundation` (its dump, imported with the real CLI; the imported
database is cached under `bench/.data/` per dump and migration set).

- `gen-allpages-props`: `generator=allpages&gaplimit=500&prop=info|categories|templates`.
- `revisions-50`: `prop=revisions&rvprop=content&rvslots=main&titles=<50 titles>`.
- `view-50kb`: `GET /wiki/<Title>` of a 50 KB page (links, templates, headings, lists, a table).

Each at one connection; the targets are medians (p50) of at most 50 ms.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

import httpx
from rich.console import Console

from bench.harness import (
    DATA_DIR,
    REPO,
    BenchError,
    HttpRequest,
    Row,
    ScenarioResult,
    Settings,
    Target,
    measure,
    running,
)
from bench.wiki_foundation import (
    REVISIONS_PER_PAGE,
    WORDS,
    _title,
    atrium_server,
    dump_path,
    ensure_dump,
    run_import,
)

FAMILY = "wiki_props"
CONNECTIONS = (1,)
TARGET = (Target("p50_ms", 50),)
BIG_PAGE = "Bench big page"


def _cache_dir(revisions_per_page: int) -> Path:
    migrations = sorted(p.name for p in (REPO / "src/atrium/migrations/wiki/versions").glob("*.py"))
    name = dump_path(revisions_per_page).name
    key = hashlib.sha1("|".join([name, *migrations]).encode()).hexdigest()[:10]
    return DATA_DIR / f"wiki-imported-{key}"


def _older_cache(dump_name: str) -> Path | None:
    """A cache of the same dump imported under an older set of migrations, if one is left."""
    for marker in sorted(DATA_DIR.glob("wiki-imported-*/dump.txt")):
        if marker.read_text().strip() == dump_name and (marker.parent / "wiki.sqlite3").exists():
            return marker.parent
    return None


def imported_cache(console: Console, revisions_per_page: int = REVISIONS_PER_PAGE) -> Path:
    """The cached data directory of the imported 100,000-page wiki with `revisions_per_page`
    revisions per page, imported first (with the real CLI) if missing. Not to be written to.

    A cache of the same dump made under older migrations is moved to the new key and upgraded
    with the wiki's migrations (what `atrium serve` would do on start) instead of importing
    again: the import of 1,000,000 revisions takes minutes, a migration seconds.
    """
    cache = _cache_dir(revisions_per_page)
    dump_name = dump_path(revisions_per_page).name
    older = None if (cache / "wiki.sqlite3").exists() else _older_cache(dump_name)
    if older is not None:
        from atrium.core.migrations import upgrade

        console.print(f"Upgrading the imported wiki {older.name} to the current migrations …")
        older.rename(cache)
        upgrade("wiki", None, cache / "wiki.sqlite3")
    if not (cache / "wiki.sqlite3").exists():
        dump = ensure_dump(console, revisions_per_page)
        building = Path(tempfile.mkdtemp(prefix="bench-wiki-props-"))
        run_import(dump, building, console)
        cache.mkdir(parents=True, exist_ok=True)
        for item in building.iterdir():
            if item.name.startswith("wiki.sqlite3"):
                shutil.move(item, cache / item.name)
        shutil.rmtree(building, ignore_errors=True)
        (cache / "dump.txt").write_text(dump_name + "\n")
    return cache


def imported_wiki(console: Console, revisions_per_page: int = REVISIONS_PER_PAGE) -> Path:
    """A data directory holding the imported 100,000-page wiki (a fresh copy of the cache)."""
    cache = imported_cache(console, revisions_per_page)
    work = Path(tempfile.mkdtemp(prefix="bench-wiki-props-"))
    for item in cache.glob("wiki.sqlite3*"):
        shutil.copy2(item, work / item.name)
    return work


def big_page_text(size: int = 50_000) -> str:
    """About `size` bytes of typical article wikitext."""
    parts = ["{{Box 1|name=Big}}\n'''Big page''' for the benchmark.\n"]
    i = 0
    while sum(len(p) for p in parts) < size:
        i += 1
        words = " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(40))
        parts.append(
            f"== Section {i} ==\n{words.capitalize()} [[{_title(i * 13)[1]}]] and "
            f"''{WORDS[i % len(WORDS)]}'' with [[No such page {i}|a red link]].\n"
            f"* item {i} [https://example.org/{i} link]\n* '''bold''' item\n"
            '{| class="wikitable"\n! A !! B\n|-\n| ' + str(i) + " || " + words[:30] + "\n|}\n"
        )
    parts.append("[[Category:Topic 5]]")
    return "".join(parts)


def _add_big_page(base: str) -> int:
    with httpx.Client(base_url=base, timeout=60) as client:
        api = "/w/api.php"
        token = client.get(
            api, params={"action": "query", "meta": "tokens", "type": "login", "format": "json"}
        ).json()["query"]["tokens"]["logintoken"]
        result = client.post(
            api,
            data={
                "action": "clientlogin",
                "username": "Benchadmin",
                "password": "bench-password-1",
                "logintoken": token,
                "loginreturnurl": base,
                "format": "json",
            },
        ).json()
        if result.get("clientlogin", {}).get("status") != "PASS":
            raise BenchError(f"login failed: {result}")
        csrf = client.get(
            api, params={"action": "query", "meta": "tokens", "format": "json"}
        ).json()["query"]["tokens"]["csrftoken"]
        text = big_page_text()
        edit = client.post(
            api,
            data={
                "action": "edit",
                "title": BIG_PAGE,
                "text": text,
                "token": csrf,
                "format": "json",
            },
        ).json()
        if edit.get("edit", {}).get("result") != "Success":
            raise BenchError(f"edit failed: {edit}")
        return len(text.encode())


def _scenario(
    settings: Settings,
    console: Console,
    server: object,
    served_by: str,
    key: str,
    title: str,
    path: str,
    marker: str,
    description: str,
) -> ScenarioResult:
    console.rule(f"wiki / {key}")
    check = httpx.get(server.base_url + path, timeout=60)  # type: ignore[attr-defined]
    if check.status_code != 200 or marker not in check.text or '"error"' in check.text:
        raise BenchError(f"a test request failed: {check.status_code} {check.text[:500]}")
    measurement = measure(
        settings, console, server, f"{key}, 1 connection", 1, [HttpRequest("GET", path)], marker
    )  # type: ignore[arg-type]
    return ScenarioResult(
        family=FAMILY,
        key=key,
        title=title,
        description=(
            f"{description} Response of {len(check.content) / 1024:,.1f} KB, served by {served_by}."
        ),
        rows=[Row(measurement, TARGET)],
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    data_dir = imported_wiki(console)
    try:
        env = {**os.environ, "ATRIUM_DATA_DIR": str(data_dir)}
        created = subprocess.run(
            [sys.executable, "-m", "atrium.cli", "wiki", "create-user", "Benchadmin",
             "--password", "bench-password-1", "--groups", "sysop"],
            env=env, cwd=REPO, check=False, capture_output=True, text=True,
        )  # fmt: skip
        if created.returncode != 0:
            raise BenchError(f"atrium wiki create-user failed:\n{created.stderr[-2000:]}")
        server, served_by = atrium_server(data_dir)
        with running(server):
            size = _add_big_page(server.base_url)
            titles = "|".join(_title(i)[1] for i in range(100, 150))
            results = [
                _scenario(
                    settings, console, server, served_by, "gen-allpages-props",
                    "generator=allpages&gaplimit=500&prop=info|categories|templates",
                    "/w/api.php?action=query&generator=allpages&gaplimit=500"
                    "&prop=info%7Ccategories%7Ctemplates&format=json",
                    '"pages"',
                    "500 generated pages of the 100,000-page wiki with info, categories and "
                    "templates (default cllimit/tllimit, so the props continue).",
                ),
                _scenario(
                    settings, console, server, served_by, "revisions-50",
                    "prop=revisions&rvprop=content&titles=<50 titles>",
                    "/w/api.php?action=query&prop=revisions&rvprop=content&rvslots=main"
                    f"&titles={quote(titles)}&format=json",
                    '"revisions"',
                    "The current content of 50 pages named in `titles`.",
                ),
                _scenario(
                    settings, console, server, served_by, "view-50kb",
                    f"/wiki/<Title> of a {size / 1000:.0f} KB page",
                    "/wiki/" + quote(BIG_PAGE.replace(" ", "_")),
                    "mw-parser-output",
                    f"`GET /wiki/{BIG_PAGE.replace(' ', '_')}`: {size:,} bytes of wikitext "
                    "(sections, links and red links, a template, lists, tables, external links) "
                    "rendered to HTML on every request.",
                ),
            ]  # fmt: skip
        return results
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
