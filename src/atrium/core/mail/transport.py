"""Handing mails over: to the configured SMTP server, or into the mail-sink directory.

Both are blocking and run in a thread of their own (`deliver`), never on the event loop. A batch
shares one SMTP connection; each mail's result is its own, so one refused address does not hold
back the others.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import os
import re
import smtplib
import ssl
from pathlib import Path

from atrium.core.mail.outbox import Claimed
from atrium.settings import MailSettings

log = logging.getLogger("atrium.mail")

# Seconds an SMTP conversation may stall before the batch counts as failed.
SMTP_TIMEOUT = 30.0
_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


class Transport(abc.ABC):
    """Sends a batch; returns an error text per mail that was not accepted (by outbox id)."""

    @abc.abstractmethod
    def send_batch(self, batch: list[Claimed]) -> dict[int, str]: ...

    async def deliver(self, batch: list[Claimed]) -> dict[int, str]:
        return await asyncio.to_thread(self.send_batch, batch)


class SmtpTransport(Transport):
    def __init__(self, settings: MailSettings) -> None:
        assert settings.smtp_host is not None
        self.settings = settings

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
        try:
            client = self._connect()
        except (OSError, smtplib.SMTPException) as exc:
            return {row.id: f"connect: {exc}" for row in batch}
        errors: dict[int, str] = {}
        try:
            for index, row in enumerate(batch):
                try:
                    client.sendmail(row.sender, [row.recipient], row.message)
                except smtplib.SMTPRecipientsRefused as exc:
                    errors[row.id] = f"refused: {exc.recipients}"
                except (OSError, smtplib.SMTPException) as exc:
                    # The connection is gone: this mail and the rest wait for the next try.
                    for rest in batch[index:]:
                        errors[rest.id] = f"send: {exc}"
                    return errors
        finally:
            try:
                client.quit()
            except (OSError, smtplib.SMTPException):
                client.close()
        return errors


class SinkTransport(Transport):
    """Writes each mail to `directory` as one `.eml` file, named for its Message-ID (a repeat
    overwrites its first copy), and logs the file's name."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

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
