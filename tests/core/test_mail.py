"""Outgoing mail: composing (headers, parts, no injection), the outbox's claims on both databases,
and the sender against a real SMTP server, stopped and started again."""

from __future__ import annotations

import email
import email.policy
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
from psycopg.rows import dict_row

from atrium.core.db import Conn, Database, SQLiteDatabase, open_database, postgres_conninfo
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress, Composer
from atrium.core.mail.transport import IDLE_SECONDS, SinkTransport, SmtpTransport
from atrium.settings import MailSettings, Settings
from atrium.workspace.mail_sender import BATCH, MailSender, Outbox
from tests.conftest import PostgresServer, free_port
from tests.mail_server import SmtpServer, html_part, text_part

pytestmark = pytest.mark.anyio

metadata = sa.MetaData()
TABLE = outbox.outbox_table(metadata)
COMPOSER = Composer(
    "https://chat.example.org", "Atrium <atrium@example.org>", "noreply@example.org"
)


def _mail(to: str, subject: str = "Hello", name: str = "") -> email.message.EmailMessage:
    return Composer(
        "https://chat.example.org", "atrium@example.org", "noreply@example.org"
    ).compose(to, subject, "Plain text", "<p>HTML</p>", to_name=name)


def test_a_mail_has_both_parts_and_every_header() -> None:
    settings = Settings(external_url="https://team.example.org/")
    composer = Composer.from_settings(settings)
    message = composer.compose(
        "ann@example.com",
        "Reset your password",
        "Go to " + composer.link("/x"),
        "<a href='https://team.example.org/x'>x</a>",
        unsubscribe_url=composer.link("/accounts/unsubscribe/digest/abc"),
    )
    parsed = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
    assert parsed["From"] == "noreply@team.example.org"
    assert parsed["Reply-To"] == "noreply@team.example.org"
    assert parsed["To"] == "ann@example.com"
    assert parsed["Message-ID"].endswith("@team.example.org>")
    assert parsed["Date"].datetime.timestamp() == pytest.approx(time.time(), abs=5)
    assert parsed["List-Unsubscribe"] == (
        "<https://team.example.org/accounts/unsubscribe/digest/abc>"
    )
    assert "https://team.example.org/x" in text_part(parsed)  # type: ignore[arg-type]
    assert "<a href=" in html_part(parsed)  # type: ignore[arg-type]


@pytest.mark.parametrize("evil", ["x\r\nBcc: victim@example.net", "x\nBcc: victim@example.net"])
def test_names_and_subjects_cannot_inject_headers(evil: str) -> None:
    message = COMPOSER.compose(
        "ann@example.com", evil, "t", "<p>t</p>", to_name=evil, from_name=evil
    )
    raw = message.as_bytes()
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    assert parsed["Bcc"] is None
    assert b"\nBcc:" not in raw
    assert "Bcc: victim" in parsed["Subject"]  # kept as text on the one line


@pytest.mark.parametrize("bad", ["ann@example.com\r\nBcc: x@y.z", "no-at-sign", "a@b@c", "@x"])
def test_a_bad_address_is_refused(bad: str) -> None:
    with pytest.raises(BadAddress):
        COMPOSER.compose(bad, "s", "t", "<p>t</p>")


def _create(conn: Conn) -> None:
    for statement in (sa.schema.CreateTable(TABLE), *map(sa.schema.CreateIndex, TABLE.indexes)):
        conn.execute(str(statement.compile(dialect=conn.dialect)))


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[SQLiteDatabase]:
    db = SQLiteDatabase(tmp_path / "t.sqlite3")
    db.write_sync(_create)
    yield db
    db.close()


def _enqueue(db: Database, count: int, to: str = "ann@example.com") -> list[str]:
    def add(conn: Conn) -> list[str]:
        return [outbox.enqueue(conn, TABLE, _mail(to, f"n{i}"), time.time()) for i in range(count)]

    return db.write_sync(add)


def test_a_claim_holds_rows_until_it_expires_and_a_sent_row_is_done(
    sqlite_db: SQLiteDatabase,
) -> None:
    _enqueue(sqlite_db, 3)
    now = time.time()
    first = sqlite_db.write_sync(outbox.claim, TABLE, now, 60.0, 2)
    assert len(first) == 2
    second = sqlite_db.write_sync(outbox.claim, TABLE, now, 60.0, 10)
    assert [r.id for r in second] == [3]
    # The first sender died: after its claim expires, its rows are claimed again.
    again = sqlite_db.write_sync(outbox.claim, TABLE, now + 61, 60.0, 10)
    assert sorted(r.id for r in again) == [1, 2, 3]
    sqlite_db.write_sync(outbox.mark_sent, TABLE, [1, 2, 3], now + 62)
    assert sqlite_db.write_sync(outbox.claim, TABLE, now + 1000, 60.0, 10) == []


def test_a_failed_row_waits_longer_each_time(sqlite_db: SQLiteDatabase) -> None:
    _enqueue(sqlite_db, 1)
    now = time.time()
    [row] = sqlite_db.write_sync(outbox.claim, TABLE, now, 60.0, 10)
    sqlite_db.write_sync(outbox.mark_failed, TABLE, [(row, "refused")], now)
    assert sqlite_db.write_sync(outbox.claim, TABLE, now + 4, 60.0, 10) == []
    [row] = sqlite_db.write_sync(outbox.claim, TABLE, now + 5, 60.0, 10)
    assert row.attempts == 1
    assert [outbox.retry_delay(n) for n in (1, 2, 3)] == [5.0, 10.0, 20.0]
    assert outbox.retry_delay(100) == outbox.MAX_RETRY_SECONDS


def test_postgres_workers_claim_disjoint_rows(postgres_server: PostgresServer) -> None:
    url = postgres_server.empty_database("chat")
    from atrium.chat.schema import mail_outbox

    db = open_database(url, Path("/nonexistent"), "chat")
    try:

        def add(conn: Conn) -> None:
            for i in range(4):
                outbox.enqueue(conn, mail_outbox, _mail("ann@example.com", f"n{i}"), time.time())

        db.write_sync(add)
        now = time.time()
        with psycopg.connect(
            postgres_conninfo(url), options="-c search_path=chat", row_factory=dict_row
        ) as holder:
            # One worker's claim, its transaction still open: its rows are locked.
            conn = Conn(holder, db.dialect)  # type: ignore[attr-defined]
            mine = outbox.claim(conn, mail_outbox, now, 60.0, 2)
            theirs = db.write_sync(outbox.claim, mail_outbox, now, 60.0, 10)
            assert {r.id for r in mine}.isdisjoint({r.id for r in theirs})
            assert len(mine) + len(theirs) == 4
    finally:
        db.close()


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer(free_port())
    server.start()
    yield server
    server.stop()


def _sender(port: int) -> MailSender:
    settings = MailSettings(smtp_host="127.0.0.1", smtp_port=port, smtp_security="none")
    return MailSender(SmtpTransport(settings), claim_seconds=60.0)


async def test_the_sender_delivers_and_survives_the_server_going_away(
    sqlite_db: SQLiteDatabase, smtp: SmtpServer
) -> None:
    box = Outbox("test", sqlite_db, TABLE)
    sender = _sender(smtp.port)
    ids = _enqueue(sqlite_db, 3, "bob@example.com")
    while await sender.drain_once(box):
        pass
    assert [m["Message-ID"] for m in smtp.inbox.wait_for("bob@example.com", 3)] == ids

    smtp.stop()
    later = _enqueue(sqlite_db, 4, "cy@example.com")
    assert await sender.drain_once(box) == 4  # all four refused: the server is gone
    rows = sqlite_db.read_sync(
        lambda c: c.all(sa.select(TABLE.c.attempts, TABLE.c.sent).where(TABLE.c.sent.is_(None)))
    )
    assert [(r["attempts"], r["sent"]) for r in rows] == [(1, None)] * 4
    smtp.start()
    sqlite_db.write_sync(lambda c: c.execute(sa.update(TABLE).values(due=0)))
    while await sender.drain_once(box):
        pass
    assert sorted(m["Message-ID"] for m in smtp.inbox.to("cy@example.com")) == sorted(later)
    sender.transport.close()


async def test_one_connection_serves_batch_after_batch_and_reopens_when_gone(
    sqlite_db: SQLiteDatabase, smtp: SmtpServer
) -> None:
    box = Outbox("test", sqlite_db, TABLE)
    sender = _sender(smtp.port)
    # More than two batches, drained with the next batch claimed while one is being sent.
    count = BATCH * 2 + 5
    ids = _enqueue(sqlite_db, count, "dee@example.com")
    assert await sender.drain(box) == count
    arrived = smtp.inbox.wait_for("dee@example.com", count)
    assert sorted(m["Message-ID"] for m in arrived) == sorted(ids)
    assert len(set(smtp.inbox.peers)) == 1  # one connection for every batch
    unsent = sqlite_db.read_sync(
        lambda c: c.scalar(sa.select(sa.func.count()).where(TABLE.c.sent.is_(None)))
    )
    assert unsent == 0
    # The server restarts: the kept connection is gone, and the next batch opens another
    # without counting a failure.
    smtp.stop()
    smtp.start()
    later = _enqueue(sqlite_db, 2, "eve@example.com")
    assert await sender.drain(box) == 2
    assert sorted(m["Message-ID"] for m in smtp.inbox.wait_for("eve@example.com", 2)) == sorted(
        later
    )
    attempts = sqlite_db.read_sync(lambda c: c.scalars(sa.select(TABLE.c.attempts)))
    assert set(attempts) == {0}
    assert len(set(smtp.inbox.peers)) == 2
    # Idle for long enough, the connection is closed; the next mail opens a new one.
    sender.transport.close_idle(time.monotonic() + IDLE_SECONDS + 1)
    _enqueue(sqlite_db, 1, "fay@example.com")
    assert await sender.drain(box) == 1
    smtp.inbox.wait_for("fay@example.com")
    assert len(set(smtp.inbox.peers)) == 3
    sender.transport.close()


def test_the_sink_writes_one_file_per_message_id(tmp_path: Path) -> None:
    db = SQLiteDatabase(tmp_path / "t.sqlite3")
    try:
        db.write_sync(_create)
        [message_id] = _enqueue(db, 1)
        [row] = db.write_sync(outbox.claim, TABLE, time.time(), 60.0, 10)
        sink = SinkTransport(tmp_path / "mail-sink")
        assert sink.send_batch([row]) == {}
        assert sink.send_batch([row]) == {}  # a repeat overwrites its first copy
        [path] = (tmp_path / "mail-sink").iterdir()
        assert path.suffix == ".eml"
        parsed = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert parsed["Message-ID"] == message_id
    finally:
        db.close()
