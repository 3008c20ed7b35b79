"""GET /messages/{id}/read_receipts: who has read a message."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.core.db import Conn

UM = schema.user_message.c
U = schema.user.c
MU = schema.muted_user.c


def read_by(conn: Conn, reader_id: int, message_id: int, sender_id: int) -> list[int]:
    """Active users who read the message, as Zulip 7 tells them: not the sender, nobody who turned
    read receipts off, and nobody muted by or muting the one asking."""
    muted = sa.select(MU.muted_user_id).where(MU.user_id == reader_id)
    muting = sa.select(MU.user_id).where(MU.muted_user_id == reader_id)
    ids = conn.scalars(
        sa.select(UM.user_id)
        .join(schema.user, U.id == UM.user_id)
        .where(
            UM.message_id == message_id,
            UM.flags.op("&")(flags.READ) != 0,
            UM.user_id != sender_id,
            U.is_active.is_(True),
            U.send_read_receipts.is_(True),
            UM.user_id.not_in(muted),
            UM.user_id.not_in(muting),
        )
        .order_by(UM.user_id)
    )
    return [int(i) for i in ids]
