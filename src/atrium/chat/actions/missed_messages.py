"""Missed-message mails, as Zulip sends them: a direct message, a mention, an alert word, or a
message to a stream whose email notifications are on, still unread after the recipient's
`email_notifications_batching_period_seconds`, is mailed to them, one mail per conversation.

`queue_missed_messages` runs in the send's transaction and records what may need a mail. Later a
background loop (chat/email_notifications.py) builds the mails of what is still unread in a read
(`due_mails`), then stores them in the outbox and forgets those notices in one short write
(`store_due_mails`): building a batch of mails inside the write held every send behind it. A
notice that changed in between is left for the next pass, so each is mailed at most once.
"""

from __future__ import annotations

import html
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.chat.markdown.mentions import stream_narrow_url
from atrium.chat.queries.realm import load_realm
from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress, Composer
from atrium.core.mail.outbox import Outgoing
from atrium.core.signing import sign

U = schema.user.c
M = schema.missed_message_email.c
MSG = schema.message.c
UM = schema.user_message.c
SUB = schema.subscription.c

PRIVATE, MENTIONED, WILDCARD, ALERT_WORD, STREAM = (
    "private_message",
    "mentioned",
    "wildcard_mentioned",
    "alert_word",
    "stream_email_notify",
)
# realm_name_in_email_notifications_policy: 1 automatic (one organization: no), 2 always, 3 never.
REALM_NAME_ALWAYS = 2
# An unsubscribe link works for as long as a person may keep an old mail: ten years.
UNSUBSCRIBE_SECONDS = 10 * 365 * 86400
# At most this many users' due notices are mailed per pass.
USERS_PER_BATCH = 50
# At most this many messages are quoted in one mail.
MESSAGES_PER_MAIL = 20


def unsubscribe_link(composer: Composer, secret: bytes, kind: str, user_id: int) -> str:
    token = sign(secret, f"unsubscribe:{kind}:{user_id}", UNSUBSCRIBE_SECONDS)
    return composer.link(f"/accounts/unsubscribe/{kind}/{token}")


def queue_missed_messages(
    conn: Conn,
    message_id: int,
    sender_id: int,
    stream_id: int | None,
    private_to: Iterable[int],
    mentioned: Iterable[int],
    alerted: Iterable[int],
    skip: set[int],
    now: float,
    wildcard_to: Iterable[int] = (),
) -> None:
    """Record who may get a mail about a new message; `skip`: who has it read already;
    `wildcard_to`: the subscribers an @**all** (or @**topic**) mention reaches."""
    triggers: dict[int, str] = {}
    for uid in wildcard_to:
        triggers[uid] = WILDCARD
    for uid in alerted:
        triggers[uid] = ALERT_WORD
    for uid in mentioned:
        triggers[uid] = MENTIONED
    for uid in private_to:
        triggers[uid] = PRIVATE
    if stream_id is not None:
        wanting = conn.scalars(
            sa.select(SUB.user_id)
            .join(schema.user, U.id == SUB.user_id)
            .where(
                SUB.stream_id == stream_id,
                SUB.active == sa.true(),
                sa.or_(
                    SUB.email_notifications == sa.true(),
                    sa.and_(
                        SUB.email_notifications.is_(None),
                        U.enable_stream_email_notifications == sa.true(),
                    ),
                ),
            )
        )
        for uid in wanting:
            triggers.setdefault(int(uid), STREAM)
    candidates = {uid: t for uid, t in triggers.items() if uid != sender_id and uid not in skip}
    if not candidates:
        return
    rows = conn.all(
        sa.select(
            U.id,
            U.enable_offline_email_notifications,
            U.wildcard_mentions_notify,
            U.email_notifications_batching_period_seconds,
        ).where(U.id.in_(list(candidates)), U.is_active == sa.true(), U.is_bot == sa.false())
    )
    values = []
    for row in rows:
        trigger = candidates[int(row["id"])]
        if trigger != STREAM and not row["enable_offline_email_notifications"]:
            continue
        if trigger == WILDCARD and not row["wildcard_mentions_notify"]:
            continue
        due = now + float(row["email_notifications_batching_period_seconds"])
        values.append((int(row["id"]), message_id, trigger, due))
    if values:
        conn.insert_tuples(
            schema.missed_message_email, ("user_id", "message_id", "trigger", "due"), values
        )


@dataclass(frozen=True)
class DueMails:
    """One user's due notices and the mails they make (none when nothing is unread now)."""

    user_id: int
    notice_ids: frozenset[int]
    mails: tuple[Outgoing, ...]


def due_mails(conn: Conn, composer: Composer, secret: bytes, now: float) -> list[DueMails]:
    """The mails of the users whose batching period is over: what they still have unread, one
    mail per conversation. Only reads; `store_due_mails` writes them."""
    query = sa.select(M.user_id).where(M.due <= now).order_by(M.due).limit(USERS_PER_BATCH)
    user_ids = sorted({int(uid) for uid in conn.scalars(query)})
    if not user_ids:
        return []
    notices = conn.all(
        sa.select(M.id, M.user_id, M.message_id, M.trigger).where(M.user_id.in_(user_ids))
    )
    by_user: dict[int, dict[int, str]] = defaultdict(dict)
    ids: dict[int, set[int]] = defaultdict(set)
    for notice in notices:
        by_user[int(notice["user_id"])][int(notice["message_id"])] = notice["trigger"]
        ids[int(notice["user_id"])].add(int(notice["id"]))
    return [
        DueMails(
            user_id,
            frozenset(ids[user_id]),
            tuple(_mail_user(conn, composer, secret, user_id, triggers, now)),
        )
        for user_id, triggers in by_user.items()
    ]


def store_due_mails(conn: Conn, due: list[DueMails], now: float) -> tuple[int, int]:
    """Write each user's mails to the outbox and forget their notices, when those notices are
    all still there and not held by another worker (PostgreSQL's `SKIP LOCKED`); the mails
    written and the users handled."""
    written = handled = 0
    for item in due:
        claim = sa.select(M.id).where(M.id.in_(sorted(item.notice_ids)))
        if not conn.is_sqlite:
            claim = claim.with_for_update(skip_locked=True)
        if {int(i) for i in conn.scalars(claim)} != item.notice_ids:
            continue  # read, mailed or held elsewhere meanwhile: the next pass looks again
        conn.execute(
            sa.delete(schema.missed_message_email).where(M.id.in_(sorted(item.notice_ids)))
        )
        for mail in item.mails:
            outbox.enqueue(conn, schema.mail_outbox, mail, now)
        written += len(item.mails)
        handled += 1
    return written, handled


def _unread(conn: Conn, user_id: int, message_ids: list[int]) -> list[Any]:
    return conn.all(
        sa.select(
            MSG.id,
            MSG.sender_id,
            MSG.recipient_id,
            MSG.stream_id,
            MSG.topic,
            MSG.content,
            MSG.date_sent,
        )
        .join(schema.user_message, sa.and_(UM.message_id == MSG.id, UM.user_id == user_id))
        .where(MSG.id.in_(message_ids), UM.flags.op("&")(flags.READ) == 0)
        .order_by(MSG.id)
    )


def _mail_user(
    conn: Conn,
    composer: Composer,
    secret: bytes,
    user_id: int,
    triggers: dict[int, str],
    now: float,
) -> list[Outgoing]:
    user = conn.one(sa.select(schema.user).where(U.id == user_id))
    if user is None or not user["is_active"]:
        return []
    messages = _unread(conn, user_id, sorted(triggers))
    if not messages:
        return []
    realm = load_realm(conn, user["realm_id"])
    show_content = bool(user["message_content_in_email_notifications"]) and bool(
        realm.row.get("message_content_allowed_in_email_notifications", True)
    )
    sender_ids = {int(m["sender_id"]) for m in messages}
    names = {
        int(r["id"]): str(r["full_name"])
        for r in conn.all(sa.select(U.id, U.full_name).where(U.id.in_(list(sender_ids))))
    }
    conversations: dict[tuple[int, str], list[Any]] = defaultdict(list)
    for message in messages:
        conversations[(int(message["recipient_id"]), str(message["topic"]))].append(message)
    prefix = (
        f"[{realm.name}] "
        if user["realm_name_in_email_notifications_policy"] == REALM_NAME_ALWAYS
        else ""
    )
    unsubscribe = unsubscribe_link(composer, secret, "missed_messages", user_id)
    mails: list[Outgoing] = []
    for (recipient_id, topic), batch in conversations.items():
        first = batch[0]
        if first["stream_id"] is not None:
            stream_name = conn.scalar(
                sa.select(schema.stream.c.name).where(schema.stream.c.id == first["stream_id"])
            )
            subject = f"#{stream_name} > {topic}"
            link = composer.link(
                stream_narrow_url(int(first["stream_id"]), str(stream_name), topic)
            )
        else:
            others = _dm_others(conn, recipient_id, int(first["sender_id"]), user_id)
            others_names = [names.get(o) or _name(conn, o) for o in others]
            subject = (
                f"Group DMs with {', '.join(others_names)}"
                if len(others) > 1
                else f"DMs with {others_names[0] if others_names else user['full_name']}"
            )
            link = composer.link(_dm_narrow(others or [user_id]))
        if not show_content:
            subject = "New messages"
        text, markup = _bodies(batch[:MESSAGES_PER_MAIL], names, show_content, link, unsubscribe)
        senders = {int(m["sender_id"]) for m in batch}
        from_name = names[senders.pop()] if len(senders) == 1 else realm.name
        try:
            mail = composer.compose(
                user["delivery_email"],
                prefix + subject,
                text,
                markup,
                to_name=user["full_name"],
                from_name=from_name,
                unsubscribe_url=unsubscribe,
                now=now,
            )
        except BadAddress:
            continue
        mails.append(Outgoing.of(mail))
    return mails


def _name(conn: Conn, user_id: int) -> str:
    return str(conn.scalar(sa.select(U.full_name).where(U.id == user_id)) or "")


def _dm_others(conn: Conn, recipient_id: int, sender_id: int, user_id: int) -> list[int]:
    """The other participants of a direct-message conversation: a 1:1 message is addressed to
    one side's personal recipient (the sender is the other side), a group one to its huddle."""
    R = schema.recipient.c
    row = conn.one(sa.select(R.type, R.type_id).where(R.id == recipient_id))
    if row is None:
        return []
    if row["type"] == schema.RECIPIENT_HUDDLE:
        H = schema.huddle_member.c
        members = {
            int(u) for u in conn.scalars(sa.select(H.user_id).where(H.huddle_id == row["type_id"]))
        }
    else:
        members = {int(row["type_id"]), sender_id}
    return sorted(members - {user_id})


def _dm_narrow(user_ids: list[int]) -> str:
    return "/#narrow/dm/" + ",".join(str(u) for u in user_ids)


def _bodies(
    batch: list[Any], names: dict[int, str], show_content: bool, link: str, unsubscribe: str
) -> tuple[str, str]:
    lines, items = [], []
    for message in batch:
        sender = names.get(int(message["sender_id"]), "Someone")
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(message["date_sent"])))
        if show_content:
            lines.append(f"{sender} ({when}):\n{message['content']}\n")
            items.append(
                f"<p><b>{html.escape(sender)}</b> ({when}):</p>"
                f'<blockquote style="white-space: pre-wrap">{html.escape(message["content"])}</blockquote>'
            )
        else:
            lines.append(f"{sender} sent a message ({when}).\n")
            items.append(f"<p><b>{html.escape(sender)}</b> sent a message ({when}).</p>")
    footer = (
        f"Reply in the app: {link}\n\n"
        "You are receiving this because you were mentioned or sent a direct message, or the"
        " conversation has email notifications on.\n"
        f"Stop these mails: {unsubscribe}\n"
    )
    text = "\n".join(lines) + "\n" + footer
    markup = (
        "".join(items)
        + f'<p><a href="{html.escape(link)}">Reply in the app</a></p>'
        + f'<p><small><a href="{html.escape(unsubscribe)}">Unsubscribe</a> from these mails.'
        + "</small></p>"
    )
    return text, markup
