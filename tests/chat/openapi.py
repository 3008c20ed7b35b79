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


def fl185_to_fl247(body: dict[str, Any]) -> dict[str, Any]:
    body = copy.deepcopy(body)
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
