"""Atrium's own OpenAPI document for its chat API, built from the route table.

Each operation's parameters come from the same `Param` declarations that validate requests, so
the document cannot drift from what the server accepts. As in Zulip's API, every parameter is a
string on the wire: strings are sent as they are, every other type JSON-encoded inside the
field, which the document says with `content: application/json` (query) or a JSON `encoding`
(form body). Responses are the shapes the chat service answers at its feature level
(`response_schemas.json`, which the tests hold every success answer to) where it describes the
operation, else Zulip's envelopes: success with `result` and `msg`, errors with `result`, `msg`
and `code`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from importlib import resources
from typing import Any

import pydantic
from starlette.routing import BaseRoute

from atrium.chat.http import API_PREFIX, RestRoute, ViewSpec
from atrium.chat.params import INT_MAX, Param
from atrium.chat.version import ZULIP_VERSION

_COMPONENT_REF = "#/components/schemas/{model}"
# `{message_id:int}` in Starlette's path syntax -> the parameter name and its convertor.
_PATH_PARAM = re.compile(r"{(\w+)(?::(\w+))?}")

_SUCCESS = {
    "type": "object",
    "required": ["result", "msg"],
    "properties": {"result": {"enum": ["success"]}, "msg": {"type": "string"}},
    "additionalProperties": True,
}
_ERROR = {
    "type": "object",
    "required": ["result", "msg"],
    "properties": {
        "result": {"enum": ["error"]},
        "msg": {"type": "string"},
        "code": {"type": "string"},
    },
    "additionalProperties": True,
}


@functools.cache
def _known_responses() -> dict[str, dict[str, dict[str, Any]]]:
    """Answer shapes by path (its `{…}` parameters blanked), method and status."""
    text = resources.files("atrium.chat").joinpath("response_schemas.json").read_text()
    by_path: dict[str, dict[str, dict[str, Any]]] = {}
    for template, methods in json.loads(text).items():
        shape = _PATH_PARAM.sub("{}", template)
        for method, statuses in methods.items():
            by_path.setdefault(shape, {}).setdefault(method, statuses)
    return by_path


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _COMPONENT_REF.format(model=name)}


class _Schemas:
    """JSON schemas of parameter types; models go to `components.schemas` once each."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {
            "JsonSuccess": _SUCCESS,
            "JsonError": _ERROR,
        }

    def of(self, param: Param) -> dict[str, Any]:
        if param.type is str or param.converter is not None:
            return {"type": "string"}
        schema = pydantic.TypeAdapter(param.type).json_schema(ref_template=_COMPONENT_REF)
        self.components.update(schema.pop("$defs", {}))
        return _bounded(schema, *param.bounds)


def _bounded(schema: dict[str, Any], low: int, high: int) -> dict[str, Any]:
    """Say wherever an integer appears which ones are accepted (larger ones are refused)."""
    if schema.get("type") == "integer":
        schema.setdefault("maximum", high)
        schema.setdefault("minimum", low)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _bounded(schema[key], low, high)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for sub in schema.get(key, []):
            _bounded(sub, low, high)
    for sub in schema.get("properties", {}).values():
        _bounded(sub, low, high)
    return schema


def _is_json(param: Param) -> bool:
    return param.type is not str and param.converter is None


def _operation(
    method: str, path: str, spec: ViewSpec, path_types: dict[str, str], schemas: _Schemas
) -> dict[str, Any]:
    parameters: list[dict[str, Any]] = []
    fields: dict[str, Any] = {}
    required: list[str] = []
    encoding: dict[str, Any] = {}
    for param in spec.endpoint.params:
        if param.path:
            schema = {"type": "integer", "minimum": 0, "maximum": INT_MAX}
            if path_types.get(param.name) != "int" and param.type is not int:
                schema = {"type": "string"}
            parameters.append(
                {"name": param.name, "in": "path", "required": True, "schema": schema}
            )
            continue
        for name in (param.name, *param.aliases):
            schema = schemas.of(param)
            if method == "GET":
                entry: dict[str, Any] = {"name": name, "in": "query", "required": False}
                if name == param.name and param.required:
                    entry["required"] = True
                if _is_json(param):
                    entry["content"] = {"application/json": {"schema": schema}}
                else:
                    entry["schema"] = schema
                parameters.append(entry)
            else:
                fields[name] = schema
                if name == param.name and param.required:
                    required.append(name)
                if _is_json(param):
                    encoding[name] = {"contentType": "application/json"}
    view_name = getattr(spec.view, "__name__", "view")
    operation: dict[str, Any] = {
        "operationId": f"{method.lower()}{re.sub(r'[^A-Za-z0-9]+', '_', path)}".rstrip("_"),
        "summary": (spec.view.__doc__ or view_name).strip().splitlines()[0],
        "parameters": parameters,
        "responses": {
            "200": _response("Success.", "JsonSuccess"),
            "400": _response("A bad request, in Zulip's error envelope.", "JsonError"),
        },
    }
    known = _known_responses().get(_PATH_PARAM.sub("{}", path), {}).get(method.lower(), {})
    for status, schema in sorted(known.items()):
        described = "Success." if status == "200" else "An error, in Zulip's error envelope."
        operation["responses"][status] = {
            "description": described,
            "content": {"application/json": {"schema": schema}},
        }
    if spec.auth:
        operation["responses"]["401"] = _response("Missing or bad credentials.", "JsonError")
        if spec.rate_limited:
            operation["responses"]["429"] = _response("Rate limit hit.", "JsonError")
    else:
        operation["security"] = []
    if method != "GET":
        body: dict[str, Any] = {"type": "object", "properties": fields}
        if required:
            body["required"] = required
        media: dict[str, Any] = {"schema": body}
        if encoding:
            media["encoding"] = encoding
        operation["requestBody"] = {
            "required": bool(required),
            "content": {
                "application/x-www-form-urlencoded": media,
                "multipart/form-data": media,
            },
        }
    return operation


def _response(description: str, component: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": _ref(component)}},
    }


def rest_routes(routes: Iterable[BaseRoute]) -> list[RestRoute]:
    return [route for route in routes if isinstance(route, RestRoute)]


def openapi_document(routes: Iterable[BaseRoute], server_url: str = "") -> dict[str, Any]:
    """The OpenAPI 3.1 document of every served chat operation."""
    schemas = _Schemas()
    paths: dict[str, Any] = {}
    for route in rest_routes(routes):
        path_types = {m[1]: m[2] or "str" for m in _PATH_PARAM.finditer(route.rest_path)}
        path = _PATH_PARAM.sub(r"{\1}", route.rest_path)
        item = paths.setdefault(path, {})
        for method, spec in sorted(route.by_method.items()):
            item[method.lower()] = _operation(method, path, spec, path_types, schemas)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Atrium chat API",
            "version": ZULIP_VERSION,
            "description": "The Zulip-compatible REST API that Atrium serves under /api/v1.",
        },
        "servers": [{"url": server_url.rstrip("/") + API_PREFIX}],
        "security": [{"basicAuth": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "basicAuth": {
                    "type": "http",
                    "scheme": "basic",
                    "description": "The user's email address and API key.",
                }
            },
            "schemas": schemas.components,
        },
    }
