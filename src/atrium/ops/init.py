"""`atrium init`: a team's own organization on an empty data directory or database.

The owner is one workspace member: an identity with the chat's owner and a wiki user in the
groups that role implies (sysop, bureaucrat, interface-admin, suppress), made by `create_owner`.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.settings import Settings

MIN_PASSWORD_LENGTH = 8


class InitError(Exception):
    """The organization cannot be created as asked; the message says why, in one line."""


@dataclass(frozen=True)
class Owner:
    email: str
    full_name: str
    password: str


@dataclass(frozen=True)
class Created:
    realm_id: int
    chat_user_id: int
    wiki_user_id: int
    wiki_name: str


def check_owner(owner: Owner) -> None:
    """Refuse an owner whose details either service would refuse, before anything is written."""
    from atrium.wiki.accounts.password_policy import password_problems
    from atrium.wiki.accounts.usernames import normalize_username

    if "@" not in owner.email.strip("@"):
        raise InitError(f"{owner.email!r} is not an email address")
    if len(owner.password) < MIN_PASSWORD_LENGTH:
        raise InitError(f"the password must have at least {MIN_PASSWORD_LENGTH} characters")
    name = normalize_username(owner.full_name)
    if name is None:
        raise InitError(f"{owner.full_name!r} cannot be a wiki user name")
    problems = password_problems(name, owner.password)
    if problems:
        raise InitError("the wiki refuses this password: " + problems[0].render())


def chat_is_empty(conn: Conn) -> bool:
    from atrium.chat import schema

    return bool(conn.scalar(sa.select(sa.func.count()).select_from(schema.realm)) == 0)


def wiki_is_empty(conn: Conn) -> bool:
    """No accounts. The Main Page a new wiki writes on its first start may be there already
    (the owner-setup link is used on a running server); the demo's pages come with its Admin."""
    from atrium.wiki import schema

    return bool(conn.scalar(sa.select(sa.func.count()).select_from(schema.user)) == 0)


def ensure_empty(settings: Settings) -> None:
    """Raise InitError unless both services are free of an organization and accounts."""
    from atrium.chat.cli import chat_database
    from atrium.wiki.app import open_wiki

    with chat_database(settings) as chat_db:
        if not chat_db.read_sync(chat_is_empty):
            raise InitError("the chat already has an organization")
    wiki_db, _site = open_wiki(settings.with_(wiki_main_page=False))
    try:
        if not wiki_db.read_sync(wiki_is_empty):
            raise InitError("the wiki already has accounts")
    finally:
        wiki_db.close()


def create_owner(settings: Settings, organization: str, owner: Owner) -> Created:
    """The organization and its owner, one workspace member: an identity with the chat's owner
    and the wiki user the owner's role makes a bureaucrat, on empty databases."""
    from atrium.chat.actions.realm import create_realm
    from atrium.chat.cli import chat_database
    from atrium.chat.models import ROLE_NAMES
    from atrium.workspace.cli import create_member

    check_owner(owner)
    # No Main Page: an organization made here starts with nothing but its owner.
    settings = settings.with_(wiki_main_page=False)
    ensure_empty(settings)
    with chat_database(settings) as chat_db:
        realm_id = chat_db.write_sync(lambda conn: create_realm(conn, organization))
    member = create_member(
        settings, owner.email, owner.full_name, owner.password, ROLE_NAMES["owner"]
    )
    return Created(realm_id, member.chat_user_id, member.wiki_user_id, member.wiki_name)
