"""What `action=login` and `action=clientlogin` share: checking a name and password (or bot
password) under the password throttle, the login token, and starting the session."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from atrium.core.signing import sign, unsign
from atrium.wiki.accounts.usernames import normalize_username
from atrium.wiki.api.context import ApiContext
from atrium.wiki.changes.sessions import create_session, destroy_session
from atrium.wiki.limits import duration
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.password_check import linked_password_ok, password_ok
from atrium.wiki.reads.sessions import (
    BROWSER_SERVICE,
    BROWSER_SESSION_PREFIX,
    TOKEN_SALTS,
    check_token,
)
from atrium.wiki.reads.temporary_password import temporary_password_ok, unexpired_temporary_hash
from atrium.wiki.reads.users import (
    Account,
    account_by_id,
    account_by_name,
    bot_password,
    password_hash,
)

# The cookie that carries a sign-in's pending step (a new password after a temporary one)
# from one `clientlogin` request to its `logincontinue`; every cookie such a step uses.
NEW_PASSWORD_COOKIE = "atrium_wiki_newpass"
STEP_COOKIES = (NEW_PASSWORD_COOKIE,)
# How long the step waits (MediaWiki keeps it in the session, which expires within an hour).
STEP_SECONDS = 3600


@dataclass(frozen=True)
class NewPasswordNeeded:
    """A name and the account's mailed temporary password: it opens nothing until a new
    password is set (ResetPasswordSecondaryAuthenticationProvider's hard reset)."""

    account: Account
    temporary_hash: str


async def authenticate(
    ctx: ApiContext, name: str, password: str, allow_bot: bool
) -> tuple[Account, str | None] | NewPasswordNeeded | msg.Message:
    """The account a name/password pair opens, with the bot application if a bot password did;
    else the refusal. Failures are throttled per name (`User@app` for a bot password) as
    MediaWiki's `$wgPasswordAttemptThrottle`; hashes are verified in the worker pool, and an
    unknown name costs the same verification as a wrong password."""
    given = name
    bot_app = None
    if allow_bot and "@" in name:
        name, _, bot_app = name.rpartition("@")
    username = normalize_username(name)
    if username is None:
        return _refusal(given, password)
    throttle = ctx.limits.passwords if ctx.limits is not None else None
    key = username if bot_app is None else f"{username}@{bot_app}"
    refused = await throttle.refusal(key, ctx.client_ip) if throttle is not None else None
    if refused is not None:
        return msg.api("login-throttled", duration(refused.rule.window))
    links = ctx.accounts
    linked = await links.for_login(BROWSER_SERVICE, username) if links is not None else None
    account = await ctx.db.read(account_by_name, username)
    if linked is not None and bot_app is None:
        # A workspace member: the person's one password, and only while they are active.
        ok = await linked_password_ok(linked, password) and linked.user_id == (
            account.id if account is not None else None
        )
    else:
        stored = None
        if account is not None and bot_app is not None:
            stored = await ctx.db.read(bot_password, account.id, bot_app)
            # A bot password stays the wiki's own, but not past its owner's deactivation.
            owner = await links.for_user(BROWSER_SERVICE, account.id) if links else None
            if owner is not None and not owner.active:
                stored = None
        elif account is not None:
            stored = await ctx.db.read(password_hash, account.id)
        ok = await password_ok(stored, password)
    if not ok and account is not None and bot_app is None and password:
        temporary = await temporary_password_ok(ctx.db, account.id, password)
        if temporary:
            return NewPasswordNeeded(account, temporary)
    if not ok or account is None:
        if throttle is not None:
            await throttle.failed(key, ctx.client_ip)
        return _refusal(given, password)
    return account, bot_app


def _session_id(ctx: ApiContext) -> str | None:
    if ctx.new_session is not None:
        return ctx.new_session[0]
    return ctx.session.id if ctx.session is not None else None


def _fingerprint(temporary_hash: str) -> str:
    return hashlib.sha256(temporary_hash.encode()).hexdigest()


def hold_new_password_step(ctx: ApiContext, needed: NewPasswordNeeded) -> None:
    """Remember, for this session only, that it signed in with the temporary password. The
    cookie names the temporary password by a digest of its hash, so that it is good for that
    password alone: once a new password clears it, the step cannot be taken again."""
    session_id = _session_id(ctx) or ""
    value = f"newpass|{session_id}|{needed.account.id}|{_fingerprint(needed.temporary_hash)}"
    token = sign(ctx.site.secret.encode(), value, STEP_SECONDS)
    ctx.set_cookies[NEW_PASSWORD_COOKIE] = (token, STEP_SECONDS)


async def held_new_password_step(ctx: ApiContext) -> NewPasswordNeeded | None:
    """The pending step this request's session holds, if still good: the same session, the
    same unexpired temporary password."""
    token = ctx.cookies.get(NEW_PASSWORD_COOKIE)
    value = unsign(ctx.site.secret.encode(), token) if token else None
    if value is None:
        return None
    parts = value.split("|")
    if len(parts) != 4 or parts[0] != "newpass" or not parts[2].isdigit():
        return None
    session_id = _session_id(ctx)
    if not session_id or not hmac.compare_digest(parts[1], session_id):
        return None
    account = await ctx.db.read(account_by_id, int(parts[2]))
    if account is None:
        return None
    current = await unexpired_temporary_hash(ctx.db, account.id)
    if not current or not hmac.compare_digest(_fingerprint(current), parts[3]):
        return None
    return NewPasswordNeeded(account, current)


async def start_session(ctx: ApiContext, account: Account, bot_app: str | None) -> None:
    """Sign the caller in. A password login signs in the browser's shared session, the one the
    wiki's pages read, so a browser that logged in through the API is signed in on the pages
    too. A bot password's session stays the API's own: its grants limit it, and the pages would
    give it every right of the account."""
    if ctx.session is not None and not ctx.session.id.startswith(BROWSER_SESSION_PREFIX):
        await ctx.db.write(destroy_session, ctx.session.id)
    if bot_app is None and ctx.shared_sessions:
        ctx.browser_login = account.id
    else:
        ctx.new_session = await ctx.db.write(create_session, account.id, bot_app)
    account.bot_app = bot_app
    ctx.caller = account


def _refusal(name: str, password: str) -> msg.Message:
    """AuthManager's failure for a name and password that open nothing: with no password or no
    usable name the password request is dropped (no provider could try), else `wrongpassword`.
    A login name may hold `@` (bot passwords); only account creation refuses it."""
    if not password or normalize_username(name.replace("@", "_")) is None:
        return msg.api("authmanager-authn-no-primary")
    return msg.api("wrongpassword")


def login_token_ok(ctx: ApiContext, token: str) -> bool:
    return check_token(ctx.session_secret, TOKEN_SALTS["login"], token, True)
