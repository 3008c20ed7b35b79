"""A real SMTP server for the mail scenarios: aiosmtpd on 127.0.0.1, accepting each message after
a fixed pause (the pace of a relay that takes a few milliseconds per message), and noting when
each arrived and how large it was. It runs in a thread of the bench's own process; Atrium reaches
it as its `ATRIUM_SMTP_HOST` with `ATRIUM_SMTP_SECURITY=none`.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Arrival:
    at: float  # time.monotonic() when the server answered 250
    size: int  # bytes of the message as received
    recipient: str


@dataclass(frozen=True)
class Drain:
    """How a run of mails reached the server: its rate against the server's own pace."""

    mails: int
    seconds: float  # from the first arrival to the last
    rate: float  # mails per second over those seconds
    pace: float  # the most the server accepts per second (1 / its pause)
    largest: int
    total_bytes: int
    gap_p50_ms: float
    gap_p99_ms: float

    @property
    def share_of_pace(self) -> float:
        return self.rate / self.pace if self.pace else 0.0


def drain_figures(arrivals: list[Arrival], pause: float) -> Drain:
    """The drain rate of `arrivals` (at least two) and the gaps between them."""
    if len(arrivals) < 2:
        raise ValueError("a drain rate needs at least two arrivals")
    times = sorted(a.at for a in arrivals)
    seconds = times[-1] - times[0]
    gaps = sorted((b - a) * 1000 for a, b in itertools.pairwise(times))
    # n arrivals span n - 1 intervals: the rate is intervals per second.
    rate = (len(times) - 1) / seconds if seconds > 0 else float("inf")
    return Drain(
        mails=len(arrivals),
        seconds=seconds,
        rate=rate,
        pace=1 / pause if pause > 0 else float("inf"),
        largest=max(a.size for a in arrivals),
        total_bytes=sum(a.size for a in arrivals),
        gap_p50_ms=statistics.median(gaps),
        gap_p99_ms=gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))],
    )


class PacedSink:
    """aiosmtpd's handler: waits `pause` seconds per message, then accepts it."""

    def __init__(self, pause: float) -> None:
        self.pause = pause
        self.arrivals: list[Arrival] = []
        # The largest message received, as it came (to measure the server's pace with it).
        self.largest: bytes = b""
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.pause)
        arrival = Arrival(time.monotonic(), len(envelope.content), ",".join(envelope.rcpt_tos))
        with self._lock:
            self.arrivals.append(arrival)
            if len(envelope.original_content) > len(self.largest):
                self.largest = envelope.original_content
        return "250 OK"

    def count(self) -> int:
        with self._lock:
            return len(self.arrivals)

    def take(self) -> list[Arrival]:
        """The arrivals so far, forgetting them (the next measurement starts empty)."""
        with self._lock:
            taken, self.arrivals = self.arrivals, []
        return taken

    def wait_for(self, count: int, timeout: float) -> bool:
        """Whether `count` mails arrived within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while self.count() < count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True


class SmtpServer:
    """The paced sink on a port of 127.0.0.1, started and stopped by the scenario."""

    def __init__(self, port: int, pause: float) -> None:
        self.port = port
        self.sink = PacedSink(pause)
        self._controller: Any = None

    def __enter__(self) -> SmtpServer:
        from aiosmtpd.controller import Controller

        self._controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)
        self._controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def bare_pace(self, message: bytes, count: int) -> Drain:
        """The server's own pace for `message`: a bare smtplib client, doing nothing else, sends
        it `count` times over one kept connection (as Atrium's sender does). Besides its pause,
        the server reads and parses each message, which a larger message makes slower."""
        import smtplib

        self.sink.take()
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as client:
            for _ in range(count):
                client.sendmail("pace@bench.example", ["pace@bench.example"], message)
        return drain_figures(self.sink.take(), self.sink.pause)

    def env(self) -> dict[str, str]:
        """What Atrium needs to send through this server."""
        return {
            "ATRIUM_SMTP_HOST": "127.0.0.1",
            "ATRIUM_SMTP_PORT": str(self.port),
            "ATRIUM_SMTP_SECURITY": "none",
        }
