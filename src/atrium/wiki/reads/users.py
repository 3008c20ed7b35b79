"""Reading accounts: who a user is, their groups, rights, options and passwords' verification."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import sqlalchemy as sa

from atrium.core import secrets
from atrium.core.db import Conn, Prepared, Row
from atrium.wiki import schema
from atrium.wiki.accounts import grants, rights

# MediaWiki's default user options that the API reports (`$wgDefaultUserOptions`).
DEFAULT_OPTIONS: dict[str, str | int | bool] = {
    "ccmeonemails": 0, "date": "default", "diffonly": 0, "disablemail": 0,
    "editfont": "monospace", "editondblclick": 0, "editsectiononrightclick": 0,
    "email-allow-new-users": 1, "enotifminoredits": 0, "enotifrevealaddr": 0,
    "enotifusertalkpages": 1, "enotifwatchlistpages": 1, "extendwatchlist": 1, "fancysig": 0,
    "forceeditsummary": 0, "gender": "unknown", "hideminor": 0, "hidepatrolled": 0,
    "hidecategorization": 1, "imagesize": 2, "minordefault": 0, "newpageshidepatrolled": 0,
    "nickname": "", "pst-cssjs": 1, "norollbackdiff": 0, "previewonfirst": 0, "previewontop": 1,
    "rcdays": 7, "rcenhancedfilters-disable": 0, "rclimit": 50, "search-match-redirect": True,
    "search-special-page": "Search", "searchlimit": 20, "showhiddencats": 0,
    "shownumberswatching": 1, "showrollbackconfirmation": 0, "skin": "vector", "thumbsize": 5,
    "underline": 2, "uselivepreview": 0, "usenewrc": 1, "watchcreations": 1, "watchdefault": 1,
    "watchdeletion": 0, "watchuploads": 1, "watchlistdays": 7, "watchlisthideanons": 0,
    "watchlisthidebots": 0, "watchlisthideliu": 0, "watchlisthideminor": 0,
    "watchlisthideown": 0, "watchlisthidepatrolled": 0, "watchlisthidecategorization": 1,
    "watchlistreloadautomatically": 0, "watchlistunwatchlinks": 0, "watchmoves": 0,
    "watchrollback": 0, "wlenhancedfilters-disable": 0, "wllimit": 250, "useeditwarning": 1,
    "prefershttps": 1, "requireemail": 0, "skin-responsive": 1, "timecorrection": "System|0",
    "language": "en", "variant": "en",
}  # fmt: skip


# MediaWiki's `user_password` names its hash type in a prefix; the hash is core's argon2.
_PREFIX = ":argon2:"


def hash_password(password: str) -> str:
    return _PREFIX + secrets.hash_password(password)


def stored_password(core_hash: str) -> str:
    """A hash made by `core.secrets` in the form the user table keeps ("" stays no password)."""
    return _PREFIX + core_hash if core_hash else ""


def verify_password(stored: str, password: str) -> bool:
    if not stored.startswith(_PREFIX):
        return False
    return secrets.verify_password(stored[len(_PREFIX) :], password)


@dataclass
class Account:
    """A registered user, or the anonymous caller (id 0, named by IP)."""

    id: int
    name: str
    groups: list[str] = field(default_factory=list)  # explicit memberships, sorted
    registration: str | None = None
    editcount: int = 0
    email: str = ""
    # When `email` was confirmed (Special:ConfirmEmail); None: not confirmed.
    email_authenticated: str | None = None
    real_name: str = ""
    bot_app: str | None = None  # logged in with a bot password of this application
    # A bot-password session may use only these rights (its grants'); None: no restriction.
    allowed_rights: frozenset[str] | None = None

    @property
    def registered(self) -> bool:
        return self.id != 0

    @property
    def implicit_groups(self) -> list[str]:
        return rights.implicit_groups(self.registered)

    @property
    def all_groups(self) -> list[str]:
        return self.groups + self.implicit_groups

    @property
    def rights(self) -> list[str]:
        return list(_rights(tuple(self.groups), self.registered, self.allowed_rights)[0])

    def allowed(self, right: str) -> bool:
        return right in _rights(tuple(self.groups), self.registered, self.allowed_rights)[1]


@functools.lru_cache(maxsize=1024)
def _rights(
    groups: tuple[str, ...], registered: bool, allowed: frozenset[str] | None
) -> tuple[tuple[str, ...], frozenset[str]]:
    """The rights of an account's groups and its implicit ones, in MediaWiki's order and as a
    set, limited to `allowed`. A list asks whether its reader may see each of its hundreds of
    rows: the answer for one kind of reader is computed once."""
    granted = rights.rights_of(groups + tuple(rights.implicit_groups(registered)))
    if allowed is not None:
        granted = [r for r in granted if r in allowed]
    return tuple(granted), frozenset(granted)


def anonymous(ip: str) -> Account:
    return Account(0, ip)


_by_name = Prepared(sa.select(schema.user).where(schema.user.c.user_name == sa.bindparam("name")))
_by_id = Prepared(sa.select(schema.user).where(schema.user.c.user_id == sa.bindparam("id")))
_groups = Prepared(
    sa.select(schema.user_groups.c.ug_group)
    .where(schema.user_groups.c.ug_user == sa.bindparam("id"))
    .order_by(schema.user_groups.c.ug_group)
)


def _account(conn: Conn, row: Row | None) -> Account | None:
    if row is None:
        return None
    user_id = int(row["user_id"])
    return Account(
        id=user_id,
        name=str(row["user_name"]),
        groups=list(conn.scalars(_groups, {"id": user_id})),
        registration=row["user_registration"],
        editcount=int(row["user_editcount"]),
        email=str(row["user_email"]),
        email_authenticated=row["user_email_authenticated"] or None,
        real_name=str(row["user_real_name"]),
    )


def account_by_name(conn: Conn, name: str) -> Account | None:
    return _account(conn, conn.one(_by_name, {"name": name}))


def is_hidden(conn: Conn, user_id: int) -> bool:
    """Whether a `hidename` block hides the user (such blocks are permanent)."""
    B = schema.ipblocks
    found = conn.one(
        sa.select(B.c.ipb_id).where(B.c.ipb_user == user_id, B.c.ipb_deleted == sa.true())
    )
    return found is not None


def account_by_id(conn: Conn, user_id: int) -> Account | None:
    return _account(conn, conn.one(_by_id, {"id": user_id}))


def password_hash(conn: Conn, user_id: int) -> str:
    return str(
        conn.scalar(sa.select(schema.user.c.user_password).where(schema.user.c.user_id == user_id))
        or ""
    )


def bot_password_grants(conn: Conn, user_id: int, app_id: str) -> list[str]:
    value = conn.scalar(
        sa.select(schema.bot_passwords.c.bp_grants).where(
            schema.bot_passwords.c.bp_user == user_id, schema.bot_passwords.c.bp_app_id == app_id
        )
    )
    return grants.parse_grants(str(value or ""))


def bot_password(conn: Conn, user_id: int, app_id: str) -> str | None:
    value = conn.scalar(
        sa.select(schema.bot_passwords.c.bp_password).where(
            schema.bot_passwords.c.bp_user == user_id, schema.bot_passwords.c.bp_app_id == app_id
        )
    )
    return None if value is None else str(value)


def options(conn: Conn, user_id: int) -> dict[str, str | int | bool]:
    values = dict(DEFAULT_OPTIONS)
    for row in conn.all(
        sa.select(schema.user_properties).where(schema.user_properties.c.up_user == user_id)
    ):
        values[row["up_property"]] = row["up_value"]
    return values


def latest_contribution(conn: Conn, user_id: int) -> str | None:
    value = conn.scalar(
        sa.select(sa.func.max(schema.revision.c.rev_timestamp))
        .select_from(
            schema.revision.join(
                schema.actor, schema.actor.c.actor_id == schema.revision.c.rev_actor
            )
        )
        .where(schema.actor.c.actor_user == user_id)
    )
    return None if value is None else str(value)


def account_ids_by_email(conn: Conn, email: str) -> list[int]:
    """The accounts whose email is this address (compared without regard to case)."""
    U = schema.user.c
    return [
        int(i)
        for i in conn.scalars(
            sa.select(U.user_id).where(sa.func.lower(U.user_email) == email.strip().lower())
        )
    ]
