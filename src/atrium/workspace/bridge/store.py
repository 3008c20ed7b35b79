"""Reads and writes of the bridge's own database: feed rules, the posts they made, the feed's
cursors and the workspace settings. Each function is one step of a transaction the caller runs."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Database, Row, open_database
from atrium.settings import Settings
from atrium.workspace.bridge import schema

R = schema.wiki_feed_rule.c
P = schema.wiki_feed_post.c
C = schema.wiki_feed_cursor.c
S = schema.workspace_setting.c

EVENTS = ("create", "edit", "move", "delete", "upload")
SCOPES = ("all", "namespace", "category", "page")


def open_bridge_database(settings: Settings) -> Database:
    return open_database(settings.database_url, settings.sqlite_path("bridge"), "bridge")


@dataclass(frozen=True)
class Rule:
    id: int
    realm_id: int
    stream_id: int
    topic: str  # "": the page's title
    scope: str
    target: str
    events: frozenset[str]
    created_by: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "stream_id": self.stream_id,
            "topic": self.topic,
            "scope": self.scope,
            "target": self.target,
            "events": [e for e in EVENTS if e in self.events],
        }


def _rule(row: Row) -> Rule:
    return Rule(
        int(row["id"]),
        int(row["realm_id"]),
        int(row["stream_id"]),
        str(row["topic"]),
        str(row["scope"]),
        str(row["target"]),
        frozenset(e for e in str(row["events"]).split(",") if e),
        int(row["created_by"]),
    )


def rules(conn: Conn) -> list[Rule]:
    return [_rule(r) for r in conn.all(sa.select(schema.wiki_feed_rule).order_by(R.id))]


def add_rule(
    conn: Conn,
    realm_id: int,
    stream_id: int,
    topic: str,
    scope: str,
    target: str,
    events: Iterable[str],
    created_by: int,
) -> int:
    return int(
        conn.scalar(
            sa.insert(schema.wiki_feed_rule)
            .values(
                realm_id=realm_id,
                stream_id=stream_id,
                topic=topic,
                scope=scope,
                target=target,
                events=",".join(e for e in EVENTS if e in set(events)),
                created_by=created_by,
                created_at=time.time(),
            )
            .returning(R.id)
        )
    )


def remove_rule(conn: Conn, rule_id: int) -> bool:
    return bool(conn.execute(sa.delete(schema.wiki_feed_rule).where(R.id == rule_id)).rowcount)


def cursor(conn: Conn, name: str) -> int | None:
    value = conn.scalar(sa.select(C.value).where(C.name == name))
    return None if value is None else int(value)


def set_cursor(conn: Conn, name: str, value: int) -> None:
    if conn.execute(
        sa.update(schema.wiki_feed_cursor).where(C.name == name).values(value=value)
    ).rowcount:
        return
    conn.execute(sa.insert(schema.wiki_feed_cursor).values(name=name, value=value))


def record_post(
    conn: Conn, rule_id: int, message_id: int, page_id: int, rev_id: int | None, log_id: int | None
) -> None:
    conn.execute(
        sa.insert(schema.wiki_feed_post).values(
            rule_id=rule_id, message_id=message_id, page_id=page_id, rev_id=rev_id, log_id=log_id
        )
    )


def posts_showing(
    conn: Conn, page_ids: Sequence[int], rev_ids: Sequence[int], log_ids: Sequence[int]
) -> list[Row]:
    """The posts about these pages, or showing these revisions or log entries."""
    clauses = []
    if page_ids:
        clauses.append(P.page_id.in_(list(page_ids)))
    if rev_ids:
        clauses.append(P.rev_id.in_(list(rev_ids)))
    if log_ids:
        clauses.append(P.log_id.in_(list(log_ids)))
    if not clauses:
        return []
    return conn.all(sa.select(schema.wiki_feed_post).where(sa.or_(*clauses)))


def forget_posts(conn: Conn, post_ids: Sequence[int]) -> None:
    if post_ids:
        conn.execute(sa.delete(schema.wiki_feed_post).where(P.id.in_(list(post_ids))))


def setting(conn: Conn, name: str) -> str | None:
    value = conn.scalar(sa.select(S.value).where(S.name == name))
    return None if value is None else str(value)


def set_setting(conn: Conn, name: str, value: str | None) -> None:
    conn.execute(sa.delete(schema.workspace_setting).where(S.name == name))
    if value is not None:
        conn.execute(sa.insert(schema.workspace_setting).values(name=name, value=value))


def person_setting(conn: Conn, chat_user_id: int, name: str) -> str | None:
    PS = schema.person_setting.c
    value = conn.scalar(sa.select(PS.value).where(PS.chat_user_id == chat_user_id, PS.name == name))
    return None if value is None else str(value)


def set_person_setting(conn: Conn, chat_user_id: int, name: str, value: str | None) -> None:
    PS = schema.person_setting.c
    conn.execute(
        sa.delete(schema.person_setting).where(PS.chat_user_id == chat_user_id, PS.name == name)
    )
    if value is not None:
        conn.execute(
            sa.insert(schema.person_setting).values(
                chat_user_id=chat_user_id, name=name, value=value
            )
        )


def people_with(conn: Conn, chat_user_ids: Sequence[int], name: str, value: str) -> set[int]:
    """Which of these people have set `name` to `value`."""
    if not chat_user_ids:
        return set()
    PS = schema.person_setting.c
    return {
        int(u)
        for u in conn.scalars(
            sa.select(PS.chat_user_id).where(
                PS.chat_user_id.in_(list(chat_user_ids)), PS.name == name, PS.value == value
            )
        )
    }
