"""The `atrium chat` commands: create an organization or a user, print a user's zuliprc.

Like `wiki/cli.py`, they read the server's settings and work while it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from atrium.core import migrations
from atrium.core.db import Database, open_database
from atrium.settings import Settings

T = TypeVar("T")


@contextmanager
def chat_database(settings: Settings) -> Iterator[Database]:
    migrations.upgrade("chat", settings.database_url, settings.sqlite_path("chat"))
    db = open_database(settings.database_url, settings.sqlite_path("chat"), "chat")
    try:
        yield db
    finally:
        db.close()


def fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    raise SystemExit(1)


def run_write(settings: Settings, fn: Callable[..., T], *args: Any) -> T:
    """Run one chat action; a ChatError becomes a one-line error and exit status 1."""
    from atrium.chat.errors import ChatError

    with chat_database(settings) as db:
        try:
            return db.write_sync(fn, *args)
        except ChatError as error:
            fail(error.msg)
            raise  # unreachable: fail() exits


@click.group()
def chat() -> None:
    """Administer the chat service."""


@chat.command("create-realm")
@click.option("--name", required=True, help="The organization's name.")
@click.option("--string-id", default=None, help="Its short identifier (default: from the name).")
def create_realm_command(name: str, string_id: str | None) -> None:
    """Create an organization."""
    from atrium.chat.actions.realm import create_realm

    realm_id = run_write(Settings.from_env(), create_realm, name, string_id)
    click.echo(f"Created organization {name!r} (id {realm_id}).")


@chat.command("create-user")
@click.option("--email", required=True)
@click.option("--full-name", required=True)
@click.option("--password", default=None, help="Omit for an account that logs in by API key only.")
@click.option(
    "--role",
    type=click.Choice(["owner", "administrator", "moderator", "member", "guest"]),
    default="member",
    show_default=True,
)
@click.option("--bot-owner", default=None, metavar="EMAIL", help="Create a bot owned by this user.")
@click.option("--realm", "realm_string_id", default=None, help="Organization (default: the first).")
def create_user_command(
    email: str,
    full_name: str,
    password: str | None,
    role: str,
    bot_owner: str | None,
    realm_string_id: str | None,
) -> None:
    """Create a user (or, with --bot-owner, a bot)."""
    from atrium.chat.actions.users import NewUser, create_user
    from atrium.chat.errors import ChatError
    from atrium.chat.models import ROLE_NAMES
    from atrium.chat.queries.realm import realm_id_by_string_id
    from atrium.chat.queries.users import fake_email_domain, user_row_by_delivery_email
    from atrium.core.db import Conn

    settings = Settings.from_env()

    def write(conn: Conn) -> int:
        realm_id = realm_id_by_string_id(conn, realm_string_id)
        owner_id = None
        if bot_owner:
            owner = user_row_by_delivery_email(conn, realm_id, bot_owner)
            if owner is None:
                raise ChatError(f"No user with the email {bot_owner!r} to own the bot.")
            owner_id = int(owner["id"])
        new = NewUser(
            email=email,
            full_name=full_name,
            password=password,
            role=ROLE_NAMES[role],
            bot_owner_id=owner_id,
            email_domain=fake_email_domain(settings.base_url),
        )
        return create_user(conn, realm_id, new)

    user_id = run_write(settings, write)
    click.echo(f"Created {'bot' if bot_owner else role} {email} (id {user_id}).")


@chat.command("api-key")
@click.argument("email")
def api_key_command(email: str) -> None:
    """Print a zuliprc (email, key, site) for EMAIL."""
    from atrium.chat.queries.realm import default_realm
    from atrium.chat.queries.users import user_row_by_delivery_email
    from atrium.core.db import Conn

    settings = Settings.from_env()

    def read(conn: Conn) -> Any:
        realm = default_realm(conn)
        return None if realm is None else user_row_by_delivery_email(conn, realm.id, email)

    with chat_database(settings) as db:
        row = db.read_sync(read)
    if row is None:
        fail(f"no user with the email {email!r}; create one with `atrium chat create-user`.")
    click.echo(f"[api]\nemail={row['email']}\nkey={row['api_key']}\nsite={settings.base_url}")


@chat.command("invite")
@click.argument("emails", nargs=-1, required=True)
@click.option(
    "--by", "inviter", required=True, metavar="EMAIL", help="Who invites (their rights apply)."
)
@click.option(
    "--as",
    "role",
    type=click.Choice(["owner", "administrator", "moderator", "member", "guest"]),
    default="member",
    show_default=True,
)
@click.option(
    "--stream", "streams", multiple=True, required=True, help="A stream to join (repeat)."
)
def invite_command(
    emails: tuple[str, ...], inviter: str, role: str, streams: tuple[str, ...]
) -> None:
    """Invite people by email and print each one's sign-up link (mailed by the running server,
    or written to the mail sink when no mail server is configured)."""
    from atrium.chat.actions.invites import DEFAULT_VALIDITY_MINUTES, invite_users
    from atrium.chat.errors import ChatError
    from atrium.chat.models import ROLE_NAMES, User
    from atrium.chat.queries import streams as stream_queries
    from atrium.chat.queries.invites import visible_invites
    from atrium.chat.queries.realm import default_realm
    from atrium.chat.queries.users import user_row_by_delivery_email
    from atrium.core.db import Conn
    from atrium.core.mail.message import Composer

    settings = Settings.from_env()
    composer = Composer.from_settings(settings)

    def write(conn: Conn) -> list[dict[str, Any]]:
        realm = default_realm(conn)
        row = None if realm is None else user_row_by_delivery_email(conn, realm.id, inviter)
        if realm is None or row is None:
            raise ChatError(f"No user with the email {inviter!r}.")
        actor = User.from_row(row)
        stream_ids = []
        for name in streams:
            stream = stream_queries.stream_by_name(conn, realm.id, name)
            if stream is None:
                raise ChatError(f"No stream named {name!r}.")
            stream_ids.append(stream["id"])
        outcome = invite_users(
            conn,
            actor,
            ",".join(emails),
            ROLE_NAMES[role],
            stream_ids,
            DEFAULT_VALIDITY_MINUTES,
            composer,
        )
        for email, reason, _deactivated in outcome.value.skipped:
            click.echo(f"skipped {email}: {reason}", err=True)
        wanted = {e.lower() for e in emails}
        return [
            i
            for i in visible_invites(conn, actor, settings.base_url)
            if i.get("email", "").lower() in wanted
        ]

    if not settings.mail.smtp_host:
        click.echo(
            f"No mail server is configured (ATRIUM_SMTP_HOST): the invitations go to "
            f"{settings.mail_sink_dir}, not to the invitees; hand on these links.",
            err=True,
        )
    for invite in run_write(settings, write):
        click.echo(f"{invite['email']}\t{invite['link_url']}")


@chat.command("invites")
def invites_command() -> None:
    """List the usable invitations with their sign-up links."""
    from atrium.chat.models import ROLE_OWNER, User
    from atrium.chat.queries.invites import visible_invites
    from atrium.chat.queries.realm import default_realm
    from atrium.core.db import Conn

    settings = Settings.from_env()

    def read(conn: Conn) -> list[dict[str, Any]]:
        realm = default_realm(conn)
        if realm is None:
            return []
        # Every invitation, as an owner of the organization would see them.
        viewer = User(0, realm.id, "", "", ROLE_OWNER, True, False, None, 0.0)
        return visible_invites(conn, viewer, settings.base_url)

    with chat_database(settings) as db:
        invites = db.read_sync(read)
    for invite in invites:
        who = invite.get("email") or "(reusable link)"
        click.echo(f"{invite['id']}\t{who}\t{invite['link_url']}")


def _progress(line: str) -> None:
    click.echo(line, err=True)


@chat.command("import-zulip")
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--max-size-gb",
    type=click.IntRange(1),
    default=50,
    show_default=True,
    help="Refuse an export that unpacks to more than this.",
)
def import_zulip_command(archive: Path, max_size_gb: int) -> None:
    """Import a Zulip organization export (`manage.py export`, .tar.gz) into an empty chat."""
    from atrium.chat.errors import ChatError
    from atrium.chat.porting.archive import Limits, UnsafeArchive
    from atrium.chat.porting.zulip_io import import_archive
    from atrium.chat.porting.zulip_reader import BadExport
    from atrium.chat.queries.users import fake_email_domain
    from atrium.core.blobs import BlobStore

    settings = Settings.from_env()
    blobs = BlobStore(settings.data_dir / "uploads")
    limits = Limits(max_total_bytes=max_size_gb << 30)
    with chat_database(settings) as db:
        try:
            result = import_archive(
                db, blobs, archive, fake_email_domain(settings.base_url), _progress, limits
            )
        except (ChatError, UnsafeArchive, BadExport) as error:
            fail(str(getattr(error, "msg", error)))
            raise  # unreachable: fail() exits
    if result.already_imported:
        click.echo(f"This archive was already imported (organization id {result.realm_id}).")
    else:
        click.echo(f"Imported the organization (id {result.realm_id}).")
    for name, count in sorted(result.counts.items()):
        click.echo(f"  {count:7} {name}")
    if result.not_carried:
        click.echo("Not carried over:")
        for line in result.not_carried:
            click.echo(f"  - {line}")


@chat.command("export")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The .tar.gz to write (default: zulip-export-<organization>.tar.gz here).",
)
def export_command(output: Path | None) -> None:
    """Write the organization as a Zulip organization export (for Zulip's import)."""
    from atrium.chat.porting.zulip_io import export_archive
    from atrium.chat.queries.realm import default_realm
    from atrium.core.blobs import BlobStore

    settings = Settings.from_env()
    with chat_database(settings) as db:
        realm = db.read_sync(default_realm)
        if realm is None:
            fail("the chat has no organization to export.")
            return
        out = output or Path(f"zulip-export-{realm.string_id}.tar.gz")
        counts = export_archive(db, BlobStore(settings.data_dir / "uploads"), out, _progress)
    click.echo(
        f"Wrote {out} ({counts.get('zerver_message', 0)} messages, "
        f"{counts.get('zerver_userprofile', 0)} users)."
    )
