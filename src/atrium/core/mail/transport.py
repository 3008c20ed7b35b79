"""Handing mails over: to the configured SMTP server, or into the mail-sink directory.

Both are blocking and run in a thread of their own (`deliver`), never on the event loop. One SMTP
connection serves batch after batch while mail keeps coming (a new connection per batch cost a
burst a third of the server's pace); it is closed once idle, and opened again when a reused one
turns out to be gone. Each mail's result is its own, so one refused address does not hold back
the others.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import os
import re
import smtplib
import ssl
import threading
import time
from pathlib import Path

from atrium.core.mail.outbox import Claimed
from atrium.settings import MailSettings

log = logging.getLogger("atrium.mail")

# Seconds an SMTP conversation may stall before the batch counts as failed.
SMTP_TIMEOUT = 30.0
# An open connection unused this long is closed (QUIT) instead of kept for the next batch: well
# under the five minutes a server may wait for a client's next command (RFC 5321, 4.5.3.2.7).
IDLE_SECONDS = 15.0
_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


class Transport(abc.ABC):
    """Sends a batch; returns an error text per mail that was not accepted (by outbox id)."""

    @abc.abstractmethod
    def send_batch(self, batch: list[Claimed]) -> dict[int, str]: ...

    async def deliver(self, batch: list[Claimed]) -> dict[int, str]:
        return await asyncio.to_thread(self.send_batch, batch)

    @abc.abstractmethod
    def close_idle(self, now: float | None = None) -> None:
        """Let go of what is kept between batches once it has been unused for a while."""

    @abc.abstractmethod
    def close(self) -> None:
        """Let go of what is kept between batches."""

    async def rest(self) -> None:
        await asyncio.to_thread(self.close_idle)


class SmtpTransport(Transport):
    def __init__(self, settings: MailSettings) -> None:
        assert settings.smtp_host is not None
        self.settings = settings
        self._client: smtplib.SMTP | None = None
        self._last_used = 0.0  # time.monotonic() of the connection's last mail
        # One batch at a time on the one connection (batches and closing run in threads).
        self._lock = threading.Lock()

    def _tls_context(self) -> ssl.SSLContext:
        """Certificates are checked, host name included: the system's CAs, and the operator's
        own CA when `ATRIUM_SMTP_CA_FILE` names one."""
        context = ssl.create_default_context()
        if self.settings.smtp_ca_file is not None:
            context.load_verify_locations(cafile=str(self.settings.smtp_ca_file))
        return context

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        host = s.smtp_host or ""
        if s.smtp_security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                host, s.smtp_port, timeout=SMTP_TIMEOUT, context=self._tls_context()
            )
        else:
            client = smtplib.SMTP(host, s.smtp_port, timeout=SMTP_TIMEOUT)
            if s.smtp_security == "starttls":
                try:
                    client.starttls(context=self._tls_context())
                except BaseException:
                    client.close()  # a refused certificate leaves no open socket behind
                    raise
        if s.smtp_user:
            client.login(s.smtp_user, s.smtp_password or "")
        return client

    def send_batch(self, batch: list[Claimed]) -> dict[int, str]:
        with self._lock:
            return self._send(batch)

    def _send(self, batch: list[Claimed]) -> dict[int, str]:
        errors: dict[int, str] = {}
        if self._client is not None and time.monotonic() - self._last_used > IDLE_SECONDS:
            self._drop(polite=True)
        # A kept connection the server has closed meanwhile is opened again, once per batch;
        # the mail it failed on goes again on the new one (the same Message-ID if the server
        # had in fact taken it: at least once).
        may_reopen = self._client is not None
        index = 0
        while index < len(batch):
            if self._client is None:
                try:
                    self._client = self._connect()
                except (OSError, smtplib.SMTPException) as exc:
                    for rest in batch[index:]:
                        errors[rest.id] = f"connect: {exc}"
                    return errors
            row = batch[index]
            try:
                self._client.sendmail(row.sender, [row.recipient], row.message)
            except smtplib.SMTPRecipientsRefused as exc:
                errors[row.id] = f"refused: {exc.recipients}"
            except (OSError, smtplib.SMTPException) as exc:
                gone = isinstance(exc, smtplib.SMTPServerDisconnected | OSError)
                self._drop(polite=not gone)
                if gone and may_reopen:
                    may_reopen = False
                    continue
                # Anything else ends the conversation: this mail and the rest wait for the
                # next try, on a new connection.
                for rest in batch[index:]:
                    errors[rest.id] = f"send: {exc}"
                return errors
            self._last_used = time.monotonic()
            may_reopen = False
            index += 1
        return errors

    def _drop(self, polite: bool) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        if polite:
            try:
                client.quit()
                return
            except (OSError, smtplib.SMTPException):
                pass
        client.close()

    def close_idle(self, now: float | None = None) -> None:
        with self._lock:
            moment = time.monotonic() if now is None else now
            if self._client is not None and moment - self._last_used > IDLE_SECONDS:
                self._drop(polite=True)

    def close(self) -> None:
        with self._lock:
            self._drop(polite=True)


class SinkTransport(Transport):
    """Writes each mail to `directory` as one `.eml` file, named for its Message-ID (a repeat
    overwrites its first copy), and logs the file's name."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def close_idle(self, now: float | None = None) -> None:
        return None  # nothing is kept between batches

    def close(self) -> None:
        return None

    def send_batch(self, batch: list[Claimed]) -> dict[int, str]:
        self.directory.mkdir(parents=True, exist_ok=True)
        for row in batch:
            name = _UNSAFE_FILE_CHARS.sub("_", row.message_id.strip("<>")) + ".eml"
            path = self.directory / name
            partial = path.with_suffix(".eml.partial")
            partial.write_bytes(row.message)
            os.replace(partial, path)
            log.warning(
                "mail to %s not sent (no ATRIUM_SMTP_HOST): written to %s", row.recipient, path
            )
        return {}


def transport_for(settings: MailSettings, sink: Path) -> Transport:
    if settings.smtp_host:
        return SmtpTransport(settings)
    return SinkTransport(sink)
