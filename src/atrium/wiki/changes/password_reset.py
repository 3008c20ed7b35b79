"""Special:PasswordReset and `action=resetpassword`: a temporary password for each account the
request names, mailed to its address in MediaWiki's words.

As MediaWiki's temporary password provider: the temporary password (hashed) sits beside the real
one for `NEW_PASSWORD_EXPIRY_DAYS`; signing in with it asks for a new password, and setting one
clears it. The real password keeps working meanwhile.
"""

from __future__ import annotations

import secrets
import string
from collections import defaultdict
from typing import TYPE_CHECKING

import sqlalchemy as sa

from atrium.core import workers
from atrium.core.db import Conn, Database
from atrium.wiki import schema
from atrium.wiki.accounts.usernames import normalize_username
from atrium.wiki.changes.accounts import set_password
from atrium.wiki.changes.blocks import blocks_of
from atrium.wiki.changes.mail import mail_text, send
from atrium.wiki.reads.password_reset import (
    NEW_PASSWORD_EXPIRY_DAYS,
    ResetTarget,
    reset_targets,
    ts14_ago,
)
from atrium.wiki.reads.users import hash_password
from atrium.wiki.site import Site
from atrium.wiki.timestamps import now14

if TYPE_CHECKING:  # its module reaches starlette, which changes never import
    from atrium.core.accounts import AccountLinks

# $wgPasswordReminderResendTime (24 hours).
RESEND_HOURS = 24
_ALPHABET = string.ascii_letters + string.digits


def reset_refused(conn: Conn, user_id: int | None, ip: str | None) -> bool:
    """Whether a block stops the caller from asking for resets (PasswordReset::isAllowed,
    `blocked-mailpassword`): any block on them or their address that also stops account
    creation (DatabaseBlock::appliesToPasswordReset), so a blocked vandal cannot flood
    others' inboxes with reset mail."""
    return any(block.nocreate for block in blocks_of(conn, user_id, ip))


def new_temporary_password() -> str:
    """PasswordFactory::generateRandomPasswordString: letters and digits, here 12 of them."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(12))


def mail_temporary_passwords(
    conn: Conn,
    site: Site,
    targets: list[tuple[ResetTarget, str, str]],
    client_ip: str,
    caller_name: str | None,
) -> None:
    """Give each target its temporary password (plain, hashed) and mail each address the
    accounts it has. `caller_name`: the signed-in user who asked, else the address is named."""
    stamp = now14()
    by_address: dict[str, list[tuple[ResetTarget, str]]] = defaultdict(list)
    for target, plain, hashed in targets:
        conn.execute(
            sa.update(schema.user)
            .where(schema.user.c.user_id == target.id)
            .values(user_newpassword=hashed, user_newpass_time=stamp)
        )
        by_address[target.email.lower()].append((target, plain))
    for accounts in by_address.values():
        elements = "\n\n".join(
            mail_text(site, "passwordreset-emailelement", target.name, plain)
            for target, plain in accounts
        )
        key, who = (
            ("passwordreset-emailtext-user", caller_name)
            if caller_name
            else ("passwordreset-emailtext-ip", client_ip)
        )
        body = mail_text(
            site,
            key,
            who,
            elements,
            len(accounts),
            f"<{site.server}/w/index.php>",
            NEW_PASSWORD_EXPIRY_DAYS,
        )
        subject = mail_text(site, "passwordreset-emailtitle")
        first = accounts[0][0]
        send(conn, site, first.email, first.name, subject, body)


async def reset_passwords(
    db: Database,
    site: Site,
    raw_name: str | None,
    email: str | None,
    client_ip: str,
    caller_name: str | None,
) -> None:
    """Mail a temporary password to each account named. Says nothing of what it found: the
    caller's answer is the same for every request, as MediaWiki's."""
    name = normalize_username(raw_name) if raw_name else None
    if raw_name and name is None:
        return
    cutoff = ts14_ago(RESEND_HOURS * 3600)
    targets = await db.read(reset_targets, name, email or None, cutoff)
    if not targets:
        return
    made = []
    for target in targets:
        plain = new_temporary_password()
        made.append((target, plain, await workers.run(hash_password, plain)))
    await db.write(mail_temporary_passwords, site, made, client_ip, caller_name)


async def change_temporary_password(
    db: Database, user_id: int, password: str, people: AccountLinks | None
) -> None:
    """The new password chosen after signing in with a temporary one; the temporary password
    is gone after it, whoever keeps the password (a workspace member's is their one password
    for every service)."""
    if people is None or not await people.change_password("wiki", user_id, password):
        stored = await workers.run(hash_password, password)
        await db.write(set_password, user_id, password, stored)
    await db.write(clear_temporary_password, user_id)


def clear_temporary_password(conn: Conn, user_id: int) -> None:
    conn.execute(
        sa.update(schema.user)
        .where(schema.user.c.user_id == user_id)
        .values(user_newpassword="", user_newpass_time=None)
    )
