"""A small organization export in Zulip 7.x's layout, as `manage.py export` writes it.

Shapes follow Zulip 7.x's zerver/lib/export.py (see docs/zulip-export-format.md): Django's
model_to_dict rows (foreign keys without `_id`), dates as floats, `flags_mask` on user messages,
files under their storage paths with records.json beside them. The organization: an owner, two
members, a deactivated member, a bot, a server bot; two public streams and a private one; stream,
direct and group messages, one edited; reactions (Unicode and custom); an upload; custom emoji;
muted topics and users, alert words, a user status, custom profile fields.
"""

from __future__ import annotations

import io
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from PIL import Image

T0 = 1_690_000_000.0
READ, STARRED, MENTIONED, IS_PRIVATE = 1, 2, 8, 2048


def png_bytes(color: str = "red") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(out, "PNG")
    return out.getvalue()


@dataclass
class ZulipExportBuilder:
    top: str = "zulip-export-k3j4h5g6"
    realm: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    user_messages: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def member_bytes(self) -> dict[str, bytes]:
        out = {
            "realm.json": orjson.dumps(self.realm),
            "messages-000001.json": orjson.dumps(
                {"zerver_message": self.messages, "zerver_usermessage": self.user_messages}
            ),
            "attachment.json": orjson.dumps({"zerver_attachment": self.attachments}),
            "stats.txt": b"",
        }
        for folder in ("uploads", "avatars", "emoji", "realm_icons"):
            out[f"{folder}/records.json"] = orjson.dumps(self.records.get(folder, []))
        out.update(self.files)
        return out

    def write(self, path: Path) -> Path:
        with tarfile.open(path, "w:gz") as tar:
            for name, data in self.member_bytes().items():
                info = tarfile.TarInfo(f"{self.top}/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return path


def user(
    uid: int, email: str, name: str, role: int, recipient: int, **extra: Any
) -> dict[str, Any]:
    return {
        "id": uid,
        "realm": 2,
        "email": f"user{uid}@acme.zulipchat.com",
        "delivery_email": email,
        "full_name": name,
        "password": "argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA",
        "api_key": "x" * 32,
        "role": role,
        "is_active": True,
        "is_bot": False,
        "bot_type": None,
        "bot_owner": None,
        "is_mirror_dummy": False,
        "date_joined": T0 - 86400,
        "last_login": T0,
        "last_reminder": None,
        "recipient": recipient,
        "timezone": "Europe/Paris",
        "avatar_source": "G",
        "avatar_version": 1,
        "twenty_four_hour_time": True,
        "default_language": "fr",
        "email_address_visibility": 1,
        "enter_sends": True,
        "default_sending_stream": None,
        "default_events_register_stream": None,
        "default_all_public_streams": False,
        **extra,
    }


def message(
    mid: int,
    sender: int,
    recipient: int,
    topic: str,
    content: str,
    rendered: str | None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": mid,
        "sender": sender,
        "recipient": recipient,
        "realm": 2,
        "subject": topic,
        "content": content,
        "rendered_content": rendered,
        "rendered_content_version": 1,
        "date_sent": T0 + mid,
        "sending_client": 1,
        "last_edit_time": None,
        "edit_history": None,
        "has_attachment": False,
        "has_image": False,
        "has_link": False,
        **extra,
    }


# Named people (export ids): iago owner, hamlet and cordelia members, othello deactivated,
# a bot owned by hamlet; notification-bot is the server's own (cross-realm).
IAGO, HAMLET, CORDELIA, OTHELLO, BOT, NOTIFY = 10, 11, 12, 13, 14, 1
GENERAL, DESIGN, SECRET = 20, 21, 22
UPLOAD_PATH = "2/ab/AbCdEf012/notes.txt"


def standard_export() -> ZulipExportBuilder:
    b = ZulipExportBuilder()
    personal = {IAGO: 30, HAMLET: 31, CORDELIA: 32, OTHELLO: 33, BOT: 34}
    b.realm["zerver_realm"] = [
        {
            "id": 2,
            "string_id": "acme",
            "name": "Acme Corp",
            "description": "Where **Acme** talks",
            "date_created": T0 - 90000,
            "deactivated": False,
            "invite_required": True,
            "mandatory_topics": True,
            "message_content_edit_limit_seconds": 3600,
            "notifications_stream": GENERAL,
            "signup_notifications_stream": DESIGN,
            "plan_type": 1,
            "uuid": "5a1c",
        }
    ]
    b.realm["zerver_realmuserdefault"] = [{"id": 1, "realm": 2, "enter_sends": True}]
    b.realm["zerver_userprofile"] = [
        user(IAGO, "iago@acme.test", "Iago", 100, personal[IAGO], avatar_source="U"),
        user(HAMLET, "hamlet@acme.test", "King Hamlet", 400, personal[HAMLET]),
        user(CORDELIA, "cordelia@acme.test", "Cordelia", 400, personal[CORDELIA]),
        user(OTHELLO, "othello@acme.test", "Othello", 400, personal[OTHELLO], is_active=False),
        user(
            BOT,
            "helper-bot@acme.zulipchat.com",
            "Helper",
            400,
            personal[BOT],
            is_bot=True,
            bot_type=1,
            bot_owner=HAMLET,
            default_sending_stream=DESIGN,
        ),
    ]
    b.realm["zerver_userprofile_mirrordummy"] = []
    b.realm["zerver_userprofile_crossrealm"] = [
        {
            "id": NOTIFY,
            "email": "notification-bot@zulip.com",
            "is_bot": True,
            "full_name": "Notification Bot",
        }
    ]
    b.realm["zerver_client"] = [{"id": 1, "name": "website"}]
    b.realm["zerver_stream"] = [
        {
            "id": sid,
            "realm": 2,
            "name": name,
            "description": desc,
            "rendered_description": f"<p>{desc}</p>",
            "date_created": T0 - 80000,
            "deactivated": False,
            "invite_only": private,
            "is_web_public": False,
            "history_public_to_subscribers": True,
            "stream_post_policy": 1,
            "message_retention_days": None,
            "recipient": rid,
            "can_remove_subscribers_group": 92,
            "first_message_id": None,
            "is_in_zephyr_realm": False,
        }
        for sid, name, desc, private, rid in (
            (GENERAL, "general", "Everything", False, 40),
            (DESIGN, "design", "Drawings", False, 41),
            (SECRET, "secret plans", "Hush", True, 42),
        )
    ]
    b.realm["zerver_recipient"] = [
        *({"id": rid, "type": 1, "type_id": uid} for uid, rid in personal.items()),
        {"id": 40, "type": 2, "type_id": GENERAL},
        {"id": 41, "type": 2, "type_id": DESIGN},
        {"id": 42, "type": 2, "type_id": SECRET},
        {"id": 50, "type": 3, "type_id": 60},
        {"id": 35, "type": 1, "type_id": NOTIFY},
    ]
    b.realm["zerver_huddle"] = [{"id": 60, "huddle_hash": "d" * 40, "recipient": 50}]
    subs: list[tuple[int, int, dict[str, Any]]] = [
        *((uid, rid, {}) for uid, rid in personal.items()),
        (IAGO, 40, {"color": "#76ce90"}),
        (HAMLET, 40, {"pin_to_top": True}),
        (CORDELIA, 40, {}),
        (OTHELLO, 40, {"active": False}),
        (BOT, 40, {}),
        (HAMLET, 41, {"is_muted": True}),
        (CORDELIA, 41, {}),
        (BOT, 41, {}),
        (IAGO, 42, {}),
        (HAMLET, 42, {}),
        (IAGO, 50, {}),
        (HAMLET, 50, {}),
        (CORDELIA, 50, {}),
    ]
    b.realm["zerver_subscription"] = [
        {
            "id": 200 + i,
            "user_profile": uid,
            "recipient": rid,
            "active": True,
            "is_user_active": True,
            "color": "#c2c2c2",
            "is_muted": False,
            "pin_to_top": False,
            "desktop_notifications": None,
            "audible_notifications": None,
            "push_notifications": None,
            "email_notifications": None,
            "wildcard_mentions_notify": None,
            **extra,
        }
        for i, (uid, rid, extra) in enumerate(subs)
    ]
    b.realm["zerver_defaultstream"] = [{"id": 1, "realm": 2, "stream": GENERAL}]
    b.realm["zerver_realmemoji"] = [
        {"id": 70, "realm": 2, "author": IAGO, "name": "party", "file_name": "70.png",
         "deactivated": False, "is_animated": False}
    ]  # fmt: skip
    b.realm["zerver_realmfilter"] = [
        {"id": 1, "realm": 2, "pattern": "#(?P<id>[0-9]+)",
         "url_template": "https://tracker.acme.test/issues/{id}"}
    ]  # fmt: skip
    b.realm["zerver_realmplayground"] = [
        {"id": 1, "realm": 2, "name": "Rust playground", "pygments_language": "Rust",
         "url_prefix": "https://play.rust-lang.org/?code="}
    ]  # fmt: skip
    b.realm["zerver_usergroup"] = [
        {"id": 90, "realm": 2, "name": "@role:owners", "description": "", "is_system_group": True},
        {"id": 92, "realm": 2, "name": "@role:administrators", "description": "",
         "is_system_group": True},
        {"id": 91, "realm": 2, "name": "designers", "description": "People who draw",
         "is_system_group": False, "can_mention_group": 92},
    ]  # fmt: skip
    b.realm["zerver_usergroupmembership"] = [
        {"id": 1, "user_group": 90, "user_profile": IAGO},
        {"id": 2, "user_group": 91, "user_profile": HAMLET},
        {"id": 3, "user_group": 91, "user_profile": CORDELIA},
    ]
    b.realm["zerver_groupgroupmembership"] = [{"id": 1, "supergroup": 92, "subgroup": 90}]
    b.realm["zerver_reaction"] = [
        {"id": 1, "message": 100, "user_profile": IAGO, "emoji_name": "+1",
         "emoji_code": "1f44d", "reaction_type": "unicode_emoji"},
        {"id": 2, "message": 100, "user_profile": HAMLET, "emoji_name": "party",
         "emoji_code": "70", "reaction_type": "realm_emoji"},
    ]  # fmt: skip
    # A table Atrium does not carry: reported, not an error.
    b.realm["zerver_userpresence"] = [{"id": 1, "user_profile": IAGO, "realm": 2}]
    b.realm["zerver_usertopic"] = [
        {"id": 1, "user_profile": HAMLET, "stream": DESIGN, "recipient": 41,
         "topic_name": "sketches", "last_updated": T0, "visibility_policy": 1}
    ]  # fmt: skip
    b.realm["zerver_muteduser"] = [
        {"id": 1, "user_profile": CORDELIA, "muted_user": OTHELLO, "date_muted": T0}
    ]
    b.realm["zerver_alertword"] = [{"id": 1, "user_profile": IAGO, "realm": 2, "word": "plans"}]
    b.realm["zerver_userstatus"] = [
        {"id": 1, "user_profile": IAGO, "status_text": "on the road", "emoji_name": "car",
         "emoji_code": "1f697", "reaction_type": "unicode_emoji", "timestamp": T0, "client": 1}
    ]  # fmt: skip
    b.realm["zerver_customprofilefield"] = [
        {"id": 1, "realm": 2, "name": "Phone", "hint": "", "order": 1, "field_type": 1,
         "field_data": ""},
        {"id": 2, "realm": 2, "name": "Mentor", "hint": "", "order": 2, "field_type": 6,
         "field_data": ""},
    ]  # fmt: skip
    b.realm["zerver_customprofilefieldvalue"] = [
        {"id": 1, "user_profile": IAGO, "field": 1, "value": "+33 1 23", "rendered_value": None},
        {"id": 2, "user_profile": CORDELIA, "field": 2, "value": f"[{HAMLET}]",
         "rendered_value": None},
    ]  # fmt: skip

    mention = '<p><span class="user-mention" data-user-id="11">@King Hamlet</span> look</p>'
    upload_link = f"/user_uploads/{UPLOAD_PATH}"
    history = [
        {"user_id": HAMLET, "timestamp": T0 + 500, "prev_content": "first draft",
         "prev_rendered_content": "<p>first draft</p>", "prev_rendered_content_version": 1}
    ]  # fmt: skip
    b.messages = [
        message(100, HAMLET, 40, "hello", "Hi **all**", "<p>Hi <strong>all</strong></p>"),
        message(
            101, CORDELIA, 41, "sketches", f"[notes.txt]({upload_link})",
            f'<p><a href="{upload_link}">notes.txt</a></p>', has_attachment=True, has_link=True,
        ),
        message(102, IAGO, 42, "plans", "secret plans", "<p>secret plans</p>"),
        message(103, HAMLET, personal[IAGO], "", "private hi", "<p>private hi</p>"),
        message(104, IAGO, 50, "", "group hi", "<p>group hi</p>"),
        message(
            105, HAMLET, 40, "hello", "second draft", "<p>second draft</p>",
            last_edit_time=T0 + 500, edit_history=orjson.dumps(history).decode(),
        ),
        message(106, OTHELLO, 40, "hello", "@**King Hamlet** look", mention),
        message(107, BOT, 41, "bots", "beep", "<p>beep</p>"),
        message(108, NOTIFY, 40, "hello", "a notice", "<p>a notice</p>"),
    ]  # fmt: skip
    stream_readers = {
        40: [IAGO, HAMLET, CORDELIA, BOT],
        41: [HAMLET, CORDELIA, BOT],
        42: [IAGO, HAMLET],
    }
    flags: dict[tuple[int, int], int] = {}
    for m in b.messages:
        rid = m["recipient"]
        if rid in stream_readers:
            readers = stream_readers[rid]
            base = 0
        elif rid == 50:
            readers, base = [IAGO, HAMLET, CORDELIA], IS_PRIVATE
        else:
            readers, base = [m["sender"], IAGO], IS_PRIVATE
        for uid in readers:
            flags[(uid, m["id"])] = base | (READ if uid == m["sender"] else 0)
    flags[(HAMLET, 100)] |= STARRED
    flags[(HAMLET, 106)] |= MENTIONED
    flags[(IAGO, 100)] |= READ
    b.user_messages = [
        {"id": i, "user_profile": uid, "message": mid, "flags_mask": mask}
        for i, ((uid, mid), mask) in enumerate(sorted(flags.items()), 1)
    ]
    b.attachments = [
        {"id": 80, "file_name": "notes.txt", "path_id": UPLOAD_PATH, "owner": CORDELIA,
         "realm": 2, "create_time": T0 + 100, "size": 12, "is_realm_public": True,
         "is_web_public": False, "messages": [101], "scheduled_messages": []}
    ]  # fmt: skip
    b.files[f"uploads/{UPLOAD_PATH}"] = b"hello notes\n"
    b.records["uploads"] = [
        {"realm_id": 2, "user_profile_id": CORDELIA, "user_profile_email": "cordelia@acme.test",
         "s3_path": UPLOAD_PATH, "path": UPLOAD_PATH, "size": 12, "last_modified": T0,
         "content_type": None}
    ]  # fmt: skip
    avatar = "2/5d2d9a4c.original"
    b.files[f"avatars/{avatar}"] = png_bytes("blue")
    b.files["avatars/2/5d2d9a4c.png"] = png_bytes("blue")
    b.records["avatars"] = [
        {"realm_id": 2, "user_profile_id": IAGO, "path": avatar, "s3_path": avatar},
        {"realm_id": 2, "user_profile_id": IAGO, "path": "2/5d2d9a4c.png", "s3_path": "x"},
    ]
    b.files["emoji/2/emoji/images/70.png"] = png_bytes("green")
    b.files["realm_icons/2/icon.original"] = png_bytes("yellow")
    b.files["realm_icons/2/icon.png"] = png_bytes("yellow")
    b.records["realm_icons"] = [
        {"realm_id": 2, "path": "2/icon.original", "s3_path": "2/icon.original"},
        {"realm_id": 2, "path": "2/icon.png", "s3_path": "2/icon.png"},
    ]
    b.records["emoji"] = [
        {"realm_id": 2, "author": IAGO, "path": "2/emoji/images/70.png", "s3_path": "x",
         "file_name": "70.png", "name": "party", "deactivated": False}
    ]  # fmt: skip
    return b
