"""The one store of browser sessions, for every service's pages (chat's web client, the wiki's).

A browser holds an opaque random token in a cookie; the server keeps a record keyed by the token's
SHA-256, with the session's CSRF token, its expiry and, per service, the user it is signed in as.
Records live in the database (the `core` SQLite file or PostgreSQL schema), so sessions survive a
restart and are shared by every worker. Signing in always issues a new token (no session fixation).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sqlalchemy as sa

from atrium.core.accounts import no_companions
from atrium.core.db import Conn, Database, Prepared
from atrium.core.sessions_schema import browser_session as S
from atrium.core.sessions_schema import browser_session_login as L

# The services a sign-in to one service signs the browser in to, with their user ids (the
# person's other accounts, when a layer above the services links them), read in the sign-in's
# transaction on the store's database.
Companions = Callable[[Conn, str, int], dict[str, int]]

# Zulip's SESSION_COOKIE_AGE: two weeks.
SESSION_LIFETIME_SECONDS = 14 * 24 * 3600


@dataclass(frozen=True)
class BrowserSession:
    id: int
    csrf_token: str
    expires_at: int
    # service -> that service's user id
    logins: Mapping[str, int] = field(default_factory=dict)

    def user_id(self, service: str) -> int | None:
        return self.logins.get(service)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_BY_HASH = Prepared(
    sa.select(S.c.id, S.c.csrf_token, S.c.expires_at).where(
        S.c.token_hash == sa.bindparam("token_hash"), S.c.expires_at > sa.bindparam("now")
    )
)
_LOGINS = Prepared(sa.select(L.c.service, L.c.user_id).where(L.c.session_id == sa.bindparam("id")))


def _read(conn: Conn, digest: str, now: int) -> BrowserSession | None:
    row = conn.one(_BY_HASH, {"token_hash": digest, "now": now})
    if row is None:
        return None
    logins = {r["service"]: int(r["user_id"]) for r in conn.all(_LOGINS, {"id": row["id"]})}
    return BrowserSession(int(row["id"]), row["csrf_token"], int(row["expires_at"]), logins)


def _start(
    conn: Conn,
    digest: str,
    previous_digest: str | None,
    service: str,
    user_id: int,
    user_agent: str,
    now: int,
    lifetime: int,
    companions: Companions,
) -> BrowserSession:
    if previous_digest is not None:
        previous = _read(conn, previous_digest, now)
        # The previous session ends, and its sign-ins do not carry over: nothing says they
        # are this person's (someone may have planted it), and a new user must not stay
        # signed in to another service as them.
        if previous is not None:
            conn.execute(sa.delete(L).where(L.c.session_id == previous.id))
            conn.execute(sa.delete(S).where(S.c.id == previous.id))
    logins = companions(conn, service, user_id)
    csrf = secrets.token_urlsafe(32)
    session_id = int(
        conn.scalar(
            sa.insert(S)
            .values(
                token_hash=digest,
                csrf_token=csrf,
                created_at=now,
                expires_at=now + lifetime,
                user_agent=user_agent[:200],
            )
            .returning(S.c.id)
        )
    )
    conn.executemany(
        sa.insert(L),
        [{"session_id": session_id, "service": s, "user_id": u} for s, u in logins.items()],
    )
    return BrowserSession(session_id, csrf, now + lifetime, logins)


def _end(conn: Conn, digest: str) -> None:
    session_id = conn.scalar(sa.select(S.c.id).where(S.c.token_hash == digest))
    if session_id is not None:
        conn.execute(sa.delete(L).where(L.c.session_id == session_id))
        conn.execute(sa.delete(S).where(S.c.id == session_id))


def _end_user(conn: Conn, service: str, user_id: int) -> int:
    ids = conn.scalars(
        sa.select(L.c.session_id).where(L.c.service == service, L.c.user_id == user_id)
    )
    for session_id in ids:
        conn.execute(sa.delete(L).where(L.c.session_id == session_id))
        conn.execute(sa.delete(S).where(S.c.id == session_id))
    return len(ids)


def _purge(conn: Conn, now: int) -> int:
    expired = sa.select(S.c.id).where(S.c.expires_at <= now)
    conn.execute(sa.delete(L).where(L.c.session_id.in_(expired)))
    return int(conn.execute(sa.delete(S).where(S.c.expires_at <= now)).rowcount)


class SessionStore:
    """Browser sessions over one database; every method is one transaction."""

    def __init__(
        self,
        db: Database,
        lifetime_seconds: int = SESSION_LIFETIME_SECONDS,
        companions: Companions = no_companions,
    ) -> None:
        self.db = db
        self.lifetime_seconds = lifetime_seconds
        self.companions = companions

    async def get(self, token: str | None) -> BrowserSession | None:
        """The live session a cookie's token names, or None (unknown, expired or malformed)."""
        if not token or len(token) > 200:
            return None
        return await self.db.read(_read, token_hash(token), int(time.time()))

    async def sign_in(
        self, service: str, user_id: int, previous_token: str | None = None, user_agent: str = ""
    ) -> tuple[str, BrowserSession]:
        """A new session (new token, new CSRF token) signed in to `service` as `user_id`, and
        to the services where the same person has an account (`companions`).

        The browser's previous session, if any, ends; its sign-ins to other services do not
        carry over (the session may be one that someone else planted in the browser).
        """
        token = secrets.token_urlsafe(32)
        previous = token_hash(previous_token) if previous_token else None
        session = await self.db.write(
            _start,
            token_hash(token),
            previous,
            service,
            user_id,
            user_agent,
            int(time.time()),
            self.lifetime_seconds,
            self.companions,
        )
        return token, session

    async def sign_out(self, token: str | None) -> None:
        """End the browser's session everywhere (every service it was signed in to)."""
        if token and len(token) <= 200:
            await self.db.write(_end, token_hash(token))

    async def end_all_for(self, service: str, user_id: int) -> int:
        """End every session signed in as this user (a deactivation, a password change)."""
        return await self.db.write(_end_user, service, user_id)

    async def purge_expired(self) -> int:
        return await self.db.write(_purge, int(time.time()))
