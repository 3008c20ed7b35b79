"""Composing a mail: both parts, the headers every mail carries, and nothing a user can inject.

Names and subjects come from users (a display name, a page title); a CR or LF in them would start
a new header, so every control character is folded into a space before it reaches a header, and
an address with one is refused outright.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from urllib.parse import urlsplit

from atrium.settings import Settings

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")
# Headers longer than this are cut: a subject is a line, not a page.
MAX_HEADER_TEXT = 200


class BadAddress(ValueError):
    """An address that cannot be put in a header safely."""


def header_text(value: str) -> str:
    """`value` as one header line: control characters folded into spaces, length bounded."""
    return _CONTROL.sub(" ", value).strip()[:MAX_HEADER_TEXT]


def address(addr_spec: str, display_name: str = "") -> Address:
    if _CONTROL.search(addr_spec) or addr_spec.count("@") != 1:
        raise BadAddress(f"not a mail address: {addr_spec!r}")
    local, domain = addr_spec.split("@")
    if not local or not domain:
        raise BadAddress(f"not a mail address: {addr_spec!r}")
    return Address(display_name=header_text(display_name), username=local, domain=domain)


@dataclass(frozen=True)
class Composer:
    """Builds mails from this deployment: its From and noreply addresses, its public URL."""

    base_url: str
    sender: str
    noreply: str
    # False: no mail server is configured and mails only reach the mail sink (pages say so).
    sends_mail: bool = True

    @classmethod
    def from_settings(cls, settings: Settings) -> Composer:
        host = urlsplit(settings.base_url).hostname or "localhost"
        noreply = f"noreply@{host}"
        return cls(
            settings.base_url,
            settings.mail.email_from or noreply,
            noreply,
            bool(settings.mail.smtp_host),
        )

    @property
    def domain(self) -> str:
        return self.noreply.partition("@")[2]

    def link(self, path: str) -> str:
        """An absolute link into the site (`path` starts with a slash)."""
        return self.base_url + path

    def compose(
        self,
        to: str,
        subject: str,
        text: str,
        html: str,
        *,
        to_name: str = "",
        from_name: str = "",
        unsubscribe_url: str | None = None,
        reply_to: str | None = None,
        now: float | None = None,
    ) -> EmailMessage:
        """A mail with its `Message-ID` and `Date` fixed now: a resend is the same message.
        `reply_to`: where replies go instead of the noreply address (a person's own mail)."""
        message = EmailMessage()
        message["From"] = address(self.sender, from_name)
        message["To"] = address(to, to_name)
        message["Reply-To"] = address(reply_to or self.noreply)
        message["Subject"] = header_text(subject)
        when = datetime.fromtimestamp(now if now is not None else time.time(), UTC)
        message["Date"] = format_datetime(when)
        message["Message-ID"] = make_msgid(domain=self.domain)
        message["Auto-Submitted"] = "auto-generated"
        if unsubscribe_url is not None:
            message["List-Unsubscribe"] = f"<{header_text(unsubscribe_url)}>"
            message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        message.set_content(text)
        message.add_alternative(html, subtype="html")
        return message
