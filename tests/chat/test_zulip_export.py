"""`atrium chat export` and `atrium chat import-zulip` from the command line: the export has
Zulip's layout and owner-only files, and importing it into an empty data directory gives the same
organization through the Zulip API."""

from __future__ import annotations

import io
import stat
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from PIL import Image

from atrium.chat import schema
from atrium.chat.runtime import ChatRuntime
from atrium.cli import main
from atrium.server import create_app
from tests.chat.conftest import Member, assert_json_success, chat_settings
from tests.chat.zulip_export_builder import standard_export

pytestmark = pytest.mark.anyio


def invoke(monkeypatch: pytest.MonkeyPatch, data_dir: Path, *args: str) -> Any:
    monkeypatch.setenv("ATRIUM_DATA_DIR", str(data_dir))
    monkeypatch.delenv("ATRIUM_DATABASE_URL", raising=False)
    # The chat alone: importing and exporting are the chat's; the workspace's linking of the
    # people imported is tested with both services in tests/e2e/test_chat_zulip_import.py.
    monkeypatch.setenv("ATRIUM_SERVICES", "chat")
    return CliRunner().invoke(main, ["chat", *args])


async def organization_view(data_dir: Path) -> dict[str, Any]:
    """What each person sees of the organization through the API, without ids."""
    app = create_app(chat_settings(data_dir, None), services=("chat",))
    runtime: ChatRuntime = app.state.services["chat"].state["runtime"]
    view: dict[str, Any] = {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            rows = await runtime.db.read(
                lambda conn: conn.all(
                    sa.select(schema.user).where(schema.user.c.is_active.is_(True))
                )
            )
            for row in rows:
                me = Member(row["id"], row["delivery_email"], "", row["api_key"], row["role"])

                async def get(path: str, me: Member = me, **params: Any) -> dict[str, Any]:
                    encoded = {
                        k: v if isinstance(v, str) else orjson.dumps(v).decode()
                        for k, v in params.items()
                    }
                    resp = await client.get("/api/v1" + path, params=encoded, headers=me.auth())
                    return assert_json_success(resp)

                messages = (
                    await get(
                        "/messages",
                        anchor="oldest",
                        num_before=0,
                        num_after=100,
                        apply_markdown=False,
                    )
                )["messages"]
                subs = (await get("/users/me/subscriptions"))["subscriptions"]
                own = assert_json_success(await client.post("/api/v1/register", headers=me.auth()))
                view[row["delivery_email"]] = {
                    "messages": [
                        (
                            m["sender_email"],
                            m.get("subject"),
                            m["content"],
                            sorted(m["flags"]),
                            sorted((r["emoji_name"], r["user_id"] and 1) for r in m["reactions"]),
                            m.get("last_edit_timestamp"),
                        )
                        for m in messages
                    ],
                    "personal": (
                        sorted(
                            (t["topic_name"], t["visibility_policy"]) for t in own["user_topics"]
                        ),
                        len(own["muted_users"]),
                        own["alert_words"],
                        sorted(
                            str(sorted(u.get("profile_data", {}).values(), key=str))
                            for u in own["realm_users"]
                        ),
                    ),
                    "subscriptions": sorted(
                        (s["name"], s["invite_only"], s["pin_to_top"], s["is_muted"], s["color"])
                        for s in subs
                    ),
                }
            owner = next(r for r in rows if r["role"] == 100)
            me = Member(owner["id"], owner["delivery_email"], "", owner["api_key"], 100)
            users = assert_json_success(await client.get("/api/v1/users", headers=me.auth()))[
                "members"
            ]
            view["users"] = sorted(
                (u.get("delivery_email") or u["email"], u["full_name"], u["role"], u["is_active"])
                for u in users
            )
            state = assert_json_success(await client.post("/api/v1/register", headers=me.auth()))
            view["realm"] = {
                k: state[k]
                for k in (
                    "realm_name",
                    "realm_description",
                    "realm_mandatory_topics",
                    "realm_icon_source",
                )
            }
            view["profile_fields"] = [f["name"] for f in state["custom_profile_fields"]]
            view["emoji"] = sorted(e["name"] for e in state["realm_emoji"].values())
            view["linkifiers"] = [f["pattern"] for f in state["realm_linkifiers"]]
            view["groups"] = sorted(
                (g["name"], len(g["members"])) for g in state["realm_user_groups"]
            )
            view["default_streams"] = [s["name"] for s in state["realm_default_streams"]]
    return view


async def test_export_then_import_gives_the_same_organization(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = standard_export().write(tmp_path / "zulip.tar.gz")
    first, second = tmp_path / "first", tmp_path / "second"
    result = invoke(monkeypatch, first, "import-zulip", str(source))
    assert result.exit_code == 0, result.output
    assert "Imported the organization" in result.output
    assert "zerver_userpresence: 1 rows" in result.output
    again = invoke(monkeypatch, first, "import-zulip", str(source))
    assert again.exit_code == 0 and "already imported" in again.output

    out = tmp_path / "atrium-export.tar.gz"
    result = invoke(monkeypatch, first, "export", "--output", str(out))
    assert result.exit_code == 0, result.output
    assert "exported 9 messages" in result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with tarfile.open(out) as tar:
        names = tar.getnames()
        top = names[0].split("/")[0]
        assert top.startswith("zulip-export-")
        assert all(n.split("/")[0] == top for n in names)
        for required in ("realm.json", "messages-000001.json", "attachment.json"):
            assert f"{top}/{required}" in names
        member = tar.extractfile(f"{top}/messages-000001.json")
        assert member is not None
        chunk = orjson.loads(member.read())
        assert all("flags_mask" in um for um in chunk["zerver_usermessage"])
        assert all(stat.S_IMODE(m.mode) in (0o600, 0o700) for m in tar.getmembers())
        _assert_zulip_7_rows(
            _json_member(tar, f"{top}/realm.json"),
            _json_member(tar, f"{top}/attachment.json")["zerver_attachment"],
            chunk["zerver_message"],
        )
        # What Zulip's import_realm needs of the images (read in its code, 7.x to 9.x): the
        # avatar's original with the flag that makes it resize it, and the organization
        # icon's resized `.png` beside its original, since the import only copies that one.
        avatars = _json_member(tar, f"{top}/avatars/records.json")
        assert avatars and all(
            r["path"].endswith(".original") and r["importer_should_thumbnail"] is True
            for r in avatars
        )
        icons = _json_member(tar, f"{top}/realm_icons/records.json")
        paths = sorted(r["path"] for r in icons)
        assert [p.split("/", 1)[1] for p in paths] == ["icon.original", "icon.png"]
        png = tar.extractfile(f"{top}/realm_icons/{paths[1]}")
        assert png is not None
        with Image.open(io.BytesIO(png.read())) as image:
            assert image.format == "PNG" and max(image.size) <= 100

    result = invoke(monkeypatch, second, "import-zulip", str(out))
    assert result.exit_code == 0, result.output
    before, after = await organization_view(first), await organization_view(second)
    # The comparison is not of empty views.
    assert len(before["hamlet@acme.test"]["messages"]) == 9
    assert before["hamlet@acme.test"]["personal"][0] == [("sketches", 1)]
    assert before["iago@acme.test"]["personal"][2] == ["plans"]
    assert before["profile_fields"] == ["Phone", "Mentor"]
    assert before["realm"]["realm_icon_source"] == "U"
    assert after == before


# What Zulip 7.x's import_realm reads of a row (a missing key is a KeyError there) and the keys
# its models lack (an unknown key is a TypeError when it builds the model), as read in its code.
ZULIP_7_NEEDS = {
    "zerver_userprofile": {"last_login", "last_reminder", "last_active_message_id", "date_joined",
                           "bot_owner", "default_sending_stream", "default_events_register_stream",
                           "user_permissions", "groups", "realm", "delivery_email", "email"},
    "zerver_userstatus": {"user_profile", "client", "timestamp", "reaction_type", "emoji_code"},
    "zerver_usergroup": {"realm", "name", "is_system_group"},
    "zerver_realmfilter": {"realm", "pattern", "url_template"},
    "zerver_stream": {"realm", "date_created", "can_remove_subscribers_group"},
}  # fmt: skip
ZULIP_7_LACKS = {
    "zerver_userstatus": {"realm"},
    "zerver_usergroup": {"can_mention_group", "direct_members", "direct_subgroups"},
    "zerver_realmfilter": {"order"},
    "zerver_realmplayground": {"url_template"},
    "zerver_realm": {"email_address_visibility", "new_stream_announcements_stream"},
}
# Tables the import reads without looking whether they are there.
ZULIP_7_TABLES = {
    "zerver_realm", "zerver_userprofile", "zerver_userprofile_mirrordummy",
    "zerver_userprofile_crossrealm", "zerver_client", "zerver_stream", "zerver_defaultstream",
    "zerver_realmemoji", "zerver_realmdomain", "zerver_realmfilter", "zerver_realmplayground",
    "zerver_recipient", "zerver_subscription", "zerver_userpresence", "zerver_useractivity",
    "zerver_useractivityinterval", "zerver_customprofilefield",
    "zerver_customprofilefieldvalue", "zerver_reaction",
}  # fmt: skip


def _assert_zulip_7_rows(
    realm: dict[str, list[dict[str, Any]]],
    attachments: list[dict[str, Any]],
    messages: list[dict[str, Any]],
) -> None:
    assert set(realm) >= ZULIP_7_TABLES, ZULIP_7_TABLES - set(realm)
    # Without an audit log the import writes the subscription events itself.
    assert "zerver_realmauditlog" not in realm
    for table, keys in ZULIP_7_NEEDS.items():
        assert realm[table], table
        for row in realm[table]:
            assert keys <= set(row), (table, keys - set(row))
    for table, keys in ZULIP_7_LACKS.items():
        for row in realm[table]:
            assert not keys & set(row), (table, keys & set(row))
    clients = {c["id"] for c in realm["zerver_client"]}
    assert all(s["client"] in clients for s in realm["zerver_userstatus"])
    # Each attachment's messages are exported ones (the import looks every one up).
    exported = {m["id"] for m in messages}
    assert attachments and all(set(a["messages"]) <= exported for a in attachments)


def _json_member(tar: tarfile.TarFile, name: str) -> Any:
    member = tar.extractfile(name)
    assert member is not None, name
    return orjson.loads(member.read())


def test_import_refuses_a_second_organization_and_export_needs_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    result = invoke(monkeypatch, data, "export", "--output", str(tmp_path / "x.tar.gz"))
    assert result.exit_code == 1 and "no organization" in result.output
    assert invoke(monkeypatch, data, "create-realm", "--name", "Mine").exit_code == 0
    source = standard_export().write(tmp_path / "zulip.tar.gz")
    result = invoke(monkeypatch, data, "import-zulip", str(source))
    assert result.exit_code == 1
    assert "already has an organization" in result.output
    (tmp_path / "bad.tar.gz").write_bytes(b"\x1f\x8b garbage")
    result = invoke(monkeypatch, data, "import-zulip", str(tmp_path / "bad.tar.gz"))
    assert result.exit_code == 1
    assert "error: bad.tar.gz is not a readable .tar.gz archive" in result.output


def test_export_keeps_every_file_inside_the_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atrium.chat.cli import chat_database
    from atrium.settings import Settings

    data = tmp_path / "data"
    source = standard_export().write(tmp_path / "zulip.tar.gz")
    assert invoke(monkeypatch, data, "import-zulip", str(source)).exit_code == 0
    settings = Settings.from_env()

    def plant(conn: Any) -> None:
        row = conn.one(sa.select(schema.attachment).limit(1))
        conn.execute(
            sa.insert(schema.attachment).values(
                **{k: row[k] for k in ("realm_id", "owner_id", "sha256", "size", "create_time")},
                file_name="escape",
                content_type="text/plain",
                path_id="1/ab/x/../../../../../../escape",
            )
        )

    with chat_database(settings) as db:
        db.write_sync(plant)
    out = tmp_path / "out.tar.gz"
    # The export's working folder under tmp_path, so that an escape would land where we look.
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    assert invoke(monkeypatch, data, "export", "--output", str(out)).exit_code == 0
    with tarfile.open(out) as tar:
        assert not any("escape" in name for name in tar.getnames())
        top = tar.getnames()[0].split("/")[0]
        # An attachment whose file did not go into the export is left out of attachment.json
        # too: Zulip's import looks each attachment's file record up.
        rows = _json_member(tar, f"{top}/attachment.json")["zerver_attachment"]
        assert [r["file_name"] for r in rows] == ["notes.txt"]
    assert not list(tmp_path.rglob("escape"))
