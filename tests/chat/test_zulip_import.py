"""`atrium chat import-zulip`: a Zulip 7.x organization export read into an empty chat, checked
through the Zulip API; reruns, refusals and hostile archives."""

from __future__ import annotations

import io
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.realm import create_realm
from atrium.chat.errors import ChatError
from atrium.chat.porting.archive import Limits, UnsafeArchive, extract
from atrium.chat.porting.zulip_import import ImportResult
from atrium.chat.porting.zulip_io import import_archive
from atrium.chat.porting.zulip_reader import BadExport
from atrium.chat.runtime import ChatRuntime
from atrium.server import create_app
from atrium.settings import Settings
from tests.chat.conftest import ChatHarness, Member, assert_json_success
from tests.chat.zulip_export_builder import (
    CORDELIA,
    HAMLET,
    IAGO,
    UPLOAD_PATH,
    ZulipExportBuilder,
    message,
    png_bytes,
    standard_export,
)

pytestmark = pytest.mark.anyio


async def run_import(
    runtime: ChatRuntime, path: Path, limits: Limits | None = None
) -> ImportResult:
    return await anyio.to_thread.run_sync(
        lambda: import_archive(runtime.db, runtime.blobs, path, "acme.test", limits=limits)
    )


async def members(runtime: ChatRuntime) -> dict[str, Member]:
    rows = await runtime.db.read(lambda conn: conn.all(sa.select(schema.user)))
    return {
        r["delivery_email"].split("@")[0]: Member(
            r["id"], r["delivery_email"], r["full_name"], r["api_key"], r["role"]
        )
        for r in rows
    }


@pytest.fixture
async def empty_chat(settings: Settings) -> AsyncIterator[ChatHarness]:
    import httpx

    app = create_app(settings, services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield ChatHarness(runtime, client, 0)


async def imported(chat: ChatHarness, tmp_path: Path) -> ImportResult:
    result = await run_import(chat.runtime, standard_export().write(tmp_path / "acme.tar.gz"))
    chat.realm_id = result.realm_id
    chat.users.update(await members(chat.runtime))
    return result


async def all_messages(chat: ChatHarness, who: Member) -> list[dict[str, Any]]:
    body = assert_json_success(
        await chat.get(
            "/messages", who, anchor="oldest", num_before=0, num_after=100, apply_markdown=False
        )
    )
    return body["messages"]  # type: ignore[no-any-return]


async def test_messages_flags_and_subscriptions_come_out_as_they_went_in(
    empty_chat: ChatHarness, tmp_path: Path
) -> None:
    chat = empty_chat
    result = await imported(chat, tmp_path)
    assert not result.already_imported
    assert result.counts["messages"] == 9, result.counts
    assert result.counts["reactions"] == 2, result.counts
    hamlet, cordelia = chat.hamlet, chat.cordelia

    got = [
        (m["sender_email"], m.get("subject"), m["content"], sorted(m["flags"]))
        for m in await all_messages(chat, hamlet)
    ]
    assert got == [
        ("hamlet@acme.test", "hello", "Hi **all**", ["read", "starred"]),
        ("cordelia@acme.test", "sketches", got[1][2], []),
        ("iago@acme.test", "plans", "secret plans", []),
        ("hamlet@acme.test", "", "private hi", ["read"]),
        ("iago@acme.test", "", "group hi", []),
        ("hamlet@acme.test", "hello", "second draft", ["read"]),
        ("othello@acme.test", "hello", "@**King Hamlet** look", ["mentioned"]),
        ("helper-bot@acme.zulipchat.com", "bots", "beep", []),
        ("notification-bot@zulip.com", "hello", "a notice", []),
    ]
    # The upload link points at the new organization's copy of the file, which is served.
    new_path = f"{chat.realm_id}/ab/AbCdEf012/notes.txt"
    assert got[1][2] == f"[notes.txt](/user_uploads/{new_path})"
    resp = await chat.client.get(f"/user_uploads/{new_path}", headers=cordelia.auth())
    assert resp.status_code == 200 and resp.content == b"hello notes\n"

    # Cordelia sees neither the private stream nor Hamlet's direct message to Iago.
    contents = [m["content"] for m in await all_messages(chat, cordelia)]
    assert "secret plans" not in contents and "private hi" not in contents
    assert "group hi" in contents

    # Rendered HTML kept as Zulip stored it, with the mention pointing at the new user id.
    rendered = assert_json_success(
        await chat.get("/messages", hamlet, anchor="newest", num_before=5, num_after=0)
    )["messages"]
    mention = next(m["content"] for m in rendered if "user-mention" in m["content"])
    assert mention == (
        f'<p><span class="user-mention" data-user-id="{hamlet.id}">@King Hamlet</span> look</p>'
    )

    subs = assert_json_success(await chat.get("/users/me/subscriptions", hamlet))["subscriptions"]
    by_name = {s["name"]: s for s in subs}
    assert set(by_name) == {"general", "design", "secret plans"}
    assert by_name["general"]["pin_to_top"] is True
    assert by_name["design"]["is_muted"] is True
    assert by_name["secret plans"]["invite_only"] is True
    subs = assert_json_success(await chat.get("/users/me/subscriptions", cordelia))["subscriptions"]
    assert {s["name"] for s in subs} == {"general", "design"}

    # Edit history, reactions.
    edited = next(m for m in await all_messages(chat, hamlet) if m["content"] == "second draft")
    history = assert_json_success(await chat.get(f"/messages/{edited['id']}/history", hamlet))
    assert [h["content"] for h in history["message_history"]] == ["first draft", "second draft"]
    first = (await all_messages(chat, hamlet))[0]
    reactions = sorted((r["emoji_name"], r["reaction_type"]) for r in first["reactions"])
    assert reactions == [("+1", "unicode_emoji"), ("party", "realm_emoji")]


async def test_people_groups_emoji_and_settings(empty_chat: ChatHarness, tmp_path: Path) -> None:
    chat = empty_chat
    result = await imported(chat, tmp_path)
    iago = chat.iago
    users = assert_json_success(await chat.get("/users", iago))["members"]
    by_email = {u.get("delivery_email") or u["email"]: u for u in users}
    assert by_email["iago@acme.test"]["role"] == 100
    assert by_email["othello@acme.test"]["is_active"] is False
    bot = by_email["helper-bot@acme.zulipchat.com"]
    assert bot["is_bot"] is True and bot["bot_owner_id"] == chat.hamlet.id
    assert by_email["iago@acme.test"]["timezone"] == "Europe/Paris"

    settings = assert_json_success(await chat.post("/register", iago))
    assert settings["realm_name"] == "Acme Corp"
    assert settings["realm_icon_source"] == "U"
    icon = await chat.client.get(settings["realm_icon_url"].split("?")[0])
    assert icon.status_code == 200 and icon.content.startswith(b"\x89PNG")
    assert settings["realm_mandatory_topics"] is True
    assert settings["user_settings"]["enter_sends"] is True
    assert settings["user_settings"]["twenty_four_hour_time"] is True
    assert settings["realm_notifications_stream_id"] == next(
        s["stream_id"] for s in settings["subscriptions"] if s["name"] == "general"
    )

    emoji = assert_json_success(await chat.get("/realm/emoji", iago))["emoji"]
    assert [e["name"] for e in emoji.values()] == ["party"]
    linkifiers = assert_json_success(await chat.get("/realm/linkifiers", iago))["linkifiers"]
    assert [f["url_template"] for f in linkifiers] == ["https://tracker.acme.test/issues/{id}"]
    groups = assert_json_success(await chat.get("/user_groups", iago))["user_groups"]
    designers = next(g for g in groups if g["name"] == "designers")
    assert sorted(designers["members"]) == sorted([chat.hamlet.id, chat.cordelia.id])
    assert [s["name"] for s in settings["realm_default_streams"]] == ["general"]

    # Passwords do not travel; what is not carried is named.
    hashes = await chat.runtime.db.read(
        lambda conn: conn.scalars(sa.select(schema.user.c.password_hash))
    )
    assert set(hashes) == {None}
    report = "\n".join(result.not_carried)
    assert "zerver_userpresence: 1 rows" in report
    assert "zerver_customprofilefield" not in report
    state = assert_json_success(await chat.post("/register", chat.cordelia))
    assert state["muted_users"][0]["id"] == chat.othello.id
    fields = {f["name"]: f["id"] for f in state["custom_profile_fields"]}
    cordelia = next(u for u in state["realm_users"] if u["user_id"] == chat.cordelia.id)
    assert cordelia["profile_data"][str(fields["Mentor"])]["value"] == f"[{chat.hamlet.id}]"
    hamlet_state = assert_json_success(await chat.post("/register", chat.hamlet))
    [topic] = hamlet_state["user_topics"]
    assert (topic["topic_name"], topic["visibility_policy"]) == ("sketches", 1)
    iago_state = assert_json_success(await chat.post("/register", chat.iago))
    assert iago_state["alert_words"] == ["plans"]
    assert "passwords" in report
    assert by_email["iago@acme.test"]["avatar_url"] != by_email["hamlet@acme.test"]["avatar_url"]
    assert "gravatar" not in by_email["iago@acme.test"]["avatar_url"]


async def test_rerun_is_idempotent_and_another_import_is_refused(
    empty_chat: ChatHarness, tmp_path: Path
) -> None:
    chat = empty_chat
    first = await imported(chat, tmp_path)
    again = await run_import(chat.runtime, tmp_path / "acme.tar.gz")
    assert again.already_imported and again.realm_id == first.realm_id
    assert again.counts == first.counts
    count = await chat.runtime.db.read(
        lambda conn: conn.scalar(sa.select(sa.func.count()).select_from(schema.message))
    )
    assert count == 9
    other = standard_export()
    other.realm["zerver_realm"][0]["name"] = "Other"
    with pytest.raises(ChatError, match="already has an organization"):
        await run_import(chat.runtime, other.write(tmp_path / "other.tar.gz"))


async def test_import_into_a_chat_with_an_organization_is_refused(
    empty_chat: ChatHarness, tmp_path: Path
) -> None:
    await empty_chat.runtime.db.write(create_realm, "Existing", "existing")
    with pytest.raises(ChatError, match="already has an organization"):
        await run_import(empty_chat.runtime, standard_export().write(tmp_path / "a.tar.gz"))


def _tar_with(path: Path, members: list[tarfile.TarInfo], data: bytes = b"x") -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info in members:
            if info.isreg():
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


@pytest.mark.parametrize(
    "members",
    [
        [_member("export/realm.json"), _member("export/../../escape.txt")],
        [_member("/etc/cron.d/evil")],
        [_member("export/realm.json", tarfile.SYMTYPE, "/etc/passwd")],
        [_member("export/uploads", tarfile.SYMTYPE, "/"), _member("export/uploads/x")],
        [_member("export/a", tarfile.LNKTYPE, "/etc/passwd")],
        [_member("export/fifo", tarfile.FIFOTYPE)],
        [_member("one/realm.json"), _member("two/realm.json")],
        [_member("export/realm.json"), _member("export/realm.json")],
    ],
    ids=[
        "dotdot", "absolute", "symlink", "symlinked-folder", "hardlink", "fifo", "two-tops",
        "twice",
    ],
)  # fmt: skip
def test_hostile_archives_are_refused(tmp_path: Path, members: list[tarfile.TarInfo]) -> None:
    path = _tar_with(tmp_path / "evil.tar.gz", members)
    (tmp_path / "out").mkdir()
    with pytest.raises(UnsafeArchive):
        extract(path, tmp_path / "out")
    assert not (tmp_path / "escape.txt").exists()
    assert not any(p.is_symlink() for p in (tmp_path / "out").rglob("*"))


async def test_a_hostile_archive_writes_nothing(empty_chat: ChatHarness, tmp_path: Path) -> None:
    path = _tar_with(
        tmp_path / "evil.tar.gz",
        [_member("export/realm.json"), _member("export/../../escape.txt")],
    )
    with pytest.raises(UnsafeArchive, match="outside the export"):
        await run_import(empty_chat.runtime, path)
    realms = await empty_chat.runtime.db.read(lambda conn: conn.all(sa.select(schema.realm)))
    assert realms == []


async def test_size_limits_and_garbage(empty_chat: ChatHarness, tmp_path: Path) -> None:
    path = standard_export().write(tmp_path / "acme.tar.gz")
    with pytest.raises(UnsafeArchive, match="larger than the limit"):
        await run_import(empty_chat.runtime, path, Limits(max_file_bytes=1000))
    with pytest.raises(UnsafeArchive, match="more than 3 members"):
        await run_import(empty_chat.runtime, path, Limits(max_members=3))
    (tmp_path / "junk.tar.gz").write_bytes(b"not a tarball")
    with pytest.raises(UnsafeArchive):
        await run_import(empty_chat.runtime, tmp_path / "junk.tar.gz")


async def test_script_in_rendered_html_and_fake_images_are_not_carried(
    empty_chat: ChatHarness, tmp_path: Path
) -> None:
    chat = empty_chat
    export: ZulipExportBuilder = standard_export()
    export.messages[0]["rendered_content"] = (
        '<p>Hi<script>alert(1)</script><img src=x onerror="alert(2)"></p>'
    )
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(3)</script></svg>'
    export.files["emoji/2/emoji/images/70.png"] = svg
    export.files[f"uploads/{UPLOAD_PATH}"] = b"<html><script>alert(4)</script></html>"
    export.files["avatars/2/5d2d9a4c.original"] = png_bytes()[:20]
    export.files["avatars/2/5d2d9a4c.png"] = svg
    result = await run_import(chat.runtime, export.write(tmp_path / "x.tar.gz"))
    chat.users.update(await members(chat.runtime))
    first = assert_json_success(
        await chat.get("/messages", chat.hamlet, anchor="oldest", num_before=0, num_after=1)
    )["messages"][0]
    assert "<script" not in first["content"] and "onerror" not in first["content"]
    assert "<strong>all</strong>" in first["content"]  # rendered again from its Markdown
    report = "\n".join(result.not_carried)
    assert "emoji :party:" in report and "avatar of user 10" in report
    assert assert_json_success(await chat.get("/realm/emoji", chat.iago))["emoji"] == {}
    # The upload is kept, but served as a download of the type its name says, never as HTML.
    new_path = f"{result.realm_id}/ab/AbCdEf012/notes.txt"
    resp = await chat.client.get(f"/user_uploads/{new_path}", headers=chat.cordelia.auth())
    assert resp.headers["content-type"].startswith("text/plain")
    assert resp.headers["x-content-type-options"] == "nosniff"


def zulip_9_layout(export: ZulipExportBuilder) -> ZulipExportBuilder:
    """The same organization as Zulip 9.x writes it: named groups in zerver_namedusergroup
    (system groups without the "@"), renamed announcement streams, playground URL templates."""
    realm = export.realm
    named = []
    for group in realm["zerver_usergroup"]:
        named.append(
            {
                "usergroup_ptr": group["id"],
                "name": group["name"].lstrip("@"),
                "description": group["description"],
                "is_system_group": group["is_system_group"],
                "can_mention_group": group.get("can_mention_group", 92),
                "realm_for_sharding": 2,
            }
        )
    realm["zerver_namedusergroup"] = named
    realm["zerver_usergroup"] = [{"id": g["id"], "realm": 2} for g in realm["zerver_usergroup"]]
    zulip_realm = realm["zerver_realm"][0]
    zulip_realm["new_stream_announcements_stream"] = zulip_realm.pop("notifications_stream")
    zulip_realm["signup_announcements_stream"] = zulip_realm.pop("signup_notifications_stream")
    for playground in realm["zerver_realmplayground"]:
        playground["url_template"] = playground.pop("url_prefix") + "{code}"
    for n, linkifier in enumerate(realm["zerver_realmfilter"]):
        linkifier["order"] = n
    # Settings under the names 8.0 gave them.
    hamlet = next(u for u in realm["zerver_userprofile"] if u["id"] == HAMLET)
    hamlet["web_home_view"] = "all_messages"
    hamlet["web_escape_navigates_to_home_view"] = False
    realm["zerver_realmuserdefault"][0]["web_home_view"] = "all_messages"
    return export


def zulip_8_layout(export: ZulipExportBuilder) -> ZulipExportBuilder:
    """The same organization as Zulip 8.x writes it: system groups named without the "@" (8.0's
    models name `role:administrators`), a `can_mention_group` on every group, playground URL
    templates and linkifier `order`; the announcement streams keep their 7.x names."""
    realm = export.realm
    for group in realm["zerver_usergroup"]:
        group["name"] = group["name"].lstrip("@")
        group.setdefault("can_mention_group", 92)
    for playground in realm["zerver_realmplayground"]:
        playground["url_template"] = playground.pop("url_prefix") + "{code}"
    realm["zerver_realmfilter"][0]["order"] = 1
    realm["zerver_realmfilter"].append(
        {"id": 2, "realm": 2, "pattern": "PR(?P<id>[0-9]+)", "order": 0,
         "url_template": "https://code.acme.test/pulls/{id}"}
    )  # fmt: skip
    return export


async def test_zulip_8_layout(empty_chat: ChatHarness, tmp_path: Path) -> None:
    chat = empty_chat
    export = zulip_8_layout(standard_export())
    result = await run_import(chat.runtime, export.write(tmp_path / "eight.tar.gz"))
    chat.users.update(await members(chat.runtime))
    assert result.counts["messages"] == 9 and result.counts["user groups"] == 1
    state = assert_json_success(await chat.post("/register", chat.iago))
    groups = {g["name"]: g for g in state["realm_user_groups"]}
    assert sorted(groups["designers"]["members"]) == sorted([chat.hamlet.id, chat.cordelia.id])
    # The unprefixed system groups are this server's own, with their members by role.
    assert chat.iago.id in groups["@role:owners"]["members"]
    assert not any(name.startswith("role:") for name in groups)
    # Linkifiers in the export's order, not their ids'.
    assert [f["pattern"] for f in state["realm_linkifiers"]] == [
        "PR(?P<id>[0-9]+)",
        "#(?P<id>[0-9]+)",
    ]
    assert [p["url_prefix"] for p in state["realm_playgrounds"]] == [
        "https://play.rust-lang.org/?code="
    ]
    general = next(s["stream_id"] for s in state["subscriptions"] if s["name"] == "general")
    assert state["realm_notifications_stream_id"] == general


async def test_zulip_9_layout(empty_chat: ChatHarness, tmp_path: Path) -> None:
    chat = empty_chat
    export = zulip_9_layout(standard_export())
    result = await run_import(chat.runtime, export.write(tmp_path / "nine.tar.gz"))
    chat.users.update(await members(chat.runtime))
    assert result.counts["messages"] == 9 and result.counts["user groups"] == 1
    state = assert_json_success(await chat.post("/register", chat.iago))
    designers = next(g for g in state["realm_user_groups"] if g["name"] == "designers")
    assert sorted(designers["members"]) == sorted([chat.hamlet.id, chat.cordelia.id])
    general = next(s["stream_id"] for s in state["subscriptions"] if s["name"] == "general")
    assert state["realm_notifications_stream_id"] == general
    assert [p["url_prefix"] for p in state["realm_playgrounds"]] == [
        "https://play.rust-lang.org/?code="
    ]
    assert result.person_ids and chat.hamlet.id in result.person_ids
    assert len(result.person_ids) == 4  # iago, hamlet, cordelia, othello; not the bots
    # Renamed settings land on the names of feature level 185.
    own = assert_json_success(await chat.post("/register", chat.hamlet))["user_settings"]
    assert own["default_view"] == "all_messages"
    assert own["escape_navigates_to_default_view"] is False
    defaults = await chat.runtime.db.read(
        lambda conn: conn.scalar(sa.select(schema.realm.c.user_settings_defaults))
    )
    assert orjson.loads(defaults)["default_view"] == "all_messages"


async def test_hostile_rows_are_refused_or_left_out(
    empty_chat: ChatHarness, tmp_path: Path
) -> None:
    chat = empty_chat
    broken = standard_export()
    broken.messages[3]["id"] = "not a number"
    with pytest.raises(BadExport, match="malformed"):
        await run_import(chat.runtime, broken.write(tmp_path / "broken.tar.gz"))
    assert await chat.runtime.db.read(lambda conn: conn.all(sa.select(schema.realm))) == []
    with pytest.raises(BadExport, match=r"realm\.json"):
        missing = standard_export()
        missing.realm = {"zerver_realm": []}
        await run_import(chat.runtime, missing.write(tmp_path / "norealm.tar.gz"))

    export = standard_export()
    realm = export.realm
    realm["zerver_realmfilter"][0]["url_template"] = "javascript:alert({id})"
    realm["zerver_realmplayground"][0]["url_prefix"] = "javascript:alert("
    realm["zerver_realmemoji"][0]["name"] = "<img src=x>"
    realm["zerver_userprofile"][1]["full_name"] = 'Ham"let\x07'
    realm["zerver_userprofile"][1]["default_language"] = "../../etc"
    realm["zerver_stream"][1]["name"] = "bad\x00name"
    result = await run_import(chat.runtime, export.write(tmp_path / "rows.tar.gz"))
    chat.users.update(await members(chat.runtime))
    report = "\n".join(result.not_carried)
    for expected in ("linkifier", "emoji '<img src=x>'", "stream 21", "code playground"):
        assert expected in report
    state = assert_json_success(await chat.post("/register", chat.iago))
    assert state["realm_linkifiers"] == [] and state["realm_playgrounds"] == []
    hamlet = next(u for u in state["realm_users"] if u["user_id"] == chat.hamlet.id)
    assert hamlet["full_name"] == "Hamlet"
    own = assert_json_success(await chat.post("/register", chat.hamlet))
    assert own["user_settings"]["default_language"] == "en"


async def test_group_mentions_and_status_emoji_follow_their_new_ids(
    empty_chat: ChatHarness, tmp_path: Path
) -> None:
    """Zulip's import_realm rewrites `data-user-group-id` in stored HTML and the custom emoji of
    user statuses, as it does user and stream ids; so does this import."""
    chat = empty_chat
    export = standard_export()
    group_mention = (
        '<p><span class="user-group-mention" data-user-group-id="91">@designers</span> review</p>'
    )
    export.messages.append(message(109, IAGO, 40, "hello", "@*designers* review", group_mention))
    export.user_messages.append(
        {"id": 999, "user_profile": HAMLET, "message": 109, "flags_mask": 0}
    )
    export.realm["zerver_userstatus"] = [
        {"id": 1, "user_profile": HAMLET, "status_text": "drawing", "emoji_name": "party",
         "emoji_code": "70", "reaction_type": "realm_emoji", "timestamp": 1_690_000_000},
        {"id": 2, "user_profile": CORDELIA, "status_text": "away", "emoji_name": "gone",
         "emoji_code": "999", "reaction_type": "realm_emoji", "timestamp": 1_690_000_000},
    ]  # fmt: skip
    result = await run_import(chat.runtime, export.write(tmp_path / "ids.tar.gz"))
    chat.users.update(await members(chat.runtime))
    state = assert_json_success(await chat.post("/register", chat.hamlet))
    designers = next(g for g in state["realm_user_groups"] if g["name"] == "designers")
    shown = assert_json_success(
        await chat.get("/messages", chat.hamlet, anchor="newest", num_before=1, num_after=0)
    )["messages"][0]["content"]
    assert f'data-user-group-id="{designers["id"]}"' in shown

    party = next(code for code, emoji in state["realm_emoji"].items() if emoji["name"] == "party")
    statuses = {
        row["user_id"]: row
        for row in await chat.runtime.db.read(lambda conn: conn.all(sa.select(schema.user_status)))
    }
    assert (statuses[chat.hamlet.id]["emoji_code"], statuses[chat.hamlet.id]["emoji_name"]) == (
        party,
        "party",
    )
    assert statuses[chat.hamlet.id]["reaction_type"] == "realm_emoji"
    # An emoji the export did not carry leaves the status without one, not a stranger's.
    gone = statuses[chat.cordelia.id]
    assert (gone["status_text"], gone["emoji_code"], gone["emoji_name"]) == ("away", "", "")
    # The report says which messages keep the HTML Zulip stored.
    report = "\n".join(result.not_carried)
    assert "10 messages keep the HTML their Zulip server rendered" in report


async def test_direct_messages_to_the_servers_bots_come_over(
    empty_chat: ChatHarness, tmp_path: Path
) -> None:
    """Zulip's export leaves the personal recipients of its system bots out of zerver_recipient
    and gives each in the bot's `zerver_userprofile_crossrealm` row: a reply to the
    notification bot is addressed through it."""
    chat = empty_chat
    export = standard_export()
    [bot] = export.realm["zerver_userprofile_crossrealm"]
    bot["recipient_id"] = 36
    export.messages.append(message(110, HAMLET, 36, "", "thanks, bot", "<p>thanks, bot</p>"))
    export.user_messages.append(
        {"id": 998, "user_profile": HAMLET, "message": 110, "flags_mask": 1}
    )
    result = await run_import(chat.runtime, export.write(tmp_path / "bot.tar.gz"))
    chat.users.update(await members(chat.runtime))
    assert result.counts["messages"] == 10, result.counts
    [reply] = [m for m in await all_messages(chat, chat.hamlet) if m["content"] == "thanks, bot"]
    assert reply["type"] == "private"
    assert {r["email"] for r in reply["display_recipient"]} >= {"notification-bot@zulip.com"}
