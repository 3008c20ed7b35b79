"""Bots: creating one (generic or incoming webhook), changing it, deactivating it, and
regenerating API keys.

A bot is a user with an owner. Who may create one follows the realm's bot_creation_policy; who
may change one is its owner or an administrator (Zulip's `access_bot_by_id`). `realm_bot` events
go to those who administer the bot: the realm's administrators and the owner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from atrium.chat import schema
from atrium.chat.actions.user_admin import _removal_notices
from atrium.chat.actions.users import NewUser, check_full_name, create_user, email_in_use
from atrium.chat.errors import ChatError
from atrium.chat.events import Notice, Outcome
from atrium.chat.models import BOT_DEFAULT, BOT_INCOMING_WEBHOOK, BOT_OUTGOING_WEBHOOK, User
from atrium.chat.queries import streams as stream_queries
from atrium.chat.queries.bots import bot_administrator_ids, bot_dict
from atrium.chat.queries.realm import load_realm
from atrium.chat.queries.users import active_user_ids, avatar_url, user_dict, user_row
from atrium.core.db import Conn
from atrium.core.secrets import new_api_key

U = schema.user.c
B = schema.bot_settings.c

# Zulip's bot_creation_policy codes.
BOT_CREATION_EVERYONE = 1
BOT_CREATION_LIMIT_GENERIC_BOTS = 2
BOT_CREATION_ADMINS_ONLY = 3
# Embedded bots need Zulip's bundled bot library; this server has none.
CREATABLE_BOT_TYPES = (BOT_DEFAULT, BOT_INCOMING_WEBHOOK, BOT_OUTGOING_WEBHOOK)
# An outgoing webhook's payload formats (Zulip's Service interfaces).
INTERFACE_GENERIC = 1
INTERFACE_SLACK = 2
INTERFACES = (INTERFACE_GENERIC, INTERFACE_SLACK)
MAX_PAYLOAD_URL_LENGTH = 2000
SERVICE_TOKEN_LENGTH = 32
_SHORT_NAME = re.compile(r"^[A-Za-z0-9._+-]+$")


@dataclass(frozen=True)
class BotRequest:
    full_name: str
    short_name: str
    bot_type: int = BOT_DEFAULT
    default_sending_stream: str | None = None
    default_events_register_stream: str | None = None
    default_all_public_streams: bool | None = None
    # An uploaded avatar (sha256, content type), already in the blob store.
    avatar: tuple[str, str] | None = None
    # Outgoing-webhook bots: where to POST, and in which format.
    payload_url: str = ""
    interface: int = INTERFACE_GENERIC


def check_payload_url(url: str) -> str:
    """An absolute http(s) URL, as Zulip's check_url accepts for `payload_url`."""
    parts = urlsplit(url)
    if (
        len(url) > MAX_PAYLOAD_URL_LENGTH
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or any(ch.isspace() for ch in url)
    ):
        raise ChatError("payload_url is not a URL")
    return url


def check_interface(interface: int) -> int:
    if interface not in INTERFACES:
        raise ChatError("Invalid interface type")
    return interface


def _stream_id(conn: Conn, actor: User, name: str | None) -> int | None:
    """Zulip's access_stream_by_name: a stream the actor may see, by name."""
    if name is None or name == "":
        return None
    stream = stream_queries.stream_by_name(conn, actor.realm_id, name)
    subscribed = (
        stream is not None
        and stream_queries.active_subscription(conn, actor.id, stream["id"]) is not None
    )
    if stream is None or not stream_queries.can_see_stream(actor, stream, subscribed):
        raise ChatError(f"Invalid stream name '{name}'")
    return int(stream["id"])


def check_bot_creation_policy(conn: Conn, actor: User, bot_type: int) -> None:
    if actor.is_admin:
        return
    policy = load_realm(conn, actor.realm_id).row.get("bot_creation_policy", BOT_CREATION_EVERYONE)
    if policy == BOT_CREATION_ADMINS_ONLY or (
        policy == BOT_CREATION_LIMIT_GENERIC_BOTS and bot_type == BOT_DEFAULT
    ):
        raise ChatError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")


def _check_name_available(conn: Conn, realm_id: int, full_name: str) -> None:
    taken = conn.scalar(
        sa.select(U.id).where(
            U.realm_id == realm_id, sa.func.lower(U.full_name) == full_name.lower()
        )
    )
    if taken is not None:
        raise ChatError("Name is already in use!")


def create_bot(
    conn: Conn, owner: User, request: BotRequest, bot_domain: str
) -> Outcome[dict[str, Any]]:
    short_name = request.short_name.strip()
    if not short_name or not _SHORT_NAME.match(short_name):
        raise ChatError("Bad name or username")
    full_name = check_full_name(request.full_name)
    email = f"{short_name}-bot@{bot_domain}"
    if email_in_use(conn, owner.realm_id, email):
        raise ChatError("Username already in use")
    _check_name_available(conn, owner.realm_id, full_name)
    check_bot_creation_policy(conn, owner, request.bot_type)
    if request.bot_type not in CREATABLE_BOT_TYPES:
        raise ChatError("Invalid bot type")
    if request.bot_type == BOT_OUTGOING_WEBHOOK:
        check_payload_url(request.payload_url)
        check_interface(request.interface)
    sending = _stream_id(conn, owner, request.default_sending_stream)
    register = _stream_id(conn, owner, request.default_events_register_stream)
    bot_id = create_user(
        conn,
        owner.realm_id,
        NewUser(email=email, full_name=full_name, bot_owner_id=owner.id, bot_type=request.bot_type),
    )
    conn.execute(
        sa.insert(schema.bot_settings).values(
            user_id=bot_id,
            default_sending_stream_id=sending,
            default_events_register_stream_id=register,
            default_all_public_streams=bool(request.default_all_public_streams),
        )
    )
    if request.bot_type == BOT_OUTGOING_WEBHOOK:
        conn.execute(
            sa.insert(schema.bot_service).values(
                user_id=bot_id,
                base_url=request.payload_url,
                interface=request.interface,
                token=new_api_key()[:SERVICE_TOKEN_LENGTH],
            )
        )
    if request.avatar is not None:
        sha256, content_type = request.avatar
        conn.execute(
            sa.insert(schema.user_avatar).values(
                user_id=bot_id, sha256=sha256, content_type=content_type
            )
        )
        conn.execute(sa.update(schema.user).where(U.id == bot_id).values(avatar_source="U"))
    row = user_row(conn, owner.realm_id, bot_id)
    bot = bot_dict(conn, row)
    notices = [
        Notice(
            {"type": "realm_user", "op": "add", "person": user_dict(row, client_gravatar=False)},
            active_user_ids(conn, owner.realm_id),
        ),
        Notice({"type": "realm_bot", "op": "add", "bot": bot}, bot_administrator_ids(conn, row)),
    ]
    result = {
        "user_id": bot_id,
        "api_key": bot["api_key"],
        "avatar_url": bot["avatar_url"],
        "default_sending_stream": bot["default_sending_stream"],
        "default_events_register_stream": bot["default_events_register_stream"],
        "default_all_public_streams": bot["default_all_public_streams"],
    }
    return Outcome(result, notices)


def access_bot(conn: Conn, actor: User, bot_id: int) -> Any:
    """Zulip's access_bot_by_id: the bot row, if the actor owns it or administers the realm."""
    row = conn.one(
        sa.select(schema.user).where(
            U.id == bot_id, U.realm_id == actor.realm_id, U.is_bot.is_(True)
        )
    )
    if row is None:
        raise ChatError("No such bot")
    if not (actor.is_admin or row["bot_owner_id"] == actor.id):
        raise ChatError("Insufficient permission")
    return row


@dataclass(frozen=True)
class BotChanges:
    full_name: str | None = None
    bot_owner_id: int | None = None
    default_sending_stream: str | None = None
    default_events_register_stream: str | None = None
    default_all_public_streams: bool | None = None
    service_payload_url: str | None = None
    service_interface: int | None = None


def update_bot(
    conn: Conn, actor: User, bot_id: int, changes: BotChanges
) -> Outcome[dict[str, Any]]:
    row = access_bot(conn, actor, bot_id)
    audience = bot_administrator_ids(conn, row)
    notices: list[Notice] = []

    def bot_update(**fields: Any) -> None:
        notices.append(
            Notice(
                {"type": "realm_bot", "op": "update", "bot": {"user_id": bot_id, **fields}},
                sorted(set(audience) | set(bot_administrator_ids(conn, row))),
            )
        )

    if changes.full_name is not None and changes.full_name.strip() != row["full_name"]:
        full_name = check_full_name(changes.full_name)
        _check_name_available(conn, actor.realm_id, full_name)
        conn.execute(sa.update(schema.user).where(U.id == bot_id).values(full_name=full_name))
        notices.append(
            Notice(
                {
                    "type": "realm_user",
                    "op": "update",
                    "person": {"user_id": bot_id, "full_name": full_name},
                },
                active_user_ids(conn, actor.realm_id),
            )
        )
        bot_update(full_name=full_name)
    if changes.bot_owner_id is not None and changes.bot_owner_id != row["bot_owner_id"]:
        owner = user_row(conn, actor.realm_id, changes.bot_owner_id)
        if owner is None:
            raise ChatError("Failed to change owner, no such user")
        if not owner["is_active"]:
            raise ChatError("Failed to change owner, user is deactivated")
        if owner["is_bot"]:
            raise ChatError("Failed to change owner, bots can't own other bots")
        conn.execute(sa.update(schema.user).where(U.id == bot_id).values(bot_owner_id=owner["id"]))
        row = user_row(conn, actor.realm_id, bot_id)
        # The new owner hears of the bot as an addition; everyone else sees the owner change.
        notices.append(
            Notice({"type": "realm_bot", "op": "add", "bot": bot_dict(conn, row)}, [owner["id"]])
        )
        bot_update(owner_id=owner["id"])
    settings: dict[str, Any] = {}
    if changes.default_sending_stream is not None:
        settings["default_sending_stream_id"] = _stream_id(
            conn, actor, changes.default_sending_stream
        )
    if changes.default_events_register_stream is not None:
        settings["default_events_register_stream_id"] = _stream_id(
            conn, actor, changes.default_events_register_stream
        )
    if changes.default_all_public_streams is not None:
        settings["default_all_public_streams"] = changes.default_all_public_streams
    if settings:
        exists = conn.scalar(sa.select(B.user_id).where(B.user_id == bot_id))
        if exists is None:
            conn.execute(sa.insert(schema.bot_settings).values(user_id=bot_id, **settings))
        else:
            conn.execute(
                sa.update(schema.bot_settings).where(B.user_id == bot_id).values(**settings)
            )
    service = conn.one(sa.select(schema.bot_service).where(schema.bot_service.c.user_id == bot_id))
    service_values: dict[str, Any] = {}
    if changes.service_payload_url is not None:
        service_values["base_url"] = check_payload_url(changes.service_payload_url)
    if changes.service_interface is not None:
        service_values["interface"] = check_interface(changes.service_interface)
    if service_values and service is not None:
        conn.execute(
            sa.update(schema.bot_service)
            .where(schema.bot_service.c.id == service["id"])
            .values(service_values)
        )
        service = {**service, **service_values}
        bot_update(services=bot_dict(conn, row)["services"])
    row = user_row(conn, actor.realm_id, bot_id)
    bot = bot_dict(conn, row)
    for key in (
        "default_sending_stream",
        "default_events_register_stream",
        "default_all_public_streams",
    ):
        if key in {k.removesuffix("_id") for k in settings}:
            bot_update(**{key: bot[key]})
    result = {
        "full_name": bot["full_name"],
        "avatar_url": avatar_url(row, client_gravatar=False),
        "default_sending_stream": bot["default_sending_stream"],
        "default_events_register_stream": bot["default_events_register_stream"],
        "default_all_public_streams": bot["default_all_public_streams"],
        "service_interface": service["interface"] if service else INTERFACE_GENERIC,
        "service_payload_url": service["base_url"] if service else None,
        "config_data": None,
    }
    owner_email = conn.scalar(sa.select(U.email).where(U.id == row["bot_owner_id"]))
    if owner_email is not None:
        result["bot_owner"] = owner_email
    return Outcome(result, notices)


def deactivate_bot(conn: Conn, actor: User, bot_id: int) -> Outcome[None]:
    row = access_bot(conn, actor, bot_id)
    if not row["is_active"]:
        raise ChatError("No such bot")
    conn.execute(sa.update(schema.user).where(U.id == bot_id).values(is_active=False))
    return Outcome(None, _removal_notices(conn, User.from_row(row)))


def regenerate_api_key(conn: Conn, actor: User, bot_id: int | None) -> Outcome[str]:
    """A new API key for the actor (bot_id None) or for a bot the actor administers; the old
    key stops working at once."""
    row = access_bot(conn, actor, bot_id) if bot_id is not None else None
    target_id = bot_id if bot_id is not None else actor.id
    api_key = new_api_key()
    conn.execute(sa.update(schema.user).where(U.id == target_id).values(api_key=api_key))
    notices = []
    if row is not None:
        event = {
            "type": "realm_bot",
            "op": "update",
            "bot": {"user_id": target_id, "api_key": api_key},
        }
        notices.append(Notice(event, bot_administrator_ids(conn, row)))
    return Outcome(api_key, notices)
