"""Atrium's chat response schemas derived from Zulip's OpenAPI document (the optional comparison).

`src/atrium/chat/response_schemas.json` holds, for each operation of Zulip's API, the shape of its
JSON answers at feature level 185: field names, types, which fields are required. They are facts
taken from Zulip's document at feature level 247 with its prose (descriptions, examples) left out
and the changes between 185 and 247 undone. This module derives them again from Zulip's file, so
that a test can hold the two to agree; `python -m tests.chat.zulip_openapi` rewrites the file.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from tests.reference import REPO, require_reference

SCHEMAS_PATH = REPO / "src" / "atrium" / "chat" / "response_schemas.json"

# Prose and examples: not shapes, and not ours to copy.
_DROPPED = {"description", "example", "examples", "summary", "title"}


def _resolve(node: Any, spec: dict[str, Any]) -> Any:
    """Inline $refs, drop prose, and turn OpenAPI 3.0's `nullable` into JSON Schema's null type."""
    if isinstance(node, list):
        return [_resolve(item, spec) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target: Any = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return _resolve(target, spec)
    out = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            # Field names, "description" among them, are facts: only their prose goes.
            out[key] = {name: _resolve(field, spec) for name, field in value.items()}
        elif key not in _DROPPED and not key.startswith("x-"):
            out[key] = _resolve(value, spec)
    if out.pop("nullable", False):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def _rename(schema: dict[str, Any], old: str, new: str) -> None:
    props = schema["properties"]
    props[new] = props.pop(old)
    if old in schema.get("required", []):
        schema["required"] = [new if name == old else name for name in schema["required"]]


def _to_fl185(node: Any) -> None:
    """Undo, in place, the changes between feature levels 185 and 247 that touch our answers."""
    if isinstance(node, list):
        for item in node:
            _to_fl185(item)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        _to_fl185(value)
    props = node.get("properties")
    if not isinstance(props, dict):
        return
    if "can_remove_subscribers_group" in props:
        # Renamed at feature level 197; `email_address` was removed at 226.
        _rename(node, "can_remove_subscribers_group", "can_remove_subscribers_group_id")
        props.setdefault("email_address", {"type": "string"})
    if "can_mention_group" in props:
        # A user group's `can_mention_group` arrived at feature level 191.
        del props["can_mention_group"]
        required = [n for n in node.pop("required", []) if n != "can_mention_group"]
        if required:
            node["required"] = required
    if "url_template" in props and "pygments_language" in props:
        # A playground's `url_prefix` became the RFC 6570 `url_template` at feature level 196.
        _rename(node, "url_template", "url_prefix")


def derive(spec: dict[str, Any]) -> dict[str, Any]:
    """{path template: {method: {status: schema}}} for every JSON answer Zulip documents."""
    out: dict[str, Any] = {}
    for template, operations in sorted(spec["paths"].items()):
        for method, operation in sorted(operations.items()):
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, response in sorted(operation["responses"].items()):
                content = _resolve(response, spec).get("content", {})
                if "application/json" not in content or "schema" not in content["application/json"]:
                    continue
                schema = content["application/json"]["schema"]
                _to_fl185(schema)
                out.setdefault(template, {}).setdefault(method, {})[str(status)] = schema
    return out


def from_zulip() -> dict[str, Any]:
    with require_reference("zulip-openapi").open() as f:
        spec: dict[str, Any] = yaml.load(f, Loader=yaml.CSafeLoader)
    return derive(spec)


def dumps(schemas: dict[str, Any]) -> str:
    return json.dumps(schemas, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMAS_PATH.write_text(dumps(from_zulip()))
    print(f"wrote {SCHEMAS_PATH}")
