"""`action=paraminfo` held against the specification, module by module and field by field.

The expected records are MediaWiki 1.39's (the captured samples) with the specification's
differences applied, as api-conventions.md B2 lists them; the spec's own text is also parsed for
every `enum(...)` list and checked against the output, so neither source can drift unnoticed.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from tests.reference import reference_path, skip_without
from tests.wiki.conftest import WikiHarness

from atrium.wiki.api.params import ParamReader, module_info
from atrium.wiki.api.registry import QUERY_MODULE_SPECS

SPEC = reference_path("wiki-spec")
SAMPLES = reference_path("mediawiki-samples")
DROPPED_FIELDS = ("source", "sourcename", "licenselink", "helpurls")

pytestmark = [skip_without("mediawiki-samples"), skip_without("wiki-spec")]


def _samples(fv: int) -> dict[str, dict[str, Any]]:
    files = ["paraminfo-8mods-fv2.json", "paraminfo-spec-rest-fv2.json"]
    if fv == 1:
        files = ["paraminfo-8mods-fv1.json"]
    records: dict[str, dict[str, Any]] = {}
    for name in files:
        for module in json.loads((SAMPLES / name).read_text())["paraminfo"]["modules"]:
            records[module["name"]] = module
    return records


def _param(module: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in module["parameters"] if p["name"] == name)


def _reindex(module: dict[str, Any]) -> None:
    for index, param in enumerate(module["parameters"], 1):
        param["index"] = index


def _apply_spec(records: dict[str, dict[str, Any]], fv: int) -> dict[str, dict[str, Any]]:
    """MediaWiki 1.39's records turned into the specification's (api-conventions.md B2)."""
    out = copy.deepcopy(records)
    true: Any = True if fv >= 2 else ""
    multi_extra = {"lowlimit": 50, "highlimit": 500, "limit": 50}
    for module in out.values():
        for field in DROPPED_FIELDS:
            module.pop(field, None)
    spec_formats = ["application/json", "text/css", "text/javascript", "text/plain", "text/x-wiki"]
    for name in ("revisions", "alldeletedrevisions", "allrevisions"):
        if name in out:
            _param(out[name], "contentformat")["type"] = spec_formats
    if "revisions" in out:
        params = out["revisions"]["parameters"]
        token = {
            "name": "token",
            "type": ["rollback"],
            "deprecated": true,
            "multi": true,
            **multi_extra,
        }
        if fv >= 2:
            token = {
                "name": "token",
                "type": ["rollback"],
                "required": False,
                "deprecated": True,
                "multi": True,
                **multi_extra,
            }
        params.insert(len(params) - 1, token)
        _reindex(out["revisions"])
    if "users" in out:
        token = {
            "name": "token",
            "type": ["userrights"],
            "deprecated": true,
            "multi": true,
            **multi_extra,
        }
        if fv >= 2:
            token["required"] = False
        out["users"]["parameters"].append(token)
        _reindex(out["users"])
    if "watchlist" in out:
        _param(out["watchlist"], "prop")["type"].remove("expiry")
    if "userinfo" in out:
        prop = _param(out["userinfo"], "prop")
        prop["type"].remove("theoreticalratelimits")
        prop["type"].append("preferencestoken")
        prop["deprecatedvalues"] = ["preferencestoken"]
    if "usercontribs" in out:
        out["usercontribs"]["parameters"] = [
            p for p in out["usercontribs"]["parameters"] if p["name"] != "iprange"
        ]
        _reindex(out["usercontribs"])
    if "allusers" in out:
        for name in ("group", "excludegroup"):
            _param(out["allusers"], name)["type"] = sorted(
                [*_param(out["allusers"], name)["type"], "engineering"]
            )
        _param(out["allusers"], "rights")["type"].remove("delete-redirect")
    return out


def _actual(fv: int, names: list[str]) -> dict[str, dict[str, Any]]:
    return {name: module_info(QUERY_MODULE_SPECS[name], fv, high_limits=False) for name in names}


def _normalise(record: dict[str, Any]) -> dict[str, Any]:
    """Sorts parameter keys (their order in JSON carries no meaning)."""
    return json.loads(json.dumps(record, sort_keys=True))


SPEC_MODULE_NAMES = sorted(_samples(2)) if SAMPLES.exists() else []


@pytest.mark.parametrize("name", SPEC_MODULE_NAMES)
def test_paraminfo_fv2_matches_spec(name: str) -> None:
    expected = _apply_spec(_samples(2), 2)[name]
    actual = _actual(2, [name])[name]
    assert _normalise(actual) == _normalise(expected)


@pytest.mark.parametrize("name", sorted(_samples(1)) if SAMPLES.exists() else [])
def test_paraminfo_fv1_matches_spec(name: str) -> None:
    expected = _apply_spec(_samples(1), 1)[name]
    actual = _actual(1, [name])[name]
    assert _normalise(actual) == _normalise(expected)


def test_every_spec_module_is_declared() -> None:
    listed = re.findall(r"^\| ([a-z]+) \| ", SPEC.read_text(), re.M)
    names = [n for n in listed if n != "module"]
    assert len(names) == 29
    assert set(names) <= set(QUERY_MODULE_SPECS)
    assert set(names) == set(SPEC_MODULE_NAMES)


def _spec_paragraphs() -> dict[str, str]:
    text = SPEC.read_text()
    return dict(re.findall(r"^\*\*([a-z]+)\*\*: (.+)$", text, re.M))


@pytest.mark.parametrize("name", sorted(_spec_paragraphs()) if SPEC.exists() else [])
def test_spec_enums_and_defaults_come_out_of_paraminfo(name: str) -> None:
    """Every `enum(a|b|…)` and `default x` of the spec text is somewhere in the module's record."""
    record = module_info(QUERY_MODULE_SPECS[name], 2, high_limits=False)
    types = [sorted(p["type"]) for p in record["parameters"] if isinstance(p["type"], list)]
    paragraph = _spec_paragraphs()[name]
    for values in re.findall(r"enum\(([^)]*)\)", paragraph):
        wanted = sorted("" if v == "empty string" else v for v in values.split("|"))
        if name == "allusers" and len(wanted) > 20:
            wanted_set = set(wanted)
            assert any(set(t) == wanted_set for t in types), name
            continue
        assert wanted in types, f"{name}: enum({values}) not in paraminfo"
    defaults = {p["name"]: p.get("default") for p in record["parameters"]}
    for param, value in re.findall(r"(\w+) [^;]*?default `([^`]*)`", paragraph):
        assert value in defaults.values(), f"{name}: default {value} of {param}"


@pytest.mark.anyio
async def test_paraminfo_over_http_with_wildcard(wiki: WikiHarness) -> None:
    async with wiki.client() as client:
        data = await wiki.api(client, action="paraminfo", modules="query+*", formatversion="2")
        names = [m["name"] for m in data["paraminfo"]["modules"]]
        assert names == sorted(names)
        assert set(SPEC_MODULE_NAMES) <= set(names)
        data = await wiki.api(
            client,
            action="paraminfo",
            modules="query+nosuchmodule|query+allpages",
            formatversion="2",
        )
        assert [m["name"] for m in data["paraminfo"]["modules"]] == ["allpages"]
        assert data["warnings"]["paraminfo"]["warnings"] == (
            'The module "query" does not have a submodule "nosuchmodule".'
        )


def test_limit_of_multi_params_follows_caller() -> None:
    record = module_info(QUERY_MODULE_SPECS["allcategories"], 2, high_limits=True)
    assert _param(record, "prop")["limit"] == 500
    assert ParamReader({}, True, frozenset()).high_limits
