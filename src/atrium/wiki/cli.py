"""`atrium wiki …`: import and export XML dumps, create users and bot passwords; the demo pages."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from atrium.core.db import Conn, Database
from atrium.settings import Settings
from atrium.wiki.accounts.grants import GRANT_RIGHTS, HIDDEN_GRANTS
from atrium.wiki.app import open_wiki
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.accounts import create_bot_password, create_user, set_groups, set_password
from atrium.wiki.changes.imports import DEFAULT_USERNAME_PREFIX
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.changes.registration import autocreate
from atrium.wiki.dump import export_dump, import_dump
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.site import Site

# `atrium wiki bot-password` grants unless told otherwise: what a bot editing pages needs.
DEFAULT_BOT_GRANTS = ("basic", "highvolume", "editpage", "createeditmovepage")

DEMO_ADMIN = "Admin"
DEMO_ADMIN_PASSWORD = "atrium-admin"

DEMO_PAGES: tuple[tuple[str, str], ...] = (
    (
        "Main Page",
        "'''Welcome to the Atrium wiki.'''\n\nStart with [[Apple]], [[Banana]] or the "
        "[[Help:Contents|help pages]].\n\n== Getting started ==\nEdit any page; the API is at "
        "/w/api.php.",
    ),
    ("Template:Stub", "''This article is a stub.''"),
    ("Category:Fruit", "Edible fruit.\n[[Category:Food]]"),
    ("Category:Food", "Things to eat."),
    (
        "Apple",
        "An '''apple''' is the edible fruit of the apple tree. Compare with [[Banana]].\n"
        "== History ==\nApples have been grown for thousands of years.\n{{Stub}}\n"
        "[[Category:Fruit]]\n[[fr:Pomme]]",
    ),
    ("Banana", "A '''banana''' is an elongated, edible fruit. See [[Apple]].\n[[Category:Fruit]]"),
    ("Pomme", "#REDIRECT [[Apple]]"),
    ("Help:Contents", "How to edit: see https://www.mediawiki.org/wiki/Help:Editing."),
)


@contextmanager
def wiki_database(settings: Settings) -> Iterator[tuple[Database, Site]]:
    db, site = open_wiki(settings)
    try:
        yield db, site
    finally:
        db.close()


@click.group()
def wiki() -> None:
    """Administer the wiki: dumps, users."""


@wiki.command("import")
@click.argument("dump", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--username-prefix",
    default=DEFAULT_USERNAME_PREFIX,
    show_default=True,
    help='Prefix for contributors without a local account; a trailing ">" is added '
    "(importDump.php's --username-prefix).",
)
@click.option(
    "--no-local-users",
    is_flag=True,
    help="Treat every user name as external, even where a local account exists.",
)
def import_command(dump: Path, username_prefix: str, no_local_users: bool) -> None:
    """Import a MediaWiki XML dump (pages, every revision, contributors), streaming."""
    settings = Settings.from_env()
    with wiki_database(settings) as (db, site), dump.open("rb") as source:
        progress = Progress(
            TextColumn("[bold]importing"),
            BarColumn(),
            TextColumn("{task.fields[pages]} pages, {task.fields[revisions]} revisions"),
            TimeElapsedColumn(),
        )
        size = dump.stat().st_size
        with progress:
            task = progress.add_task("import", total=size, pages=0, revisions=0)

            def report(pages: int, revisions: int) -> None:
                progress.update(task, completed=source.tell(), pages=pages, revisions=revisions)

            stats = import_dump(
                db,
                site,
                source,
                report,
                username_prefix=username_prefix,
                assign_known_users=not no_local_users,
            )
            progress.update(task, completed=size)
    click.echo(f"Imported {stats.pages} pages and {stats.revisions} revisions.")
    for title in stats.skipped:
        click.echo(f"Skipped (invalid title): {title}", err=True)


@wiki.command("export")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--current", is_flag=True, help="Only the current revision of each page.")
def export_command(output: Path | None, current: bool) -> None:
    """Write every page as a MediaWiki XML dump (to standard output by default)."""
    settings = Settings.from_env()
    with wiki_database(settings) as (db, site):
        if output is None:
            export_dump(db, site, sys.stdout, current)
        else:
            with output.open("w", encoding="utf-8") as out:
                count = export_dump(db, site, out, current)
            click.echo(f"Exported {count} pages to {output}.", err=True)


@wiki.command("create-user")
@click.argument("name")
@click.option("--password", required=True, help="The account's password.")
@click.option(
    "--groups", default="", help="Comma-separated groups, e.g. sysop,bureaucrat,interface-admin."
)
def create_user_command(name: str, password: str, groups: str) -> None:
    """Create a wiki account (the first administrator in particular)."""
    from atrium.wiki.accounts.usernames import normalize_username

    username = normalize_username(name)
    if username is None:
        raise click.ClickException(f"{name!r} is not a valid user name.")
    settings = Settings.from_env()
    group_list = [g for g in groups.split(",") if g.strip()]
    with wiki_database(settings) as (db, _site):
        try:
            user_id = db.write_sync(
                lambda conn: autocreate(conn, username, password, groups=group_list)
            )
        except ChangeError as exc:
            raise click.ClickException(exc.text) from exc
    click.echo(
        f"Created wiki user {username} (id {user_id}) in groups: {', '.join(group_list) or '-'}."
    )


@wiki.command("bot-password")
@click.argument("name")
@click.argument("app_id")
@click.option(
    "--grants",
    default=",".join(DEFAULT_BOT_GRANTS),
    show_default=True,
    help="Comma-separated grants (MediaWiki's, e.g. basic,highvolume,editpage); the session "
    "may use only their rights. `basic` is always included.",
)
def bot_password_command(name: str, app_id: str, grants: str) -> None:
    """Create a bot password for NAME; log in as NAME@APP_ID with the printed password."""
    chosen = [g.strip() for g in grants.split(",") if g.strip()]
    unknown = [g for g in chosen if g not in GRANT_RIGHTS]
    if unknown:
        raise click.ClickException(
            f"Unknown grant(s): {', '.join(unknown)}. Known: {', '.join(GRANT_RIGHTS)}."
        )
    chosen = list(dict.fromkeys([*HIDDEN_GRANTS, *chosen]))
    settings = Settings.from_env()
    with wiki_database(settings) as (db, _site):

        def write(conn: Conn) -> str:
            account = account_by_name(conn, name)
            if account is None:
                raise ChangeError("nosuchuser", f"There is no wiki user named {name!r}.")
            return create_bot_password(conn, account.id, app_id, chosen)

        try:
            password = db.write_sync(write)
        except ChangeError as exc:
            raise click.ClickException(exc.text) from exc
    click.echo(f"Log in as {name}@{app_id} with the password {password}")


def _seed(conn: Conn, site: Site) -> bool:
    account = account_by_name(conn, DEMO_ADMIN)
    if account is None:
        user_id = create_user(
            conn, DEMO_ADMIN, DEMO_ADMIN_PASSWORD, groups=["sysop", "bureaucrat", "interface-admin"]
        )
    else:
        user_id = account.id
        set_password(conn, user_id, DEMO_ADMIN_PASSWORD)
        set_groups(conn, user_id, ["sysop", "bureaucrat", "interface-admin"])
    editor = Editor(user_id, DEMO_ADMIN)
    from atrium.wiki.reads.pages import pages_by_titles

    created = False
    for title_text, text in DEMO_PAGES:
        title = site.parser.parse(title_text)
        if pages_by_titles(conn, [(title.ns, title.dbkey)]):
            continue
        save_revision(conn, site, title, text, editor, comment="Demo page")
        created = True
    return created


def seed_demo(settings: Settings) -> None:
    """Create the demo wiki pages and the administrator `Admin` (its password is printed)."""
    with wiki_database(settings) as (db, site):
        db.write_sync(_seed, site)
    click.echo(
        f"\nWiki: {settings.base_url}/wiki/Main_Page  (API: /w/api.php; administrator "
        f"{DEMO_ADMIN}, password {DEMO_ADMIN_PASSWORD})"
    )
    # A new data directory's wiki is private: say so, or its first visitor sees only a login page.
    click.echo(f"  audience: {site.audience} (ATRIUM_WIKI_AUDIENCE)")


@wiki.command("rename-user")
@click.argument("old")
@click.argument("new")
@click.option("--reason", default="", help="Why, for the rename log.")
def rename_user_command(old: str, new: str, reason: str) -> None:
    """Rename a wiki user as RenameUser does (user pages and subpages moved, redirects left)."""
    renamed = rename_wiki_user(Settings.from_env(), old, new, reason)
    click.echo(f"Renamed wiki user {renamed[1]} to {renamed[2]} (id {renamed[0]}).")


def rename_wiki_user(settings: Settings, old: str, new: str, reason: str) -> tuple[int, str, str]:
    """The rename itself: (user id, old name, new name) once done."""
    from atrium.wiki.accounts.usernames import normalize_username
    from atrium.wiki.changes.renaming import rename_user

    old_name, new_name = normalize_username(old), normalize_username(new)
    if old_name is None or new_name is None:
        raise click.ClickException("both names must be valid user names")
    with wiki_database(settings) as (db, site):
        try:
            user_id = db.write_sync(
                lambda conn: rename_user(conn, site, old_name, new_name, reason)
            )
        except ChangeError as exc:
            raise click.ClickException(exc.text) from exc
    return user_id, old_name, new_name
