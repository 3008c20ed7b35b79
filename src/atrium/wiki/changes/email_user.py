"""Special:EmailUser and `action=emailuser`: one user mails another through the wiki.

As MediaWiki: only from a confirmed address, only to a confirmed address whose owner has not
turned such mail off (the `disablemail` option), with the sender's address as the reply
address ($wgUserEmailUseReplyTo) and MediaWiki's footer; a copy to the sender when asked."""

from __future__ import annotations

import re
import time

from atrium.core.db import Conn
from atrium.core.mail import outbox
from atrium.core.mail.message import BadAddress
from atrium.wiki import schema
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.mail import as_html, mail_text
from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads.users import Account, account_by_name, options
from atrium.wiki.site import Site

_LINK = re.compile(r"\[\[([^|\]]*)(?:\|([^\]]*))?\]\]")
MAX_SUBJECT = 255
MAX_TEXT = 50_000


def _msg(key: str) -> str:
    """A message's English text with its links reduced to their labels."""
    return _LINK.sub(lambda m: m.group(2) or m.group(1), MESSAGES[key])


def check_sender(sender: Account) -> None:
    """SpecialEmailUser::getPermissionsError: a signed-in sender with a confirmed address."""
    if not sender.registered or not sender.email or not sender.email_authenticated:
        raise ChangeError("mailnologin", _msg("mailnologintext"), "mailnologintext")


def check_target(conn: Conn, name: str) -> Account:
    """The account a mail may go to, or MediaWiki's refusal (SpecialEmailUser::validateTarget)."""
    target = account_by_name(conn, name)
    if target is None:
        raise ChangeError("notarget", _msg("notargettext"), "notargettext")
    if not target.email or not target.email_authenticated:
        raise ChangeError("noemail", _msg("noemailtext"), "noemailtext")
    if str(options(conn, target.id).get("disablemail", "0")) not in ("0", "", "False"):
        raise ChangeError("nowikiemail", _msg("nowikiemailtext"), "nowikiemailtext")
    return target


def email_user(
    conn: Conn, site: Site, sender: Account, target_name: str, subject: str, text: str, ccme: bool
) -> None:
    check_sender(sender)
    target = check_target(conn, target_name)
    footer = mail_text(site, "emailuserfooter", sender.name, target.name)
    body = f"{text}\n\n-- \n{footer}"
    recipients = [(target.email, target.name)]
    if ccme:
        recipients.append((sender.email, sender.name))
    for address, name in recipients:
        try:
            message = site.composer.compose(
                address,
                subject[:MAX_SUBJECT],
                body,
                as_html(body),
                to_name=name,
                from_name=sender.name,
                reply_to=sender.email,
            )
        except BadAddress as exc:
            raise ChangeError("noemail", _msg("noemailtext"), "noemailtext") from exc
        outbox.enqueue(conn, schema.mail_outbox, message, time.time())
