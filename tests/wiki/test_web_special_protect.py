"""`index.php?action=protect` over HTTP: the form, the change it makes (the API's protect), and
its refusals: no right, no or a wrong token, bad levels and expiries, a blocked administrator."""

from __future__ import annotations

import html

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.changes.protection import restriction_of

pytestmark = pytest.mark.anyio

URL = "/w/index.php?title=Guarded&action=protect"


async def _level(wiki: WikiHarness, action: str = "edit") -> str | None:
    title = wiki.site.parser.parse("Guarded")
    return await wiki.db.read(restriction_of, title, action)


def _form(token: str, **extra: str) -> dict[str, str]:
    return {
        "mwProtect-level-edit": "sysop",
        "mwProtect-level-move": "sysop",
        "wpProtectExpirySelection-edit": "infinite",
        "wpProtectExpirySelection-move": "infinite",
        "mwProtect-reason": "vandalism",
        "wpEditToken": token,
    } | extra


async def test_administrator_protects_and_member_cannot_edit(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Guarded", "text")
    await sign_in(wiki, client, "Admin")
    page = await client.get(URL)
    assert page.status_code == 200
    assert 'Change protection level for "Guarded"' in html.unescape(page.text)
    assert 'id="mw-Protect-Form"' in page.text and 'name="wpEditToken"' in page.text
    response = await client.post(URL, data=_form(await page_token(client)))
    assert response.status_code == 303
    assert response.headers["location"] == "/wiki/Guarded"
    assert await _level(wiki) == "sysop"
    assert await _level(wiki, "move") == "sysop"
    shown = await client.get(URL)
    assert '<option value="sysop" selected>' in shown.text
    async with wiki.client() as member:
        await wiki.login(member, "Alice")
        token = await wiki.csrf(member)
        refused = await wiki.post(member, action="edit", title="Guarded", text="x", token=token)
        assert refused["error"]["code"] == "protectedpage"
    # Lifting it again.
    lifted = _form(
        await page_token(client), **{"mwProtect-level-edit": "", "mwProtect-level-move": ""}
    )
    assert (await client.post(URL, data=lifted)).status_code == 303
    assert await _level(wiki) is None


async def test_member_without_the_right_sees_settings_and_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Guarded", "text")
    await sign_in(wiki, client, "Alice")
    page = await client.get(URL)
    assert 'View protection level of "Guarded"' in html.unescape(page.text)
    assert "does not have permission to change page protection levels" in page.text
    assert 'id="mw-Protect-submit"' not in page.text
    response = await client.post(URL, data=_form(await page_token(client)))
    assert response.status_code == 200
    assert "Permission error" in response.text
    assert "You do not have permission to change protection levels" in response.text
    assert "Administrators" in response.text
    assert await _level(wiki) is None


async def test_anonymous_post_is_refused(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Guarded", "text")
    response = await client.post(URL, data=_form("+\\"))
    assert response.status_code == 200 and "Permission error" in response.text
    assert await _level(wiki) is None


@pytest.mark.parametrize("token", ["", "+\\", "0" * 32 + "00000000+\\", "garbage"])
async def test_missing_or_wrong_token_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient, token: str
) -> None:
    await wiki.edit_page("Guarded", "text")
    await sign_in(wiki, client, "Admin")
    response = await client.post(URL, data=_form(token))
    # The form again with MediaWiki's sessionfailure, at 200 as ProtectionForm answers.
    assert response.status_code == 200
    assert "session hijacking" in response.text
    assert await _level(wiki) is None


@pytest.mark.parametrize(
    "extra",
    [
        {"mwProtect-level-edit": "emperor"},
        {"mwProtect-edit-expires": "not a time"},
        {"mwProtect-edit-expires": "2001-01-01T00:00:00Z"},
        {"mwProtect-reason": "\x00<script>"},
    ],
)
async def test_bad_input_shows_the_form_again(
    wiki: WikiHarness, client: httpx.AsyncClient, extra: dict[str, str]
) -> None:
    await wiki.edit_page("Guarded", "text")
    await sign_in(wiki, client, "Admin")
    response = await client.post(URL, data=_form(await page_token(client), **extra))
    assert response.status_code in (303, 200)
    assert "<script>" not in response.text
    if response.status_code == 200:
        assert 'class="errorbox' in response.text
        assert await _level(wiki) is None


async def test_missing_page_gets_create_protection_and_bad_titles_an_error(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Admin")
    page = await client.get("/w/index.php?title=Not_yet&action=protect")
    assert 'name="mwProtect-level-create"' in page.text
    assert 'name="mwProtect-level-edit"' not in page.text
    response = await client.get("/wiki/Special:ProtectPage?target=<bad>")
    assert response.status_code == 200 and "empty or invalid" in response.text
    assert "<bad>" not in response.text


async def test_blocked_administrator_sees_the_block_notice(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Guarded", "text")
    async with wiki.client() as other:
        await wiki.login(other, "Admin")
        token = await wiki.csrf(other)
        done = await wiki.post(other, action="block", user="Admin", reason="testing", token=token)
        assert "block" in done, done
    await sign_in(wiki, client, "Admin")
    response = await client.post(URL, data=_form(await page_token(client)))
    assert response.status_code == 200
    assert "You are blocked from editing" in response.text
    assert "testing" in response.text
    assert await _level(wiki) is None
