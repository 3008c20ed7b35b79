"""The demo organization's default streams: someone who joins it later starts in #general and
#random (never in the private #leadership)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.demo import create_demo
from atrium.core.db import Conn
from tests.chat.conftest import ChatHarness

pytestmark = pytest.mark.anyio


def default_names(conn: Conn) -> list[str]:
    S, D, R = schema.stream.c, schema.default_stream.c, schema.realm.c
    return list(
        conn.scalars(
            sa.select(S.name)
            .join(schema.default_stream, D.stream_id == S.id)
            .join(schema.realm, R.id == D.realm_id)
            .where(R.string_id == "demo")
            .order_by(S.name)
        )
    )


async def test_demo_has_general_and_random_as_default_streams(chat: ChatHarness) -> None:
    await chat.runtime.db.write(create_demo, False)
    assert await chat.runtime.db.read(default_names) == ["general", "random"]
