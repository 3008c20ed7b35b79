"""GET/POST /realm/domains, PATCH/DELETE /realm/domains/{domain}, realm_domains events and the
register section."""

from __future__ import annotations

import pytest

from tests.chat.conftest import ChatHarness, api_ok, assert_json_error, assert_json_success, listen

pytestmark = pytest.mark.anyio


async def test_domains(chat: ChatHarness) -> None:
    probe = await listen(chat, chat.hamlet, ["realm_domains"])
    body = assert_json_success(
        await chat.post("/realm/domains", chat.iago, domain=" Example.COM ", allow_subdomains=False)
    )
    assert body["new_domain"][1] == "example.com"
    assert assert_json_success(await chat.get("/realm/domains", chat.hamlet))["domains"] == [
        {"domain": "example.com", "allow_subdomains": False}
    ]
    assert_json_success(
        await chat.patch("/realm/domains/example.com", chat.iago, allow_subdomains=True)
    )
    state = await api_ok(
        chat, "POST", "/register", chat.hamlet, fetch_event_types=["realm_domains"]
    )
    assert state["realm_domains"] == [{"domain": "example.com", "allow_subdomains": True}]
    assert_json_success(await chat.delete("/realm/domains/example.com", chat.iago))
    ops = [(e["op"], e.get("realm_domain"), e.get("domain")) for e in await probe.events()]
    assert ops == [
        ("add", {"domain": "example.com", "allow_subdomains": False}, None),
        ("change", {"domain": "example.com", "allow_subdomains": True}, None),
        ("remove", None, "example.com"),
    ]


async def test_domain_errors(chat: ChatHarness) -> None:
    resp = await chat.post("/realm/domains", chat.hamlet, domain="a.com", allow_subdomains=False)
    assert_json_error(resp, "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
    for domain, problem in [
        ("nodot", "Domain must have at least one dot (.)"),
        (".a.com", "Domain cannot start or end with a dot (.)"),
        ("a..com", "Consecutive '.' are not allowed."),
        ("-a.com", "Subdomains cannot start or end with a '-'."),
        ("a_b.com", "Domain can only have letters, numbers, '.' and '-'s."),
    ]:
        resp = await chat.post("/realm/domains", chat.iago, domain=domain, allow_subdomains=False)
        assert_json_error(resp, f"Invalid domain: {problem}")
    assert_json_success(
        await chat.post("/realm/domains", chat.iago, domain="a.com", allow_subdomains=False)
    )
    resp = await chat.post("/realm/domains", chat.iago, domain="a.com", allow_subdomains=True)
    assert_json_error(resp, "The domain a.com is already a part of your organization.")
    resp = await chat.patch("/realm/domains/b.com", chat.iago, allow_subdomains=True)
    assert_json_error(resp, "No entry found for domain b.com.")
    resp = await chat.delete("/realm/domains/b.com", chat.iago)
    assert_json_error(resp, "No entry found for domain b.com.")
    resp = await chat.post("/realm/domains", chat.iago, domain="c.com")
    assert_json_error(resp, "Missing 'allow_subdomains' argument", code="REQUEST_VARIABLE_MISSING")
