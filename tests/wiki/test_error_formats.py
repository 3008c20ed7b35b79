"""Errors and warnings in every `errorformat`, language and formatversion, and messages inside
results (`invalidreason`), as MediaWiki 1.39 answers them on the reference wiki (the texts below
were recorded there; its sitename `RefWiki` reads `Atrium Wiki` here)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.messages import messages as msg
from atrium.wiki.messages.language import language
from atrium.wiki.titles import Namespaces, TitleParser, standard_namespaces
from atrium.wiki.wikitext.escaping import escape_wikitext
from atrium.wiki.wikitext.html.message import MessageHtml

pytestmark = pytest.mark.anyio

DOCREF_EN = (
    "See http://127.0.0.1:8080/w/api.php for API usage. Subscribe to the mediawiki-api-announce "
    "mailing list at &lt;https://lists.wikimedia.org/postorius/lists/mediawiki-api-announce."
    "lists.wikimedia.org/&gt; for notice of API deprecations and breaking changes."
)
ADMINS_RED = (
    '<a href="/w/index.php?title=Atrium_Wiki:Administrators&amp;action=edit&amp;redlink=1" '
    'class="new" title="Atrium Wiki:Administrators (page does not exist)">'
)


async def _post(wiki: WikiHarness, client: httpx.AsyncClient, **params: Any) -> Any:
    return await wiki.post(client, **params)


async def test_formatversion_1_puts_texts_and_docref_under_star(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    base = {"action": "query", "titles": "A", "pageids": "1"}
    for errorformat in ("plaintext", "wikitext", "html"):
        data = await wiki.api(client, errorformat=errorformat, **base)
        assert set(data) == {"errors", "*"}
        assert data["*"] == DOCREF_EN
        assert set(data["errors"][0]) == {"code", "module", "*"}
    raw = await wiki.api(client, errorformat="raw", **base)
    assert raw["errors"][0]["key"] == "apierror-invalidparammix-cannotusewith"
    assert raw["*"] == DOCREF_EN
    none = await wiki.api(client, errorformat="none", **base)
    assert none["errors"] == [{"code": "multisource", "module": "query"}]
    bc = await wiki.api(client, **base)
    assert bc["error"]["*"] == DOCREF_EN


async def test_later_parameters_still_warn_when_one_is_refused(
    client: httpx.AsyncClient, wiki: WikiHarness
) -> None:
    params = {"action": "query", "list": "allpages", "apfilterredir": "bad", "aplimit": "99999"}
    data = await wiki.api(client, errorformat="plaintext", formatversion="2", **params)
    assert data["errors"][0]["code"] == "badvalue"
    assert data["warnings"] == [
        {
            "code": "outofrange",
            "text": 'The value "99999" for parameter "aplimit" must be between 1 and 500.',
            "data": {"min": 1, "curmax": 500, "max": 500, "highmax": 5000},
            "module": "query+allpages",
        }
    ]
    bc = await wiki.api(client, formatversion="2", **params)
    assert bc["warnings"] == {
        "allpages": {
            "warnings": 'The value "99999" for parameter "aplimit" must be between 1 and 500.'
        }
    }


async def test_unrecognized_parameters_keep_their_request_positions(
    client: httpx.AsyncClient,
) -> None:
    query = "format=json&action=query&list=allpages&aplimit=1&apfoo=1&apdir=descending&aplimit2=x"
    response = await client.get(f"/w/api.php?{query}&formatversion=2&errorformat=raw")
    warning = response.json()["warnings"][0]
    assert warning["params"] == [{"list": {"4": "apfoo", "6": "aplimit2"}, "type": "comma"}, 2]


async def test_invalidreason_in_each_errorformat(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    titles = "Bar[]|Talk:|A~~~~|./x"

    async def reasons(**params: str) -> dict[str, Any]:
        data = await wiki.api(client, action="query", titles=titles, formatversion="2", **params)
        return {page["title"]: page["invalidreason"] for page in data["query"]["pages"]}

    german = await reasons(errorformat="plaintext", uselang="de")
    assert german["Bar[]"] == {
        "code": "title-invalid-characters",
        "text": "Der angeforderte Seitentitel enthält ungültige Zeichen: „[“.",
    }
    assert german["A~~~~"] == {
        "code": "title-invalid-magic-tilde",
        "text": "Der angeforderte Seitentitel enthält eine ungültige Magische-Tilden-Sequenz (~~~).",
    }
    wikitext = await reasons(errorformat="wikitext", uselang="de")
    assert wikitext["A~~~~"]["text"].endswith("(<nowiki>~~~</nowiki>).")
    raw = await reasons(errorformat="raw")
    assert raw["Bar[]"] == {
        "code": "title-invalid-characters",
        "key": "title-invalid-characters",
        "params": ["[", "Bar&#91;&#93;"],
    }
    assert raw["Talk:"]["params"] == ["Talk:"]
    none = await reasons(errorformat="none")
    assert none["./x"] == {"code": "title-invalid-relative"}
    french = await reasons(errorformat="html", uselang="fr")
    assert french["Talk:"]["code"] == "title-invalid-empty"
    assert "html" in french["Talk:"]
    # bc: English wikitext (`$msg->text()`), whatever uselang says
    bc = await reasons(uselang="de")
    assert bc["A~~~~"] == (
        "The requested page title contains invalid magic tilde sequence (<nowiki>~~~</nowiki>)."
    )
    fv1 = await wiki.api(client, action="query", titles="Bar[]", errorformat="plaintext")
    assert fv1["query"]["pages"]["-1"]["invalidreason"] == {
        "code": "title-invalid-characters",
        "*": 'The requested page title contains invalid characters: "[".',
    }
    too_long = await reasons(errorformat="raw", uselang="de")
    assert too_long["Bar[]"]["params"][1] == "Bar&#91;&#93;"
    long_title = "x" * 300
    data = await wiki.api(
        client,
        action="query",
        titles=long_title,
        formatversion="2",
        errorformat="plaintext",
        uselang="de",
    )
    assert data["query"]["pages"][0]["invalidreason"]["text"] == (
        "Der angeforderte Seitentitel ist zu lang. Er darf nicht länger als 255 Bytes in "
        "UTF-8-Kodierung sein."
    )


async def test_permission_refusal_links_the_group_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Apple", "text")
    base = {"action": "protect", "title": "Apple", "protections": "edit=sysop", "token": "+\\"}
    fr = await _post(wiki, client, errorformat="html", uselang="fr", formatversion="2", **base)
    assert fr["errors"][0]["html"] == (
        "L’action que vous essayez de réaliser n’est permise qu’aux utilisateurs du groupe&#160;: "
        + ADMINS_RED
        + "Administrateurs</a>."
    )
    de = await _post(wiki, client, errorformat="html", uselang="de", formatversion="2", **base)
    assert de["errors"][0]["html"] == (
        "Diese Aktion ist auf Benutzer beschränkt, die der Gruppe „"
        + ADMINS_RED
        + "Administratoren</a>“ angehören."
    )
    raw = await _post(wiki, client, errorformat="raw", formatversion="2", **base)
    assert raw["errors"][0]["key"] == "badaccess-groups"
    assert raw["errors"][0]["params"] == ["[[Atrium Wiki:Administrators|Administrators]]", 1]
    bc = await _post(wiki, client, formatversion="2", **base)
    assert bc["error"]["info"] == (
        "The action you have requested is limited to users in the group: "
        "[[Atrium Wiki:Administrators|Administrators]]."
    )
    # Once the group page exists the link is blue.
    await wiki.edit_page("Atrium Wiki:Administrators", "Who they are.")
    blue = await _post(wiki, client, errorformat="html", formatversion="2", **base)
    assert blue["errors"][0]["html"] == (
        "The action you have requested is limited to users in the group: "
        '<a href="/wiki/Atrium_Wiki:Administrators" title="Atrium Wiki:Administrators">'
        "Administrators</a>."
    )


async def test_edit_refusals_come_from_the_message_store(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Apple", "first")
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    conflict = {
        "action": "edit",
        "title": "Apple",
        "text": "mine",
        "basetimestamp": "2001-01-01T00:00:00Z",
        "token": token,
        "formatversion": "2",
    }
    de = await _post(wiki, client, errorformat="plaintext", uselang="de", **conflict)
    assert de["errors"][0] == {
        "code": "editconflict",
        "text": "Bearbeitungskonflikt.",
        "module": "edit",
    }
    raw = await _post(wiki, client, errorformat="raw", **conflict)
    assert (raw["errors"][0]["key"], raw["errors"][0]["params"]) == ("edit-conflict", [])
    big = {"action": "edit", "title": "Big", "text": "x" * (2048 * 1024 + 1), "token": token}
    too_big = await _post(wiki, client, errorformat="raw", formatversion="2", **big)
    assert too_big["errors"][0]["code"] == "contenttoobig"
    assert too_big["errors"][0]["params"] == [2048]
    fr = await _post(wiki, client, errorformat="plaintext", uselang="fr", formatversion="2", **big)
    assert fr["errors"][0]["text"].startswith("Le contenu que vous avez fourni dépasse")
    bad = await _post(
        wiki, client, action="edit", title="Bar[]", text="x", token=token, errorformat="html"
    )
    assert bad["errors"][0]["*"] == 'Bad title "Bar&#91;&#93;".'
    nosuch = await _post(
        wiki,
        client,
        action="edit",
        pageid="99999",
        text="x",
        token=token,
        errorformat="html",
        uselang="fr",
        formatversion="2",
    )
    assert nosuch["errors"][0]["html"] == "Il n’y a pas de page avec l’ID 99999."


def test_createaccount_refusal_message() -> None:
    """action=createaccount's refusal: `apierror-permissiondenied` with `action-createaccount`."""
    message = msg.api("apierror-permissiondenied", msg.message("action-createaccount"))
    assert (
        message.render("de") == "Du hast keine Berechtigung, um dieses Benutzerkonto zu erstellen."
    )
    assert message.render("en") == "You don't have permission to create this user account."


def test_message_html_is_the_parsers() -> None:
    parser = TitleParser(Namespaces({ns.id: ns for ns in standard_namespaces("Atrium Wiki")}))
    html = MessageHtml(parser, {(0, "Apple")})
    assert html.render("'''bold''' ''it'' <kbd>a&b</kbd> <nowiki>[[x]]</nowiki>") == (
        "<b>bold</b> <i>it</i> <kbd>a&amp;b</kbd> [[x]]"
    )
    assert html.render("[[Apple|the apple]] [[Special:BotPasswords]]") == (
        '<a href="/wiki/Apple" title="Apple">the apple</a> '
        '<a href="/wiki/Special:BotPasswords" title="Special:BotPasswords">Special:BotPasswords</a>'
    )
    assert html.render("at &lt;https://example.org/x/&gt; now") == (
        'at &lt;<a rel="nofollow" class="external free" href="https://example.org/x/">'
        "https://example.org/x/</a>&gt; now"
    )
    assert (
        html.render("« oui » : non ; <script>")
        == "«&#160;oui&#160;»&#160;: non&#160;; &lt;script&gt;"
    )
    # plaintext parameters go in after parsing, escaped as htmlspecialchars(ENT_QUOTES)
    message = msg.api("apierror-invalidtitle", msg.plain("It's <b>"))
    assert message.render(language("en"), msg.HTML, html) == 'Bad title "It&#039;s &lt;b&gt;".'


def test_escape_wikitext_is_wfescapewikitext() -> None:
    assert escape_wikitext("Foo_bar_x[]") == "Foo_bar_x&#91;&#93;"
    assert escape_wikitext("__x[") == "_&#95;x&#91;"
    assert escape_wikitext("a&b{") == "a&#38;b&#123;"
    assert escape_wikitext("mailto:x[") == "mailto&#58;x&#91;"
    assert escape_wikitext("A~~~~") == "A~~~~"
