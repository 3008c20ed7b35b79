"""Login (main account, bot password, clientlogin), logout, tokens, edit rules, createaccount, options."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness

from atrium.wiki import schema
from atrium.wiki.merge import merge3

pytestmark = pytest.mark.anyio


async def _login_token(wiki: WikiHarness, client: httpx.AsyncClient) -> str:
    data = await wiki.api(client, action="query", meta="tokens", type="login")
    token: str = data["query"]["tokens"]["logintoken"]
    assert len(token) == 42 and token.endswith("+\\")
    return token


async def test_login_with_bot_password_and_logout(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    token = await _login_token(wiki, client)
    bad = await wiki.post(
        client, action="login", lgname="Robot@tests", lgpassword="wrong", lgtoken=token
    )
    # bc: the English text with its markup and line breaks stripped (ApiLogin::formatMessage),
    # as the reference answers a failed `Admin@tests` (data/auth_failure_cases.json)
    assert bad["login"] == {
        "result": "Failed",
        "reason": "Incorrect username or password entered. Please try again.",
    }
    ok = await wiki.post(
        client, action="login", lgname="Robot@tests", lgpassword=wiki.bot_password, lgtoken=token
    )
    assert ok["login"]["result"] == "Success"
    assert ok["login"]["lgusername"] == "Robot"
    assert "warnings" not in ok
    info = await wiki.api(client, action="query", meta="userinfo", uiprop="groups|rights")
    assert "bot" in info["query"]["userinfo"]["groups"]
    checked = await wiki.api(client, action="query", meta="userinfo", **{"assert": "bot"})
    assert "error" not in checked
    csrf = await wiki.csrf(client)
    assert await wiki.post(client, action="logout", token=csrf) == {}
    after = await wiki.api(client, action="query", meta="userinfo", **{"assert": "user"})
    assert after["error"]["code"] == "assertuserfailed"


async def test_main_account_login_warns(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    token = await _login_token(wiki, client)
    ok = await wiki.post(
        client, action="login", lgname="Admin", lgpassword="admin-password-1", lgtoken=token
    )
    assert ok["login"]["result"] == "Success"
    assert "Main-account login" in ok["warnings"]["login"]["*"]
    wrong = await wiki.post(
        client, action="login", lgname="Admin", lgpassword="x", lgtoken="bad+\\"
    )
    assert wrong["login"]["result"] == "WrongToken"


async def test_edit_rules(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)

    async def edit(**params: str) -> dict[str, object]:
        result: dict[str, object] = await wiki.post(
            client, action="edit", token=token, formatversion="2", **params
        )
        return result

    created = await edit(title="Fig", text="== A ==\none\n== B ==\ntwo", summary="new")
    assert created["edit"]["new"] is True  # type: ignore[index]
    assert (await edit(title="Fig", text="x", createonly="1"))["error"]["code"] == "articleexists"  # type: ignore[index]
    assert (await edit(title="Nope", text="x", nocreate="1"))["error"]["code"] == "missingtitle"  # type: ignore[index]
    same = await edit(title="Fig", text="== A ==\none\n== B ==\ntwo")
    assert same["edit"]["nochange"] is True  # type: ignore[index]
    await edit(title="Fig", section="2", text="== B ==\nchanged")
    await edit(title="Fig", appendtext="\n[[Category:Trees]]")
    await edit(title="Fig", section="new", sectiontitle="C", text="three")
    data = await wiki.api(
        client,
        action="query",
        prop="revisions",
        titles="Fig",
        rvprop="content|timestamp",
        rvslots="main",
        formatversion="2",
    )
    revision = data["query"]["pages"][0]["revisions"][0]
    assert revision["slots"]["main"]["content"] == (
        "== A ==\none\n== B ==\nchanged\n[[Category:Trees]]\n\n== C ==\n\nthree"
    )
    # Every revision since the base is Alice's own: MediaWiki overwrites, no conflict.
    own = await edit(title="Fig", text="late", basetimestamp="2001-01-01T00:00:00Z")
    assert own["edit"]["result"] == "Success"  # type: ignore[index]
    await wiki.edit_page("Fig", "== A ==\none\n== B ==\nchanged\n[[Category:Trees]]", "Admin")
    conflict = await edit(title="Fig", text="later", basetimestamp="2001-01-01T00:00:00Z")
    assert conflict["error"]["code"] == "editconflict"  # type: ignore[index]
    # baserevid alone: no same-user exception (ApiEditPage sets no edit time then)
    data = await wiki.api(client, action="query", prop="revisions", titles="Fig", formatversion="2")
    base = str(data["query"]["pages"][0]["revisions"][0]["parentid"])
    stale = await edit(title="Fig", text="later", baserevid=base)
    assert stale["error"]["code"] == "editconflict"  # type: ignore[index]
    missing = await edit(title="Fig")
    assert missing["error"]["code"] == "missingparam"  # type: ignore[index]
    mix = await edit(title="Fig", pageid="1", text="x")
    assert mix["error"]["code"] == "invalidparammix"  # type: ignore[index]
    tagged = await edit(title="Fig", text="t", tags="nosuchtag")
    assert tagged["error"]["code"] == "tags-apply-not-allowed-one"  # type: ignore[index]
    cats = wiki.db.read_sync(lambda conn: conn.scalars(sa.select(schema.categorylinks.c.cl_to)))
    assert cats == ["Trees"]


async def test_anonymous_edit_uses_anonymous_token(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    bad = await wiki.post(client, action="edit", title="Anon", text="x", token="abc")
    assert bad["error"]["code"] == "badtoken"
    ok = await wiki.post(client, action="edit", title="Anon", text="x", token="+\\")
    assert ok["edit"]["result"] == "Success"
    history = await wiki.api(client, action="query", prop="revisions", titles="Anon", rvprop="user")
    revision = next(iter(history["query"]["pages"].values()))["revisions"][0]
    assert revision == {"user": "127.0.0.1", "anon": ""}


async def test_createaccount_and_options(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    tokens = await wiki.api(client, action="query", meta="tokens", type="createaccount")
    token = tokens["query"]["tokens"]["createaccounttoken"]
    args = {"action": "createaccount", "createtoken": token, "createreturnurl": "http://x/"}
    taken = await wiki.post(
        client, username="Alice", password="pw-123456", retype="pw-123456", **args
    )
    assert taken["createaccount"]["messagecode"] == "userexists"
    mismatch = await wiki.post(
        client, username="Newbie", password="pw-123456", retype="other", **args
    )
    assert mismatch["createaccount"]["messagecode"] == "badretype"
    ok = await wiki.post(
        client, username="newbie", password="pw-123456", retype="pw-123456", **args
    )
    assert ok["createaccount"] == {"status": "PASS", "username": "Newbie"}
    anon = await wiki.post(client, action="options", change="skin=monobook", token="+\\")
    assert anon["error"]["code"] == "notloggedin"
    await wiki.login(client, "Alice")
    csrf = await wiki.csrf(client)
    changed = await wiki.post(client, action="options", change="skin=monobook|bogus=1", token=csrf)
    assert changed["options"] == "success"
    assert "bogus" in changed["warnings"]["options"]["*"]
    info = await wiki.api(client, action="query", meta="userinfo", uiprop="options")
    assert info["query"]["userinfo"]["options"]["skin"] == "monobook"


async def test_concurrent_edits_merge_as_diff3_does(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)

    async def edit(**params: str) -> dict[str, Any]:
        result: dict[str, Any] = await wiki.post(
            client, action="edit", token=token, formatversion="2", **params
        )
        return result

    async def content(title: str) -> str:
        data = await wiki.api(
            client,
            action="query",
            prop="revisions",
            titles=title,
            rvprop="content",
            rvslots="main",
            formatversion="2",
        )
        return str(data["query"]["pages"][0]["revisions"][0]["slots"]["main"]["content"])

    base = (await edit(title="Pear", text="one\ntwo\nthree\nfour\nfive"))["edit"]["newrevid"]
    await wiki.edit_page("Pear", "ONE\ntwo\nthree\nfour\nfive", "Admin")
    # Changes on other lines than the ones saved since: merged, as EditPage does.
    merged = await edit(title="Pear", text="one\ntwo\nthree\nfour\nFIVE", baserevid=str(base))
    assert merged["edit"]["result"] == "Success"
    assert await content("Pear") == "ONE\ntwo\nthree\nfour\nFIVE"
    # A change next to one saved since (diff3 takes abutting changes as one): a conflict.
    abutting = await edit(title="Pear", text="one\nTWO\nthree\nfour\nfive", baserevid=str(base))
    assert abutting["error"]["code"] == "editconflict"
    # A section edit is applied to the base revision, then merged.
    sections = "== A ==\na\n\n== B ==\nb"
    base = (await edit(title="Plum", text=sections))["edit"]["newrevid"]
    await wiki.edit_page("Plum", "== A ==\nA by Admin\n\n== B ==\nb", "Admin")
    section = await edit(title="Plum", section="2", text="== B ==\nB by Alice", baserevid=str(base))
    assert section["edit"]["result"] == "Success"
    assert await content("Plum") == "== A ==\nA by Admin\n\n== B ==\nB by Alice"
    # No base revision to merge from: a conflict.
    await wiki.edit_page("Plum", "== A ==\nagain", "Admin")
    unknown = await edit(title="Plum", text="x", baserevid="999999")
    assert unknown["error"]["code"] == "editconflict"


async def test_merge3_rules() -> None:
    base = "a\nb\nc\nd"
    assert merge3(base, "A\nb\nc\nd", "a\nb\nc\nD") == "A\nb\nc\nD"
    assert merge3(base, "A\nb\nc\nd", "A\nb\nc\nd") == "A\nb\nc\nd"  # the same change twice
    assert merge3(base, "A\nb\nc\nd", "a\nB\nc\nd") is None  # abutting
    assert merge3(base, "a\nx\nb\nc\nd", "a\ny\nb\nc\nd") is None  # inserted at one place
    assert merge3(base, "a\nx\nb\nc\nd", "a\nb\nc\ny\nd") == "a\nx\nb\nc\ny\nd"
    assert merge3(base, "b\nc\nd", "a\nb\nc\nd\ne") == "b\nc\nd\ne"  # deletion and append
