"""What the wiki's tests need of its mail: the outbox read back as messages, and an account given
a confirmed address, since MediaWiki mails only confirmed ones."""

from __future__ import annotations

from email.message import EmailMessage

import sqlalchemy as sa
from tests.mail_server import outbox_mails
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.timestamps import now14


async def wiki_mails(wiki: WikiHarness) -> list[EmailMessage]:
    return await outbox_mails(wiki.db, schema.mail_outbox)


async def confirm_address(wiki: WikiHarness, name: str, address: str) -> int:
    """Give `name` the confirmed `address` and return the account's id."""
    user = schema.user
    await wiki.db.write(
        lambda conn: conn.execute(
            sa.update(user)
            .where(user.c.user_name == name)
            .values(user_email=address, user_email_authenticated=now14())
        )
    )
    account = await wiki.db.read(account_by_name, name)
    return int(account.id)
