"""Missed-message mails, as Zulip sends them: a direct message, a mention, an alert word, or a
message to a stream whose email notifications are on, still unread after the recipient's
`email_notifications_batching_period_seconds`, is mailed to them, one mail per conversation.

`queue_missed_messages` runs in the send's transaction and records what may need a mail;
`mail_due_missed_messages` (a background loop, chat/email_notifications.py) later writes the mails
of what is still unread to the outbox and forgets the rest. Both are one transaction each, so a
mail is queued exactly when its message is stored, and mailed at most once.

As Zulip 7, nobody is mailed about what reached them while they were on the chat: a recipient
is on the chat with a live event queue that takes messages and presence active within the
offline threshold (or presence off in the organization). Such a recipient's notice is held
(`HOLD_SECONDS`) rather than dropped, so that a client that vanished (its queue collected)
still leads to a mail, as Zulip's `missedmessage_hook`; and whoever is on the chat when a
period ends is not mailed either.
"""

from __future__ import annotations

import html
import time
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.chat.events.bus import QUEUE_TIMEOUT_SECONDS
from atrium.chat.markdown.mentions import stream_narrow_url
from atrium.chat.queries import user_topics
from atrium.chat.queries.presence import OFFLINE_THRESHOLD_SECONDS
from atrium.chat.queries.realm import load_realm
from atrium.core.db import Conn, InIdList, Prepared
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
# A mail to someone who looked present when the message came is held this much longer: if
# their client vanished without a word (a laptop closed), its queue is collected within this
# time, and the mail goes out then (Zulip's `missedmessage_hook`).
HOLD_SECONDS = float(QUEUE_TIMEOUT_SECONDS)
# At most this many users' due notices are mailed per transaction.
USERS_PER_BATCH = 50
# At most this many messages are quoted in one mail.
MESSAGES_PER_MAIL = 20


def unsubscribe_link(composer: Composer, secret: bytes, kind: str, user_id: int) -> str:
    token = sign(secret, f"unsubscribe:{kind}:{user_id}", UNSUBSCRIBE_SECONDS)
    return composer.link(f"/accounts/unsubscribe/{kind}/{token}")


def _allows(
    stream_muted: bool, policy: int, stream_setting: bool | None, user_setting: bool
) -> bool:
    """Zulip 7's hierarchy of a stream notification setting: a muted topic, or a muted stream
    whose topic is not unmuted, never notifies; else the subscription's own value, else the
    user's default."""
    if stream_muted and policy != user_topics.UNMUTED:
        return False
    if policy == user_topics.MUTED:
        return False
    return bool(user_setting) if stream_setting is None else bool(stream_setting)


def _stream_settings_query(wildcard: bool) -> Prepared:
    UT = schema.user_topic.c
    query = (
        sa.select(
            SUB.user_id,
            SUB.is_muted,
            SUB.email_notifications,
            SUB.wildcard_mentions_notify,
            U.enable_stream_email_notifications,
            U.wildcard_mentions_notify.label("user_wildcard_mentions_notify"),
            UT.visibility_policy,
        )
        .join(schema.user, U.id == SUB.user_id)
        .outerjoin(
            schema.user_topic,
            sa.and_(
                UT.user_id == SUB.user_id,
                UT.stream_id == SUB.stream_id,
                sa.func.lower(UT.topic_name) == sa.func.lower(sa.bindparam("topic")),
            ),
        )
        .where(SUB.stream_id == sa.bindparam("stream_id"), SUB.active == sa.true())
    )
    if not wildcard:
        # Most subscribers want no mail for a plain stream message: leave them in the database.
        query = query.where(
            sa.or_(
                SUB.email_notifications == sa.true(),
                sa.and_(
                    SUB.email_notifications.is_(None),
                    U.enable_stream_email_notifications == sa.true(),
                ),
            )
        )
    return Prepared(query)


# Compiled once: every stream message of every send asks one of them.
_STREAM_SETTINGS = {False: _stream_settings_query(False), True: _stream_settings_query(True)}

# The recipients' mail settings and their last activity (for the hold) in one statement.
_RECIPIENTS = Prepared(
    sa.select(
        U.id,
        U.realm_id,
        U.enable_offline_email_notifications,
        U.email_notifications_batching_period_seconds,
        schema.user_presence.c.last_active_time,
    )
    .select_from(schema.user)
    .outerjoin(schema.user_presence, schema.user_presence.c.user_id == U.id)
    .where(InIdList(U.id, "ids"), U.is_active == sa.true(), U.is_bot == sa.false())
)


def _stream_settings(
    conn: Conn, stream_id: int, topic: str, wildcard: bool
) -> tuple[set[int], set[int]]:
    """The subscribers whose settings want mail for any message of this topic, and (when the
    message holds a wildcard mention) those whose settings let it notify them."""
    query = _STREAM_SETTINGS[wildcard]
    streams: set[int] = set()
    wildcards: set[int] = set()
    for row in conn.all(query, {"stream_id": stream_id, "topic": topic}):
        muted, policy = bool(row["is_muted"]), int(row["visibility_policy"] or 0)
        uid = int(row["user_id"])
        if _allows(
            muted, policy, row["email_notifications"], row["enable_stream_email_notifications"]
        ):
            streams.add(uid)
        if wildcard and _allows(
            muted,
            policy,
            row["wildcard_mentions_notify"],
            row["user_wildcard_mentions_notify"],
        ):
            wildcards.add(uid)
    return streams, wildcards


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
    topic: str = "",
    presence_disabled: bool | None = None,
) -> frozenset[int]:
    """Record who may get a mail about a new message; `skip`: who has it read already;
    `wildcard_to`: the subscribers an @**all** mention reaches.

    Whoever looks present (recent activity in their presence) gets the mail held for
    `HOLD_SECONDS`, and is returned: Zulip mails nobody who is on the chat when a message
    arrives, and whether they are (a queue that takes messages) is known only after the commit,
    where `release_unheard` sends back to the normal period those who are not.
    `presence_disabled`: the organization's setting, when the caller has it at hand."""
    wildcard_to = set(wildcard_to)
    stream_wanting: set[int] = set()
    if stream_id is not None:
        stream_wanting, wildcard_wanting = _stream_settings(
            conn, stream_id, topic, bool(wildcard_to)
        )
        wildcard_to &= wildcard_wanting
    # Each user's possible reasons, in Zulip's order of precedence.
    reasons: dict[int, list[str]] = defaultdict(list)
    for trigger, uids in (
        (PRIVATE, private_to),
        (MENTIONED, mentioned),
        (WILDCARD, wildcard_to),
        (ALERT_WORD, alerted),
        (STREAM, stream_wanting),
    ):
        for uid in uids:
            if uid != sender_id and uid not in skip:
                reasons[int(uid)].append(trigger)
    if not reasons:
        return frozenset()
    rows = conn.all(_RECIPIENTS, {"ids": conn.id_list(reasons)})
    wanted: list[tuple[int, str, float]] = []
    for row in rows:
        # A direct message, a mention or an alert word mails only with offline email
        # notifications on; the stream's own setting does not depend on them.
        usable = [
            t
            for t in reasons[int(row["id"])]
            if t == STREAM or row["enable_offline_email_notifications"]
        ]
        if usable:
            due = now + float(row["email_notifications_batching_period_seconds"])
            wanted.append((int(row["id"]), usable[0], due))
    if not wanted:
        return frozenset()
    if presence_disabled is None:
        presence_disabled = _presence_disabled(conn, int(rows[0]["realm_id"]))
    # Presence came with the settings: no further lookup inside the send's transaction.
    active_since = now - OFFLINE_THRESHOLD_SECONDS
    recent = {
        int(row["id"])
        for row in rows
        if row["last_active_time"] is not None and row["last_active_time"] >= active_since
    }
    present = {w[0] for w in wanted if presence_disabled or w[0] in recent}
    conn.insert_tuples(
        schema.missed_message_email,
        ("user_id", "message_id", "trigger", "due"),
        [
            (uid, message_id, trigger, due + (HOLD_SECONDS if uid in present else 0.0))
            for uid, trigger, due in wanted
        ],
    )
    return frozenset(present)


def present_users(conn: Conn, realm_id: int, user_ids: Iterable[int], now: float) -> set[int]:
    """Those of `user_ids` whose presence was active within the offline threshold: with a queue
    that takes messages they are on the chat. With presence off in the organization, everyone
    counts as present, and only the queue decides (as Zulip 7)."""
    ids = set(user_ids)
    if not ids:
        return set()
    if _presence_disabled(conn, realm_id):
        return ids
    P = schema.user_presence.c
    return {
        int(uid)
        for uid in conn.scalars(
            sa.select(P.user_id).where(
                P.user_id.in_(list(ids)),
                P.last_active_time >= now - OFFLINE_THRESHOLD_SECONDS,
            )
        )
    }


def _presence_disabled(conn: Conn, realm_id: int) -> bool:
    return bool(
        conn.scalar(
            sa.select(schema.realm.c.presence_disabled).where(schema.realm.c.id == realm_id)
        )
    )


def release_unheard(conn: Conn, held: dict[int, frozenset[int]]) -> None:
    """Give back their normal batching period to the held mails of recipients found not on the
    chat after all (no queue that takes messages)."""
    M_ = schema.missed_message_email
    for message_id, user_ids in held.items():
        conn.execute(
            sa.update(M_)
            .where(M.message_id == message_id, M.user_id.in_(list(user_ids)))
            .values(due=M.due - HOLD_SECONDS)
        )


def due_users(conn: Conn, now: float) -> list[int]:
    """Users with notices due, for the mailer to ask the event queues which are on the chat."""
    query = sa.select(M.user_id).where(M.due <= now).order_by(M.due).limit(USERS_PER_BATCH * 4)
    return sorted({int(uid) for uid in conn.scalars(query)})


@dataclass(frozen=True)
class DueMails:
    """One user's due notices and the mails they make (none when nothing is unread now, or
    when the user is on the chat)."""

    user_id: int
    notice_ids: frozenset[int]
    mails: tuple[Outgoing, ...]


def due_mails(
    conn: Conn,
    composer: Composer,
    secret: bytes,
    now: float,
    listening: Collection[int] = (),
    among: Collection[int] | None = None,
) -> list[DueMails]:
    """The mails of the users whose batching period is over: what they still have unread, one
    mail per conversation. Only reads: building a batch of mails inside a write held every send
    behind it; `store_due_mails` writes them.

    `listening`: the users holding a queue that takes messages; one of them whose presence is
    active now is on the chat and has seen the messages arrive, and is not mailed. `among`:
    only these users (those the caller asked the queues about)."""
    query = sa.select(M.user_id).where(M.due <= now).order_by(M.due).limit(USERS_PER_BATCH)
    if among is not None:
        query = query.where(M.user_id.in_(list(among)))
    user_ids = sorted({int(uid) for uid in conn.scalars(query)})
    if not user_ids:
        return []
    # All of the user's notices go in one batch, as Zulip batches what arrived meanwhile.
    notices = conn.all(
        sa.select(M.id, M.user_id, M.message_id, M.trigger).where(M.user_id.in_(user_ids))
    )
    on_chat = _on_chat(conn, set(user_ids) & set(listening), now)
    by_user: dict[int, dict[int, str]] = defaultdict(dict)
    ids: dict[int, set[int]] = defaultdict(set)
    for notice in notices:
        ids[int(notice["user_id"])].add(int(notice["id"]))
        if int(notice["user_id"]) not in on_chat:
            by_user[int(notice["user_id"])][int(notice["message_id"])] = notice["trigger"]
    return [
        DueMails(
            user_id,
            frozenset(notice_ids),
            tuple(_mail_user(conn, composer, secret, user_id, by_user[user_id], now))
            if user_id in by_user
            else (),
        )
        for user_id, notice_ids in ids.items()
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


def mail_due_missed_messages(
    conn: Conn,
    composer: Composer,
    secret: bytes,
    now: float,
    listening: Collection[int] = (),
    among: Collection[int] | None = None,
) -> int:
    """Both steps in one transaction, for a caller already in a write (the mails written)."""
    due = due_mails(conn, composer, secret, now, listening, among)
    return store_due_mails(conn, due, now)[0]


def _on_chat(conn: Conn, listening: set[int], now: float) -> set[int]:
    """Those of the listening users whose presence is active (per organization)."""
    if not listening:
        return set()
    realms: dict[int, list[int]] = defaultdict(list)
    for row in conn.all(sa.select(U.id, U.realm_id).where(U.id.in_(list(listening)))):
        realms[int(row["realm_id"])].append(int(row["id"]))
    found: set[int] = set()
    for realm_id, ids in realms.items():
        found |= present_users(conn, realm_id, ids, now)
    return found


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
