"""Ids are never handed out twice, even after the newest row is deleted (SQLite and PostgreSQL)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.chat.conftest import ChatHarness, assert_json_success

pytestmark = pytest.mark.anyio


async def created_deleted_created(
    create: Callable[[int], Awaitable[int]], delete: Callable[[int], Awaitable[Any]]
) -> None:
    first = await create(1)
    newest = await create(2)
    await delete(newest)
    again = await create(3)
    assert first < newest < again


async def test_messages(chat: ChatHarness) -> None:
    await chat.make_stream("lobby", [chat.hamlet, chat.iago])

    async def create(n: int) -> int:
        return await chat.send_stream(chat.hamlet, "lobby", "t", f"message {n}")

    async def delete(mid: int) -> None:
        assert_json_success(await chat.delete(f"/messages/{mid}", chat.iago))

    await created_deleted_created(create, delete)


async def test_drafts_and_scheduled_messages(chat: ChatHarness) -> None:
    sid = await chat.make_stream("lobby", [chat.hamlet])

    async def create_draft(n: int) -> int:
        draft = {"type": "stream", "to": [sid], "topic": "t", "content": f"draft {n}"}
        body = assert_json_success(await chat.post("/drafts", chat.hamlet, drafts=[draft]))
        return int(body["ids"][0])

    async def delete_draft(draft_id: int) -> None:
        assert_json_success(await chat.delete(f"/drafts/{draft_id}", chat.hamlet))

    await created_deleted_created(create_draft, delete_draft)

    async def create_scheduled(n: int) -> int:
        resp = await chat.post(
            "/scheduled_messages",
            chat.hamlet,
            type="stream",
            to=sid,
            topic="later",
            content=f"scheduled {n}",
            scheduled_delivery_timestamp=int(time.time()) + 3600,
        )
        return int(assert_json_success(resp)["scheduled_message_id"])

    async def delete_scheduled(scheduled_id: int) -> None:
        resp = await chat.delete(f"/scheduled_messages/{scheduled_id}", chat.hamlet)
        assert_json_success(resp)

    await created_deleted_created(create_scheduled, delete_scheduled)


async def test_linkifiers_playgrounds_and_user_groups(chat: ChatHarness) -> None:
    async def create_linkifier(n: int) -> int:
        resp = await chat.post(
            "/realm/filters",
            chat.iago,
            pattern=f"#{n}(?P<id>[0-9]+)",
            url_template="https://tracker.example/{id}",
        )
        return int(assert_json_success(resp)["id"])

    async def delete_linkifier(filter_id: int) -> None:
        assert_json_success(await chat.delete(f"/realm/filters/{filter_id}", chat.iago))

    await created_deleted_created(create_linkifier, delete_linkifier)

    async def create_playground(n: int) -> int:
        resp = await chat.post(
            "/realm/playgrounds",
            chat.iago,
            name=f"Python {n}",
            pygments_language="python",
            url_prefix="https://python.example/?code=",
        )
        return int(assert_json_success(resp)["id"])

    async def delete_playground(playground_id: int) -> None:
        resp = await chat.delete(f"/realm/playgrounds/{playground_id}", chat.iago)
        assert_json_success(resp)

    await created_deleted_created(create_playground, delete_playground)

    async def create_group(n: int) -> int:
        resp = await chat.post(
            "/user_groups/create",
            chat.iago,
            name=f"group {n}",
            description="d",
            members=[chat.hamlet.id],
        )
        assert_json_success(resp)
        groups = assert_json_success(await chat.get("/user_groups", chat.iago))["user_groups"]
        return int(next(g["id"] for g in groups if g["name"] == f"group {n}"))

    async def delete_group(group_id: int) -> None:
        assert_json_success(await chat.delete(f"/user_groups/{group_id}", chat.iago))

    await created_deleted_created(create_group, delete_group)
