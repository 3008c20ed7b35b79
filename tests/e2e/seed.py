"""Data for a live server, written in-process before it starts.

Each `atrium` CLI process imports the package and opens the database (about 1.5 s); the functions
here call the same actions and changes the CLI commands call, on the session's migrated
templates, so a fixture's organization costs milliseconds. A few e2e files still set up through
the CLI, so that each command family keeps a real-process test: test_crash_durability.py (chat
create-realm, create-user, api-key; wiki create-user), test_wiki_bot_frameworks.py (wiki
bot-password) and tests/chat/test_invite_cli.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from atrium.chat.actions.message_flags import mark_stream_as_read
from atrium.chat.actions.messages import SendRequest, send_message
from atrium.chat.actions.realm import create_realm
from atrium.chat.actions.streams import StreamOptions, subscribe
from atrium.chat.actions.users import NewUser, create_user
from atrium.chat.models import ROLE_NAMES, User
from atrium.chat.queries.realm import default_realm
from atrium.chat.queries.streams import stream_by_name
from atrium.chat.queries.users import fake_email_domain, user_row_by_delivery_email
from atrium.core.db import Conn, open_database
from atrium.settings import Settings
from atrium.wiki.accounts.grants import HIDDEN_GRANTS
from atrium.wiki.app import open_wiki
from atrium.wiki.changes.accounts import create_bot_password
from atrium.wiki.changes.registration import autocreate
from atrium.wiki.cli import DEFAULT_BOT_GRANTS
from atrium.wiki.reads.users import account_by_name
from tests.conftest import copy_sqlite_templates, migrated_sqlite_templates

T = TypeVar("T")


def prepare_data_dir(
    data_dir: Path, database_url: str | None, sqlite_templates: Path | None
) -> Settings:
    """Settings as `atrium_env` gives the CLI, over migrated databases: the session's SQLite
    templates copied (those of the `sqlite_templates` fixture when not given)."""
    if database_url is None:
        copy_sqlite_templates(sqlite_templates or migrated_sqlite_templates(), data_dir)
    return Settings(
        data_dir=data_dir, database_url=database_url, wiki_main_page=False, migrate_on_start=False
    )


def chat_write(settings: Settings, fn: Callable[..., T], *args: Any) -> T:
    db = open_database(settings.database_url, settings.sqlite_path("chat"), "chat")
    try:
        return db.write_sync(fn, *args)
    finally:
        db.close()


@dataclass(frozen=True)
class ChatUser:
    """What `atrium chat create-user` takes."""

    email: str
    full_name: str
    password: str | None = None
    role: str = "member"
    bot_owner: str | None = None


def create_chat_realm(settings: Settings, name: str, users: Iterable[ChatUser]) -> None:
    """`atrium chat create-realm --name NAME`, then `create-user` for each of `users`."""
    domain = fake_email_domain(settings.base_url)

    def write(conn: Conn) -> None:
        realm_id = create_realm(conn, name, None)
        for user in users:
            owner_id = None
            if user.bot_owner:
                owner = user_row_by_delivery_email(conn, realm_id, user.bot_owner)
                assert owner is not None, user.bot_owner
                owner_id = int(owner["id"])
            new = NewUser(
                email=user.email,
                full_name=user.full_name,
                password=user.password,
                role=ROLE_NAMES[user.role],
                bot_owner_id=owner_id,
                email_domain=domain,
            )
            create_user(conn, realm_id, new)

    chat_write(settings, write)


@dataclass(frozen=True)
class StreamHistory:
    stream_id: int
    message_ids: list[int]  # oldest first


def create_stream_history(
    settings: Settings,
    sender_email: str,
    stream: str,
    member_emails: Iterable[str],
    topic: str,
    contents: Iterable[str],
) -> StreamHistory:
    """What the sender's `POST /users/me/subscriptions` (for itself and the members), one
    `POST /messages` per content, and each member's marking the stream read would make: the same
    actions the API calls, in one transaction."""
    members = list(member_emails)

    def write(conn: Conn) -> StreamHistory:
        realm = default_realm(conn)
        assert realm is not None

        def user(email: str) -> User:
            row = user_row_by_delivery_email(conn, realm.id, email)
            assert row is not None, email
            return User.from_row(row)

        sender = user(sender_email)
        readers = [user(email) for email in members]
        principals = [sender.id, *(reader.id for reader in readers)]
        subscribe(conn, sender, [{"name": stream}], principals, StreamOptions(), True)
        stream_id = int(stream_by_name(conn, realm.id, stream)["id"])
        ids = [
            send_message(
                conn, sender, SendRequest("stream", stream_id, content, topic, "test")
            ).value
            for content in contents
        ]
        for reader in readers:
            mark_stream_as_read(conn, reader, stream_id)
        return StreamHistory(stream_id, ids)

    return chat_write(settings, write)


def zuliprc(settings: Settings, email: str, site: str) -> str:
    """What `atrium chat api-key EMAIL` prints, read from the database."""

    def read(conn: Conn) -> Any:
        realm = default_realm(conn)
        assert realm is not None
        return user_row_by_delivery_email(conn, realm.id, email)

    db = open_database(settings.database_url, settings.sqlite_path("chat"), "chat")
    try:
        row = db.read_sync(read)
    finally:
        db.close()
    assert row is not None, email
    return f"[api]\nemail={row['email']}\nkey={row['api_key']}\nsite={site}\n"


def create_wiki_users(
    settings: Settings,
    users: Iterable[tuple[str, str, list[str]]],
    bot_password_for: tuple[str, str] | None = None,
) -> str:
    """`atrium wiki create-user NAME --password PW --groups G` for each (name, password, groups),
    then `atrium wiki bot-password NAME APP` if asked; returns the bot password (or "")."""
    db, _site = open_wiki(settings)
    try:

        def write(conn: Conn) -> str:
            for name, password, groups in users:
                autocreate(conn, name, password, groups=groups)
            if bot_password_for is None:
                return ""
            name, app_id = bot_password_for
            account = account_by_name(conn, name)
            assert account is not None, name
            grants = list(dict.fromkeys([*HIDDEN_GRANTS, *DEFAULT_BOT_GRANTS]))
            return create_bot_password(conn, account.id, app_id, grants)

        return db.write_sync(write)
    finally:
        db.close()


def create_members(settings: Settings, realm: str, users: Iterable[ChatUser]) -> None:
    """An organization of workspace members, as `atrium chat create-realm` and `atrium chat
    create-user` make them: each an identity with a chat user and a wiki user."""
    import asyncio

    from atrium.workspace.cli import open_members

    chat_write(settings, lambda conn: create_realm(conn, realm, None))

    async def make() -> None:
        async with open_members(settings) as members:
            for user in users:
                await members.create(
                    user.email, user.full_name, user.password, ROLE_NAMES[user.role]
                )

    asyncio.run(make())
