"""The outbox: each service's table of mails to send, written in the transaction that causes them.

A mail is one row from its cause's commit until the mail server accepted it. A sender claims a
few due rows for a while (`claimed_until`), sends them, then marks them sent; one that dies between
leaves its claim to expire, and the rows are sent again by whoever claims them next: at least
once, and a repeat carries the same `Message-ID`. On PostgreSQL the claim skips rows another
worker holds locked (`FOR UPDATE SKIP LOCKED`); SQLite has one writer, so its claims never race.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import SMTP
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn

# A failed mail waits this long before its next try, doubling each time up to the cap.
FIRST_RETRY_SECONDS = 5.0
MAX_RETRY_SECONDS = 3600.0
# Sent rows are kept this long (what was sent, and when), then deleted.
KEEP_SENT_SECONDS = 7 * 86400.0


def outbox_table(metadata: sa.MetaData, name: str = "mail_outbox") -> sa.Table:
    """The outbox's columns, for a service's schema (each service keeps its own)."""
    table = sa.Table(
        name,
        metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("message_id", sa.String(255), nullable=False, unique=True),
        sa.Column("sender", sa.String(254), nullable=False),
        sa.Column("recipient", sa.String(254), nullable=False),
        # The whole mail as sent (headers and parts), 7-bit clean.
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("due", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("claimed_until", sa.Float, nullable=True),
        sa.Column("sent", sa.Float, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
    )
    sa.Index(
        f"ix_{name}_due",
        table.c.due,
        sqlite_where=table.c.sent.is_(None),
        postgresql_where=table.c.sent.is_(None),
    )
    return table


@dataclass(frozen=True)
class Claimed:
    id: int
    message_id: str
    sender: str
    recipient: str
    message: bytes
    attempts: int


@dataclass(frozen=True)
class Outgoing:
    """A mail serialised for the outbox: made before the write transaction that stores it, so
    building and encoding a batch of mails does not hold the database's writer."""

    message_id: str
    sender: str
    recipient: str
    raw: str

    @classmethod
    def of(cls, message: EmailMessage) -> Outgoing:
        return cls(
            str(message["Message-ID"]),
            message["From"].addresses[0].addr_spec,
            message["To"].addresses[0].addr_spec,
            message.as_bytes(policy=SMTP).decode("ascii"),
        )


def enqueue(conn: Conn, table: sa.Table, message: EmailMessage | Outgoing, now: float) -> str:
    """Add `message` to the outbox in the caller's transaction; its Message-ID."""
    mail = message if isinstance(message, Outgoing) else Outgoing.of(message)
    conn.execute(
        sa.insert(table).values(
            message_id=mail.message_id,
            sender=mail.sender,
            recipient=mail.recipient,
            message=mail.raw,
            created=now,
            due=now,
            attempts=0,
        )
    )
    return mail.message_id


def _due(table: sa.Table, now: float) -> Any:
    c = table.c
    return sa.and_(
        c.sent.is_(None),
        c.due <= now,
        sa.or_(c.claimed_until.is_(None), c.claimed_until < now),
    )


def has_due(conn: Conn, table: sa.Table, now: float) -> bool:
    """Whether a claim would find anything: the sender's cheap look before it writes."""
    return conn.scalar(sa.select(table.c.id).where(_due(table, now)).limit(1)) is not None


def claim(conn: Conn, table: sa.Table, now: float, lease: float, limit: int) -> list[Claimed]:
    """Up to `limit` due rows, held for `lease` seconds by this sender."""
    c = table.c
    query = (
        sa.select(c.id, c.message_id, c.sender, c.recipient, c.message, c.attempts)
        .where(_due(table, now))
        .order_by(c.due, c.id)
        .limit(limit)
    )
    if not conn.is_sqlite:
        query = query.with_for_update(skip_locked=True)
    rows = conn.all(query)
    if not rows:
        return []
    ids = [int(row["id"]) for row in rows]
    conn.execute(sa.update(table).where(c.id.in_(ids)).values(claimed_until=now + lease))
    return [
        Claimed(
            int(row["id"]),
            row["message_id"],
            row["sender"],
            row["recipient"],
            str(row["message"]).encode("ascii"),
            int(row["attempts"]),
        )
        for row in rows
    ]


def mark_sent(conn: Conn, table: sa.Table, ids: list[int], now: float) -> None:
    if ids:
        c = table.c
        conn.execute(sa.update(table).where(c.id.in_(ids)).values(sent=now, claimed_until=None))


def retry_delay(attempts: int) -> float:
    """Seconds before the try after `attempts` failed ones."""
    return float(min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** max(0, attempts - 1)))


def mark_failed(conn: Conn, table: sa.Table, failed: list[tuple[Claimed, str]], now: float) -> None:
    for row, error in failed:
        attempts = row.attempts + 1
        conn.execute(
            sa.update(table)
            .where(table.c.id == row.id)
            .values(
                attempts=attempts,
                due=now + retry_delay(attempts),
                claimed_until=None,
                last_error=error[:1000],
            )
        )


def purge_sent(conn: Conn, table: sa.Table, now: float) -> None:
    c = table.c
    conn.execute(sa.delete(table).where(c.sent.is_not(None), c.sent < now - KEEP_SENT_SECONDS))


def backlog(conn: Conn, table: sa.Table) -> tuple[int, float | None]:
    """The mails not yet sent, and when the oldest of them was written (None if there are
    none): what an operator watches to see mail stuck behind a failing mail server."""
    c = table.c
    row = conn.one(
        sa.select(sa.func.count().label("unsent"), sa.func.min(c.created).label("oldest")).where(
            c.sent.is_(None)
        )
    )
    if row is None:
        return 0, None
    oldest = row["oldest"]
    return int(row["unsent"] or 0), None if oldest is None else float(oldest)
