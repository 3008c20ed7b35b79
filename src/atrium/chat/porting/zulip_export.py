"""The chat's organization written as Zulip's organization export, so a team can leave with it.

The folder has the layout described in zulip_format: realm.json, messages-NNNNNN.json with
`flags_mask`, attachment.json and the uploads, avatars and emoji folders with their
records.json. Row fields carry Zulip's names (foreign keys without `_id`), ids are Atrium's own.
The rows are Zulip 7.x's (feature level 185, the API Atrium speaks): Zulip's import_realm builds
each model from a row's keys and refuses an unknown one, and it reads only exports of its own
version, so fields of later versions are left out. Tables it reads unconditionally and Atrium
has no data for (activity, presence, realm domains) are written empty; the audit log is left
out, so that the import writes the subscription events it writes for exports without one. The
caller packs the folder with archive.write.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa
from PIL import Image, UnidentifiedImageError

from atrium.chat import schema
from atrium.chat.porting import zulip_format as fmt
from atrium.core.blobs import BlobStore
from atrium.core.db import Conn

Row = dict[str, Any]

# The sizes of the resized copies Zulip serves beside an organization image's `.original`: the
# icon a square, the logos a banner (Zulip's upload code makes the same).
REALM_IMAGE_SIZES = {"icon": (100, 100), "logo": (800, 100), "night_logo": (800, 100)}

# Atrium column -> Zulip field where the names differ.
_RENAMED = {
    "realm_id": "realm",
    "recipient_id": "recipient",
    "sender_id": "sender",
    "user_id": "user_profile",
    "stream_id": "stream",
    "owner_id": "owner",
    "author_id": "author",
    "bot_owner_id": "bot_owner",
    "can_remove_subscribers_group_id": "can_remove_subscribers_group",
    "can_mention_group_id": "can_mention_group",
    "notifications_stream_id": "notifications_stream",
    "signup_notifications_stream_id": "signup_notifications_stream",
    "topic": "subject",
    "muted_user_id": "muted_user",
    "field_id": "field",
}


def _rows(conn: Conn, statement: Any, drop: tuple[str, ...] = ()) -> list[Row]:
    # SQLite hands booleans back as 0 and 1; Zulip's rows hold JSON true and false.
    booleans = {c.name for c in statement.selected_columns if isinstance(c.type, sa.Boolean)}
    out = []
    for row in conn.all(statement):
        out.append(
            {
                _RENAMED.get(k, k): bool(v) if k in booleans and v is not None else v
                for k, v in dict(row).items()
                if k not in drop
            }
        )
    return out


def _write_json(path: Path, data: Any) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2))


def _copy_blob(blobs: BlobStore, sha256: str, dest: Path, root: Path) -> int | None:
    source = blobs.path(sha256)
    if not source.is_file() or not dest.resolve().is_relative_to(root.resolve()):
        return None
    dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copyfile(source, dest)
    dest.chmod(0o600)
    return source.stat().st_size


def write_export(
    conn: Conn,
    blobs: BlobStore,
    out_dir: Path,
    progress: Callable[[str], None] = lambda _line: None,
) -> dict[str, int]:
    """Write the chat's organization into the empty folder `out_dir`; row counts by table."""
    realm = conn.one(sa.select(schema.realm).order_by(schema.realm.c.id).limit(1))
    if realm is None:
        raise LookupError("the chat has no organization to export")
    realm_id = int(realm["id"])
    counts: dict[str, int] = {}
    data: dict[str, list[Row]] = {}

    [realm_row] = _rows(conn, sa.select(schema.realm).where(schema.realm.c.id == realm_id))
    for internal in ("message_display_version", "user_settings_defaults", "realm"):
        realm_row.pop(internal, None)
    if realm_row.get("default_code_block_language") is None:
        realm_row["default_code_block_language"] = ""
    images = set(
        conn.scalars(
            sa.select(schema.realm_image.c.kind).where(
                schema.realm_image.c.realm_id == realm_id, schema.realm_image.c.sha256.is_not(None)
            )
        )
    )
    realm_row["icon_source"] = "U" if "icon" in images else "G"
    realm_row["logo_source"] = "U" if "logo" in images else "D"
    realm_row["night_logo_source"] = "U" if "night_logo" in images else "D"
    data["zerver_realm"] = [realm_row]
    defaults = orjson.loads(realm["user_settings_defaults"] or "{}")
    # Zulip 7.0 moved the organization's email visibility into its new users' defaults.
    defaults.setdefault("email_address_visibility", realm_row.pop("email_address_visibility", 1))
    data["zerver_realmuserdefault"] = [{"id": 1, "realm": realm_id, **defaults}]

    U = schema.user
    users = _rows(
        conn,
        sa.select(U).where(U.c.realm_id == realm_id).order_by(U.c.id),
        drop=("password_hash", "api_key"),
    )
    bots = {r["user_id"]: r for r in conn.all(sa.select(schema.bot_settings))}
    for user in users:
        # Zulip's `email` is the address shown to others; `delivery_email` the real one.
        bot = bots.get(user["id"])
        user["default_sending_stream"] = bot["default_sending_stream_id"] if bot else None
        user["default_events_register_stream"] = (
            bot["default_events_register_stream_id"] if bot else None
        )
        user["default_all_public_streams"] = bool(bot and bot["default_all_public_streams"])
        user["is_mirror_dummy"] = False
        # Read by Zulip's import whatever their value: the dates it converts and the message
        # id it remaps. Atrium keeps none of the three.
        user["last_login"] = None
        user["last_reminder"] = None
        user["last_active_message_id"] = None
        # Zulip's import deletes these two many-to-many lists from every user row it reads.
        user["user_permissions"] = []
        user["groups"] = []
    data["zerver_userprofile"] = users
    data["zerver_userprofile_mirrordummy"] = []
    data["zerver_userprofile_crossrealm"] = []
    data["zerver_client"] = []  # filled from the messages below
    user_ids = [u["id"] for u in users]

    S = schema.stream
    data["zerver_stream"] = _rows(
        conn, sa.select(S).where(S.c.realm_id == realm_id).order_by(S.c.id)
    )
    stream_ids = [s["id"] for s in data["zerver_stream"]]
    H = schema.huddle
    huddles = conn.all(sa.select(H).order_by(H.c.id))
    huddle_members: dict[int, list[int]] = {}
    for row in conn.all(sa.select(schema.huddle_member)):
        huddle_members.setdefault(row["huddle_id"], []).append(row["user_id"])
    huddles = [h for h in huddles if set(huddle_members.get(h["id"], [])) <= set(user_ids)]
    data["zerver_huddle"] = [
        {"id": h["id"], "huddle_hash": h["huddle_hash"], "recipient": h["recipient_id"]}
        for h in huddles
    ]
    R = schema.recipient
    recipient_rows = conn.all(sa.select(R).order_by(R.c.id))
    wanted = {
        fmt.RECIPIENT_PERSONAL: set(user_ids),
        fmt.RECIPIENT_STREAM: set(stream_ids),
        fmt.RECIPIENT_HUDDLE: {h["id"] for h in huddles},
    }
    data["zerver_recipient"] = [
        {"id": r["id"], "type": r["type"], "type_id": r["type_id"]}
        for r in recipient_rows
        if r["type_id"] in wanted.get(r["type"], set())
    ]
    recipient_ids = {r["id"] for r in data["zerver_recipient"]}

    # Subscriptions: Zulip keeps one per user for their own recipient and one per huddle member.
    SUB = schema.subscription
    subscriptions: list[Row] = []
    stream_recipient = {s["id"]: s["recipient"] for s in data["zerver_stream"]}
    active = {u["id"]: bool(u["is_active"]) for u in users}
    for sub in _rows(
        conn, sa.select(SUB).where(SUB.c.stream_id.in_(stream_ids or [0])).order_by(SUB.c.id)
    ):
        sub["recipient"] = stream_recipient[sub.pop("stream")]
        sub["is_user_active"] = active.get(sub["user_profile"], False)
        subscriptions.append(sub)
    next_id = max((s["id"] for s in subscriptions), default=0) + 1
    personal = {u["id"]: u["recipient"] for u in users}
    for user_id, recipient_id in personal.items():
        subscriptions.append(
            {
                "id": next_id,
                "user_profile": user_id,
                "recipient": recipient_id,
                "active": True,
                "is_user_active": active[user_id],
            }
        )
        next_id += 1
    for h in huddles:
        for member in sorted(huddle_members.get(h["id"], [])):
            subscriptions.append(
                {
                    "id": next_id,
                    "user_profile": member,
                    "recipient": h["recipient_id"],
                    "active": True,
                    "is_user_active": active[member],
                }
            )
            next_id += 1
    data["zerver_subscription"] = subscriptions

    data["zerver_defaultstream"] = [
        {"id": i, "realm": realm_id, "stream": r["stream_id"]}
        for i, r in enumerate(
            conn.all(
                sa.select(schema.default_stream).where(schema.default_stream.c.realm_id == realm_id)
            ),
            1,
        )
    ]
    # Zulip 7 orders linkifiers by id (`order` came in 8.0): numbered in Atrium's order.
    RF = schema.realm_filter
    data["zerver_realmfilter"] = _numbered(
        _rows(
            conn,
            sa.select(RF).where(RF.c.realm_id == realm_id).order_by(RF.c.order, RF.c.id),
            drop=("id", "order"),
        )
    )
    data["zerver_realmdomain"] = []
    data["zerver_realmplayground"] = _rows(
        conn,
        sa.select(schema.realm_playground).where(schema.realm_playground.c.realm_id == realm_id),
    )
    G = schema.user_group
    # `can_mention_group` came in Zulip 8.0; Atrium's API (feature level 185) never sets it.
    data["zerver_usergroup"] = _rows(
        conn,
        sa.select(G).where(G.c.realm_id == realm_id).order_by(G.c.id),
        drop=("can_mention_group_id",),
    )
    group_ids = [g["id"] for g in data["zerver_usergroup"]]
    data["zerver_usergroupmembership"] = [
        {"id": i, "user_group": r["user_group_id"], "user_profile": r["user_id"]}
        for i, r in enumerate(
            conn.all(
                sa.select(schema.user_group_member)
                .where(schema.user_group_member.c.user_group_id.in_(group_ids or [0]))
                .order_by(
                    schema.user_group_member.c.user_group_id, schema.user_group_member.c.user_id
                )
            ),
            1,
        )
    ]
    data["zerver_groupgroupmembership"] = [
        {"id": i, "supergroup": r["supergroup_id"], "subgroup": r["subgroup_id"]}
        for i, r in enumerate(
            conn.all(
                sa.select(schema.user_group_subgroup).where(
                    schema.user_group_subgroup.c.supergroup_id.in_(group_ids or [0])
                )
            ),
            1,
        )
    ]
    E = schema.realm_emoji
    emoji_rows = conn.all(sa.select(E).where(E.c.realm_id == realm_id).order_by(E.c.id))
    data["zerver_realmemoji"] = [
        {
            "id": e["id"],
            "realm": realm_id,
            "author": e["author_id"],
            "name": e["name"],
            "file_name": f"{e['id']}.{e['file_ext']}",
            "deactivated": bool(e["deactivated"]),
            "is_animated": False,
        }
        for e in emoji_rows
    ]
    _personal_state(conn, data, user_ids, realm_id)
    for table in ("zerver_useractivity", "zerver_useractivityinterval", "zerver_userpresence"):
        data[table] = []

    # Messages, in files of MESSAGE_CHUNK by ascending id.
    M = schema.message
    clients: dict[str, int] = {}
    message_ids: list[int] = []
    last_id = 0
    file_number = 0
    user_message_id = 0
    while True:
        chunk = _rows(
            conn,
            sa.select(M)
            .where(
                M.c.realm_id == realm_id,
                M.c.recipient_id.in_(recipient_ids or {0}),
                M.c.id > last_id,
            )
            .order_by(M.c.id)
            .limit(fmt.MESSAGE_CHUNK),
            drop=("reaction_version", "stream_id", "is_me_message"),
        )
        if not chunk:
            break
        last_id = chunk[-1]["id"]
        ids = [m["id"] for m in chunk]
        message_ids.extend(ids)
        for message in chunk:
            name = message["sending_client"]
            message["sending_client"] = clients.setdefault(name, len(clients) + 1)
        UM = schema.user_message
        user_messages = [
            {
                "id": 0,
                "user_profile": r["user_id"],
                "message": r["message_id"],
                "flags_mask": r["flags"],
            }
            for r in conn.all(
                sa.select(UM)
                .where(UM.c.message_id.in_(ids))
                .order_by(UM.c.message_id, UM.c.user_id)
            )
        ]
        for row in user_messages:
            user_message_id += 1
            row["id"] = user_message_id
        file_number += 1
        _write_json(
            out_dir / f"messages-{file_number:06}.json",
            {"zerver_message": chunk, "zerver_usermessage": user_messages},
        )
        counts["zerver_message"] = counts.get("zerver_message", 0) + len(chunk)
        counts["zerver_usermessage"] = counts.get("zerver_usermessage", 0) + len(user_messages)
        progress(f"exported {len(message_ids)} messages")
    # A status names the client that set it; Atrium keeps none, so the web client's.
    for status in data["zerver_userstatus"]:
        status["client"] = clients.setdefault("website", len(clients) + 1)
    data["zerver_client"] = [{"id": i, "name": name} for name, i in clients.items()]

    RX = schema.reaction
    reactions: list[Row] = []
    for start in range(0, len(message_ids), 5000):
        reactions += _rows(
            conn,
            sa.select(RX)
            .where(RX.c.message_id.in_(message_ids[start : start + 5000]))
            .order_by(RX.c.id),
        )
    for reaction in reactions:
        reaction["message"] = reaction.pop("message_id")
    data["zerver_reaction"] = reactions

    for rows in data.values():
        rows.sort(key=lambda r: r.get("id", 0))
    _write_json(out_dir / "realm.json", data)
    for name, rows in data.items():
        counts[name] = len(rows)

    # Attachments and their files.
    A = schema.attachment
    AM = schema.attachment_message
    attachments = _rows(conn, sa.select(A).where(A.c.realm_id == realm_id).order_by(A.c.id))
    links: dict[int, list[int]] = {}
    for row in conn.all(sa.select(AM)):
        links.setdefault(row["attachment_id"], []).append(row["message_id"])
    upload_records = []
    exported = set(message_ids)
    written = []
    for attachment in attachments:
        sha256 = attachment.pop("sha256")
        attachment.pop("content_type", None)
        # Zulip's import looks each linked message up, and each attachment's file record.
        attachment["messages"] = sorted(set(links.get(attachment["id"], [])) & exported)
        attachment["scheduled_messages"] = []
        attachment["is_realm_public"] = None
        attachment["is_web_public"] = None
        path = attachment["path_id"]
        size = _copy_blob(blobs, sha256, out_dir / "uploads" / path, out_dir / "uploads")
        if size is not None:
            written.append(attachment)
            upload_records.append(
                {
                    "realm_id": realm_id,
                    "user_profile_id": attachment["owner"],
                    "s3_path": path,
                    "path": path,
                    "size": size,
                    "content_type": None,
                }
            )
    _write_json(out_dir / "attachment.json", {"zerver_attachment": written})
    counts["zerver_attachment"] = len(written)
    (out_dir / "uploads").mkdir(exist_ok=True, mode=0o700)
    _write_json(
        out_dir / "uploads" / "records.json", sorted(upload_records, key=lambda r: r["path"])
    )

    avatar_records = []
    for row in conn.all(
        sa.select(schema.user_avatar).where(schema.user_avatar.c.user_id.in_(user_ids or [0]))
    ):
        path = f"{realm_id}/{row['user_id']}.original"
        if _copy_blob(blobs, row["sha256"], out_dir / "avatars" / path, out_dir) is not None:
            avatar_records.append(
                {
                    "realm_id": realm_id,
                    "user_profile_id": row["user_id"],
                    "path": path,
                    "s3_path": path,
                    # Only the original is written: Zulip's import_realm makes the resized
                    # avatar from it when asked by this flag (it makes the medium one anyway).
                    "importer_should_thumbnail": True,
                }
            )
    (out_dir / "avatars").mkdir(exist_ok=True, mode=0o700)
    _write_json(out_dir / "avatars" / "records.json", avatar_records)

    emoji_records = []
    for row, e in zip(data["zerver_realmemoji"], emoji_rows, strict=True):
        path = fmt.EMOJI_PATH.format(realm_id=realm_id, file_name=row["file_name"])
        if _copy_blob(blobs, e["sha256"], out_dir / "emoji" / path, out_dir) is not None:
            emoji_records.append(
                {
                    "realm_id": realm_id,
                    "author": row["author"],
                    "path": path,
                    "s3_path": path,
                    "file_name": row["file_name"],
                    "name": row["name"],
                    "deactivated": row["deactivated"],
                }
            )
    (out_dir / "emoji").mkdir(exist_ok=True, mode=0o700)
    _write_json(out_dir / "emoji" / "records.json", emoji_records)
    icon_records = []
    for row in conn.all(
        sa.select(schema.realm_image).where(schema.realm_image.c.realm_id == realm_id)
    ):
        path = f"{realm_id}/{row['kind']}.original"
        if row["sha256"] and _copy_blob(
            blobs, row["sha256"], out_dir / "realm_icons" / path, out_dir
        ):
            icon_records.append({"realm_id": realm_id, "path": path, "s3_path": path})
            # Zulip serves `<kind>.png` and its import copies the files as they are: the
            # resized copy has to be in the export, as Zulip's own exports have it.
            png = f"{realm_id}/{row['kind']}.png"
            box = REALM_IMAGE_SIZES.get(row["kind"], (100, 100))
            if _resized_png(out_dir / "realm_icons" / path, out_dir / "realm_icons" / png, box):
                icon_records.append({"realm_id": realm_id, "path": png, "s3_path": png})
    (out_dir / "realm_icons").mkdir(exist_ok=True, mode=0o700)
    _write_json(out_dir / "realm_icons" / "records.json", icon_records)
    _write_stats(out_dir, counts, len(upload_records), len(avatar_records))
    return counts


def _resized_png(source: Path, dest: Path, size: tuple[int, int]) -> bool:
    """A PNG copy of the image `source`, shrunk to fit `size`; False if it is no image."""
    try:
        with Image.open(source) as image:
            image.thumbnail(size)
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                image.convert("RGBA").save(out, "PNG")
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError):
        dest.unlink(missing_ok=True)
        return False
    return True


def _numbered(rows: list[Row]) -> list[Row]:
    """Rows of tables whose Atrium key is not an id get the `id` Zulip's rows have."""
    return [{"id": n, **row} for n, row in enumerate(rows, 1)]


def _personal_state(
    conn: Conn, data: dict[str, list[Row]], user_ids: list[int], realm_id: int
) -> None:
    users = user_ids or [0]
    data["zerver_usertopic"] = _rows(
        conn, sa.select(schema.user_topic).where(schema.user_topic.c.user_id.in_(users))
    )
    data["zerver_muteduser"] = _numbered(
        _rows(conn, sa.select(schema.muted_user).where(schema.muted_user.c.user_id.in_(users)))
    )
    data["zerver_alertword"] = _rows(
        conn, sa.select(schema.alert_word).where(schema.alert_word.c.user_id.in_(users))
    )
    # Zulip's UserStatus has no realm; its client is set once the clients are known.
    data["zerver_userstatus"] = _numbered(
        _rows(
            conn,
            sa.select(schema.user_status).where(schema.user_status.c.user_id.in_(users)),
            drop=("realm_id",),
        )
    )
    F = schema.custom_profile_field
    data["zerver_customprofilefield"] = _rows(conn, sa.select(F).where(F.c.realm_id == realm_id))
    V = schema.custom_profile_field_value
    data["zerver_customprofilefieldvalue"] = _numbered(
        _rows(conn, sa.select(V).where(V.c.user_id.in_(users)))
    )


def _write_stats(out_dir: Path, counts: dict[str, int], uploads: int, avatars: int) -> None:
    lines = [f"{n:5} {name}" for name, n in sorted(counts.items())]
    lines += ["", "avatars/records.json", f"{avatars:5} records", "", "uploads/records.json"]
    lines += [f"{uploads:5} records", ""]
    fd = os.open(out_dir / "stats.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write("\n".join(lines))
