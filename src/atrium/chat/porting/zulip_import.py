"""A Zulip organization export written into the chat database, in one transaction.

Every id is remapped (Zulip's import_realm does the same): rows are inserted in the export's id
order, so messages keep their order under new ids. Message HTML is kept as Zulip rendered it, with
the ids inside mentions and upload links rewritten, unless it fails the renderer's own safety
check, in which case the raw content is rendered again here (an export is untrusted input).
Passwords do not travel: imported people have none until they reset it. Running the same archive
again finds the organization it made and changes nothing; any other import into a chat that
already has an organization is refused.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.attachments import sanitize_name
from atrium.chat.actions.emoji import check_valid_emoji_name
from atrium.chat.actions.linkifiers import check_linkifier
from atrium.chat.actions.playgrounds import check_url
from atrium.chat.actions.realm import create_realm, slugify
from atrium.chat.actions.streams import check_stream_name
from atrium.chat.actions.user_groups import check_group_name
from atrium.chat.actions.user_settings import check_setting
from atrium.chat.actions.users import check_full_name
from atrium.chat.errors import ChatError
from atrium.chat.markdown.sanitize import is_safe_html
from atrium.chat.models import (
    BOT_DEFAULT,
    ROLE_MEMBER,
    ROLE_NAMES,
    SYSTEM_GROUPS,
    User,
)
from atrium.chat.narrow import huddle_hash
from atrium.chat.porting import zulip_format as fmt
from atrium.chat.porting.zulip_files import StoredFiles
from atrium.chat.porting.zulip_reader import Row, ZulipExport
from atrium.chat.queries.profile_fields import FIELD_TYPES
from atrium.chat.queries.profile_fields import USER as USER_FIELD
from atrium.chat.queries.users import EMAIL_VISIBLE_TO_EVERYONE, api_email
from atrium.chat.rendering import render_message
from atrium.chat.search import index_messages
from atrium.core.db import Conn, Prepared
from atrium.core.secrets import new_api_key

_ROLES = frozenset(ROLE_NAMES.values())
_USER_ID_ATTR = re.compile(r'(data-user-id=")(\d+)(")')
_STREAM_ID_ATTR = re.compile(r'(data-stream-id=")(\d+)(")')
_GROUP_ID_ATTR = re.compile(r'(data-user-group-id=")(\d+)(")')
_UPLOAD_PATH = re.compile(r"(/user_uploads/)(\d+/[0-9a-f]{1,2}/[A-Za-z0-9_-]+/[^\s)\]>\"'`]+)")
_PATH_ID = re.compile(r"\d+/([0-9a-f]{1,2})/([A-Za-z0-9_-]+)/([^/\s]+)")


# Compiled once: an export's messages are inserted one by one, to learn each new id in order.
_INSERT_MESSAGE = Prepared(
    sa.insert(schema.message)
    .values(
        {
            name: sa.bindparam(name)
            for name in (
                "realm_id", "sender_id", "recipient_id", "stream_id", "topic", "content",
                "rendered_content", "date_sent", "sending_client", "last_edit_time",
                "edit_history", "is_me_message", "has_attachment", "has_image", "has_link",
            )
        }
        | {"rendered_content_version": 1}
    )
    .returning(schema.message.c.id)
)  # fmt: skip


@dataclass
class ImportResult:
    realm_id: int
    already_imported: bool
    counts: dict[str, int] = field(default_factory=dict)
    not_carried: list[str] = field(default_factory=list)
    # The chat user ids of the people (not bots) this run created, for the workspace identities.
    person_ids: list[int] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        return {"counts": self.counts, "not_carried": self.not_carried}


def _typed(column: sa.Column[Any], value: Any) -> bool:
    """Whether `value` fits `column` as it is (a bool for a bool, an int for an int...)."""
    if value is None:
        return bool(column.nullable)
    kind = column.type
    if isinstance(kind, sa.Boolean):
        return isinstance(value, bool)
    if isinstance(kind, sa.Integer):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(kind, sa.Float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(kind, (sa.String, sa.Text)):
        length = getattr(kind, "length", None)
        return isinstance(value, str) and (length is None or len(value) <= length)
    return False


def _copy_columns(table: sa.Table, row: Row, names: set[str] | frozenset[str]) -> dict[str, Any]:
    return {
        name: row[name]
        for name in names
        if name in row and name in table.c and _typed(table.c[name], row[name])
    }


def _checked_settings(values: dict[str, Any]) -> dict[str, Any]:
    """The settings whose values Zulip 7's PATCH /settings would accept; the rest keep defaults."""
    out = {}
    for name, value in values.items():
        try:
            out[name] = check_setting(name, value)
        except ChatError:
            continue
    return out


def _full_name(raw: Any, email: str) -> str:
    try:
        return check_full_name(str(raw or ""))
    except ChatError:
        cleaned = re.sub(r'[*`\\>"@\x00-\x1f]', "", str(raw or "")).strip()[:100]
        return cleaned if len(cleaned) >= 2 else email.split("@")[0][:100].ljust(2, "_")


# User settings that Zulip 8.0 renamed (feature level 219), under the names of level 185.
_RENAMED_SETTINGS = {
    "web_home_view": "default_view",
    "web_escape_navigates_to_home_view": "escape_navigates_to_default_view",
}


def _settings_row(row: Row) -> Row:
    """A user or user-default row with 8.x and 9.x setting names read as 7.x's."""
    renamed = {ours: row[theirs] for theirs, ours in _RENAMED_SETTINGS.items() if theirs in row}
    return {**renamed, **row} if renamed else row


def _fk(row: Row, name: str) -> Any:
    """A foreign key as model_to_dict writes it (`sender`), or as a column (`sender_id`)."""
    return row.get(name, row.get(f"{name}_id"))


class _Importer:
    def __init__(
        self,
        conn: Conn,
        export: ZulipExport,
        files: StoredFiles,
        email_domain: str,
        progress: Callable[[str], None],
    ) -> None:
        self.conn = conn
        self.export = export
        self.files = files
        self.email_domain = email_domain
        self.progress = progress
        self.result = ImportResult(0, False)
        self.users: dict[int, int] = {}
        self.streams: dict[int, int] = {}
        self.recipients: dict[int, int] = {}
        self.stream_of_recipient: dict[int, int] = {}
        self.groups: dict[int, int] = {}
        self.emoji: dict[int, int] = {}
        self.message_ids: dict[int, int] = {}
        self.path_ids: dict[str, str] = {}
        self.old_realm_id = 0

    def count(self, what: str, n: int = 1) -> None:
        self.result.counts[what] = self.result.counts.get(what, 0) + n

    def skip(self, what: str) -> None:
        self.result.not_carried.append(what)

    # -- the realm ---------------------------------------------------------------------------

    def realm(self) -> int:
        row = self.export.table("zerver_realm")[0]
        self.old_realm_id = int(row.get("id") or 0)
        name = str(row.get("name") or "Imported organization")[:40]
        string_id = slugify(str(row.get("string_id") or "") or name)
        realm_id = create_realm(self.conn, name, string_id)
        R = schema.realm
        skipped = {"id", "string_id", "name", "message_display_version", "user_settings_defaults"}
        values = _copy_columns(R, row, {c.name for c in R.c} - skipped)
        values.pop("notifications_stream_id", None)
        values.pop("signup_notifications_stream_id", None)
        values["deactivated"] = False
        defaults = self.export.table("zerver_realmuserdefault")
        if defaults:
            chosen = _checked_settings(
                _copy_columns(
                    schema.user,
                    _settings_row(defaults[0]),
                    {*schema.USER_SETTING_DEFAULTS, "enable_drafts_synchronization"},
                )
            )
            values["user_settings_defaults"] = orjson.dumps(chosen).decode()
            # Since Zulip 7.0 the organization's email visibility is its new users' default.
            if "email_address_visibility" in chosen:
                values["email_address_visibility"] = chosen["email_address_visibility"]
        self.conn.execute(sa.update(R).where(R.c.id == realm_id).values(values))
        self.count("realm settings", len(values))
        for kind, image in sorted(self.files.realm_images.items()):
            self.conn.execute(
                sa.insert(schema.realm_image).values(
                    realm_id=realm_id,
                    kind=kind,
                    sha256=image.sha256,
                    content_type=image.content_type,
                    version=2,
                )
            )
            self.count("organization images")
        return realm_id

    # -- people ------------------------------------------------------------------------------

    def people(self, realm_id: int) -> None:
        U = schema.user
        settings = {*schema.USER_SETTING_DEFAULTS, "enable_drafts_synchronization"}
        rows = sorted(
            (
                (row, kind)
                for kind in ("zerver_userprofile", "zerver_userprofile_mirrordummy")
                for row in self.export.table(kind)
            ),
            key=lambda pair: int(pair[0]["id"]),
        )
        cross_realm = self.export.table("zerver_userprofile_crossrealm")
        seen_emails: set[str] = set()
        group_ids = {
            name: self.conn.scalar(
                sa.select(schema.user_group.c.id).where(
                    schema.user_group.c.realm_id == realm_id,
                    schema.user_group.c.name == name,
                    schema.user_group.c.is_system_group.is_(True),
                )
            )
            for name, *_rest in SYSTEM_GROUPS
        }
        for row, kind in [*rows, *((r, "zerver_userprofile_crossrealm") for r in cross_realm)]:
            old_id = int(row["id"])
            delivery = str(row.get("delivery_email") or row.get("email") or "").strip()
            if not delivery or delivery.lower() in seen_emails or len(delivery) > 254:
                self.skip(f"user {old_id}: missing or repeated email address")
                continue
            seen_emails.add(delivery.lower())
            role = row.get("role")
            role = role if role in _ROLES else ROLE_MEMBER
            is_bot = bool(row.get("is_bot")) or kind == "zerver_userprofile_crossrealm"
            avatar = self.files.avatars.get(old_id)
            values: dict[str, Any] = {
                **_checked_settings(_copy_columns(U, _settings_row(row), settings | {"timezone"})),
                "is_billing_admin": row.get("is_billing_admin") is True,
                "realm_id": realm_id,
                "email": delivery,
                "delivery_email": delivery,
                "full_name": _full_name(row.get("full_name"), delivery),
                "password_hash": None,
                "api_key": new_api_key(),
                "role": ROLE_MEMBER if kind == "zerver_userprofile_crossrealm" else role,
                # Mirror dummies and the server's own bots were never people of this
                # organization: they come in deactivated, as authors of their messages.
                "is_active": bool(row.get("is_active")) and kind == "zerver_userprofile",
                "is_bot": is_bot,
                "bot_type": (row.get("bot_type") or BOT_DEFAULT) if is_bot else None,
                "avatar_source": "U" if avatar else "G",
                "avatar_version": row.get("avatar_version")
                if isinstance(row.get("avatar_version"), int)
                else 1,
                "date_joined": float(row.get("date_joined") or time.time()),
            }
            user_id = int(self.conn.scalar(sa.insert(U).values(values).returning(U.c.id)))
            self.users[old_id] = user_id
            recipient_id = self.conn.scalar(
                sa.insert(schema.recipient)
                .values(type=schema.RECIPIENT_PERSONAL, type_id=user_id)
                .returning(schema.recipient.c.id)
            )
            visibility = self.conn.scalar(
                sa.select(U.c.email_address_visibility).where(U.c.id == user_id)
            )
            if is_bot:
                visibility = EMAIL_VISIBLE_TO_EVERYONE
            self.conn.execute(
                sa.update(U)
                .where(U.c.id == user_id)
                .values(
                    recipient_id=recipient_id,
                    email_address_visibility=visibility,
                    email=api_email(user_id, delivery, visibility, self.email_domain),
                )
            )
            for group_name, _description, roles, _subgroups in SYSTEM_GROUPS:
                if values["role"] in roles:
                    self.conn.execute(
                        sa.insert(schema.user_group_member).values(
                            user_group_id=group_ids[group_name], user_id=user_id
                        )
                    )
            if avatar:
                self.conn.execute(
                    sa.insert(schema.user_avatar).values(
                        user_id=user_id, sha256=avatar.sha256, content_type=avatar.content_type
                    )
                )
                self.count("avatars")
            self.count("deactivated users" if not values["is_active"] else "users")
            if is_bot:
                self.count("bots")
            else:
                self.result.person_ids.append(user_id)
        for row, _kind in rows:
            owner = self.users.get(_fk(row, "bot_owner") or 0)
            if row.get("is_bot") and owner and int(row["id"]) in self.users:
                self.conn.execute(
                    sa.update(U)
                    .where(U.c.id == self.users[int(row["id"])])
                    .values(bot_owner_id=owner)
                )
        if cross_realm:
            self.skip(
                f"{len(cross_realm)} system bots of the Zulip server came in as deactivated bots"
            )
        self.progress(f"imported {len(self.users)} users")

    # -- streams, recipients, subscriptions ----------------------------------------------------

    def system_group(self, realm_id: int, name: str) -> int:
        return int(
            self.conn.scalar(
                sa.select(schema.user_group.c.id).where(
                    schema.user_group.c.realm_id == realm_id,
                    schema.user_group.c.name == name,
                    schema.user_group.c.is_system_group.is_(True),
                )
            )
        )

    def user_groups(self, realm_id: int) -> None:
        """Named groups: 7.x keeps name and members on zerver_usergroup; 9.x moved the name to
        zerver_namedusergroup (keyed by usergroup_ptr). System groups map to ours by name."""
        named = self.export.table("zerver_namedusergroup") or self.export.table("zerver_usergroup")
        G = schema.user_group
        pending_mention: list[tuple[int, Any]] = []
        for row in sorted(named, key=lambda r: int(r.get("usergroup_ptr") or r["id"])):
            old_id = int(row.get("usergroup_ptr") or row["id"])
            name = str(row.get("name") or "")
            if row.get("is_system_group"):
                # 9.0 dropped the "@" of "@role:owners"; ours keep Zulip 7's names.
                found = self.conn.scalar(
                    sa.select(G.c.id).where(
                        G.c.realm_id == realm_id,
                        G.c.name == "@" + name.lstrip("@"),
                        G.c.is_system_group.is_(True),
                    )
                )
                if found is not None:
                    self.groups[old_id] = int(found)
                continue
            try:
                check_group_name(name)
            except ChatError:
                self.skip(f"user group {old_id}: invalid name {name[:100]!r}")
                continue
            new_id = int(
                self.conn.scalar(
                    sa.insert(G)
                    .values(
                        realm_id=realm_id,
                        name=name,
                        description=str(row.get("description") or ""),
                    )
                    .returning(G.c.id)
                )
            )
            self.groups[old_id] = new_id
            pending_mention.append((new_id, _fk(row, "can_mention_group")))
            self.count("user groups")
        for new_id, old_mention in pending_mention:
            if old_mention in self.groups:
                self.conn.execute(
                    sa.update(G)
                    .where(G.c.id == new_id)
                    .values(can_mention_group_id=self.groups[old_mention])
                )
        custom = {self.groups[o] for o in self.groups} - set(self._system_group_ids(realm_id))
        members: set[tuple[int, int]] = set()
        for row in self.export.table("zerver_usergroupmembership"):
            group, user = (
                self.groups.get(_fk(row, "user_group")),
                self.users.get(_fk(row, "user_profile")),
            )
            if group in custom and user:
                members.add((group, user))
        if not self.export.table("zerver_usergroupmembership"):
            for row in named:  # an export without the membership table lists direct_members
                group = self.groups.get(int(row.get("usergroup_ptr") or row["id"]))
                for old_user in row.get("direct_members") or []:
                    if group in custom and old_user in self.users:
                        members.add((group, self.users[old_user]))
        for group, user in sorted(members):
            self.conn.execute(
                sa.insert(schema.user_group_member).values(user_group_id=group, user_id=user)
            )
        for row in self.export.table("zerver_groupgroupmembership"):
            sup, sub = (
                self.groups.get(_fk(row, "supergroup")),
                self.groups.get(_fk(row, "subgroup")),
            )
            if sup in custom and sub:
                self.conn.execute(
                    sa.insert(schema.user_group_subgroup).values(supergroup_id=sup, subgroup_id=sub)
                )

    def _system_group_ids(self, realm_id: int) -> list[int]:
        G = schema.user_group
        return [
            int(i)
            for i in self.conn.scalars(
                sa.select(G.c.id).where(G.c.realm_id == realm_id, G.c.is_system_group.is_(True))
            )
        ]

    def streams_and_recipients(self, realm_id: int) -> None:
        S = schema.stream
        admins = self.system_group(realm_id, "@role:administrators")
        copied = {
            "description",
            "rendered_description",
            "deactivated",
            "invite_only",
            "is_web_public",
            "history_public_to_subscribers",
            "stream_post_policy",
            "message_retention_days",
        }
        names: set[str] = set()
        for row in sorted(self.export.table("zerver_stream"), key=lambda r: int(r["id"])):
            try:
                name = check_stream_name(str(row.get("name") or ""))
            except ChatError:
                name = ""
            if not name or name.lower() in names:
                self.skip(f"stream {row['id']}: invalid or repeated name")
                continue
            names.add(name.lower())
            values = _copy_columns(S, row, copied)
            if not is_safe_html(str(values.get("rendered_description", ""))):
                values["rendered_description"] = ""
            group = self.groups.get(_fk(row, "can_remove_subscribers_group"), admins)
            stream_id = int(
                self.conn.scalar(
                    sa.insert(S)
                    .values(
                        **values,
                        realm_id=realm_id,
                        name=name,
                        date_created=float(row.get("date_created") or time.time()),
                        can_remove_subscribers_group_id=group,
                    )
                    .returning(S.c.id)
                )
            )
            recipient_id = self.conn.scalar(
                sa.insert(schema.recipient)
                .values(type=schema.RECIPIENT_STREAM, type_id=stream_id)
                .returning(schema.recipient.c.id)
            )
            self.conn.execute(
                sa.update(S).where(S.c.id == stream_id).values(recipient_id=recipient_id)
            )
            self.streams[int(row["id"])] = stream_id
            self.count("private streams" if values.get("invite_only") else "streams")
        # Recipients: users' and streams' exist now; huddles come from their subscriptions.
        huddle_members: dict[int, list[int]] = {}
        recipient_rows = {int(r["id"]): r for r in self.export.table("zerver_recipient")}
        for row in self.export.table("zerver_subscription"):
            recipient = recipient_rows.get(_fk(row, "recipient") or 0)
            if recipient and recipient.get("type") == fmt.RECIPIENT_HUDDLE:
                user = self.users.get(_fk(row, "user_profile") or 0)
                if user:
                    huddle_members.setdefault(int(recipient["id"]), []).append(user)
        user_recipients = dict(
            self.conn.tuples(
                sa.select(schema.user.c.id, schema.user.c.recipient_id).where(
                    schema.user.c.realm_id == realm_id
                )
            )
        )
        stream_recipients = dict(
            self.conn.tuples(sa.select(S.c.id, S.c.recipient_id).where(S.c.realm_id == realm_id))
        )
        for old_id, row in recipient_rows.items():
            kind, type_id = row.get("type"), row.get("type_id")
            if kind == fmt.RECIPIENT_PERSONAL and type_id in self.users:
                self.recipients[old_id] = user_recipients[self.users[type_id]]
            elif kind == fmt.RECIPIENT_STREAM and type_id in self.streams:
                self.recipients[old_id] = stream_recipients[self.streams[type_id]]
                self.stream_of_recipient[old_id] = self.streams[type_id]
            elif kind == fmt.RECIPIENT_HUDDLE and len(set(huddle_members.get(old_id, []))) >= 2:
                self.recipients[old_id] = self._huddle(huddle_members[old_id])
        # The server's own bots' direct-message recipients are not in zerver_recipient: their
        # rows carry them (Zulip's import maps them the same way).
        for bot in self.export.table("zerver_userprofile_crossrealm"):
            old_recipient, user = bot.get("recipient_id"), self.users.get(bot.get("id") or 0)
            if isinstance(old_recipient, int) and user is not None:
                self.recipients.setdefault(old_recipient, user_recipients[user])
        self.subscriptions(recipient_rows)

    def _huddle(self, members: list[int]) -> int:
        H = schema.huddle
        digest = huddle_hash(members)
        found = self.conn.scalar(sa.select(H.c.recipient_id).where(H.c.huddle_hash == digest))
        if found is not None:
            return int(found)
        huddle_id = self.conn.scalar(sa.insert(H).values(huddle_hash=digest).returning(H.c.id))
        recipient_id = int(
            self.conn.scalar(
                sa.insert(schema.recipient)
                .values(type=schema.RECIPIENT_HUDDLE, type_id=huddle_id)
                .returning(schema.recipient.c.id)
            )
        )
        self.conn.execute(sa.update(H).where(H.c.id == huddle_id).values(recipient_id=recipient_id))
        for user_id in sorted(set(members)):
            self.conn.execute(
                sa.insert(schema.huddle_member).values(huddle_id=huddle_id, user_id=user_id)
            )
        self.count("group conversations")
        return recipient_id

    def subscriptions(self, recipient_rows: dict[int, Row]) -> None:
        SUB = schema.subscription
        copied = {
            "active",
            "color",
            "is_muted",
            "pin_to_top",
            "desktop_notifications",
            "audible_notifications",
            "push_notifications",
            "email_notifications",
            "wildcard_mentions_notify",
        }
        done: set[tuple[int, int]] = set()
        for row in sorted(self.export.table("zerver_subscription"), key=lambda r: int(r["id"])):
            stream = self.stream_of_recipient.get(_fk(row, "recipient") or 0)
            user = self.users.get(_fk(row, "user_profile") or 0)
            if stream is None or user is None or (user, stream) in done:
                continue
            done.add((user, stream))
            values = _copy_columns(SUB, row, copied)
            if "is_muted" not in values and isinstance(row.get("in_home_view"), bool):
                values["is_muted"] = not row["in_home_view"]  # before Zulip 2.1
            self.conn.execute(sa.insert(SUB).values(**values, user_id=user, stream_id=stream))
            self.count("subscriptions")

    # -- messages --------------------------------------------------------------------------

    def _new_path_id(self, old: str, realm_id: int) -> str | None:
        if old in self.path_ids:
            return self.path_ids[old]
        match = _PATH_ID.fullmatch(old)
        if match is None:
            return None
        # The name part as the upload endpoint would have made it: never "." or "..".
        new = f"{realm_id}/{match[1]}/{match[2]}/{sanitize_name(match[3])}"
        self.path_ids[old] = new
        return new

    def rewrite(self, text: str, realm_id: int, html: bool) -> str:
        def upload(m: re.Match[str]) -> str:
            new = self.path_ids.get(m[2])
            return m[1] + new if new else m[0]

        text = _UPLOAD_PATH.sub(upload, text)
        if html:
            text = _USER_ID_ATTR.sub(lambda m: f"{m[1]}{self.users.get(int(m[2]), 0)}{m[3]}", text)
            text = _STREAM_ID_ATTR.sub(
                lambda m: f"{m[1]}{self.streams.get(int(m[2]), 0)}{m[3]}", text
            )
            # Group mentions too, as Zulip's import_realm does (7.x to 9.x alike).
            text = _GROUP_ID_ATTR.sub(
                lambda m: f"{m[1]}{self.groups.get(int(m[2]), 0)}{m[3]}", text
            )
        return text

    def attachments(self, realm_id: int) -> list[tuple[int, list[int]]]:
        A = schema.attachment
        links: list[tuple[int, list[int]]] = []
        for row in sorted(self.export.attachments, key=lambda r: int(r["id"])):
            old_path = str(row.get("path_id") or "")
            stored = self.files.uploads.get(old_path)
            owner = self.users.get(_fk(row, "owner") or 0)
            new_path = self._new_path_id(old_path, realm_id)
            if stored is None or owner is None or new_path is None:
                self.skip(f"upload {old_path!r}: no file, owner or usable path")
                continue
            attachment_id = int(
                self.conn.scalar(
                    sa.insert(A)
                    .values(
                        realm_id=realm_id,
                        owner_id=owner,
                        file_name=str(row.get("file_name") or new_path.rsplit("/", 1)[-1]),
                        path_id=new_path,
                        sha256=stored.sha256,
                        content_type=stored.content_type,
                        size=stored.size,
                        create_time=float(row.get("create_time") or time.time()),
                    )
                    .returning(A.c.id)
                )
            )
            links.append(
                (attachment_id, [m for m in row.get("messages") or [] if isinstance(m, int)])
            )
            self.count("uploads")
        return links

    def messages(self, realm_id: int) -> None:
        M = schema.message
        clients = {
            int(r["id"]): str(r.get("name") or "")[:30] for r in self.export.table("zerver_client")
        }
        senders: dict[int, User] = {}
        rerendered = kept = 0
        for chunk, user_messages in self.export.message_chunks():
            new_ids: list[int] = []
            for row in sorted(chunk, key=lambda r: int(r["id"])):
                sender = self.users.get(_fk(row, "sender") or 0)
                recipient = self.recipients.get(_fk(row, "recipient") or 0)
                if sender is None or recipient is None:
                    self.count("messages without a known sender or recipient")
                    continue
                content = self.rewrite(str(row.get("content") or ""), realm_id, html=False)
                rendered = row.get("rendered_content")
                if isinstance(rendered, str):
                    rendered = self.rewrite(rendered, realm_id, html=True)
                if not isinstance(rendered, str) or not is_safe_html(rendered):
                    if sender not in senders:
                        user_row = self.conn.one(
                            sa.select(schema.user).where(schema.user.c.id == sender)
                        )
                        senders[sender] = User.from_row(user_row)
                    rendered = render_message(self.conn, senders[sender], content).html
                    rerendered += 1
                else:
                    kept += 1
                topic = str(row.get("subject", row.get("topic")) or "")[:60]
                history = self._edit_history(row.get("edit_history"), realm_id)
                fields = {
                    "realm_id": realm_id,
                    "sender_id": sender,
                    "recipient_id": recipient,
                    "stream_id": self.stream_of_recipient.get(_fk(row, "recipient")),
                    "topic": topic,
                    "content": content,
                    "rendered_content": rendered,
                    "date_sent": float(row.get("date_sent") or row.get("pub_date") or 0),
                    "sending_client": clients.get(_fk(row, "sending_client") or 0) or "Internal",
                    "last_edit_time": row.get("last_edit_time")
                    if isinstance(row.get("last_edit_time"), (int, float))
                    else None,
                    "edit_history": history,
                    "is_me_message": content.startswith("/me "),
                    "has_attachment": bool(row.get("has_attachment")),
                    "has_image": bool(row.get("has_image")),
                    "has_link": bool(row.get("has_link")),
                }
                message_id = int(self.conn.scalar(_INSERT_MESSAGE, fields))
                self.message_ids[int(row["id"])] = message_id
                new_ids.append(message_id)
            self._user_messages(user_messages)
            index_messages(self.conn, new_ids)
            self.count("messages", len(new_ids))
            self.progress(f"imported {len(self.message_ids)} messages")
        if kept:
            self.skip(
                f"{kept} messages keep the HTML their Zulip server rendered: syntax of a later "
                "Zulip than this server shows as that server showed it"
            )
        if rerendered:
            self.skip(
                f"{rerendered} messages had no stored HTML or HTML outside what this server "
                "shows; they were rendered again from their Markdown"
            )
        for stream in self.streams.values():
            first = self.conn.scalar(sa.select(sa.func.min(M.c.id)).where(M.c.stream_id == stream))
            self.conn.execute(
                sa.update(schema.stream)
                .where(schema.stream.c.id == stream)
                .values(first_message_id=first)
            )

    def _edit_history(self, raw: Any, realm_id: int) -> str | None:
        if not raw:
            return None
        try:
            entries = orjson.loads(raw) if isinstance(raw, str) else raw
        except orjson.JSONDecodeError:
            self.count("edit histories unreadable")
            return None
        if not isinstance(entries, list):
            return None
        out = []
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            entry = dict(entry)
            if "user_id" in entry:
                entry["user_id"] = self.users.get(entry["user_id"])
            for key in ("prev_stream", "stream"):
                if key in entry:
                    entry[key] = self.streams.get(entry[key])
            if isinstance(entry.get("prev_content"), str):
                entry["prev_content"] = self.rewrite(entry["prev_content"], realm_id, html=False)
            prev_html = entry.get("prev_rendered_content")
            if isinstance(prev_html, str):
                prev_html = self.rewrite(prev_html, realm_id, html=True)
                entry["prev_rendered_content"] = prev_html if is_safe_html(prev_html) else None
            out.append(entry)
        self.count("edited messages")
        return orjson.dumps(out).decode()

    def _user_messages(self, rows: list[Row]) -> None:
        batch = []
        for row in rows:
            user = self.users.get(_fk(row, "user_profile") or 0)
            message = self.message_ids.get(_fk(row, "message") or 0)
            if user is None or message is None:
                continue
            mask = row.get("flags_mask", row.get("flags", 0))
            if not isinstance(mask, int):
                mask = 0
            batch.append({"user_id": user, "message_id": message, "flags": mask & fmt.FLAG_MASK})
        if batch:
            self.conn.executemany(sa.insert(schema.user_message), batch)
            self.count("message flags rows", len(batch))

    # -- the rest --------------------------------------------------------------------------

    def link_attachments(self, links: list[tuple[int, list[int]]]) -> None:
        for attachment_id, old_messages in links:
            for old in sorted(set(old_messages)):
                if old in self.message_ids:
                    self.conn.execute(
                        sa.insert(schema.attachment_message).values(
                            attachment_id=attachment_id, message_id=self.message_ids[old]
                        )
                    )

    def custom_emoji(self, realm_id: int) -> None:
        E = schema.realm_emoji
        for row in sorted(self.export.table("zerver_realmemoji"), key=lambda r: int(r["id"])):
            stored = self.files.emoji.get(str(row.get("file_name") or ""))
            name = str(row.get("name") or "")
            if stored is None:
                continue  # reported by store_files
            try:
                check_valid_emoji_name(name)
            except ChatError:
                self.skip(f"emoji {name[:60]!r}: invalid name")
                continue
            self.emoji[int(row["id"])] = int(
                self.conn.scalar(
                    sa.insert(E)
                    .values(
                        realm_id=realm_id,
                        name=name,
                        author_id=self.users.get(_fk(row, "author") or 0),
                        sha256=stored.sha256,
                        content_type=stored.content_type,
                        file_ext=stored.extension,
                        deactivated=bool(row.get("deactivated")),
                    )
                    .returning(E.c.id)
                )
            )
            self.count("custom emoji")

    def reactions(self) -> None:
        R = schema.reaction
        seen: set[tuple[int, int, str, str]] = set()
        for row in sorted(self.export.table("zerver_reaction"), key=lambda r: int(r["id"])):
            message = self.message_ids.get(_fk(row, "message") or 0)
            user = self.users.get(_fk(row, "user_profile") or 0)
            kind = str(row.get("reaction_type") or schema.REACTION_UNICODE)
            code = str(row.get("emoji_code") or "")
            if kind == schema.REACTION_REALM:
                new_emoji = self.emoji.get(int(code)) if code.isdigit() else None
                code = str(new_emoji) if new_emoji else ""
            if message is None or user is None or not code:
                self.count("reactions not carried")
                continue
            key = (message, user, kind, code)
            if key in seen:
                continue
            seen.add(key)
            self.conn.execute(
                sa.insert(R).values(
                    message_id=message,
                    user_id=user,
                    emoji_name=str(row.get("emoji_name") or "")[:60],
                    emoji_code=code,
                    reaction_type=kind,
                )
            )
            # Only messages whose reaction_version moved are looked up for reactions.
            self.conn.execute(
                sa.update(schema.message)
                .where(schema.message.c.id == message)
                .values(reaction_version=schema.message.c.reaction_version + 1)
            )
            self.count("reactions")

    def realm_settings_that_point(self, realm_id: int) -> None:
        row = self.export.table("zerver_realm")[0]
        values = {}
        for ours, theirs in (
            (
                "notifications_stream_id",
                ("notifications_stream", "new_stream_announcements_stream"),
            ),
            (
                "signup_notifications_stream_id",
                ("signup_notifications_stream", "signup_announcements_stream"),
            ),
        ):
            for name in theirs:
                if _fk(row, name) in self.streams:
                    values[ours] = self.streams[_fk(row, name)]
        if values:
            self.conn.execute(
                sa.update(schema.realm).where(schema.realm.c.id == realm_id).values(values)
            )
        for old_stream in {_fk(r, "stream") for r in self.export.table("zerver_defaultstream")}:
            if old_stream in self.streams:
                self.conn.execute(
                    sa.insert(schema.default_stream).values(
                        realm_id=realm_id, stream_id=self.streams[old_stream]
                    )
                )
                self.count("default streams")
        for bot in self.export.table("zerver_userprofile"):
            if bot.get("is_bot") and int(bot["id"]) in self.users:
                self.conn.execute(
                    sa.insert(schema.bot_settings).values(
                        user_id=self.users[int(bot["id"])],
                        default_sending_stream_id=self.streams.get(
                            _fk(bot, "default_sending_stream")
                        ),
                        default_events_register_stream_id=self.streams.get(
                            _fk(bot, "default_events_register_stream")
                        ),
                        default_all_public_streams=bool(bot.get("default_all_public_streams")),
                    )
                )

    def linkifiers_and_playgrounds(self, realm_id: int) -> None:
        for order, row in enumerate(
            sorted(self.export.table("zerver_realmfilter"), key=lambda r: int(r["id"]))
        ):
            template = row.get("url_template") or row.get("url_format_string")
            if not isinstance(row.get("pattern"), str) or not isinstance(template, str):
                continue
            try:  # a `javascript:` template would put script behind every match
                check_linkifier(self.conn, realm_id, row["pattern"], template, None)
            except ChatError:
                self.skip(f"linkifier {row['pattern'][:100]!r}: invalid pattern or URL template")
                continue
            self.conn.execute(
                sa.insert(schema.realm_filter).values(
                    realm_id=realm_id,
                    pattern=row["pattern"],
                    url_template=template,
                    order=row.get("order") if isinstance(row.get("order"), int) else order,
                )
            )
            self.count("linkifiers")
        for row in sorted(self.export.table("zerver_realmplayground"), key=lambda r: int(r["id"])):
            prefix = row.get("url_prefix")
            template = row.get("url_template")
            if prefix is None and isinstance(template, str) and template.endswith("{code}"):
                prefix = template[: -len("{code}")]  # 8.0 made the prefix a template
            try:
                check_url("url_prefix", prefix if isinstance(prefix, str) else "")
            except ChatError:
                prefix = None
            if not isinstance(prefix, str) or not isinstance(row.get("name"), str):
                self.skip(
                    f"code playground {row.get('name')!r}: its URL template has no prefix form"
                )
                continue
            self.conn.execute(
                sa.insert(schema.realm_playground).values(
                    realm_id=realm_id,
                    name=row["name"],
                    pygments_language=str(row.get("pygments_language") or "")[:40],
                    url_prefix=prefix,
                )
            )
            self.count("code playgrounds")

    def personal_state(self, realm_id: int) -> None:
        """Muted topics and users, alert words, statuses and custom profile fields."""
        stream_recipients = dict(
            self.conn.tuples(
                sa.select(schema.stream.c.id, schema.stream.c.recipient_id).where(
                    schema.stream.c.realm_id == realm_id
                )
            )
        )
        topics: set[tuple[int, int, str]] = set()
        for row in self.export.table("zerver_usertopic"):
            user = self.users.get(_fk(row, "user_profile") or 0)
            stream = self.streams.get(_fk(row, "stream") or 0)
            topic = row.get("topic_name")
            policy = row.get("visibility_policy", 1)  # before 7.0 every row was a mute
            if not (user and stream and isinstance(topic, str) and policy in (1, 2, 3)):
                continue
            if len(topic) > 60 or (user, stream, topic.lower()) in topics:
                continue
            topics.add((user, stream, topic.lower()))
            self.conn.execute(
                sa.insert(schema.user_topic).values(
                    user_id=user,
                    stream_id=stream,
                    recipient_id=stream_recipients[stream],
                    topic_name=topic,
                    last_updated=float(row.get("last_updated") or time.time()),
                    visibility_policy=policy,
                )
            )
            self.count("topic settings")
        muted: set[tuple[int, int]] = set()
        for row in self.export.table("zerver_muteduser"):
            pair = (
                self.users.get(_fk(row, "user_profile") or 0),
                self.users.get(_fk(row, "muted_user") or 0),
            )
            if pair[0] and pair[1] and pair[0] != pair[1] and pair not in muted:
                muted.add((pair[0], pair[1]))
                self.conn.execute(
                    sa.insert(schema.muted_user).values(
                        user_id=pair[0],
                        muted_user_id=pair[1],
                        date_muted=float(row.get("date_muted") or time.time()),
                    )
                )
                self.count("muted users")
        words: set[tuple[int, str]] = set()
        for row in self.export.table("zerver_alertword"):
            user = self.users.get(_fk(row, "user_profile") or 0)
            word = row.get("word")
            if (
                user
                and isinstance(word, str)
                and 0 < len(word) <= 100
                and (user, word.lower()) not in words
            ):
                words.add((user, word.lower()))
                self.conn.execute(
                    sa.insert(schema.alert_word).values(user_id=user, realm_id=realm_id, word=word)
                )
                self.count("alert words")
        for row in self.export.table("zerver_userstatus"):
            user = self.users.get(_fk(row, "user_profile") or 0)
            text = row.get("status_text")
            if user and isinstance(text, str) and len(text) <= 60:
                name = str(row.get("emoji_name") or "")[:60]
                code = str(row.get("emoji_code") or "")
                kind = str(row.get("reaction_type") or schema.REACTION_UNICODE)
                if kind == schema.REACTION_REALM:
                    # A custom emoji's code is its id, remapped like the reactions' (Zulip's
                    # import does the same); one that did not come over leaves no emoji.
                    new_emoji = self.emoji.get(int(code)) if code.isdigit() else None
                    if new_emoji is None:
                        name, code, kind = "", "", schema.REACTION_UNICODE
                    else:
                        code = str(new_emoji)
                self.conn.execute(
                    sa.insert(schema.user_status).values(
                        user_id=user,
                        realm_id=realm_id,
                        status_text=text,
                        emoji_name=name,
                        emoji_code=code,
                        reaction_type=kind,
                        timestamp=float(row.get("timestamp") or time.time()),
                    )
                )
                self.count("user statuses")
        self.profile_fields(realm_id)

    def profile_fields(self, realm_id: int) -> None:
        F = schema.custom_profile_field
        fields: dict[int, tuple[int, int]] = {}
        for n, row in enumerate(
            sorted(self.export.table("zerver_customprofilefield"), key=lambda r: int(r["id"]))
        ):
            name, kind = row.get("name"), row.get("field_type")
            if not isinstance(name, str) or not 0 < len(name) <= 40 or kind not in FIELD_TYPES:
                self.skip(f"custom profile field {row['id']}: no usable name or type")
                continue
            field_data = row.get("field_data")
            new_id = int(
                self.conn.scalar(
                    sa.insert(F)
                    .values(
                        realm_id=realm_id,
                        name=name,
                        hint=str(row.get("hint") or "")[:80],
                        field_type=kind,
                        field_data=field_data if isinstance(field_data, str) else "",
                        order=row.get("order") if isinstance(row.get("order"), int) else n,
                        display_in_profile_summary=row.get("display_in_profile_summary") is True,
                    )
                    .returning(F.c.id)
                )
            )
            fields[int(row["id"])] = (new_id, kind)
            self.count("custom profile fields")
        for row in self.export.table("zerver_customprofilefieldvalue"):
            user = self.users.get(_fk(row, "user_profile") or 0)
            field = fields.get(_fk(row, "field") or 0)
            value = row.get("value")
            if not user or not field or not isinstance(value, str):
                continue
            if field[1] == USER_FIELD:  # a JSON list of user ids, remapped like Zulip's import
                try:
                    old_ids = orjson.loads(value)
                except orjson.JSONDecodeError:
                    continue
                if not isinstance(old_ids, list):
                    continue
                value = orjson.dumps([self.users[i] for i in old_ids if i in self.users]).decode()
            rendered = row.get("rendered_value")
            if not isinstance(rendered, str) or not is_safe_html(rendered):
                rendered = None
            self.conn.execute(
                sa.insert(schema.custom_profile_field_value).values(
                    user_id=user, field_id=field[0], value=value, rendered_value=rendered
                )
            )
            self.count("custom profile values")

    def unknown_tables(self) -> None:
        present = set(self.export.realm) | self.export.message_tables()
        for name in sorted(present - fmt.READ_TABLES):
            n = len(self.export.table(name))
            if n:
                reason = "not kept by Atrium" if name in fmt.IGNORED_TABLES else "not imported"
                self.skip(f"{name}: {n} rows ({reason})")


def import_export(
    conn: Conn,
    export: ZulipExport,
    files: StoredFiles,
    archive_sha256: str,
    email_domain: str,
    progress: Callable[[str], None] = lambda _line: None,
) -> ImportResult:
    """Import `export` as the chat's organization (one transaction: the caller's write)."""
    ZI = schema.zulip_import
    existing = conn.one(sa.select(schema.realm.c.id).order_by(schema.realm.c.id).limit(1))
    if existing is not None:
        done = conn.one(sa.select(ZI).where(ZI.c.realm_id == existing["id"]))
        if done is not None and done["archive_sha256"] == archive_sha256:
            report = orjson.loads(done["report"])
            return ImportResult(int(existing["id"]), True, report["counts"], report["not_carried"])
        raise ChatError(
            "This chat already has an organization; import into an empty data directory."
        )
    importer = _Importer(conn, export, files, email_domain, progress)
    realm_id = importer.realm()
    importer.result.realm_id = realm_id
    importer.people(realm_id)
    importer.user_groups(realm_id)
    importer.streams_and_recipients(realm_id)
    importer.custom_emoji(realm_id)
    links = importer.attachments(realm_id)
    importer.messages(realm_id)
    importer.link_attachments(links)
    importer.reactions()
    importer.realm_settings_that_point(realm_id)
    importer.linkifiers_and_playgrounds(realm_id)
    importer.personal_state(realm_id)
    importer.unknown_tables()
    importer.result.not_carried.extend(files.missing)
    importer.result.not_carried.append("passwords: every person sets a new one by password reset")
    conn.execute(
        sa.insert(ZI).values(
            realm_id=realm_id,
            archive_sha256=archive_sha256,
            imported_at=time.time(),
            report=orjson.dumps(importer.result.report()).decode(),
        )
    )
    return importer.result
