"""The weekly digest mail, as Zulip's: on the organization's `digest_weekday`, when its
`digest_emails_enabled` is on, each member with `enable_digest_emails` who has not been active for
a while gets the week's busiest conversations in their streams and the streams created that
week, at most once a week."""

from __future__ import annotations

import html
import time
from typing import Any

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.missed_messages import unsubscribe_link
from atrium.chat.markdown.mentions import stream_narrow_url
from atrium.chat.queries.realm import default_realm
from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress, Composer

U = schema.user.c
WEEK = 7 * 86400
# Zulip's DIGEST_CUTOFF: only those not seen for five days get one.
INACTIVE_SECONDS = 5 * 86400
# A digest at most every six days, whatever the clock does around the weekday.
RESEND_SECONDS = 6 * 86400
HOT_CONVERSATIONS = 4
USERS_PER_BATCH = 50


def digest_due(conn: Conn, now: float) -> bool:
    realm = default_realm(conn)
    if realm is None or not realm.row.get("digest_emails_enabled"):
        return False
    return time.gmtime(now).tm_wday == int(realm.row.get("digest_weekday", 1))


def _recipients(conn: Conn, realm_id: int, now: float) -> list[Any]:
    """The next users due a digest; on PostgreSQL those no other worker is mailing."""
    P = schema.user_presence.c
    D = schema.digest_sent.c
    query = (
        sa.select(U.id, U.full_name, U.delivery_email)
        .outerjoin(schema.user_presence, P.user_id == U.id)
        .outerjoin(schema.digest_sent, D.user_id == U.id)
        .where(
            U.realm_id == realm_id,
            U.is_active == sa.true(),
            U.is_bot == sa.false(),
            U.enable_digest_emails == sa.true(),
            sa.or_(P.last_active_time.is_(None), P.last_active_time < now - INACTIVE_SECONDS),
            sa.or_(D.sent.is_(None), D.sent < now - RESEND_SECONDS),
        )
        .order_by(U.id)
        .limit(USERS_PER_BATCH)
    )
    if not conn.is_sqlite:
        query = query.with_for_update(skip_locked=True, of=schema.user)
    return conn.all(query)


def _hot_conversations(conn: Conn, user_id: int, since: float) -> list[Any]:
    M = schema.message.c
    S = schema.subscription.c
    ST = schema.stream.c
    count = sa.func.count(M.id).label("count")
    return conn.all(
        sa.select(ST.id, ST.name, M.topic, count)
        .join(schema.stream, ST.id == M.stream_id)
        .join(schema.subscription, sa.and_(S.stream_id == ST.id, S.user_id == user_id))
        .where(S.active == sa.true(), M.date_sent >= since, ST.deactivated == sa.false())
        .group_by(ST.id, ST.name, M.topic)
        .order_by(count.desc(), ST.name, M.topic)
        .limit(HOT_CONVERSATIONS)
    )


def _new_streams(conn: Conn, realm_id: int, since: float) -> list[Any]:
    ST = schema.stream.c
    return conn.all(
        sa.select(ST.id, ST.name)
        .where(
            ST.realm_id == realm_id,
            ST.date_created >= since,
            ST.invite_only == sa.false(),
            ST.deactivated == sa.false(),
        )
        .order_by(ST.name)
    )


def mail_digests(conn: Conn, composer: Composer, secret: bytes, now: float) -> int:
    """Write this week's digests of up to a batch of users; how many (0: nothing more to do)."""
    realm = default_realm(conn)
    if realm is None or not digest_due(conn, now):
        return 0
    since = now - WEEK
    new_streams = _new_streams(conn, realm.id, since)
    handled = 0
    for user in _recipients(conn, realm.id, now):
        handled += 1
        conn.execute(
            sa.delete(schema.digest_sent).where(schema.digest_sent.c.user_id == user["id"])
        )
        conn.execute(sa.insert(schema.digest_sent).values(user_id=user["id"], sent=now))
        hot = _hot_conversations(conn, int(user["id"]), since)
        if not hot and not new_streams:
            continue  # Zulip sends no empty digest
        _mail(conn, composer, secret, realm.name, user, hot, new_streams, now)
    return handled


def _mail(
    conn: Conn,
    composer: Composer,
    secret: bytes,
    realm_name: str,
    user: Any,
    hot: list[Any],
    new_streams: list[Any],
    now: float,
) -> None:
    unsubscribe = unsubscribe_link(composer, secret, "digest", int(user["id"]))
    lines, items = [f"Hi {user['full_name']}, here is what happened in {realm_name} this week."], []
    if hot:
        lines.append("\nHot conversations:")
        items.append("<h3>Hot conversations</h3><ul>")
        for row in hot:
            link = composer.link(stream_narrow_url(int(row["id"]), row["name"], row["topic"]))
            label = f"#{row['name']} > {row['topic']} ({row['count']} messages)"
            lines.append(f"- {label}: {link}")
            items.append(f'<li><a href="{html.escape(link)}">{html.escape(label)}</a></li>')
        items.append("</ul>")
    if new_streams:
        lines.append("\nNew streams:")
        items.append("<h3>New streams</h3><ul>")
        for row in new_streams:
            link = composer.link(stream_narrow_url(int(row["id"]), row["name"]))
            lines.append(f"- #{row['name']}: {link}")
            items.append(f'<li><a href="{html.escape(link)}">#{html.escape(row["name"])}</a></li>')
        items.append("</ul>")
    lines.append(f"\nStop these mails: {unsubscribe}\n")
    items.append(f'<p><small><a href="{html.escape(unsubscribe)}">Unsubscribe</a></small></p>')
    try:
        mail = composer.compose(
            user["delivery_email"],
            f"{realm_name} digest",
            "\n".join(lines),
            f"<p>Hi {html.escape(user['full_name'])}, here is what happened in "
            f"{html.escape(realm_name)} this week.</p>" + "".join(items),
            to_name=user["full_name"],
            from_name=realm_name,
            unsubscribe_url=unsubscribe,
            now=now,
        )
    except BadAddress:
        return
    outbox.enqueue(conn, schema.mail_outbox, mail, now)
