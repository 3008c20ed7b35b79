"""The OpenAPI document Atrium publishes for its chat API, at /api/v1/openapi.json."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest

from atrium.chat.app import api_routes
from atrium.chat.openapi import rest_routes
from atrium.chat.params import INT_MAX, WIDE_MAX
from tests.chat.conftest import ChatHarness

pytestmark = pytest.mark.anyio


async def _document(chat: ChatHarness) -> dict[str, Any]:
    resp = await chat.client.get("/api/v1/openapi.json")  # no credentials: it is public
    assert resp.status_code == 200, resp.text
    document: dict[str, Any] = resp.json()
    return document


def _schemas(document: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(document["components"]["schemas"].values())
    for item in document["paths"].values():
        for operation in item.values():
            for param in operation["parameters"]:
                found.append(
                    param["content"]["application/json"]["schema"]
                    if "content" in param
                    else param["schema"]
                )
            for media in operation.get("requestBody", {}).get("content", {}).values():
                found.append(media["schema"])
    return found


async def test_every_served_operation_and_parameter_is_described(chat: ChatHarness) -> None:
    document = await _document(chat)
    assert document["openapi"] == "3.1.0"
    assert document["servers"][0]["url"].endswith("/api/v1")
    table = rest_routes(api_routes(chat.runtime))
    assert len(table) == len(document["paths"])
    for route in table:
        path = re.sub(r"{(\w+):\w+}", r"{\1}", route.rest_path)
        item = document["paths"][path]
        assert set(item) == {m.lower() for m in route.by_method}
        for method, spec in route.by_method.items():
            operation = item[method.lower()]
            described = {p["name"] for p in operation["parameters"]}
            body = operation.get("requestBody")
            if body is not None:
                media = body["content"]["application/x-www-form-urlencoded"]
                described |= set(media["schema"]["properties"])
            for param in spec.endpoint.params:
                assert {param.name, *param.aliases} <= described, (method, path, param.name)
            assert ("security" in operation) == (not spec.auth)


async def test_schemas_are_valid_and_integers_bounded(chat: ChatHarness) -> None:
    document = await _document(chat)
    for schema in _schemas(document):
        jsonschema.Draft202012Validator.check_schema(schema)
    text = str(document)
    assert "'type': 'integer'" in text
    for schema in _schemas(document):
        if schema.get("type") == "integer":
            assert schema["maximum"] in {INT_MAX, WIDE_MAX}


async def test_required_parameters_are_the_ones_the_server_requires(chat: ChatHarness) -> None:
    """Each operation with required parameters, sent without any, names a required one."""
    document = await _document(chat)
    checked = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            required = {p["name"] for p in operation["parameters"] if p["required"]}
            body = operation.get("requestBody")
            if body is not None:
                media = body["content"]["application/x-www-form-urlencoded"]
                required |= set(media["schema"].get("required", []))
            required -= {p["name"] for p in operation["parameters"] if p["in"] == "path"}
            if not required:
                continue
            concrete = re.sub(r"{user}", str(chat.cordelia.id), path)
            concrete = re.sub(r"{\w+}", "1", concrete)
            resp = await chat.request(method.upper(), concrete, chat.desdemona)
            body_json = resp.json()
            assert body_json.get("code") == "REQUEST_VARIABLE_MISSING", (method, path, resp.text)
            assert body_json["var_name"] in required
            checked += 1
    assert checked > 20


async def test_responses_describe_the_answers_the_service_knows(chat: ChatHarness) -> None:
    document = await _document(chat)
    specific = 0
    for item in document["paths"].values():
        for operation in item.values():
            for response in operation["responses"].values():
                schema = response["content"]["application/json"]["schema"]
                if "$ref" not in schema:
                    jsonschema.Draft202012Validator.check_schema(schema)
            success = operation["responses"]["200"]["content"]["application/json"]["schema"]
            specific += "$ref" not in success
    # Every operation Zulip's document describes has its own answer shape.
    assert specific >= 60
    messages = document["paths"]["/messages"]["get"]["responses"]["200"]
    assert "found_anchor" in str(messages)
