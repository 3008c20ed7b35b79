"""The reference MediaWiki 1.39 for side-by-side scenarios: installed, loaded and served by the bench.

`mediawiki-ref.sh` (../shared/reference/mediawiki/) installs Debian's MediaWiki 1.39 and creates a
SQLite wiki under a directory of our choosing (`MWREF_DIR`); the bench gives it its own directory in
`bench/.data/`, so a reference wiki someone else uses (the default `/tmp/mwref`) is never touched.

Loading: `importDump.php` takes about 12 ms per revision here (5,000 revisions in 61 s with
`--no-updates`, so about 3.5 hours for a million, without any link tables), so the wiki is instead
written straight into MediaWiki 1.39's own SQLite tables from *Atrium's* database after Atrium
imported the same dump. Atrium's tables are shaped after MediaWiki's, so the rows carry over with
the same ids, titles, timestamps, actors, comments and link tables; what MediaWiki 1.39 keeps
elsewhere is derived: `slots` and `content` (one main slot per revision, `tt:<old_id>` addresses),
`comment_hash` (CommentStore::hash), `linktarget` for `templatelinks`, and `category` counts. Then
MediaWiki's own maintenance scripts fill what depends on its code: `rebuildtextindex.php` (the
FTS3 `searchindex`, normalised by SearchUpdate) and `initSiteStats.php --update`.

The loaded wiki is cached under `bench/.data/mwref-<dump>-v<LOADER_VERSION>/`; a directory without its `loaded.json` is a build that did not finish and is
rebuilt. The server is `php -S` with `PHP_CLI_SERVER_WORKERS` workers and opcache, the command line
of `mediawiki-ref.sh start`, but started as a harness `Server` (pinned to the server core, its own
process group, stopped by the id of the process we started).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from bench.harness import DATA_DIR, HOST, REPO, BenchError, Server, free_port

SCRIPT = Path(
    os.environ.get(
        "MWREF_SCRIPT", REPO.parent / "shared" / "reference" / "mediawiki" / "mediawiki-ref.sh"
    )
)
MEDIAWIKI = Path("/usr/share/mediawiki")
WORKERS = 4
LOADER_VERSION = 1  # bump when the loader writes different rows

# Tables the loader replaces; MediaWiki's install wrote its Main Page and its log rows into them.
_REPLACED = (
    "page", "revision", "slots", "content", "text", "comment", "actor", "recentchanges",
    "logging", "pagelinks", "templatelinks", "linktarget", "categorylinks", "category",
    "redirect", "imagelinks", "langlinks", "externallinks", "page_props", "searchindex",
    "change_tag", "archive", "revision_comment_temp",
)  # fmt: skip


def unavailable_reason() -> str | None:
    """Why the reference cannot be set up on this machine, or None when it can."""
    if not SCRIPT.exists():
        return f"{SCRIPT} is missing (set MWREF_SCRIPT to mediawiki-ref.sh)"
    installed = shutil.which("php") is not None and (MEDIAWIKI / "api.php").exists()
    if installed:
        return None
    if os.geteuid() != 0:
        return (
            "MediaWiki 1.39 and PHP are not installed and installing them needs root "
            f"(run `sudo {SCRIPT} install` once, or run the bench as root)"
        )
    if shutil.which("apt-get") is None:
        return "MediaWiki 1.39 and PHP are not installed and there is no apt-get to install them"
    return None


@dataclass(frozen=True)
class Reference:
    root: Path
    meta: dict[str, float]

    def server(self) -> Server:
        """The reference served by `php -S` with `WORKERS` workers, as `mediawiki-ref.sh start`."""
        port = free_port()
        root = self.root.resolve()  # php -S runs its scripts in the document root
        argv = [
            "php", "-d", "variables_order=EGPCS", "-d", "opcache.enable_cli=1",
            "-S", f"{HOST}:{port}", "-t", str(root / "htdocs"), str(root / "router.php"),
        ]  # fmt: skip
        env = {
            "MW_CONFIG_FILE": str(root / "LocalSettings.php"),
            "PHP_CLI_SERVER_WORKERS": str(WORKERS),
        }
        return Server(
            "mediawiki", argv, port, "/w/api.php?action=query&format=json", env, root / "logs"
        )

    def describe(self) -> str:
        m = self.meta
        return (
            f"MediaWiki {mediawiki_version()} (Debian package) on SQLite, `php -S` with "
            f"{WORKERS} workers (`PHP_CLI_SERVER_WORKERS`) and opcache, set up by "
            f"`mediawiki-ref.sh install` in `{self.root.relative_to(REPO)}`; rows loaded from "
            f"Atrium's imported database in {m['load_seconds']:.0f} s, then `rebuildtextindex.php` "
            f"({m['textindex_seconds']:.0f} s) and `initSiteStats.php --update` "
            f"({m['sitestats_seconds']:.0f} s)"
        )


def mediawiki_version() -> str:
    try:
        for line in (MEDIAWIKI / "includes" / "Defines.php").read_text().splitlines():
            if "MW_VERSION" in line and "define" in line:
                return line.split("'")[3]
    except (OSError, IndexError):
        pass
    return "1.39"


def reference_wiki(console: Console, atrium_data: Path, dump: Path) -> Reference:
    """The reference wiki holding the rows of Atrium's database in `atrium_data` (the import of
    `dump`), built if needed. Keyed by the dump: Atrium's migrations do not change those rows, and
    the side-by-side checks that both wikis answer alike before anything is timed."""
    atrium_db = atrium_data / "wiki.sqlite3"
    root = DATA_DIR / f"mwref-{dump.stem}-v{LOADER_VERSION}"
    marker = root / "loaded.json"
    if marker.exists():
        console.print(f"Reusing the loaded reference wiki {root.relative_to(REPO)}")
        return Reference(root, json.loads(marker.read_text()))
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    env = {**os.environ, "MWREF_DIR": str(root)}
    console.print(f"Installing the reference MediaWiki in {root.relative_to(REPO)} …")
    done = subprocess.run(
        ["bash", str(SCRIPT), "install"], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BenchError(f"mediawiki-ref.sh install failed:\n{done.stderr[-2000:]}")
    meta: dict[str, float] = {}
    started = time.monotonic()
    load_tables(root / "data" / "mwref.sqlite", atrium_db, console)
    meta["load_seconds"] = time.monotonic() - started
    settings = root / "maintenance-settings.php"
    settings.write_text(_MAINTENANCE_SETTINGS)
    env["MW_CONFIG_FILE"] = str(settings)
    for key, script, stdin in (
        ("textindex_seconds", ["rebuildtextindex.php"], None),
        ("textindex_seconds", ["eval.php"], _INDEX_LAST_PAGE),
        ("sitestats_seconds", ["initSiteStats.php", "--update"], None),
    ):
        console.print(f"  php maintenance/{' '.join(script)} …")
        started = time.monotonic()
        done = subprocess.run(
            ["php", f"maintenance/{script[0]}", *script[1:]],
            cwd=MEDIAWIKI,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or "Error" in done.stdout:
            raise BenchError(f"{script[0]} failed:\n{done.stdout[-1000:]}\n{done.stderr[-2000:]}")
        meta[key] = meta.get(key, 0.0) + time.monotonic() - started
        console.print(f"    {time.monotonic() - started:.0f} s")
    marker.write_text(json.dumps(meta, indent=1))
    return Reference(root, meta)


# Maintenance runs only: the reference's settings with fsync off for the one process that writes
# (rebuildtextindex.php commits once per page: 100,000 fsyncs otherwise). The server reads
# LocalSettings.php as installed.
_MAINTENANCE_SETTINGS = """<?php
require __DIR__ . '/LocalSettings.php';
$wgDBservers = [ [
    'host' => '', 'dbname' => $wgDBname, 'user' => '', 'password' => '', 'type' => 'sqlite',
    'dbDirectory' => $wgSQLiteDataDir, 'load' => 1, 'flags' => DBO_DEFAULT,
    'variables' => [ 'synchronous' => 'OFF' ],
] ];
"""

# rebuildtextindex.php indexes page ids below MAX(page_id) only (`while ( $n < $count )` over
# chunks of `BETWEEN $n AND $n + 499`), so the page with the highest id is indexed here, by the same
# SearchUpdate the script uses.
_INDEX_LAST_PAGE = """
$id = (int)wfGetDB( DB_PRIMARY )->selectField( 'page', 'MAX(page_id)' );
$title = Title::newFromID( $id );
$rev = MediaWiki\\MediaWikiServices::getInstance()->getRevisionLookup()->getRevisionByTitle( $title );
( new SearchUpdate( $id, $title, $rev->getContent( 'main' ) ) )->doUpdate();
"""


def _comment_hash(text: str) -> int:
    """MediaWiki's CommentStore::hash for a comment without data: crc32, as a signed int."""
    value = zlib.crc32(text.encode())
    return value - (1 << 32) if value >= 0x80000000 else value


def load_tables(mw_db: Path, atrium_db: Path, console: Console) -> None:
    """Replace the content tables of MediaWiki's fresh database with Atrium's rows."""
    conn = sqlite3.connect(str(mw_db), isolation_level=None)
    conn.create_function("comment_hash", 1, _comment_hash, deterministic=True)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-1000000")
    conn.execute("ATTACH DATABASE ? AS a", (f"file:{atrium_db}?mode=ro",))
    conn.execute("BEGIN")
    for table in _REPLACED:
        conn.execute(f'DELETE FROM main."{table}"')
    # MediaWiki's own users (Admin, "MediaWiki default") keep their accounts; their actors come
    # back after Atrium's, under new ids (nothing that referred to them is left).
    users = conn.execute("SELECT user_id, user_name FROM main.user ORDER BY user_id").fetchall()
    indexes = conn.execute(
        "SELECT name, sql FROM main.sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
        "AND tbl_name IN ('revision', 'slots', 'content', 'comment', 'pagelinks', "
        "'categorylinks', 'templatelinks', 'revision_comment_temp')"
    ).fetchall()
    for name, _sql in indexes:
        conn.execute(f'DROP INDEX main."{name}"')
    steps = [
        ("actor", "INSERT INTO main.actor (actor_id, actor_user, actor_name) "
                  "SELECT actor_id, actor_user, actor_name FROM a.actor"),
        ("comment", "INSERT INTO main.comment (comment_id, comment_hash, comment_text) "
                    "SELECT comment_id, comment_hash(comment_text), comment_text FROM a.comment"),
        ("text", "INSERT INTO main.text (old_id, old_text, old_flags) "
                 "SELECT old_id, old_text, old_flags FROM a.text"),
        ("page", "INSERT INTO main.page (page_id, page_namespace, page_title, page_is_redirect, "
                 "page_is_new, page_random, page_touched, page_links_updated, page_latest, "
                 "page_len, page_content_model, page_lang) "
                 "SELECT page_id, page_namespace, page_title, page_is_redirect, page_is_new, "
                 "page_random, page_touched, page_links_updated, page_latest, page_len, "
                 "page_content_model, page_lang FROM a.page"),
        ("revision", "INSERT INTO main.revision (rev_id, rev_page, rev_comment_id, rev_actor, "
                     "rev_timestamp, rev_minor_edit, rev_deleted, rev_len, rev_parent_id, "
                     "rev_sha1) "
                     "SELECT rev_id, rev_page, 0, rev_actor, rev_timestamp, "
                     "rev_minor_edit, rev_deleted, rev_len, rev_parent_id, rev_sha1 "
                     "FROM a.revision ORDER BY rev_id"),
        # MediaWiki 1.39 still reads a revision's comment through revision_comment_temp
        # ($wgCommentTempTableSchemaMigrationStage) and leaves rev_comment_id at 0, as
        # importDump.php does.
        ("revision_comment_temp", "INSERT INTO main.revision_comment_temp (revcomment_rev, "
                                  "revcomment_comment_id) "
                                  "SELECT rev_id, rev_comment_id FROM a.revision ORDER BY rev_id"),
        # One content row per revision (MediaWiki shares a row between identical contents of
        # one page; the generated revisions all differ), in the main slot, introduced there.
        ("content", "INSERT INTO main.content (content_id, content_size, content_sha1, "
                    "content_model, content_address) "
                    "SELECT rev_id, rev_len, rev_sha1, "
                    "(SELECT model_id FROM main.content_models WHERE model_name = 'wikitext'), "
                    "'tt:' || rev_text_id FROM a.revision ORDER BY rev_id"),
        ("slots", "INSERT INTO main.slots (slot_revision_id, slot_role_id, slot_content_id, "
                  "slot_origin) "
                  "SELECT rev_id, (SELECT role_id FROM main.slot_roles WHERE role_name = 'main'), "
                  "rev_id, rev_id FROM a.revision ORDER BY rev_id"),
        ("pagelinks", "INSERT INTO main.pagelinks (pl_from, pl_namespace, pl_title, "
                      "pl_from_namespace) "
                      "SELECT pl_from, pl_namespace, pl_title, pl_from_namespace FROM a.pagelinks"),
        ("linktarget", "INSERT INTO main.linktarget (lt_namespace, lt_title) "
                       "SELECT DISTINCT tl_namespace, tl_title FROM a.templatelinks"),
        ("templatelinks", "INSERT INTO main.templatelinks (tl_from, tl_target_id, "
                          "tl_from_namespace) "
                          "SELECT tl_from, lt_id, tl_from_namespace FROM a.templatelinks "
                          "JOIN main.linktarget ON lt_namespace = tl_namespace "
                          "AND lt_title = tl_title"),
        ("categorylinks", "INSERT INTO main.categorylinks (cl_from, cl_to, cl_sortkey, "
                          "cl_sortkey_prefix, cl_timestamp, cl_collation, cl_type) "
                          "SELECT cl_from, cl_to, cl_sortkey, cl_sortkey_prefix, cl_timestamp, "
                          "cl_collation, cl_type FROM a.categorylinks"),
        ("category", "INSERT INTO main.category (cat_title, cat_pages, cat_subcats, cat_files) "
                     "SELECT cl_to, count(*), sum(cl_type = 'subcat'), sum(cl_type = 'file') "
                     "FROM a.categorylinks GROUP BY cl_to"),
        ("redirect", "INSERT INTO main.redirect (rd_from, rd_namespace, rd_title, rd_interwiki, "
                     "rd_fragment) "
                     "SELECT rd_from, rd_namespace, rd_title, rd_interwiki, rd_fragment "
                     "FROM a.redirect"),
        ("imagelinks", "INSERT INTO main.imagelinks (il_from, il_to, il_from_namespace) "
                       "SELECT il_from, il_to, il_from_namespace FROM a.imagelinks"),
        ("langlinks", "INSERT INTO main.langlinks (ll_from, ll_lang, ll_title) "
                      "SELECT ll_from, ll_lang, ll_title FROM a.langlinks"),
    ]  # fmt: skip
    for name, sql in steps:
        started = time.monotonic()
        count = conn.execute(sql).rowcount
        console.print(f"  {name:<14} {count:>10,} rows  {time.monotonic() - started:6.1f} s")
    next_actor = conn.execute("SELECT coalesce(max(actor_id), 0) FROM main.actor").fetchone()[0]
    for offset, (user_id, user_name) in enumerate(users, start=1):
        # A name the dump's revisions also carry (Admin) keeps the dump's actor, now the user's.
        linked = conn.execute(
            "UPDATE main.actor SET actor_user = ? WHERE actor_name = ?", (user_id, user_name)
        ).rowcount
        if not linked:
            conn.execute(
                "INSERT INTO main.actor (actor_id, actor_user, actor_name) VALUES (?, ?, ?)",
                (next_actor + offset, user_id, user_name),
            )
    started = time.monotonic()
    for _name, sql in indexes:
        conn.execute(sql)
    console.print(f"  {len(indexes)} indexes rebuilt in {time.monotonic() - started:.1f} s")
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE a")
    conn.execute("ANALYZE")
    conn.close()
