"""Register sections for the organization's assets: realm images, custom emoji, bots, domains,
hotspots; kept apart from `state` so that each family's initial state sits beside its kind.

`ASSET_SECTIONS` joins `state.SECTIONS`; `with_realm_images` adds the icon and logo keys to
whatever the `realm` section returns, since their URLs come from the stored images.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from atrium.chat.queries.bots import realm_bot_dicts
from atrium.chat.queries.domains import realm_domain_dicts
from atrium.chat.queries.emoji import realm_emoji_dicts
from atrium.chat.queries.hotspots import next_hotspots
from atrium.chat.queries.images import realm_image_state
from atrium.chat.queries.users import user_row
from atrium.core.db import Conn

if TYPE_CHECKING:
    from atrium.chat.events.state import StateRequest

Section = Callable[[Conn, "StateRequest"], dict[str, Any]]

# Zulip's limits for images (MAX_*_FILE_SIZE_MIB), shown in the realm section.
IMAGE_LIMITS = {
    "max_avatar_file_size_mib": 5,
    "max_icon_file_size_mib": 5,
    "max_logo_file_size_mib": 5,
}


def with_realm_images(realm_section: Section) -> Section:
    def section(conn: Conn, req: StateRequest) -> dict[str, Any]:
        state = realm_section(conn, req)
        state.update(realm_image_state(conn, req.user.realm_id))
        state.update(IMAGE_LIMITS)
        state["max_file_upload_size_mib"] = req.max_file_upload_size_mib
        state["realm_bot_domain"] = urlsplit(req.base_url).hostname or "localhost"
        return state

    return section


def with_avatar_source(realm_user_section: Section) -> Section:
    """The user's own `avatar_source` ("U" after an upload), which the identity keys need."""

    def section(conn: Conn, req: StateRequest) -> dict[str, Any]:
        state = realm_user_section(conn, req)
        row = user_row(conn, req.user.realm_id, req.user.id)
        state["avatar_source"] = row["avatar_source"]
        return state

    return section


def realm_emoji_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"realm_emoji": realm_emoji_dicts(conn, req.user.realm_id)}


def realm_bots_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"realm_bots": realm_bot_dicts(conn, req.user)}


def realm_domains_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"realm_domains": realm_domain_dicts(conn, req.user.realm_id)}


def hotspots_state(conn: Conn, req: StateRequest) -> dict[str, Any]:
    return {"hotspots": next_hotspots(conn, req.user.id)}


def asset_sections(sections: dict[str, Section]) -> dict[str, Section]:
    return {
        "realm": with_realm_images(sections["realm"]),
        "realm_user": with_avatar_source(sections["realm_user"]),
        "realm_emoji": realm_emoji_state,
        "realm_bot": realm_bots_state,
        "realm_domains": realm_domains_state,
        "hotspots": hotspots_state,
        # No embedded bots and no incoming-webhook integrations are installed on this server.
        "realm_embedded_bots": lambda conn, req: {"realm_embedded_bots": []},
        "realm_incoming_webhook_bots": lambda conn, req: {"realm_incoming_webhook_bots": []},
    }
