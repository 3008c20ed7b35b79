"""Atrium's chat response schemas agree with Zulip's OpenAPI document (an optional comparison)."""

from __future__ import annotations

import jsonschema
import pytest

from tests.chat.openapi import assert_matches_openapi
from tests.chat.zulip_openapi import SCHEMAS_PATH, dumps, from_zulip
from tests.reference import skip_without


@skip_without("zulip-openapi")
def test_response_schemas_are_zulips_at_feature_level_185() -> None:
    # On a mismatch: `python -m tests.chat.zulip_openapi` rewrites the file from Zulip's document.
    assert SCHEMAS_PATH.read_text() == dumps(from_zulip())


def test_feature_level_185_shapes() -> None:
    """The shapes that changed after 185 are described as 185 has them."""
    text = SCHEMAS_PATH.read_text()
    assert '"can_remove_subscribers_group"' not in text
    assert '"can_remove_subscribers_group_id"' in text
    assert '"can_mention_group"' not in text
    assert '"url_prefix"' in text


def test_a_body_off_its_schema_is_refused() -> None:
    """The check every `api_ok` makes (one cached validator per schema) still refuses a wrong
    type, a property the schema does not allow, an error's body, and a path no operation has."""
    with pytest.raises(jsonschema.ValidationError, match="is not of type 'integer'"):
        assert_matches_openapi("GET", "/users/me", {"result": "success", "msg": "", "user_id": "1"})
    with pytest.raises(jsonschema.ValidationError, match="'leak' was unexpected"):
        assert_matches_openapi("GET", "/users/me", {"result": "success", "msg": "", "leak": 1})
    with pytest.raises(jsonschema.ValidationError, match="is not one of"):
        assert_matches_openapi("GET", "/users/me", {"result": "error", "msg": ""})
    with pytest.raises(AssertionError, match="no response schema matches"):
        assert_matches_openapi("GET", "/no/such/operation", {"result": "success", "msg": ""})
