"""The mail that tells a person their account was signed in to from a browser, as Zulip's
`enable_login_emails` sends it, with a way to reset the password and to stop such mails."""

from __future__ import annotations

import html
import time

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.missed_messages import unsubscribe_link
from atrium.chat.events import Outcome
from atrium.chat.queries.realm import load_realm
from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress, Composer

MAX_AGENT = 200


def mail_new_login(
    conn: Conn, composer: Composer, secret: bytes, user_id: int, user_agent: str, address: str
) -> Outcome[None]:
    user = conn.one(sa.select(schema.user).where(schema.user.c.id == user_id))
    if user is None or not user["enable_login_emails"] or user["is_bot"]:
        return Outcome(None, [])
    realm = load_realm(conn, user["realm_id"])
    now = time.time()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(now))
    agent = user_agent[:MAX_AGENT] or "an unknown browser"
    reset = composer.link("/accounts/password/reset/")
    unsubscribe = unsubscribe_link(composer, secret, "login", user_id)
    text = (
        f"Hi {user['full_name']},\n\n"
        f"Your account {user['delivery_email']} in {realm.name} ({composer.base_url}) was signed"
        f" in to at {when} from {agent} (address {address or 'unknown'}).\n\n"
        f"If this was not you, reset your password now: {reset}\n\n"
        f"Stop these mails: {unsubscribe}\n"
    )
    markup = (
        f"<p>Hi {html.escape(user['full_name'])},</p>"
        f"<p>Your account <b>{html.escape(user['delivery_email'])}</b> in "
        f"{html.escape(realm.name)} was signed in to at {when} from {html.escape(agent)} "
        f"(address {html.escape(address or 'unknown')}).</p>"
        f'<p>If this was not you, <a href="{html.escape(reset)}">reset your password</a> now.</p>'
        f'<p><small><a href="{html.escape(unsubscribe)}">Unsubscribe</a> from these mails.'
        "</small></p>"
    )
    try:
        mail = composer.compose(
            user["delivery_email"],
            f"New login to {realm.name}",
            text,
            markup,
            to_name=user["full_name"],
            from_name=realm.name,
            unsubscribe_url=unsubscribe,
            now=now,
        )
    except BadAddress:
        return Outcome(None, [])
    outbox.enqueue(conn, schema.mail_outbox, mail, now)
    return Outcome(None, [])
