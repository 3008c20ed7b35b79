"""A real SMTP server for the tests (aiosmtpd on 127.0.0.1), collecting what it accepts."""

from __future__ import annotations

import asyncio
import email
import email.policy
import threading
import time
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


class Inbox:
    """Everything the server accepted, as parsed messages, in arrival order.

    Two faults for the crash tests: while `hold` is set a message waits unanswered (the client
    has claimed and is sending it) and is then refused; `before_next` is called when the message
    after an accepted one arrives (the first got its 250; the client's batch is not done)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        # The client's address and port of each accepted message: which connection brought it.
        self.peers: list[Any] = []
        self.lock = threading.Lock()
        self.hold = threading.Event()
        self.held = threading.Event()  # a message is waiting under `hold`
        self.before_next: Callable[[], None] | None = None

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.hold.is_set():
            self.held.set()
            while self.hold.is_set():
                await asyncio.sleep(0.05)
            return "451 Try again later"
        callback = self.before_next
        if callback is not None and session.__dict__.get("accepted"):
            self.before_next = None
            callback()
            return "451 Try again later"
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(message)  # type: ignore[arg-type]
            self.peers.append(session.peer)
        session.__dict__["accepted"] = True
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if address in str(m["To"])]

    def ids(self) -> list[str]:
        with self.lock:
            return [str(m["Message-ID"]) for m in self.messages]

    def wait_for(self, address: str, count: int = 1, timeout: float = 15.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(address)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{count} mail(s) to {address} expected, got {len(self.to(address))}")


class SmtpServer:
    """One server on a fixed port, so it can be stopped and started again where clients expect it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inbox = Inbox()
        self.controller: Controller | None = None

    def start(self) -> None:
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


def text_part(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


def html_part(message: EmailMessage) -> str:
    part = message.get_body(("html",))
    assert part is not None
    return str(part.get_content())


async def outbox_mails(db: Any, table: Any) -> list[EmailMessage]:
    """Every mail a service's outbox holds, sent or not, oldest first."""
    import sqlalchemy as sa

    rows = await db.read(lambda conn: conn.scalars(sa.select(table.c.message).order_by(table.c.id)))
    return [email.message_from_string(raw, policy=email.policy.default) for raw in rows]


def link_in(message: EmailMessage, pattern: str) -> str:
    """The first link of the plain-text part matching `pattern` (a regular expression)."""
    import re

    match = re.search(pattern, text_part(message))
    assert match is not None, text_part(message)
    return match.group(0)
