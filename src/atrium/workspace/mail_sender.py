"""The one sender that drains every service's mail outbox, in the background of each process.

Each service writes its mails to its own outbox table (`core/mail/outbox.py`); this loop claims
due rows from each in turn, hands them to the mail server (or the mail sink) in a thread, and marks
them sent or due again later. While one batch is with the mail server the next is claimed and the
last one marked, so the database's share of the work does not slow a burst down. Every worker of
a scale-out deployment runs it: the claims keep two workers from sending the same mail at once,
and an expired claim lets another finish a dead worker's batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn, Database
from atrium.core.mail import outbox
from atrium.core.mail.transport import Transport, transport_for
from atrium.core.service import Service
from atrium.settings import Settings

log = logging.getLogger("atrium.mail")

# Seconds between looks at an idle outbox (a look is one indexed read).
POLL_SECONDS = 1.0
# Mails claimed at once; a sender holds at most HELD_BATCHES of them (the batch being sent and
# the next, claimed meanwhile): what a process holds in memory of an outbox, however long it is.
BATCH = 20
HELD_BATCHES = 2
# Sent rows older than outbox.KEEP_SENT_SECONDS are deleted about this often.
PURGE_SECONDS = 3600.0


@dataclass(frozen=True)
class Outbox:
    name: str
    db: Database
    table: sa.Table


class MailSender:
    def __init__(self, transport: Transport, claim_seconds: float) -> None:
        self.transport = transport
        self.claim_seconds = claim_seconds

    async def _claim(self, box: Outbox) -> list[outbox.Claimed]:
        now = time.time()
        if not await box.db.read(outbox.has_due, box.table, now):
            return []
        batch: list[outbox.Claimed] = await box.db.write(
            outbox.claim, box.table, now, self.claim_seconds, BATCH, rerunnable=True
        )
        return batch

    async def _settle(
        self, box: Outbox, batch: list[outbox.Claimed], errors: dict[int, str]
    ) -> None:
        sent = [row.id for row in batch if row.id not in errors]
        failed = [(row, errors[row.id]) for row in batch if row.id in errors]
        for row, error in failed:
            log.warning("mail %s to %s not sent: %s", row.message_id, row.recipient, error)

        def settle(conn: Conn) -> None:
            done = time.time()
            outbox.mark_sent(conn, box.table, sent, done)
            outbox.mark_failed(conn, box.table, failed, done)

        await box.db.write(settle, rerunnable=True)

    async def drain_once(self, box: Outbox) -> int:
        """Claim and send one batch of `box`'s due mails; how many were claimed."""
        batch = await self._claim(box)
        if batch:
            await self._settle(box, batch, await self.transport.deliver(batch))
        return len(batch)

    async def drain(self, box: Outbox) -> int:
        """Send `box`'s due mails until none is left; how many were claimed. The next batch
        is claimed, and the last one marked, while a batch is with the mail server."""
        total = 0
        batch = await self._claim(box)
        sending = asyncio.ensure_future(self.transport.deliver(batch)) if batch else None
        try:
            while sending is not None:
                total += len(batch)
                # A short batch was all that was due: the next look waits for the loop.
                following = await self._claim(box) if len(batch) == BATCH else []
                errors = await sending
                sending = None
                if following:
                    sending = asyncio.ensure_future(self.transport.deliver(following))
                await self._settle(box, batch, errors)
                batch = following
        except Exception:
            if sending is not None:
                # A failure left a batch with the mail server: it is marked when it is back
                # (left unmarked, its claim would expire and it would go again).
                with contextlib.suppress(Exception):
                    await self._settle(box, batch, await sending)
            raise
        return total

    async def run(self, boxes: list[Outbox]) -> None:
        last_purge = 0.0
        try:
            while True:
                busy = False
                purge = time.time() - last_purge > PURGE_SECONDS
                if purge:
                    last_purge = time.time()
                for box in boxes:
                    try:
                        if purge:
                            await box.db.write(outbox.purge_sent, box.table, time.time())
                        busy = await self.drain(box) > 0 or busy
                    except Exception:  # a database hiccup must not end the loop for good
                        log.exception("mail outbox %s", box.name)
                if not busy:
                    await self.transport.rest()
                    await asyncio.sleep(POLL_SECONDS)
        finally:
            await asyncio.to_thread(self.transport.close)


def _outboxes(parts: list[Service]) -> list[Outbox]:
    boxes = []
    for part in parts:
        runtime = part.state.get("runtime")
        if runtime is None:
            continue
        if part.name == "chat":
            from atrium.chat.schema import mail_outbox as chat_outbox

            boxes.append(Outbox("chat", runtime.db, chat_outbox))
        elif part.name == "wiki":
            from atrium.wiki.schema import mail_outbox as wiki_outbox

            boxes.append(Outbox("wiki", runtime.db, wiki_outbox))
    return boxes


def mail_sender_service(settings: Settings, parts: list[Service]) -> Service:
    """A service with no routes whose start-up begins draining the outboxes of `parts`; it must
    start after them (their runtimes exist once their start-up hooks ran)."""
    sender = MailSender(
        transport_for(settings.mail, settings.mail_sink_dir), settings.mail.claim_seconds
    )
    tasks: list[asyncio.Task[None]] = []

    async def startup() -> None:
        boxes = _outboxes(parts)
        service.state["outboxes"] = boxes  # read by the metrics
        tasks.append(asyncio.create_task(sender.run(boxes)))

    async def shutdown() -> None:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    service = Service("mail", [], [startup], [shutdown])
    service.state["sender"] = sender
    return service
