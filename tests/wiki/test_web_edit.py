"""The edit form in a browser: create, preview, show changes, save, sections, conflicts, and
the refusals (CSRF, protection, blocks) with MediaWiki's explanations."""

from __future__ import annotations

import html
import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_forms import hidden, sign_in

pytestmark = pytest.mark.anyio


def _form_fields(page: str) -> dict[str, str]:
    fields = {
        name: hidden(page, name)
        for name in ("wpEdittime", "wpStarttime", "wpEditToken", "wpSection", "editRevId")
    }
    match = re.search(r'<textarea[^>]*name="wpTextbox1">(.*?)</textarea>', page, re.S)
    assert match is not None
    fields["wpTextbox1"] = html.unescape(match.group(1))
    return fields


async def _raw(client: httpx.AsyncClient, title: str) -> str:
    return (await client.get(f"/w/index.php?title={title}&action=raw")).text


async def test_create_preview_diff_and_save(client: httpx.AsyncClient) -> None:
    await sign_in(client, "Alice")
    form = await client.get("/w/index.php?title=Fresh_page&action=edit&redlink=1")
    assert form.status_code == 200 and "Creating Fresh page" in form.text
    fields = _form_fields(form.text)
    assert fields["wpEdittime"] == ""
    url = "/w/index.php?title=Fresh_page&action=submit"
    data = {**fields, "wpTextbox1": "Some '''bold''' text.", "wpSummary": "new"}
    preview = await client.post(url, data={**data, "wpPreview": "Show preview"})
    assert preview.status_code == 200
    assert 'id="wikiPreview"' in preview.text and "<b>bold</b>" in preview.text
    assert "only a preview" in preview.text
    assert (await client.get("/wiki/Fresh_page")).status_code == 404
    diff = await client.post(url, data={**data, "wpDiff": "Show changes"})
    assert '<table class="diff' in diff.text and "diff-addedline" in diff.text
    saved = await client.post(url, data={**data, "wpSave": "Save page"})
    assert saved.status_code == 303 and saved.headers["location"] == "/wiki/Fresh_page"
    assert await _raw(client, "Fresh_page") == "Some '''bold''' text."
    history = (await client.get("/w/index.php?title=Fresh_page&action=history")).text
    assert "Alice" in history and "(new)" in history


async def test_section_edit(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Sections", "Lead.\n\n== One ==\nFirst.\n\n== Two ==\nSecond.")
    await sign_in(client, "Alice")
    page = (await client.get("/wiki/Sections")).text
    assert 'class="mw-editsection"' in page and "action=edit&amp;section=2" in page
    form = await client.get("/w/index.php?title=Sections&action=edit&section=2")
    fields = _form_fields(form.text)
    assert fields["wpTextbox1"] == "== Two ==\nSecond."
    assert fields["wpSection"] == "2"
    assert 'value="/* Two */ "' in form.text
    saved = await client.post(
        "/w/index.php?title=Sections&action=submit",
        data={**fields, "wpTextbox1": "== Two ==\nChanged.", "wpSave": "Save changes"},
    )
    assert saved.status_code == 303
    assert await _raw(client, "Sections") == "Lead.\n\n== One ==\nFirst.\n\n== Two ==\nChanged."
    missing = await client.get("/w/index.php?title=Sections&action=edit&section=9")
    # EditPage's error on the page, at 200 (as MediaWiki 1.39).
    assert missing.status_code == 200 and "a section that does not exist" in missing.text


async def test_forged_token_saves_nothing(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Kept", "Original.")
    await sign_in(client, "Alice")
    fields = _form_fields((await client.get("/w/index.php?title=Kept&action=edit")).text)
    refused = await client.post(
        "/w/index.php?title=Kept&action=submit",
        data={**fields, "wpTextbox1": "Vandalised", "wpEditToken": "forged+\\", "wpSave": "1"},
    )
    # EditPage shows the text again with the reason, at 200, as MediaWiki 1.39 does.
    assert refused.status_code == 200 and "loss of session data" in refused.text
    assert "Vandalised" in refused.text and 'id="wpTextbox1"' in refused.text
    assert await _raw(client, "Kept") == "Original."


async def test_edit_conflict_shows_both_texts(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Shared", "Line one.\nLine two.")
    await sign_in(client, "Alice")
    fields = _form_fields((await client.get("/w/index.php?title=Shared&action=edit")).text)
    # Make sure the other edit lands in a later second than the form's base revision.
    other_text = "Line one, changed by Admin.\nLine two."
    while True:
        await wiki.edit_page("Shared", other_text, summary="meanwhile")
        current = _form_fields((await client.get("/w/index.php?title=Shared&action=edit")).text)
        if current["wpEdittime"] != fields["wpEdittime"]:
            break
        other_text += "\nMore."
    url = "/w/index.php?title=Shared&action=submit"
    mine = "Line one, changed by Alice.\nLine two."
    conflict = await client.post(url, data={**fields, "wpTextbox1": mine, "wpSave": "1"})
    assert conflict.status_code == 200
    assert "Edit conflict: Shared" in conflict.text and 'id="wpTextbox2"' in conflict.text
    assert "changed by Admin" in conflict.text and "changed by Alice" in conflict.text
    assert await _raw(client, "Shared") == other_text
    # Saving the upper box (now based on the current revision) goes through.
    again = _form_fields(conflict.text)
    merged = "Line one, changed by both.\nLine two."
    saved = await client.post(url, data={**again, "wpTextbox1": merged, "wpSave": "1"})
    assert saved.status_code == 303
    assert await _raw(client, "Shared") == merged


async def _as_admin(wiki: WikiHarness, **params: str) -> None:
    async with wiki.client() as admin:
        await wiki.login(admin, "Admin")
        result = await wiki.post(admin, token=await wiki.csrf(admin), **params)
        assert "error" not in result, result


async def test_protected_page_shows_source(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Locked", "Protected <b>text</b>.")
    await _as_admin(wiki, action="protect", title="Locked", protections="edit=sysop")
    await sign_in(client, "Alice")
    page = await client.get("/w/index.php?title=Locked&action=edit")
    assert "View source for Locked" in page.text
    assert "This page has been protected" in page.text
    assert 'id="wpSave"' not in page.text and "readonly" in page.text
    # The tabs say so too, on the page and on its edit form: "View source", no "Edit".
    for shown in (page.text, (await client.get("/wiki/Locked")).text):
        assert 'id="ca-viewsource"' in shown and 'id="ca-edit"' not in shown
    # And the headings have no section "edit" links.
    await wiki.edit_page("Locked", "== Part ==\nProtected <b>text</b>.", user="Admin")
    assert "mw-editsection" not in (await client.get("/wiki/Locked")).text
    token = hidden((await client.get("/wiki/Special:UserLogout")).text, "wpEditToken")
    refused = await client.post(
        "/w/index.php?title=Locked&action=submit",
        data={"wpTextbox1": "x", "wpEditToken": token, "wpEdittime": "", "wpSave": "1"},
    )
    assert refused.status_code == 200 and "View source for Locked" in refused.text
    assert await _raw(client, "Locked") == "== Part ==\nProtected <b>text</b>."
    # An administrator may edit it: the "Edit" tab. An unprotected page: "Edit" for Alice.
    async with wiki.client() as admin:
        await sign_in(admin, "Admin")
        shown = (await admin.get("/wiki/Locked")).text
        assert 'id="ca-edit"' in shown and 'id="ca-viewsource"' not in shown
        assert 'class="mw-editsection"' in shown
    await wiki.edit_page("Unlocked", "Open text.")
    shown = (await client.get("/wiki/Unlocked")).text
    assert 'id="ca-edit"' in shown and 'id="ca-viewsource"' not in shown


async def test_create_protected_title_has_no_edit_tab(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """A missing page someone may not create has no edit tab at all, as SkinTemplate shows no
    "View source" for a page without source; one they may create has "Create"."""
    await wiki.edit_page("Create-protected target", "x")
    await _as_admin(wiki, action="delete", title="Create-protected target")
    await _as_admin(
        wiki, action="protect", title="Create-protected target", protections="create=sysop"
    )
    await sign_in(client, "Alice")
    shown = (await client.get("/wiki/Create-protected_target")).text
    assert 'id="ca-edit"' not in shown and 'id="ca-viewsource"' not in shown
    fresh = (await client.get("/wiki/Nobody_wrote_this")).text
    assert 'id="ca-edit"' in fresh and ">Create<" in fresh


async def test_blocked_user_sees_the_block(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Open", "Anyone.")
    await _as_admin(wiki, action="block", user="Alice", reason="Testing <blocks>", expiry="1 day")
    await sign_in(client, "Alice")
    opened = await client.get("/w/index.php?title=Open&action=edit")
    # MediaWiki 1.39 answers the block notice at 200 (its permissions error page sets no status).
    assert opened.status_code == 200
    page = opened.text
    assert "Your username or IP address has been blocked" in page
    assert "Testing &lt;blocks&gt;" in page and 'id="wpSave"' not in page
    token = hidden((await client.get("/wiki/Special:UserLogout")).text, "wpEditToken")
    posted = await client.post(
        "/w/index.php?title=Open&action=submit",
        data={"wpTextbox1": "Blocked words", "wpEditToken": token, "wpEdittime": "", "wpSave": "1"},
    )
    assert (
        posted.status_code == 200 and "Your username or IP address has been blocked" in posted.text
    )
    assert await _raw(client, "Open") == "Anyone."
    # MediaWiki's tabs check rights and protection quickly, not blocks: the "Edit" tab stays
    # and leads to this notice.
    assert 'id="ca-edit"' in (await client.get("/wiki/Open")).text


async def test_hostile_wikitext_is_inert(client: httpx.AsyncClient) -> None:
    await sign_in(client, "Alice")
    fields = _form_fields((await client.get("/w/index.php?title=Hostile&action=edit")).text)
    payload = (
        '<script>alert(1)</script> <b onmouseover="alert(2)">x</b> '
        '[javascript:alert(3) link] <span style="width: expression(alert(4))">y</span>'
    )
    await client.post(
        "/w/index.php?title=Hostile&action=submit",
        data={**fields, "wpTextbox1": payload, "wpSave": "1"},
    )
    page = (await client.get("/wiki/Hostile")).text
    body = page.split('id="mw-content-text"', 1)[1].split('id="catlinks"')[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script" not in body
    # Tags keep no event handler, no style expression, and javascript: is no link.
    tags = re.findall(r"<[a-z][^>]*>", body)
    assert not [t for t in tags if "onmouseover" in t or "expression(" in t or "javascript:" in t]
    assert "<b>x</b>" in body


async def test_entities_render_as_characters(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Entities", "2 &times; 3&nbsp;m, &lt;b&gt; and &bogus;")
    page = (await client.get("/wiki/Entities")).text
    assert "2 &times; 3&nbsp;m, &lt;b&gt; and &amp;bogus;" in page


async def _save_large(client: httpx.AsyncClient, title: str, text: str) -> httpx.Response:
    """Save as the browser's editor does: the form is multipart (`enctype` of the edit form)."""
    fields = _form_fields((await client.get(f"/w/index.php?title={title}&action=edit")).text)
    data = {**fields, "wpSave": "Save page"}
    del data["wpTextbox1"]
    return await client.post(
        f"/w/index.php?title={title}&action=submit",
        data=data,
        files={"wpTextbox1": (None, text.encode())},
    )


async def test_a_page_between_one_and_two_mebibytes_saves(client: httpx.AsyncClient) -> None:
    """A field over the form parser's default 1 MiB part bound answered "Internal error"."""
    await sign_in(client, "Alice")
    text = "word " * (300 * 1024)  # 1.5 MiB
    saved = await _save_large(client, "Big_page", text)
    assert saved.status_code == 303, saved.text[:500]
    assert await _raw(client, "Big_page") == text.rstrip()


async def test_a_page_over_the_size_limit_gets_the_editors_refusal(
    client: httpx.AsyncClient,
) -> None:
    await sign_in(client, "Alice")
    refused = await _save_large(client, "Huge_page", "a" * (2 * 1024 * 1024 + 10))
    # EditPage's answer: the form again with `longpageerror`, at 200 (as MediaWiki 1.39).
    assert refused.status_code == 200
    assert "which is longer than the maximum of 2,048 kilobytes" in refused.text
    assert "Internal error" not in refused.text
    assert (await client.get("/wiki/Huge_page")).status_code == 404
