"""The wiki foundation's scenarios (reads, edits, import), against the real CLI and a real server.

- `import`: `atrium wiki import DUMP.xml` in a subprocess on a fresh SQLite database, timed, for a
  generated export-0.11 dump of 100,000 pages with 300,000 revisions (three per page: wikitext
  of 0.5–2 KB with links, templates, categories, some redirects; named contributors and IPs). The
  dump is written streaming once and cached under `bench/.data/`.
- `siteinfo`: `GET /w/api.php?action=query&meta=siteinfo&format=json` request rate.
- `paraminfo`: `GET /w/api.php?action=paraminfo&modules=query+*&format=json` request rate.

Both request scenarios run against `atrium serve` with the imported wiki, at 1 and 64
connections; a response counts as a success when it is a 200 holding the member named in the
scenario (`"sitename"`, `"paraminfo"`) and no `"error"`.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from xml.sax.saxutils import escape

import httpx
from rich.console import Console

from bench.harness import (
    DATA_DIR,
    REPO,
    SERVER_CORE,
    BenchError,
    HttpRequest,
    Measurement,
    Row,
    RunResult,
    ScenarioResult,
    Server,
    Settings,
    Target,
    atrium_command,
    free_port,
    measure,
    pinned,
    running,
)

FAMILY = "wiki_foundation"
LOW, HIGH = 1, 64
CONNECTIONS = (LOW, HIGH)
PAGES = 100_000
REVISIONS_PER_PAGE = 3
IMPORT_TARGET = 2_000  # revisions per second
DUMP_VERSION = 2  # bump when the generated dump changes

WORDS = [
    "apple",
    "banana",
    "cherry",
    "river",
    "mountain",
    "city",
    "history",
    "science",
    "music",
    "language",
    "garden",
    "winter",
    "summer",
    "bridge",
    "castle",
    "forest",
    "island",
    "market",
    "harbour",
    "railway",
    "library",
    "museum",
    "theatre",
    "school",
    "village",
    "valley",
    "ocean",
    "desert",
    "planet",
    "station",
    "engine",
    "signal",
    "archive",
    "council",
    "festival",
]
NAMESPACES = (
    (-2, "Media"), (-1, "Special"), (0, ""), (1, "Talk"), (2, "User"), (3, "User talk"),
    (4, "Benchwiki"), (5, "Benchwiki talk"), (6, "File"), (7, "File talk"), (8, "MediaWiki"),
    (9, "MediaWiki talk"), (10, "Template"), (11, "Template talk"), (12, "Help"),
    (13, "Help talk"), (14, "Category"), (15, "Category talk"),
)  # fmt: skip
CONTRIBUTORS = [f"Editor {i}" for i in range(200)]


def dump_path(revisions_per_page: int = REVISIONS_PER_PAGE) -> Path:
    return DATA_DIR / f"wiki-dump-{PAGES}x{revisions_per_page}-v{DUMP_VERSION}.xml"


def _title(i: int) -> tuple[int, str]:
    """Page `i`: mostly articles, some templates, categories and talk pages."""
    word = WORDS[i % len(WORDS)].capitalize()
    if i % 50 == 1:
        return 10, f"Template:Box {i}"
    if i % 50 == 2:
        return 14, f"Category:Topic {i}"
    if i % 10 == 3:
        return 1, f"Talk:{word} {i - 3}"
    return 0, f"{word} {i}"


def _text(rng: random.Random, i: int, rev: int, revisions_per_page: int) -> str:
    if i % 40 == 7 and rev == revisions_per_page - 1:
        return f"#REDIRECT [[{_title(i - 1)[1]}]]"
    paragraphs = []
    for _ in range(rng.randint(2, 6)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(20, 60))]
        for _ in range(rng.randint(1, 4)):
            target = rng.randrange(PAGES)
            words.insert(rng.randrange(len(words)), f"[[{_title(target)[1]}]]")
        paragraphs.append(" ".join(words).capitalize() + ".")
    body = "\n\n".join(paragraphs)
    extra = f"\n{{{{Box {1 + 50 * rng.randrange(PAGES // 50)}}}}}" if rng.random() < 0.3 else ""
    extra += f"\n[[Category:Topic {rng.randrange(997)}]]"
    if rng.random() < 0.1:
        extra += f"\n[https://example.org/{i}/{rev} an external link]"
    return f"== Revision {rev + 1} ==\n{body}{extra}"


def _contributor(rng: random.Random) -> str:
    if rng.random() < 0.15:
        ip = f"192.0.2.{rng.randrange(1, 255)}"
        return f"      <contributor>\n        <ip>{ip}</ip>\n      </contributor>\n"
    index = rng.randrange(len(CONTRIBUTORS))
    return (
        f"      <contributor>\n        <username>{CONTRIBUTORS[index]}</username>\n"
        f"        <id>{index + 1}</id>\n      </contributor>\n"
    )


def _dump_chunks(revisions_per_page: int) -> Iterator[str]:
    rng = random.Random(7)
    yield (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" '
        'xml:lang="en">\n  <siteinfo>\n    <sitename>Benchwiki</sitename>\n'
        "    <dbname>benchwiki</dbname>\n    <generator>bench/wiki_foundation.py</generator>\n"
        "    <case>first-letter</case>\n    <namespaces>\n"
    )
    for key, name in NAMESPACES:
        yield f'      <namespace key="{key}" case="first-letter">{escape(name)}</namespace>\n'
    yield "    </namespaces>\n  </siteinfo>\n"
    rev_id = 0
    base = time.mktime((2020, 1, 1, 0, 0, 0, 0, 0, 0))
    for i in range(PAGES):
        ns, title = _title(i)
        parts = [f"  <page>\n    <title>{escape(title)}</title>\n    <ns>{ns}</ns>\n"]
        parts.append(f"    <id>{i + 1}</id>\n")
        for rev in range(revisions_per_page):
            rev_id += 1
            stamp = time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime(base + i * 60 + rev * 86400 * 30)
            )
            text = _text(rng, i, rev, revisions_per_page)
            parts.append(
                f"    <revision>\n      <id>{rev_id}</id>\n      <timestamp>{stamp}</timestamp>\n"
                f"{_contributor(rng)}"
                + ("      <minor />\n" if rng.random() < 0.2 else "")
                + f"      <comment>edit {rev + 1} of {escape(title)}</comment>\n"
                "      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
                f'      <text bytes="{len(text.encode())}" xml:space="preserve">{escape(text)}'
                "</text>\n    </revision>\n"
            )
        parts.append("  </page>\n")
        yield "".join(parts)
    yield "</mediawiki>\n"


def ensure_dump(console: Console, revisions_per_page: int = REVISIONS_PER_PAGE) -> Path:
    """The generated dump of `PAGES` pages with `revisions_per_page` revisions each, written
    once (streaming) and cached under `bench/.data/`."""
    path = dump_path(revisions_per_page)
    if path.exists():
        return path
    console.print(
        f"Writing the benchmark dump ({PAGES:,} pages x {revisions_per_page} revisions) to {path} …"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as out:
        for chunk in _dump_chunks(revisions_per_page):
            out.write(chunk)
    partial.rename(path)
    return path


def _count(db_path: Path, table: str) -> int:
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def run_import(dump: Path, data_dir: Path, console: Console) -> tuple[float, int, int]:
    """`atrium wiki import` in a subprocess pinned to the server core; returns wall seconds and
    the pages and revisions the new wiki held before it (its main page)."""
    env = {**os.environ, "ATRIUM_DATA_DIR": str(data_dir)}
    # The schema is created before the clock starts (a run of `atrium wiki create-user` would do
    # the same); the timed command then only imports.
    subprocess.run(
        [sys.executable, "-c", "from atrium.settings import Settings; "
         "from atrium.wiki.app import open_wiki; open_wiki(Settings.from_env())[0].close()"],
        env=env, check=True, cwd=REPO,
    )  # fmt: skip
    db_path = data_dir / "wiki.sqlite3"
    before = (_count(db_path, "page"), _count(db_path, "revision"))
    argv = pinned([sys.executable, "-m", "atrium.cli", "wiki", "import", str(dump)], SERVER_CORE)
    started = time.monotonic()
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise BenchError(f"atrium wiki import failed ({done.returncode}):\n{done.stderr[-2000:]}")
    console.print(f"  {done.stdout.strip().splitlines()[-1]} in {seconds:.1f} s")
    return seconds, *before


def import_scenario(console: Console, dump: Path, data_dir: Path) -> ScenarioResult:
    console.rule(f"wiki / import: {PAGES:,} pages, {PAGES * REVISIONS_PER_PAGE:,} revisions")
    seconds, pages_before, revisions_before = run_import(dump, data_dir, console)
    console.print(f"  {PAGES * REVISIONS_PER_PAGE / seconds:,.0f} revisions/s")
    db_path = data_dir / "wiki.sqlite3"
    revisions = _count(db_path, "revision") - revisions_before
    pages = _count(db_path, "page") - pages_before
    if revisions != PAGES * REVISIONS_PER_PAGE or pages != PAGES:
        raise BenchError(f"the import stored {pages:,} pages and {revisions:,} revisions")
    rate = revisions / seconds
    # One "run" whose request count is the number of revisions: the report's req/s column then
    # reads as revisions per second.
    measurement = Measurement(
        "import (revisions/s)",
        1,
        [RunResult(requests=revisions, errors=0, seconds=seconds, p50_ms=0.0, p99_ms=0.0)],
    )
    size_mb = dump.stat().st_size / 1e6
    return ScenarioResult(
        family=FAMILY,
        key="import",
        title=f"Import an XML dump ({PAGES:,} pages, {revisions:,} revisions)",
        description=(
            f"`atrium wiki import` (the real CLI, in a subprocess pinned to core 0) of a generated "
            f"export-0.11 dump of {size_mb:,.0f} MB into a fresh SQLite database: {pages:,} pages "
            f"with {REVISIONS_PER_PAGE} revisions each (0.5–2 KB of wikitext with links, "
            "templates, categories, 1 in 40 pages ending as a redirect; 200 named contributors "
            "without local accounts and IP editors). Wall time from process start to exit, "
            "schema creation excluded. The req/s column is revisions per second."
        ),
        rows=[Row(measurement, (Target("rps", IMPORT_TARGET),))],
        notes=[
            f"Measured {seconds:.1f} s, {rate:,.0f} revisions/s; the database holds "
            f"{pages:,} pages and {revisions:,} revisions afterwards."
        ],
    )


def atrium_server(data_dir: Path) -> tuple[Server, str]:
    port = free_port()
    argv, served_by = atrium_command(port)
    env = {"ATRIUM_DATA_DIR": str(data_dir), "ATRIUM_RATE_LIMITS": "0"}
    return Server("atrium", argv, port, "/w/api.php?action=query&format=json", env), served_by


def request_scenario(
    settings: Settings,
    console: Console,
    server: Server,
    served_by: str,
    key: str,
    path: str,
    marker: str,
    title: str,
    targets: tuple[tuple[Target, ...], tuple[Target, ...]],
) -> ScenarioResult:
    console.rule(f"wiki / {key}: GET {path}")
    check = httpx.get(server.base_url + path)
    if check.status_code != 200 or marker not in check.text or '"error"' in check.text:
        raise BenchError(f"a test request failed: {check.status_code} {check.text[:500]}")
    requests = [HttpRequest("GET", path)]
    low = measure(settings, console, server, f"{key}, 1 connection", LOW, requests, marker)
    high = measure(settings, console, server, f"{key}, 64 connections", HIGH, requests, marker)
    return ScenarioResult(
        family=FAMILY,
        key=key,
        title=title,
        description=(
            f"`GET {path}` (response of {len(check.content) / 1024:,.1f} KB) against the wiki "
            f"holding the imported dump. Served by {served_by}."
        ),
        rows=[Row(low, targets[0]), Row(high, targets[1])],
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    dump = ensure_dump(console)
    tmp = Path(tempfile.mkdtemp(prefix="bench-wiki-"))
    try:
        results = [import_scenario(console, dump, tmp)]
        server, served_by = atrium_server(tmp)
        with running(server):
            results.append(
                request_scenario(
                    settings,
                    console,
                    server,
                    served_by,
                    "siteinfo",
                    "/w/api.php?action=query&meta=siteinfo&format=json",
                    '"sitename"',
                    "meta=siteinfo (general)",
                    ((), ()),
                )
            )
            results.append(
                request_scenario(
                    settings,
                    console,
                    server,
                    served_by,
                    "paraminfo",
                    "/w/api.php?action=paraminfo&modules=query%2B*&format=json",
                    '"paraminfo"',
                    "action=paraminfo&modules=query+* (every query module)",
                    ((), ()),
                )
            )
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
