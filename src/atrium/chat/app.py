"""The chat service: its route table (one line per endpoint) and its start-up."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from atrium.chat.delivery import ScheduledDelivery
from atrium.chat.email_notifications import MissedMessageMailer
from atrium.chat.emoji_data import emoji_data_route
from atrium.chat.events import event_queues
from atrium.chat.http import API_PREFIX, RestRoute, not_found, rest, with_json_twins
from atrium.chat.markdown import engine as markdown_engine
from atrium.chat.markdown import previews
from atrium.chat.openapi import openapi_document
from atrium.chat.queries import message_cache
from atrium.chat.runtime import ChatRuntime
from atrium.chat.views import (
    bots,
    devices,
    domains,
    drafts,
    emoji,
    events,
    files,
    images,
    invites,
    message_edit,
    message_flags,
    messages,
    own_account,
    presence,
    profile_fields,
    reactions,
    realm,
    scheduled_messages,
    server,
    stream_settings,
    streams,
    thumbnail,
    topics,
    typing,
    uploads,
    user_group_subgroups,
    user_groups,
    user_state,
    user_topics,
    users,
)
from atrium.chat.web.assets import client_assets
from atrium.chat.web.email_confirmation import email_confirmation_routes
from atrium.chat.web.pages import web_routes
from atrium.chat.web.password_reset import password_reset_routes
from atrium.chat.web.signup import signup_routes
from atrium.chat.web.unsubscribe import unsubscribe_routes
from atrium.core.db import open_database
from atrium.core.ratelimit import rate_limiter
from atrium.core.responses import JSONResponse
from atrium.core.service import Service
from atrium.core.sessions import SessionStore
from atrium.settings import Settings


def routes(rt: ChatRuntime) -> list[BaseRoute]:
    api = api_routes(rt)
    paths = {route.rest_path for route in api if isinstance(route, RestRoute)}
    # One set of the client's static files for every page: loading and hashing them costs as
    # much as the rest of the app's construction.
    assets = client_assets(rt.settings.chat_emoji_font)
    return [
        openapi_route(rt, api),
        emoji_data_route(),
        *with_json_twins(rt, api),
        *password_reset_routes(rt, assets),
        *unsubscribe_routes(rt, assets),
        *email_confirmation_routes(rt, assets),
        *web_routes(rt, paths, assets),
    ]


def openapi_route(rt: ChatRuntime, api: list[BaseRoute]) -> Route:
    """GET /api/v1/openapi.json: the API's own description, built once from its routes."""
    document: dict[str, Any] = {}

    async def openapi_json(request: Request) -> Response:
        # Public, as Zulip's API documentation is.
        if not document:
            document.update(openapi_document(api, rt.settings.base_url))
        return JSONResponse(document)

    return Route(API_PREFIX + "/openapi.json", openapi_json, methods=["GET", "HEAD"])


def api_routes(rt: ChatRuntime) -> list[BaseRoute]:
    """Every operation of the API: one line per path, its views by method."""
    return [
        rest(rt, "/server_settings", GET=server.server_settings),
        rest(rt, "/register", POST=events.register),
        rest(rt, "/events", GET=events.get_events, DELETE=events.delete_queue),
        rest(rt, "/fetch_api_key", POST=server.fetch_api_key),
        rest(rt, "/messages", GET=messages.get_messages, POST=messages.send),
        rest(rt, "/messages/render", POST=messages.render),
        rest(rt, "/messages/matches_narrow", GET=messages.matches_narrow),
        rest(
            rt,
            "/messages/{message_id:int}",
            GET=messages.get_message,
            PATCH=message_edit.update,
            DELETE=message_edit.delete,
        ),
        rest(rt, "/messages/{message_id:int}/history", GET=message_edit.history),
        rest(
            rt,
            "/messages/{message_id:int}/reactions",
            POST=reactions.add,
            DELETE=reactions.remove,
        ),
        rest(rt, "/messages/{message_id:int}/read_receipts", GET=reactions.read_receipts),
        rest(rt, "/typing", POST=typing.set_typing),
        rest(rt, "/messages/flags", POST=message_flags.update),
        rest(rt, "/messages/flags/narrow", POST=message_flags.update_for_narrow),
        rest(rt, "/mark_all_as_read", POST=message_flags.all_as_read),
        rest(rt, "/mark_stream_as_read", POST=message_flags.stream_as_read),
        rest(rt, "/mark_topic_as_read", POST=message_flags.topic_as_read),
        rest(rt, "/drafts", GET=drafts.get_drafts, POST=drafts.create),
        rest(rt, "/drafts/{draft_id:int}", PATCH=drafts.edit, DELETE=drafts.delete),
        rest(
            rt,
            "/scheduled_messages",
            GET=scheduled_messages.get_scheduled,
            POST=scheduled_messages.create,
        ),
        rest(
            rt,
            "/scheduled_messages/{scheduled_message_id:int}",
            PATCH=scheduled_messages.edit,
            DELETE=scheduled_messages.delete,
        ),
        rest(rt, "/users", GET=users.get_users, POST=users.create),
        rest(rt, "/users/me", GET=users.get_me, DELETE=own_account.deactivate),
        rest(rt, "/users/me/presence", POST=presence.update_own),
        rest(rt, "/users/me/status", POST=user_state.update_status),
        rest(
            rt,
            "/users/me/alert_words",
            GET=user_state.get_alert_words,
            POST=user_state.add_words,
            DELETE=user_state.remove_words,
        ),
        rest(
            rt,
            "/users/me/muted_users/{muted_user_id:int}",
            POST=user_state.mute,
            DELETE=user_state.unmute,
        ),
        rest(rt, "/users/me/{stream_id:int}/topics", GET=topics.get_topics),
        rest(
            rt,
            "/users/me/subscriptions",
            GET=streams.get_subscriptions,
            POST=streams.add_subscriptions,
            PATCH=own_account.update_subscriptions,
            DELETE=streams.remove_subscriptions,
        ),
        rest(rt, "/users/me/subscriptions/muted_topics", PATCH=user_topics.update_muted_topic),
        rest(rt, "/user_topics", POST=user_topics.update_user_topic),
        rest(
            rt,
            "/users/me/subscriptions/properties",
            POST=streams.update_subscription_properties,
            PATCH=streams.update_subscription_properties,
        ),
        rest(
            rt,
            "/users/{user}",
            GET=users.get_user,
            PATCH=users.update,
            DELETE=users.deactivate,
        ),
        rest(rt, "/users/{user}/reactivate", POST=users.reactivate),
        rest(rt, "/users/{user}/presence", GET=presence.get_for_user),
        rest(rt, "/settings", PATCH=users.update_settings),
        rest(rt, "/streams", GET=streams.get_streams),
        rest(
            rt,
            "/streams/{stream_id:int}",
            GET=stream_settings.get_stream,
            PATCH=stream_settings.update,
            DELETE=stream_settings.delete,
        ),
        rest(rt, "/streams/{stream_id:int}/members", GET=stream_settings.get_members),
        rest(rt, "/streams/{stream_id:int}/delete_topic", POST=topics.delete),
        rest(rt, "/get_stream_id", GET=stream_settings.get_stream_id),
        rest(rt, "/user_groups", GET=user_groups.get_groups),
        rest(rt, "/user_groups/create", POST=user_groups.create),
        rest(
            rt,
            "/user_groups/{user_group_id:int}",
            PATCH=user_groups.update,
            DELETE=user_groups.delete,
        ),
        rest(
            rt,
            "/user_groups/{user_group_id:int}/members",
            GET=user_groups.get_members,
            POST=user_groups.update_group_members,
        ),
        rest(rt, "/realm", PATCH=realm.update),
        rest(rt, "/realm/presence", GET=presence.get_realm),
        rest(rt, "/realm/user_settings_defaults", PATCH=realm.update_user_settings_defaults),
        rest(rt, "/realm/playgrounds", POST=realm.create_playground),
        rest(rt, "/realm/playgrounds/{playground_id:int}", DELETE=realm.delete_playground),
        rest(rt, "/realm/linkifiers", GET=realm.get_linkifiers),
        rest(rt, "/realm/filters", POST=realm.create_linkifier),
        rest(
            rt,
            "/realm/filters/{filter_id:int}",
            PATCH=realm.patch_linkifier,
            DELETE=realm.delete_linkifier,
        ),
        rest(
            rt,
            "/default_streams",
            POST=realm.create_default_stream,
            DELETE=realm.delete_default_stream,
        ),
        rest(rt, "/user_uploads", POST=uploads.upload_file),
        rest(rt, "/user_uploads/{realm_id:int}/{path:path}", GET=uploads.temporary_url),
        rest(rt, "/attachments", GET=uploads.get_attachments),
        rest(rt, "/attachments/{attachment_id:int}", DELETE=uploads.delete_attachment),
        rest(rt, "/users/me/avatar", POST=images.upload_avatar, DELETE=images.delete_avatar),
        rest(rt, "/realm/icon", POST=images.upload_icon, DELETE=images.delete_icon),
        rest(rt, "/realm/logo", POST=images.upload_logo, DELETE=images.delete_logo),
        rest(rt, "/realm/emoji", GET=emoji.get_emoji),
        rest(rt, "/realm/emoji/{emoji_name}", POST=emoji.upload_emoji, DELETE=emoji.delete_emoji),
        rest(
            rt,
            "/realm/profile_fields",
            GET=profile_fields.get_fields,
            POST=profile_fields.create,
            PATCH=profile_fields.reorder,
        ),
        rest(
            rt,
            "/realm/profile_fields/{field_id:int}",
            PATCH=profile_fields.update,
            DELETE=profile_fields.delete,
        ),
        rest(rt, "/bots", GET=bots.get_bots, POST=bots.create),
        rest(rt, "/bots/{bot_id:int}", PATCH=bots.update, DELETE=bots.deactivate),
        rest(rt, "/bots/{bot_id:int}/api_key/regenerate", POST=bots.regenerate_bot_key),
        rest(rt, "/users/me/api_key/regenerate", POST=bots.regenerate_own_key),
        rest(rt, "/invites", GET=invites.get_invites, POST=invites.invite),
        rest(rt, "/invites/multiuse", POST=invites.create_multiuse),
        rest(rt, "/invites/multiuse/{invite_id:int}", DELETE=invites.revoke_multiuse),
        rest(rt, "/invites/{invite_id:int}", DELETE=invites.revoke),
        rest(rt, "/invites/{invite_id:int}/resend", POST=invites.resend),
        rest(
            rt,
            "/users/{user_id:int}/subscriptions/{stream_id:int}",
            GET=own_account.subscription_status,
        ),
        rest(rt, "/realm/domains", GET=domains.get_domains, POST=domains.create),
        rest(rt, "/realm/domains/{domain}", PATCH=domains.update, DELETE=domains.delete),
        rest(
            rt,
            "/user_groups/{user_group_id:int}/subgroups",
            GET=user_group_subgroups.get_subgroups,
            POST=user_group_subgroups.update,
        ),
        rest(
            rt,
            "/user_groups/{user_group_id:int}/members/{user_id:int}",
            GET=user_group_subgroups.is_member,
        ),
        rest(rt, "/users/me/hotspots", POST=devices.mark_hotspot),
        rest(rt, "/users/me/apns_device_token", POST=devices.add_apns, DELETE=devices.remove_apns),
        rest(rt, "/users/me/android_gcm_reg_id", POST=devices.add_gcm, DELETE=devices.remove_gcm),
        rest(
            rt,
            "/users/me/profile_data",
            PATCH=profile_fields.update_own,
            DELETE=profile_fields.remove_own,
        ),
        *files.file_routes(rt),
        *thumbnail.thumbnail_routes(rt),
        *signup_routes(rt),
        Route(
            API_PREFIX + "/{path:path}",
            not_found,
            methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        ),
    ]


def create_service(settings: Settings, sessions: SessionStore | None = None) -> Service:
    markdown_engine.set_time_budget(settings.render_timeout)
    previews.configure_camo(settings.camo_url, settings.camo_key)
    db = open_database(settings.database_url, settings.sqlite_path("chat"), "chat")
    message_cache.install(db.caches, settings.caches.messages, settings.caches.display)
    runtime = ChatRuntime(
        settings=settings,
        db=db,
        limiter=rate_limiter(settings.redis_url, settings.redis_namespace),
        sessions=sessions,
        events=event_queues(
            settings.redis_url,
            settings.redis_namespace,
            max_queue_bytes=settings.caches.event_queue,
            max_total_bytes=settings.caches.event_queues,
            max_queues_per_user=settings.caches.event_queues_per_user,
        ),
    )

    background: list[asyncio.Task[None]] = []

    async def expire_idle_queues() -> None:
        while True:
            await asyncio.sleep(60)
            await runtime.events.expire_idle()

    delivery = ScheduledDelivery(runtime)
    missed_mails = MissedMessageMailer(runtime)

    async def startup() -> None:
        if settings.migrate_on_start:
            # Imported here: Alembic stays out of processes that do not migrate.
            from atrium.core import migrations

            migrations.upgrade("chat", settings.database_url, settings.sqlite_path("chat"))
        delivery.start()
        missed_mails.start()
        background.append(asyncio.create_task(expire_idle_queues()))

    async def shutdown() -> None:
        await delivery.stop()
        await missed_mails.stop()
        for task in background:
            task.cancel()
        await runtime.limiter.close()
        await runtime.events.close()
        db.close()

    service = Service("chat", routes(runtime), [startup], [shutdown])
    service.state["runtime"] = runtime
    service.state["scheduled_delivery"] = delivery
    service.state["missed_message_mails"] = missed_mails
    return service
