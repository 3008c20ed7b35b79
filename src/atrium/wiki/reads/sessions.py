"""Reading sessions and the tokens derived from them (MediaWiki's token format: HMAC + time + `+\\`)."""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn, Prepared
from atrium.wiki import schema
from atrium.wiki.accounts.grants import allowed_rights
from atrium.wiki.reads.users import Account, account_by_id, bot_password_grants

# The cookie that carries a wiki session id, for the API and the browser pages alike.
SESSION_COOKIE = "atriumwiki_session"
# The wiki's name in the shared browser-session store of `core` (the pages sign in there; the
# API accepts such a session too, with a Session id of this prefix and the store's id).
BROWSER_SERVICE = "wiki"
BROWSER_SESSION_PREFIX = "browser:"

TOKEN_SUFFIX = "+\\"
ANON_TOKEN = TOKEN_SUFFIX

# Token type -> salt. Types whose token an anonymous caller gets as the bare suffix `+\`.
TOKEN_SALTS: dict[str, str] = {
    "createaccount": "createaccount",
    "csrf": "",
    "login": "login",
    "patrol": "patrol",
    "rollback": "rollback",
    "userrights": "userrights",
    "watch": "watch",
}
SESSION_BOUND_TYPES = frozenset({"login", "createaccount"})


@dataclass
class Session:
    id: str
    secret: str
    user_id: int | None
    bot_app: str | None


_session = Prepared(
    sa.select(schema.session).where(
        schema.session.c.s_id == sa.bindparam("id"),
        schema.session.c.s_expiry >= sa.bindparam("now"),
    )
)


def load_session(conn: Conn, session_id: str) -> tuple[Session | None, Account | None]:
    row = conn.one(_session, {"id": session_id, "now": int(time.time())})
    if row is None:
        return None, None
    session = Session(row["s_id"], row["s_secret"], row["s_user"], row["s_bot_app"])
    account = account_by_id(conn, session.user_id) if session.user_id else None
    if account is not None:
        account.bot_app = session.bot_app
        if session.bot_app is not None:
            # BotPasswordSessionProvider: the session allows only the rights of its grants.
            chosen = bot_password_grants(conn, account.id, session.bot_app)
            account.allowed_rights = allowed_rights(chosen)
    return session, account


def make_token(secret: str, salt: str, timestamp: int | None = None) -> str:
    stamp = f"{timestamp if timestamp is not None else int(time.time()):08x}"
    digest = hmac.new(secret.encode(), (salt + stamp).encode(), hashlib.md5).hexdigest()
    return digest + stamp + TOKEN_SUFFIX


def check_token(secret: str | None, salt: str, token: str, anonymous: bool) -> bool:
    if anonymous and salt not in ("login", "createaccount"):
        return token == ANON_TOKEN
    if secret is None or not token.endswith(TOKEN_SUFFIX) or len(token) != 42:
        return False
    try:
        stamp = int(token[32:40], 16)
    except ValueError:
        return False
    return hmac.compare_digest(make_token(secret, salt, stamp), token)
