"""The wiki feed: rules post wiki changes to chat through the Notification Bot, and a change
hidden later (revision deletion, suppression) takes its notification back."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import flags, schema
from atrium.chat.actions.notification_bot import NOTIFICATION_BOT_EMAIL
from atrium.wiki.changes.accounts import create_user
from atrium.workspace.bridge import store
from tests.bridge.conftest import WorkspaceHarness, wiki_client, wiki_post
from tests.chat.conftest import assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio

M = schema.message.c
OVERSIGHT = ("Oversightbr", "oversight-password-1")


async def add_rule(
    ws: WorkspaceHarness,
    stream: str,
    *,
    topic: str = "",
    scope: str = "all",
    target: str = "",
    events: tuple[str, ...] = store.EVENTS,
) -> int:
    """Through the API, as an administrator."""
    stream_id = await ws.runtime.db.read(
        lambda conn: conn.scalar(
            sa.select(schema.stream.c.id).where(schema.stream.c.name == stream)
        )
    )
    body = assert_json_success(
        await ws.post(
            "/atrium/wiki_feed/rules", ws.iago, stream_id=stream_id, scope=scope,
            target=target, topic=topic, events=list(events),
        )
    )  # fmt: skip
    return int(body["id"])


async def bot_messages(ws: WorkspaceHarness) -> list[dict[str, Any]]:
    def read(conn: Any) -> list[dict[str, Any]]:
        bot = conn.scalar(
            sa.select(schema.user.c.id).where(schema.user.c.email == NOTIFICATION_BOT_EMAIL)
        )
        rows = conn.all(
            sa.select(M.id, M.topic, M.content, M.rendered_content, M.stream_id)
            .where(M.sender_id == bot)
            .order_by(M.id)
        )
        return [dict(r) for r in rows]

    return await ws.runtime.db.read(read)


async def oversight(ws: WorkspaceHarness) -> Any:
    await ws.wiki.db.write(
        lambda conn: create_user(conn, OVERSIGHT[0], OVERSIGHT[1], groups=["sysop", "suppress"])
    )
    return wiki_client(ws, *OVERSIGHT)


async def test_edits_and_new_pages_are_posted_with_summary_and_diff(
    workspace: WorkspaceHarness,
) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet])
    await add_rule(workspace, "wiki")
    first = await workspace.edit_page("Meeting notes", "Agenda.", summary="start the notes")
    second = await workspace.edit_page("Meeting notes", "Agenda and minutes.", summary="minutes")
    assert await workspace.feed.run_once() == 2
    created, edited = await bot_messages(workspace)
    assert created["topic"] == edited["topic"] == "Meeting notes"
    assert created["content"].startswith("[[Meeting notes]] was created by [[User:Admin|Admin]]")
    assert "`` start the notes ``" not in created["content"]  # one backtick is enough
    assert "` start the notes `" in created["content"]
    assert (
        f"([diff](http://127.0.0.1:8080/w/index.php?title=Meeting_notes&diff={second}&oldid={first}))"
        in edited["content"]
    )
    assert '<a class="wiki-link" href="/wiki/Meeting_notes"' in edited["rendered_content"]
    # Each change once: the next pass has nothing new.
    assert await workspace.feed.run_once() == 0


async def test_rules_choose_namespace_category_page_and_events(
    workspace: WorkspaceHarness,
) -> None:
    for name in ("help", "cats", "one", "edits"):
        await workspace.make_stream(name, [workspace.hamlet])
    await add_rule(workspace, "help", scope="namespace", target="12", topic="help pages")
    await add_rule(workspace, "cats", scope="category", target="Plans")
    await add_rule(workspace, "one", scope="page", target="rules of the house")
    await add_rule(workspace, "edits", events=("edit",))
    await workspace.edit_page("Help:Start", "Help.")
    await workspace.edit_page("Roadmap", "Plan. [[Category:Plans]]")
    await workspace.edit_page("Rules of the house", "Rules.")
    await workspace.edit_page("Other", "Created.")
    await workspace.edit_page("Other", "Edited.")
    await workspace.feed.run_once()
    streams = await workspace.runtime.db.read(
        lambda conn: {r["id"]: r["name"] for r in conn.all(sa.select(schema.stream))}
    )
    posted = [(streams[m["stream_id"]], m["topic"]) for m in await bot_messages(workspace)]
    assert sorted(posted) == sorted(
        [
            ("help", "help pages"),
            ("cats", "Roadmap"),
            ("one", "Rules of the house"),
            ("edits", "Other"),
        ]
    )


async def test_moves_and_deletions_are_posted(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet])
    await add_rule(workspace, "wiki", events=("move", "delete"))
    await workspace.edit_page("Old name", "Text.")
    await workspace.edit_page("Doomed", "Text.")
    async with wiki_client(workspace, "Admin", "admin-password-1") as admin:
        moved = await wiki_post(
            admin, action="move", **{"from": "Old name"}, to="New name", reason="better"
        )
        assert "move" in moved, moved
        deleted = await wiki_post(admin, action="delete", title="Doomed", reason="spam")
        assert "delete" in deleted, deleted
    await workspace.feed.run_once()
    contents = [m["content"] for m in await bot_messages(workspace)]
    assert contents == [
        "` Old name ` was moved to [[New name]] by [[User:Admin|Admin]]: ` better `",
        "` Doomed ` was deleted by [[User:Admin|Admin]]: ` spam `",
    ]


async def test_hostile_summaries_titles_and_names_notify_nobody(
    workspace: WorkspaceHarness,
) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet, workspace.cordelia])
    await add_rule(workspace, "wiki")
    await workspace.edit_page(
        "@**all** plans", "x", summary="@**all** @**King Hamlet** [x](javascript:alert(1)) <b>"
    )
    await workspace.feed.run_once()
    [message] = await bot_messages(workspace)
    assert "user-mention" not in message["rendered_content"]
    assert '<a href="javascript' not in message["rendered_content"]
    assert "<b>" not in message["rendered_content"]
    mention_bits = (
        flags.MENTIONED | flags.STREAM_WILDCARD_MENTIONED | flags.TOPIC_WILDCARD_MENTIONED
    )
    flagged = await workspace.runtime.db.read(
        lambda conn: conn.scalar(
            sa.select(sa.func.count())
            .select_from(schema.user_message)
            .where(
                schema.user_message.c.message_id == message["id"],
                schema.user_message.c.flags.op("&")(mention_bits) != 0,
            )
        )
    )
    assert flagged == 0


async def test_a_revision_hidden_before_the_feed_reads_it_is_never_posted(
    workspace: WorkspaceHarness,
) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet])
    await add_rule(workspace, "wiki")
    await workspace.edit_page("Secret page", "one")
    await workspace.feed.run_once()
    leaked = await workspace.edit_page("Secret page", "two", summary="the password is hunter2")
    await workspace.edit_page("Secret page", "three")  # the hidden one may not be the latest
    async with await oversight(workspace) as client:
        done = await wiki_post(
            client, action="revisiondelete", type="revision", target="Secret page",
            ids=str(leaked), hide="comment", suppress="yes",
        )  # fmt: skip
        assert "revisiondelete" in done, done
    await workspace.feed.run_once()
    contents = " ".join(m["content"] for m in await bot_messages(workspace))
    assert "hunter2" not in contents
    assert f"diff={leaked}" not in contents
    assert len(await bot_messages(workspace)) == 2  # the creation and the third revision


async def test_hiding_a_posted_revision_withdraws_its_notification(
    workspace: WorkspaceHarness,
) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet])
    await workspace.make_stream("second", [workspace.cordelia])
    await add_rule(workspace, "wiki")
    await add_rule(workspace, "second", events=("edit",))
    await workspace.edit_page("Leaky", "one")
    leaked = await workspace.edit_page("Leaky", "two", summary="personal data")
    await workspace.edit_page("Leaky", "three")
    await workspace.feed.run_once()
    assert sum("personal data" in m["content"] for m in await bot_messages(workspace)) == 2
    async with await oversight(workspace) as client:
        done = await wiki_post(
            client, action="revisiondelete", type="revision", target="Leaky",
            ids=str(leaked), hide="comment",
        )  # fmt: skip
        assert "revisiondelete" in done, done
    await workspace.feed.run_once()
    remaining = await bot_messages(workspace)
    assert all("personal data" not in m["content"] for m in remaining)
    assert len(remaining) == 3  # the creation, and the third revision in both streams
    # Out of the search index and every inbox too.
    hits = await workspace.get(
        "/messages",
        workspace.hamlet,
        anchor="newest",
        num_before=50,
        num_after=0,
        narrow='[{"operator":"search","operand":"personal"}]',
    )
    assert hits.json()["messages"] == []


async def test_a_deleted_log_entry_withdraws_its_notification(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet])
    await add_rule(workspace, "wiki", events=("move",))
    await workspace.edit_page("Plain", "Text.")
    async with await oversight(workspace) as client:
        moved = await wiki_post(
            client, action="move", **{"from": "Plain"}, to="Private affairs of Bob", reason="x"
        )
        assert "move" in moved, moved
        await workspace.feed.run_once()
        assert len(await bot_messages(workspace)) == 1
        log_id = await workspace.wiki.db.read(
            lambda conn: conn.scalar(
                sa.text("SELECT max(log_id) FROM logging WHERE log_type = 'move'")
            )
        )
        done = await wiki_post(
            client, action="revisiondelete", type="logging", ids=str(log_id), hide="content",
        )  # fmt: skip
        assert "revisiondelete" in done, done
    await workspace.feed.run_once()
    assert await bot_messages(workspace) == []


async def test_rules_api_is_for_administrators_and_checks_its_input(
    workspace: WorkspaceHarness,
) -> None:
    stream_id = await workspace.make_stream("wiki", [workspace.hamlet])
    path = "/atrium/wiki_feed/rules"
    for user in (workspace.hamlet, workspace.polonius):
        assert_json_error(
            await workspace.get(path, user),
            "Must be an organization administrator",
            code="UNAUTHORIZED_PRINCIPAL",
        )
        assert_json_error(
            await workspace.post(path, user, stream_id=stream_id, scope="all", events=["edit"]),
            "Must be an organization administrator",
            code="UNAUTHORIZED_PRINCIPAL",
        )
    bad = [
        (
            {"scope": "everything"},
            "Invalid scope: everything (one of all, namespace, category, page)",
        ),
        ({"scope": "namespace", "target": "Nowhere"}, "Invalid namespace: Nowhere"),
        ({"scope": "namespace", "target": "-1"}, "Invalid namespace: -1"),
        ({"scope": "page", "target": "a<b"}, "Invalid title: a<b"),
        ({"scope": "category", "target": "Help:X"}, "Not a category: Help:X"),
        ({"scope": "page"}, "A page rule needs a target"),
        (
            {"events": ["edit", "purge"]},
            "Invalid event: purge (one of create, edit, move, delete, upload)",
        ),
        ({"events": []}, "A rule needs at least one event"),
        ({"topic": "x" * 61}, "Topic too long (limit: 60 characters)"),
        ({"stream_id": 9999}, "Invalid stream ID"),
    ]
    for change, message in bad:
        params: dict[str, Any] = {
            "stream_id": stream_id,
            "scope": "all",
            "events": ["edit"],
            **change,
        }
        assert_json_error(await workspace.post(path, workspace.iago, **params), message)
    assert assert_json_success(await workspace.get(path, workspace.iago))["rules"] == []
    rule_id = await add_rule(
        workspace, "wiki", scope="page", target="help talk:rules", events=("edit",)
    )
    await add_rule(workspace, "wiki", scope="namespace", target="Help")
    await add_rule(workspace, "wiki", scope="category", target="plans")
    rules = assert_json_success(await workspace.get(path, workspace.desdemona))["rules"]
    assert [(r["scope"], r["target"]) for r in rules] == [
        ("page", "Help_talk:Rules"),
        ("namespace", "12"),
        ("category", "Plans"),
    ]
    assert rules[0] == {
        "id": rule_id, "stream_id": stream_id, "topic": "", "scope": "page",
        "target": "Help_talk:Rules", "events": ["edit"],
    }  # fmt: skip
    assert_json_success(await workspace.delete(f"{path}/{rule_id}", workspace.iago))
    assert_json_error(
        await workspace.delete(f"{path}/{rule_id}", workspace.iago), "Invalid rule ID"
    )
    assert_json_error(
        await workspace.delete(f"{path}/{rule_id + 1}", workspace.hamlet),
        "Must be an organization administrator",
        code="UNAUTHORIZED_PRINCIPAL",
    )
    # Zulip's own answers carry nothing new.
    register = assert_json_success(await workspace.post("/register", workspace.iago))
    assert not [k for k in register if "wiki" in k or "atrium" in k]


async def test_uploads_are_posted(workspace: WorkspaceHarness) -> None:
    import io

    from PIL import Image

    await workspace.make_stream("files", [workspace.hamlet])
    await add_rule(workspace, "files", scope="namespace", target="File", events=("upload",))
    picture = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(picture, "PNG")
    async with wiki_client(workspace, "Admin", "admin-password-1") as admin:
        tokens = (
            await admin.get(
                "/w/api.php", params={"action": "query", "meta": "tokens", "format": "json"}
            )
        ).json()
        done = (
            await admin.post(
                "/w/api.php",
                data={
                    "action": "upload", "filename": "Red.png", "comment": "a red square",
                    "token": tokens["query"]["tokens"]["csrftoken"], "format": "json",
                },
                files={"file": ("Red.png", picture.getvalue(), "application/octet-stream")},
            )
        ).json()  # fmt: skip
        assert done["upload"]["result"] == "Success", done
    await workspace.feed.run_once()
    [message] = await bot_messages(workspace)
    assert message["topic"] == "File:Red.png"
    assert message["content"] == (
        "[[File:Red.png]] was uploaded by [[User:Admin|Admin]]: ` a red square `"
    )
