"""The wiki's mails: MediaWiki's message texts filled in, an HTML twin of the plain text, and
the outbox row written in the caller's transaction."""

from __future__ import annotations

import html
import re
import time

from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress
from atrium.wiki import schema
from atrium.wiki.messages.store import MESSAGES, format_message
from atrium.wiki.site import Site

_INT = re.compile(r"\{\{int:([^}|]+)\}\}")
_GENDER = re.compile(r"\{\{GENDER:[^|}]*\|([^|}]*)[^}]*\}\}")
_LINK = re.compile(r"https?://[^\s<>\"]+")


def mail_text(site: Site, key: str, *args: object) -> str:
    """A MediaWiki message as mail text: {{int:}}, parameters, {{SITENAME}}, PLURAL and GENDER
    filled."""
    text = _INT.sub(lambda m: MESSAGES.get(m.group(1).strip(), m.group(0)), MESSAGES[key])
    text = format_message(text, [str(a) for a in args], site.sitename, True)
    return _GENDER.sub(lambda m: m.group(1), text)


def as_html(text: str) -> str:
    """The plain text as HTML: escaped, line breaks kept, links clickable."""
    escaped = html.escape(text)
    linked = _LINK.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>', escaped)
    return f'<div style="white-space: pre-wrap">{linked}</div>'


def send(
    conn: Conn,
    site: Site,
    to: str,
    to_name: str,
    subject: str,
    body: str,
    *,
    from_name: str | None = None,
    unsubscribe_url: str | None = None,
) -> bool:
    """Put a mail in the wiki's outbox; False if the address cannot be mailed."""
    try:
        message = site.composer.compose(
            to,
            subject,
            body,
            as_html(body),
            to_name=to_name,
            from_name=site.sitename if from_name is None else from_name,
            unsubscribe_url=unsubscribe_url,
        )
    except BadAddress:
        return False
    outbox.enqueue(conn, schema.mail_outbox, message, time.time())
    return True
