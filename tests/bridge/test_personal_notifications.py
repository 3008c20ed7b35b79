"""Wiki changes sent to one person by direct message: a change to a page on their watchlist (a
setting of their own, off by default) and a mention of their user page in a talk page edit or a
summary. Nothing hidden reaches them, and a later hiding takes the message back; hiding revisions
of a deleted page or a user's name withdraws the notices that showed them too."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import sqlalchemy as sa

from atrium.chat import schema as chat_schema
from atrium.wiki import schema as wiki_schema
from atrium.wiki.changes.pages import Editor, EditRequest, edit_page
from atrium.wiki.reads.users import account_by_id, account_by_name
from tests.bridge.conftest import WorkspaceHarness, wiki_client, wiki_post
from tests.bridge.test_wiki_feed import add_rule, bot_messages, oversight
from tests.chat.conftest import Member, assert_json_error, assert_json_success

pytestmark = pytest.mark.anyio

M = chat_schema.message.c
UM = chat_schema.user_message.c


async def direct_messages(ws: WorkspaceHarness, user: Member) -> list[str]:
    """The contents of the direct messages the Notification Bot sent `user`, oldest first."""
    return [
        m["content"]
        for m in await bot_messages(ws)
        if m["stream_id"] is None and user.id in await receivers(ws, int(m["id"]))
    ]


async def receivers(ws: WorkspaceHarness, message_id: int) -> set[int]:
    return set(
        await ws.runtime.db.read(
            lambda conn: conn.scalars(sa.select(UM.user_id).where(UM.message_id == message_id))
        )
    )


async def watch(ws: WorkspaceHarness, user: Member, ns: int, dbkey: str) -> None:
    wiki_id = await ws.wiki_user_id(user)
    await ws.wiki.db.write(
        lambda conn: conn.execute(
            sa.insert(wiki_schema.watchlist).values(
                wl_user=wiki_id, wl_namespace=ns, wl_title=dbkey
            )
        )
    )


async def wiki_name(ws: WorkspaceHarness, user: Member) -> str:
    wiki_id = await ws.wiki_user_id(user)
    account = await ws.wiki.db.read(account_by_id, wiki_id)
    assert account is not None
    return account.name


async def edit_as(ws: WorkspaceHarness, name: str, title: str, text: str, summary: str = "") -> int:
    site = ws.wiki.site

    def write(conn: Any) -> int:
        account = account_by_name(conn, name)
        assert account is not None
        editor = Editor(account.id, account.name, frozenset(account.rights))
        request = EditRequest(site.parser.parse(title), editor, text=text, summary=summary)
        return int(edit_page(conn, site, request).new_rev_id)

    return await ws.wiki.db.write(write)


async def set_watchlist_setting(ws: WorkspaceHarness, user: Member, on: bool) -> None:
    assert_json_success(
        await ws.patch(
            "/atrium/notification_settings", user, wiki_watchlist_pages="true" if on else "false"
        )
    )


async def test_the_setting_is_each_persons_own_and_off_by_default(
    workspace: WorkspaceHarness,
) -> None:
    get = "/atrium/notification_settings"
    body = assert_json_success(await workspace.get(get, workspace.hamlet))
    assert body["wiki_watchlist_pages"] is False
    await set_watchlist_setting(workspace, workspace.hamlet, True)
    assert assert_json_success(await workspace.get(get, workspace.hamlet))["wiki_watchlist_pages"]
    # Cordelia's stays hers.
    body = assert_json_success(await workspace.get(get, workspace.cordelia))
    assert body["wiki_watchlist_pages"] is False
    assert_json_error(
        await workspace.patch(get, workspace.hamlet, wiki_watchlist_pages="maybe"),
        "wiki_watchlist_pages is not valid JSON",
    )
    assert (await workspace.get(get, None)).status_code == 401
    # Not in Zulip's own answers.
    register = assert_json_success(await workspace.post("/register", workspace.hamlet))
    assert "wiki_watchlist_pages" not in str(register)


async def test_watched_pages_notify_those_who_asked(workspace: WorkspaceHarness) -> None:
    await watch(workspace, workspace.hamlet, 1, "Meeting_notes")  # the talk page covers both
    await watch(workspace, workspace.cordelia, 0, "Meeting_notes")
    await set_watchlist_setting(workspace, workspace.hamlet, True)
    await workspace.edit_page("Meeting notes", "Agenda.", summary="start")
    await workspace.feed.run_once()
    [message] = await direct_messages(workspace, workspace.hamlet)
    assert message.startswith("A page on your watchlist changed: [[Meeting notes]] was created")
    assert message.endswith(": ` start `")
    # Cordelia watches it too, but did not ask for messages.
    assert await direct_messages(workspace, workspace.cordelia) == []
    # Their own edit notifies nobody of it.
    await edit_as(workspace, await wiki_name(workspace, workspace.hamlet), "Meeting notes", "B.")
    await workspace.feed.run_once()
    assert len(await direct_messages(workspace, workspace.hamlet)) == 1
    # Turned off: no more.
    await set_watchlist_setting(workspace, workspace.hamlet, False)
    await workspace.edit_page("Meeting notes", "C.")
    await workspace.feed.run_once()
    assert len(await direct_messages(workspace, workspace.hamlet)) == 1


async def test_mentions_in_talk_pages_and_summaries(workspace: WorkspaceHarness) -> None:
    cordelia = await wiki_name(workspace, workspace.cordelia)
    hamlet = await wiki_name(workspace, workspace.hamlet)
    await workspace.edit_page("Talk:Plans", f"What does [[User:{cordelia}|she]] think?")
    await workspace.feed.run_once()
    [message] = await direct_messages(workspace, workspace.cordelia)
    assert message.startswith("You were mentioned on the wiki: [[Talk:Plans]] was created by")
    # A mention already there is not new; a new one is.
    await workspace.edit_page(
        "Talk:Plans", f"What does [[User:{cordelia}|she]] think? And [[user:{hamlet}]]?"
    )
    # In a summary, on any page; in an article's text, no one.
    await workspace.edit_page("Plans", f"[[User:{cordelia}]]", summary=f"ask [[User:{hamlet}]]")
    # Not a person: a wiki-only account, a subpage, a name nobody has.
    await workspace.edit_page(
        "Talk:Other", "[[User:Alice]] [[User:" + cordelia + "/Drafts]] [[User:Nobody here]]"
    )
    await workspace.feed.run_once()
    assert len(await direct_messages(workspace, workspace.cordelia)) == 1
    assert len(await direct_messages(workspace, workspace.hamlet)) == 2
    # Hostile text in a mention stays text (the notice quotes nothing of the page's text).
    await workspace.edit_page(
        "Talk:Plans2", f"[[User:{cordelia}]] @**King Hamlet** <script>x</script>",
        summary="@**all**",
    )  # fmt: skip
    await workspace.feed.run_once()
    latest = (await direct_messages(workspace, workspace.cordelia))[-1]
    assert "<script>" not in latest and "@**" not in latest.replace("` @**all** `", "")


async def test_a_deactivated_member_is_not_notified(workspace: WorkspaceHarness) -> None:
    cordelia = await wiki_name(workspace, workspace.cordelia)
    assert_json_success(await workspace.delete(f"/users/{workspace.cordelia.id}", workspace.iago))
    await workspace.edit_page("Talk:Plans", f"[[User:{cordelia}]]?")
    await workspace.feed.run_once()
    assert await direct_messages(workspace, workspace.cordelia) == []


async def test_hidden_revisions_never_reach_a_direct_message(workspace: WorkspaceHarness) -> None:
    cordelia = await wiki_name(workspace, workspace.cordelia)
    await workspace.edit_page("Talk:Plans", "Start.")
    await workspace.feed.run_once()
    hidden_first = await workspace.edit_page(
        "Talk:Plans", f"[[User:{cordelia}]] one", summary="secret one"
    )
    async with await oversight(workspace) as client:
        done = await wiki_post(
            client, action="revisiondelete", type="revision", target="Talk:Plans",
            ids=str(hidden_first), hide="comment",
        )  # fmt: skip
        assert "revisiondelete" in done, done
        await workspace.feed.run_once()
        assert await direct_messages(workspace, workspace.cordelia) == []
        await workspace.edit_page("Talk:Plans", "Reset.")
        shown = await workspace.edit_page(
            "Talk:Plans", f"[[User:{cordelia}]] two", summary="secret two"
        )
        await workspace.feed.run_once()
        assert len(await direct_messages(workspace, workspace.cordelia)) == 1
        done = await wiki_post(
            client, action="revisiondelete", type="revision", target="Talk:Plans",
            ids=str(shown), hide="comment", suppress="yes",
        )  # fmt: skip
        assert "revisiondelete" in done, done
    await workspace.feed.run_once()
    assert await direct_messages(workspace, workspace.cordelia) == []


async def test_hiding_a_deleted_pages_revision_withdraws_its_notices(
    workspace: WorkspaceHarness,
) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet])
    await add_rule(workspace, "wiki", events=("create", "edit"))
    await workspace.edit_page("Gone", "one")
    await workspace.edit_page("Gone", "two", summary="personal data")
    await workspace.feed.run_once()
    assert sum("personal data" in m["content"] for m in await bot_messages(workspace)) == 1
    async with await oversight(workspace) as client:
        done = await wiki_post(client, action="delete", title="Gone", reason="x")
        assert "delete" in done, done
        await workspace.feed.run_once()
        # Deleting the page alone withdraws nothing.
        assert sum("personal data" in m["content"] for m in await bot_messages(workspace)) == 1
        stamp = await workspace.wiki.db.read(
            lambda conn: conn.scalar(
                sa.select(sa.func.max(wiki_schema.archive.c.ar_timestamp)).where(
                    wiki_schema.archive.c.ar_title == "Gone"
                )
            )
        )
        done = await wiki_post(
            client, action="revisiondelete", type="archive", target="Gone", ids=str(stamp),
            hide="comment",
        )  # fmt: skip
        assert "revisiondelete" in done, done
    await workspace.feed.run_once()
    assert all("personal data" not in m["content"] for m in await bot_messages(workspace))


async def test_hiding_a_users_name_withdraws_their_notices(workspace: WorkspaceHarness) -> None:
    await workspace.make_stream("wiki", [workspace.hamlet])
    await add_rule(workspace, "wiki")
    await edit_as(workspace, "Alice", "Alices page", "text", summary="by alice")
    await workspace.edit_page("Admins page", "text")
    await workspace.feed.run_once()
    assert len(await bot_messages(workspace)) == 2
    async with await oversight(workspace) as client:
        done = await wiki_post(
            client, action="block", user="Alice", hidename="1", expiry="infinite", reason="x"
        )
        assert "block" in done, done
    await workspace.feed.run_once()
    [left] = await bot_messages(workspace)
    assert "Admins page" in left["content"]
    assert all("Alice" not in m["content"] for m in await bot_messages(workspace))


async def test_upload_by_a_hidden_user_is_withdrawn(workspace: WorkspaceHarness) -> None:
    """An old file version's uploader hidden: the upload's notice goes."""
    import io

    from PIL import Image

    await workspace.make_stream("files", [workspace.hamlet])
    await add_rule(workspace, "files", events=("upload",))
    for colour in ((200, 10, 10), (10, 200, 10)):
        picture = io.BytesIO()
        Image.new("RGB", (8, 8), colour).save(picture, "PNG")
        name = "Alice" if colour[0] == 200 else "Admin"
        password = "alice-password-1" if name == "Alice" else "admin-password-1"
        async with wiki_client(workspace, name, password) as uploader:
            tokens = (
                await uploader.get(
                    "/w/api.php", params={"action": "query", "meta": "tokens", "format": "json"}
                )
            ).json()
            done = (
                await uploader.post(
                    "/w/api.php",
                    data={
                        "action": "upload", "filename": "Red.png", "comment": f"by {name}",
                        "ignorewarnings": "1", "token": tokens["query"]["tokens"]["csrftoken"],
                        "format": "json",
                    },
                    files={"file": ("Red.png", picture.getvalue(), "application/octet-stream")},
                )
            ).json()  # fmt: skip
            assert done["upload"]["result"] == "Success", done
    await workspace.feed.run_once()
    assert len(await bot_messages(workspace)) == 2
    async with await oversight(workspace) as client:
        done = await wiki_post(
            client, action="block", user="Alice", hidename="1", expiry="infinite", reason="x"
        )
        assert "block" in done, done
    await workspace.feed.run_once()
    [left] = await bot_messages(workspace)
    assert "by Admin" in left["content"]


async def test_an_old_file_version_hidden_withdraws_its_upload(
    workspace: WorkspaceHarness,
) -> None:
    """`revisiondelete` of an old version (`type=oldimage`): its upload's notice goes, the
    current version's stays."""
    import io

    from PIL import Image

    await workspace.make_stream("files", [workspace.hamlet])
    await add_rule(workspace, "files", events=("upload",))
    async with wiki_client(workspace, "Admin", "admin-password-1") as admin:
        for colour, comment in (((200, 10, 10), "first"), ((10, 200, 10), "second")):
            picture = io.BytesIO()
            Image.new("RGB", (8, 8), colour).save(picture, "PNG")
            tokens = (
                await admin.get(
                    "/w/api.php", params={"action": "query", "meta": "tokens", "format": "json"}
                )
            ).json()
            done = (
                await admin.post(
                    "/w/api.php",
                    data={
                        "action": "upload", "filename": "Green.png", "comment": comment,
                        "ignorewarnings": "1", "token": tokens["query"]["tokens"]["csrftoken"],
                        "format": "json",
                    },
                    files={"file": ("Green.png", picture.getvalue(), "application/octet-stream")},
                )
            ).json()  # fmt: skip
            assert done["upload"]["result"] == "Success", done
            # Two uploads in one second would share a timestamp, and so an archive name.
            await asyncio.sleep(1.1)
    await workspace.feed.run_once()
    assert len(await bot_messages(workspace)) == 2
    async with await oversight(workspace) as client:
        info = await client.get(
            "/w/api.php",
            params={"action": "query", "titles": "File:Green.png", "prop": "imageinfo",
                    "iiprop": "archivename", "iilimit": "2", "format": "json",
                    "formatversion": "2"},
        )  # fmt: skip
        old = info.json()["query"]["pages"][0]["imageinfo"][1]["archivename"]
        done = await wiki_post(
            client, action="revisiondelete", type="oldimage", target="File:Green.png",
            ids=old.split("!", 1)[0], hide="comment", reason="x",
        )  # fmt: skip
        assert done.get("revisiondelete", {}).get("status") == "Success", done
    await workspace.feed.run_once()
    [left] = await bot_messages(workspace)
    assert "second" in left["content"]
