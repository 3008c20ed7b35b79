"""The scheduled-message delivery task that runs inside every `atrium serve` process.

It looks for due messages twice a second (a cheap indexed read), and when one is due sends it in
its own transaction through `deliver_next`, which on PostgreSQL claims the row with
`SKIP LOCKED`: with several workers each message is still sent exactly once. Messages that fell
due while no server was running are sent on the first pass after start. The clock is injectable.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from atrium.chat import outgoing_webhooks
from atrium.chat.actions.messages import prerender_content
from atrium.chat.actions.scheduled_messages import (
    deliver_next,
    next_due_timestamp,
    oldest_due_message,
)
from atrium.chat.runtime import ChatRuntime

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5


class ScheduledDelivery:
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

    async def deliver_due(self) -> int:
        """Send everything due now; how many rows were handled (sent or marked failed)."""
        handled = 0
        while True:
            due = await self.runtime.db.read(next_due_timestamp)
            if due is None or due > self.clock():
                return handled
            prerendered = None
            due_message = await self.runtime.db.read(oldest_due_message, self.clock())
            if due_message is not None:
                prerendered = await prerender_content(self.runtime.db, *due_message)
            taken, message_id = await self.runtime.write(deliver_next, self.clock(), prerendered)
            if not taken:
                return handled  # another worker holds the due rows
            if message_id is not None:
                # Outgoing-webhook bots hear of it as of any message sent.
                outgoing_webhooks.dispatch(self.runtime, message_id)
            handled += 1

    async def run(self) -> None:
        while True:
            try:
                await self.deliver_due()
            except Exception:  # keep delivering after a bug or a lost connection
                log.exception("scheduled message delivery failed")
            due = await self.runtime.db.read(next_due_timestamp)
            wait = self.poll_seconds
            if due is not None:
                wait = min(wait, max(0.0, due - self.clock()))
            await asyncio.sleep(wait)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="scheduled-message-delivery")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
