"""The workspace's commands: `atrium link-accounts`, and member creation for `atrium chat
create-user` and `atrium demo` (identity, then chat user, then wiki user)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from atrium.core import migrations
from atrium.core.db import Conn, open_database
from atrium.settings import Settings
from atrium.workspace import identities
from atrium.workspace.members import Member, MemberError, Members

T = TypeVar("T")

# A name-mapping file is small: one line per member.
MAX_MAPPING_BYTES = 1 << 20


@asynccontextmanager
async def open_members(settings: Settings) -> AsyncIterator[Members]:
    """The three stores of a data directory, migrated, as one `Members`."""
    from atrium.wiki.app import open_wiki

    migrations.upgrade("core", settings.database_url, settings.sqlite_path("core"))
    migrations.upgrade("chat", settings.database_url, settings.sqlite_path("chat"))
    core = open_database(settings.database_url, settings.sqlite_path("core"), "core")
    chat = open_database(settings.database_url, settings.sqlite_path("chat"), "chat")
    wiki, site = open_wiki(settings)
    try:
        members = Members(
            core, lambda: chat, lambda: wiki, settings.base_url, settings.wiki_guest_edits
        )
        members.open_registration = site.audience == "edit"
        yield members
    finally:
        for db in (wiki, chat, core):
            db.close()


def run(settings: Settings, work: Callable[[Members], Awaitable[T]]) -> T:
    async def main() -> T:
        async with open_members(settings) as members:
            return await work(members)

    try:
        return asyncio.run(main())
    except MemberError as error:
        raise click.ClickException(str(error)) from error


def read_mapping(path: Path) -> dict[str, str]:
    """email -> wiki user name, one `email = Wiki name` (or tab-separated) pair a line; blank
    lines and `#` comments are skipped."""
    from atrium.wiki.accounts.usernames import normalize_username

    if path.stat().st_size > MAX_MAPPING_BYTES:
        raise click.ClickException(f"{path}: larger than {MAX_MAPPING_BYTES} bytes")
    mapping: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        email, sep, name = line.partition("=") if "=" in line else line.partition("\t")
        wiki_name = normalize_username(name)
        if not sep or "@" not in email or wiki_name is None:
            raise click.ClickException(f"{path}:{number}: expected `email = Wiki user name`")
        mapping[email.strip().lower()] = wiki_name
    return mapping


def _chat_people(conn: Conn) -> list[dict[str, Any]]:
    from atrium.chat.queries.realm import default_realm
    from atrium.chat.queries.users import people_rows

    realm = default_realm(conn)
    return [] if realm is None else [dict(r) for r in people_rows(conn, realm.id)]


async def link_all(members: Members, mapping: dict[str, str]) -> list[Member]:
    """Every chat user gets an identity (by email) and a wiki user: the one the mapping names,
    else the one wiki user with the same email (unless visitors register on the wiki, who could
    give any email), else a new one. Half-made members (an identity
    without its chat or wiki user) are completed."""
    linked: list[Member] = []
    chat = members.chat_db()
    assert chat is not None
    people = await chat.read(_chat_people)
    emails = {str(p["delivery_email"]).lower() for p in people}
    for row in people:
        email = str(row["delivery_email"]).lower()
        owner = await members.core_db.read(identities.by_account, identities.CHAT, int(row["id"]))
        if owner is not None:
            identity_id = int(owner["id"])
        else:
            identity_id = await members.core_db.write(
                identities.reserve, email, row["password_hash"]
            )
        accounts = await members.core_db.read(identities.accounts, identity_id)
        wiki_name = None
        if identities.WIKI not in accounts:
            wiki_name = mapping.get(email)
            if wiki_name is None and not members.open_registration:
                wiki_name = await members.wiki_name_for_email(email)
        linked.append(await members.adopt(identity_id, row, wiki_name))
    # Identities whose chat user was never made (a crash right after the identity).
    for identity in await members.core_db.read(_identities_without_chat):
        if identity["email"] in emails:
            continue
        full_name = identity["email"].split("@", 1)[0]
        linked.append(await members.create(identity["email"], full_name, None, _member_role()))
    return linked


def _member_role() -> int:
    from atrium.chat.models import ROLE_MEMBER

    return ROLE_MEMBER


def _identities_without_chat(conn: Conn) -> list[Any]:
    import sqlalchemy as sa

    from atrium.core.identity_schema import identity as I
    from atrium.core.identity_schema import identity_account as A

    has_chat = sa.select(A.c.identity_id).where(
        A.c.service == identities.CHAT, A.c.user_id.is_not(None)
    )
    return conn.all(sa.select(I).where(I.c.id.not_in(has_chat)))


@click.command("link-accounts")
@click.option(
    "--names",
    "names_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A file of `email = Wiki user name` lines for people whose emails differ.",
)
def link_accounts_command(names_file: Path | None) -> None:
    """Give every chat member one account with a wiki user: link existing ones (by email, or
    by the names file), make missing ones, and complete half-made ones."""
    mapping = read_mapping(names_file) if names_file is not None else {}
    linked = run(Settings.from_env(), lambda members: link_all(members, mapping))
    for member in linked:
        click.echo(
            f"chat user {member.chat_user_id}, wiki user {member.wiki_user_id} ({member.wiki_name})"
        )
    click.echo(f"{len(linked)} member(s) linked.")


def create_member(
    settings: Settings, email: str, full_name: str, password: str | None, role: int
) -> Member:
    return run(settings, lambda members: members.create(email, full_name, password, role))


def reserve_identities(settings: Settings, emails: list[str]) -> None:
    """Identities first, for people the chat is about to make (the demo)."""

    async def work(members: Members) -> None:
        for email in emails:
            await members.reserve(email, None)

    run(settings, work)


def link_people(settings: Settings) -> list[Member]:
    return run(settings, lambda members: link_all(members, {}))


def with_members(chat_group: click.Group) -> None:
    """Make `atrium chat create-user` create a member (identity, chat user, wiki user); bots,
    and users of an organization named by --realm, stay the chat's alone."""
    original = chat_group.commands["create-user"]
    chat_create = original.callback
    assert chat_create is not None

    def create_user(**options: Any) -> None:
        if options["bot_owner"] or options["realm_string_id"]:
            chat_create(**options)
            return
        from atrium.chat.models import ROLE_NAMES

        member = create_member(
            Settings.from_env(),
            options["email"],
            options["full_name"],
            options["password"],
            ROLE_NAMES[options["role"]],
        )
        click.echo(
            f"Created {options['role']} {options['email']} (id {member.chat_user_id}); "
            f"wiki user {member.wiki_name!r}."
        )

    command = click.Command(
        "create-user", callback=create_user, params=original.params, help=original.help
    )
    chat_group.add_command(command)
    _with_imported_members(chat_group)


def _with_imported_members(chat_group: click.Group) -> None:
    """Make `atrium chat import-zulip` give the people it brought in their identities and wiki
    users, as `link-accounts` would (their passwords do not travel: they reset them)."""
    original = chat_group.commands["import-zulip"]
    chat_import = original.callback
    assert chat_import is not None

    def import_zulip(**options: Any) -> None:
        chat_import(**options)
        settings = Settings.from_env()
        if {"chat", "wiki"} <= set(settings.services):
            linked = link_people(settings)
            click.echo(f"{len(linked)} member(s) with one account for chat and wiki.")

    chat_group.add_command(
        click.Command(
            "import-zulip", callback=import_zulip, params=original.params, help=original.help
        )
    )


def with_renames(wiki_group: click.Group) -> None:
    """Make `atrium wiki rename-user` carry the new name to the member's identity, so that the
    sign-in forms take it at once."""
    original = wiki_group.commands["rename-user"]

    def rename_user(old: str, new: str, reason: str) -> None:
        from atrium.wiki.cli import rename_wiki_user

        settings = Settings.from_env()
        user_id, old_name, new_name = rename_wiki_user(settings, old, new, reason)
        migrations.upgrade("core", settings.database_url, settings.sqlite_path("core"))
        core = open_database(settings.database_url, settings.sqlite_path("core"), "core")
        try:
            core.write_sync(identities.rename_account, identities.WIKI, user_id, new_name)
        finally:
            core.close()
        click.echo(f"Renamed wiki user {old_name} to {new_name} (id {user_id}).")

    command = click.Command(
        "rename-user", callback=rename_user, params=original.params, help=original.help
    )
    wiki_group.add_command(command)
