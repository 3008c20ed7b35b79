"""The task that mails missed messages once their batching period is over, and the weekly
digests, in every `atrium serve` process: a cheap indexed look each second, and when something
is due the mails built in a read off the event loop (`due_mails`), then stored with their
notices forgotten in one short write (`store_due_mails`; on PostgreSQL it skips the notices
another worker holds). Users on the chat when their period ends (a queue that takes messages,
and active presence) have seen the messages and are not mailed. The clock is injectable."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.digest import mail_digests
from atrium.chat.actions.missed_messages import due_mails, due_users, store_due_mails
from atrium.chat.runtime import ChatRuntime
from atrium.core.db import Conn

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# Digests are looked for this often (they go out on one weekday).
DIGEST_POLL_SECONDS = 600.0


def _any_due(conn: Conn, now: float) -> bool:
    M = schema.missed_message_email.c
    return conn.scalar(sa.select(M.id).where(M.due <= now).limit(1)) is not None


class MissedMessageMailer:
    def __init__(
        self,
        runtime: ChatRuntime,
        clock: Callable[[], float] = time.time,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.runtime = runtime
        self.clock = clock
        self.poll_seconds = poll_seconds
        self._task: asyncio.Task[None] | None = None

    async def mail_due(self) -> int:
        """Write the mails of everything due now; how many."""
        runtime, written = self.runtime, 0
        while await runtime.db.read(_any_due, self.clock()):
            # Who of them is on the chat is the event queues' to say, outside the transaction.
            now = self.clock()
            users = await runtime.db.read(due_users, now)
            listening = await runtime.events.listening(users)
            # Building a batch of mails takes a while: never in the event loop's thread, where
            # SQLite's reads otherwise run.
            due = await runtime.db.read_rendering(
                due_mails, runtime.composer, runtime.secret, now, listening, users
            )
            mailed, handled = await runtime.db.write(store_due_mails, due, now)
            written += mailed
            if not handled or not runtime.db.is_sqlite:
                break  # what is left changed meanwhile, or another worker holds it: next pass
        return written

    async def mail_digests(self) -> int:
        """Write the digests due now (on the organization's digest weekday); how many users
        were handled."""
        runtime, handled = self.runtime, 0
        while True:
            done = await runtime.db.write(
                mail_digests, runtime.composer, runtime.secret, self.clock()
            )
            handled += done
            if not done:
                return handled

    async def run(self) -> None:
        last_digest = 0.0
        while True:
            try:
                await self.mail_due()
                if self.clock() - last_digest > DIGEST_POLL_SECONDS:
                    last_digest = self.clock()
                    await self.mail_digests()
            except Exception:  # keep mailing after a bug or a lost connection
                log.exception("missed-message or digest mails failed")
            await asyncio.sleep(self.poll_seconds)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="missed-message-mails")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
