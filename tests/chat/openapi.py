"""Success responses checked against Zulip's own OpenAPI description.

The description is Zulip's at feature level 247; Atrium speaks 185. The few shapes that changed
between the two are translated back before validating (`FL185_TO_FL247`), so that every other
difference is a failure.
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

OPENAPI_PATH = (
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "zulip" / "openapi-fl247.yaml"
)


@functools.cache
def openapi() -> dict[str, Any]:
    with OPENAPI_PATH.open() as f:
        spec: dict[str, Any] = yaml.load(f, Loader=yaml.CSafeLoader)
    return spec


def _resolve(node: Any, spec: dict[str, Any]) -> Any:
    """Inline $refs and turn OpenAPI 3.0's `nullable` into JSON Schema's null type."""
    if isinstance(node, list):
        return [_resolve(item, spec) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target: Any = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return _resolve(target, spec)
    out = {key: _resolve(value, spec) for key, value in node.items() if key != "example"}
    if out.pop("nullable", False):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@functools.cache
def _schema(method: str, template: str, status: int) -> dict[str, Any]:
    spec = openapi()
    operation = spec["paths"][template][method.lower()]
    response = _resolve(operation["responses"][str(status)], spec)
    content = response["content"]["application/json"]
    schema: dict[str, Any] = _resolve(content["schema"], spec)
    return schema


def _template_for(path: str, method: str = "get") -> str:
    paths = openapi()["paths"]
    if path in paths:  # a literal template ("/users/me") wins over "/users/{user_id}"
        return path
    for template in paths:
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(template)) + "$"
        # "/users/{email}" and "/users/{user_id}" match alike: take the one with the method.
        if re.match(pattern, path) and method.lower() in paths[template]:
            return template
    raise AssertionError(f"no OpenAPI path matches {path}")


def _stream_fl185_to_fl247(stream: dict[str, Any]) -> None:
    # Renamed at feature level 197.
    if "can_remove_subscribers_group_id" in stream:
        stream["can_remove_subscribers_group"] = stream.pop("can_remove_subscribers_group_id")
    # Removed at feature level 226.
    stream.pop("email_address", None)


# User settings renamed at feature level 219.
_SETTING_RENAMES = {
    "default_view": "web_home_view",
    "escape_navigates_to_default_view": "web_escape_navigates_to_home_view",
}


def _settings_fl185_to_fl247(settings: dict[str, Any]) -> None:
    for old, new in _SETTING_RENAMES.items():
        if old in settings:
            settings[new] = settings.pop(old)


def _register_fl185_to_fl247(body: dict[str, Any]) -> None:
    # Renamed at feature level 241.
    for old, new in (
        ("realm_notifications_stream_id", "realm_new_stream_announcements_stream_id"),
        ("realm_signup_notifications_stream_id", "realm_signup_announcements_stream_id"),
    ):
        if old in body:
            body[new] = body.pop(old)
    methods = body.get("realm_authentication_methods")
    if isinstance(methods, dict):
        # Feature level 241 made each method an object.
        body["realm_authentication_methods"] = {
            name: {"enabled": enabled, "available": True} for name, enabled in methods.items()
        }
    if "realm_default_code_block_language" in body:
        # null became "" at feature level 195.
        body["realm_default_code_block_language"] = body["realm_default_code_block_language"] or ""
    if "hotspots" in body:
        # Replaced by onboarding_steps at feature level 233.
        body["onboarding_steps"] = body.pop("hotspots")
    for key in ("user_settings", "realm_user_settings_defaults"):
        if isinstance(body.get(key), dict):
            _settings_fl185_to_fl247(body[key])
    _settings_fl185_to_fl247(body)


def fl185_to_fl247(body: dict[str, Any]) -> dict[str, Any]:
    body = copy.deepcopy(body)
    if "queue_id" in body and "last_event_id" in body:
        _register_fl185_to_fl247(body)
    for key in (
        "subscriptions",
        "streams",
        "unsubscribed",
        "never_subscribed",
        "realm_default_streams",
    ):
        for stream in body.get(key, []) or []:
            _stream_fl185_to_fl247(stream)
    if "stream" in body and isinstance(body["stream"], dict):
        _stream_fl185_to_fl247(body["stream"])
    for group in [*(body.get("user_groups") or []), *(body.get("realm_user_groups") or [])]:
        # Added at feature level 191 (as can_mention_group_id; renamed at 198).
        group.setdefault("can_mention_group", 0)
    for playground in body.get("realm_playgrounds", []) or []:
        # url_prefix became the RFC 6570 url_template at feature level 196.
        playground["url_template"] = playground.pop("url_prefix") + "{code}"
    return body


def assert_matches_openapi(method: str, path: str, body: dict[str, Any], status: int = 200) -> None:
    template = _template_for(path, method)
    schema = _schema(method, template, status)
    jsonschema.validate(fl185_to_fl247(body), schema)
