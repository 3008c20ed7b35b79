"""Success responses checked against Atrium's chat response schemas.

The schemas (`src/atrium/chat/response_schemas.json`) describe each operation's JSON answers at
feature level 185, the level Atrium speaks; `tests/chat/zulip_openapi.py` holds them to Zulip's
own document where that is present.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

import jsonschema


@functools.cache
def response_schemas() -> dict[str, Any]:
    text = resources.files("atrium.chat").joinpath("response_schemas.json").read_text()
    schemas: dict[str, Any] = json.loads(text)
    return schemas


@functools.lru_cache(maxsize=4096)
def _template_for(path: str, method: str = "get") -> str:
    paths = response_schemas()
    if path in paths:  # a literal template ("/users/me") wins over "/users/{user_id}"
        return path
    for template in paths:
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(template)) + "$"
        # "/users/{email}" and "/users/{user_id}" match alike: take the one with the method.
        if re.match(pattern, path) and method.lower() in paths[template]:
            return template
    raise AssertionError(f"no response schema matches {path}")


@functools.cache
def _validator(template: str, method: str, status: int) -> Any:
    """One validator per schema: `jsonschema.validate` would check the schema against its
    metaschema on every call (test_openapi_document.py checks each once) and resolve its
    references anew, which cost more than the request it checks."""
    schema = response_schemas()[template][method][str(status)]
    return jsonschema.validators.validator_for(schema)(schema)


def assert_matches_openapi(method: str, path: str, body: dict[str, Any], status: int = 200) -> None:
    _validator(_template_for(path, method), method.lower(), status).validate(body)
