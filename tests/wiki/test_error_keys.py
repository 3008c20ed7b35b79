"""Refusals and warnings with MediaWiki 1.39's code, message key and parameters (errorformat=raw)
and its German and French texts (errorformat=plaintext), as the reference wiki answered the same
requests. One row per case: who asks, the request, then what the reference said."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Case:
    user: str | None  # None: anonymous
    request: dict[str, str]
    code: str
    key: str
    params: list[Any]
    de: str
    fr: str
    warning: bool = False


CASES = {
    "adr-cannotusewith": Case(
        "Admin",
        {"action": "query", "list": "alldeletedrevisions", "adruser": "Admin", "adrfrom": "A"},
        "invalidparammix",
        "apierror-invalidparammix-cannotusewith",
        ["adrfrom", "adruser"],
        'The "adrfrom" parameter cannot be used with "adruser".',
        'Le paramètre "adrfrom" ne peut pas être utilisé avec "adruser".',
    ),
    "adr-mustusewith": Case(
        "Admin",
        {"action": "query", "list": "alldeletedrevisions", "adrstart": "2020-01-01T00:00:00Z"},
        "invalidparammix",
        "apierror-invalidparammix-mustusewith",
        ["adrstart", "adruser"],
        'The "adrstart" parameter may only be used with "adruser".',
        'Le paramètre "adrstart" ne peut être utilisé qu’avec "adruser".',
    ),
    "adr-comment": Case(
        None,
        {"action": "query", "list": "alldeletedrevisions", "adrprop": "comment"},
        "permissiondenied",
        "apierror-cantview-deleted-comment",
        [],
        "Dir fehlt die Berechtigung, gelöschte Kommentare anzusehen.",
        "Vous n’avez pas la permission de visualiser les commentaires supprimés.",
    ),
    "adr-performance": Case(
        "Admin",
        {"action": "query", "generator": "alldeletedrevisions", "gadrgeneratetitles": "1"},
        "performance",
        "apiwarn-alldeletedrevisions-performance",
        ["adr"],
        'For better performance when generating titles, set "adrdir=newer".',
        'Pour de meilleures performances lors de la génération des titres, mettre "adrdir=newer".',
        warning=True,
    ),
    "rv-baddiffto": Case(
        None,
        {"action": "query", "prop": "revisions", "titles": "Apple", "rvdiffto": "foo"},
        "diffto",
        "apierror-baddiffto",
        ["rv"],
        '"rvdiffto" must be set to a non-negative number, "prev", "next" or "cur".',
        '"rvdiffto" doit être fixé à un nombre positif ou nul, "prev", "next" ou "cur".',
    ),
    "rv-norevids": Case(
        None,
        {"action": "query", "prop": "revisions", "revids": "1", "rvlimit": "5"},
        "invalidparammix",
        "apierror-revisions-norevids",
        ["rv"],
        'The "revids" parameter may not be used with the list options ("rvlimit", "rvstartid", '
        '"rvendid", "rvdir=newer", "rvuser", "rvexcludeuser", "rvstart", and "rvend").',
        'Le paramètre "revids" ne peut pas être utilisé avec les options de liste ("rvlimit", '
        '"rvstartid", "rvendid", "rvdir=newer", "rvuser", "rvexcludeuser", "rvstart", et "rvend").',
    ),
    "rv-slots": Case(
        None,
        {
            "action": "query",
            "prop": "revisions",
            "titles": "Apple",
            "rvslots": "main",
            "rvdifftotext": "x",
        },
        "invalidparammix",
        "apierror-invalidparammix-cannotusewith",
        ["rvdifftotext", "rvslots"],
        'The "rvdifftotext" parameter cannot be used with "rvslots".',
        'Le paramètre "rvdifftotext" ne peut pas être utilisé avec "rvslots".',
    ),
    "wl-owner": Case(
        None,
        {"action": "query", "list": "watchlist", "wlowner": "Nosuch Person", "wltoken": "abc"},
        "bad_wlowner",
        "nosuchusershort",
        ["Nosuch Person"],
        "Der Benutzername „Nosuch Person“ ist nicht vorhanden. Bitte überprüfe die Schreibweise.",
        "Il n’y a pas de contributeur avec le nom « Nosuch Person ». Veuillez vérifier "
        "l’orthographe.",
    ),
    "wl-anon": Case(
        None,
        {"action": "query", "list": "watchlist"},
        "notloggedin",
        "watchlistanontext",
        [],
        "Melde dich an, um deine Beobachtungsliste zu sehen oder Einträge auf ihr zu bearbeiten.",
        "Veuillez vous connecter pour visualiser ou modifier les éléments de votre liste de suivi.",
    ),
    "wl-patrol": Case(
        "Alice",
        {"action": "query", "list": "watchlist", "wlprop": "patrol"},
        "patrol",
        "apierror-permissiondenied-patrolflag",
        [],
        'You need the "patrol" or "patrolmarks" right to request the patrolled flag.',
        'Vous avez besoin du droit "patrol" ou "patrolmarks" pour demander le drapeau patrouillé.',
    ),
    "bk-cidr": Case(
        None,
        {"action": "query", "list": "blocks", "bkip": "1.2.3.4/8"},
        "cidrtoobroad",
        "apierror-cidrtoobroad",
        ["IPv4", 16],
        "IPv4 CIDR ranges broader than /16 are not accepted.",
        "Les plages CIDR IPv4 plus larges que /16 ne sont pas acceptées.",
    ),
    "bk-badip": Case(
        None,
        {"action": "query", "list": "blocks", "bkip": "foo"},
        "param_ip",
        "apierror-badip",
        [],
        "Der IP-Parameter ist nicht gültig.",
        "Paramètre IP non valide.",
    ),
    "stash-anon": Case(
        None,
        {"action": "query", "prop": "stashimageinfo", "siifilekey": "abc"},
        "notloggedin",
        "apierror-mustbeloggedin-uploadstash",
        [],
        "The upload stash is only available to logged-in users.",
        "La zone de préparation des téléversements n’est disponible que pour les utilisateurs "
        "connectés.",
    ),
    "stash-notfound": Case(
        "Alice",
        {"action": "query", "prop": "stashimageinfo", "siifilekey": "abc.jpg"},
        "uploadstash-file-not-found",
        "uploadstash-file-not-found",
        ["abc.jpg"],
        "Der Schlüssel „abc.jpg“ wurde nicht im Speicher gefunden.",
        "La clé «\u202fabc.jpg\u202f» n’a pas été trouvée dans la réserve.",
    ),
    "stash-badkey": Case(
        "Alice",
        {"action": "query", "prop": "stashimageinfo", "siifilekey": "a b.jpg"},
        "uploadstash-bad-path-bad-format",
        "uploadstash-bad-path-bad-format",
        ["a b.jpg"],
        "",
        "",
    ),
    "rc-show": Case(
        None,
        {"action": "query", "list": "recentchanges", "rcshow": "minor|!minor"},
        "show",
        "apierror-show",
        [],
        "Falscher Parameter – Werte, die sich gegenseitig ausschließen, dürfen nicht angegeben "
        "werden.",
        "Paramètre incorrect - des valeurs mutuellement exclusives ne peuvent pas être fournies.",
    ),
    "qp": Case(
        None,
        {"action": "query", "list": "querypage", "qppage": "Unwatchedpages"},
        "specialpage-cantexecute",
        "apierror-specialpage-cantexecute",
        [],
        "Dir fehlt die Berechtigung, die Ergebnisse dieser Spezialseite abzurufen.",
        "Vous n’avez pas l’autorisation d’afficher les résultats de cette page spéciale.",
    ),
    "eu-badquery": Case(
        None,
        {"action": "query", "list": "exturlusage", "euquery": "foo*bar"},
        "badquery",
        "apierror-badquery",
        [],
        "Ungültige Abfrage.",
        "Requête invalide.",
    ),
    "ai-sha1": Case(
        None,
        {"action": "query", "list": "allimages", "aisha1": "xyz"},
        "invalidsha1hash",
        "apierror-invalidsha1hash",
        [],
        "The SHA1 hash provided is not valid.",
        "Le hachage SHA1 fourni n’est pas valide.",
    ),
    "ai-mustusewith": Case(
        None,
        {"action": "query", "list": "allimages", "aistart": "2020-01-01T00:00:00Z"},
        "invalidparammix",
        "apierror-invalidparammix-mustusewith",
        ["aistart", "aisort=timestamp"],
        'The "aistart" parameter may only be used with "aisort=timestamp".',
        'Le paramètre "aistart" ne peut être utilisé qu’avec "aisort=timestamp".',
    ),
    "ai-cannotusewith": Case(
        None,
        {
            "action": "query",
            "list": "allimages",
            "aisort": "timestamp",
            "aiuser": "Admin",
            "aifilterbots": "bots",
        },
        "invalidparammix-cannotusewith",
        "apierror-invalidparammix-cannotusewith",
        ["aiuser", "aifilterbots"],
        'The "aiuser" parameter cannot be used with "aifilterbots".',
        'Le paramètre "aiuser" ne peut pas être utilisé avec "aifilterbots".',
    ),
    "fa-metadata": Case(
        None,
        {"action": "query", "list": "filearchive", "faprop": "metadata"},
        "permissiondenied",
        "apierror-cantview-deleted-metadata",
        [],
        "Dir fehlt die Berechtigung, Metadaten gelöschter Dateien abzurufen.",
        "Vous n’avez pas le droit d’afficher les métadonnées des fichiers supprimés.",
    ),
    "block-nosuchuser": Case(
        "Admin",
        {"action": "block", "user": "Nosuch Person"},
        "nosuchuser",
        "nosuchusershort",
        ["Nosuch Person"],
        "Der Benutzername „Nosuch Person“ ist nicht vorhanden. Bitte überprüfe die Schreibweise.",
        "Il n’y a pas de contributeur avec le nom « Nosuch Person ». Veuillez vérifier "
        "l’orthographe.",
    ),
    "block-unknown-id": Case(
        "Admin",
        {"action": "block", "user": "#99999"},
        "nosuchuser",
        "nosuchusershort",
        ["Unknown user"],
        "Der Benutzername „Unknown user“ ist nicht vorhanden. Bitte überprüfe die Schreibweise.",
        "Il n’y a pas de contributeur avec le nom « Unknown user ». Veuillez vérifier "
        "l’orthographe.",
    ),
    "block-denied": Case(
        "Alice",
        {"action": "block", "user": "192.0.2.8"},
        "permissiondenied",
        "apierror-permissiondenied",
        [{"message": {"key": "action-block", "params": []}}],
        "Du hast keine Berechtigung, um den Benutzer zu sperren.",
        "Vous n’avez pas la permission de bloquer en écriture cet utilisateur.",
    ),
    "block-expiry-old": Case(
        "Admin",
        {"action": "block", "user": "192.0.2.8", "expiry": "2001-01-01T00:00:00Z"},
        "ipb_expiry_old",
        "ipb_expiry_old",
        [],
        "Der Zeitpunkt des Ablaufs liegt in der Vergangenheit.",
        "L’heure d’expiration est passée.",
    ),
    "block-expiry-invalid": Case(
        "Admin",
        {"action": "block", "user": "192.0.2.8", "expiry": "foo bar"},
        "invalidexpiry",
        "ipb_expiry_invalid",
        [],
        "Die eingegebene Dauer ist ungültig.",
        "Durée d’expiration incorrecte.",
    ),
    "unblock-denied": Case(
        "Alice",
        {"action": "unblock", "user": "192.0.2.8"},
        "permissiondenied",
        "apierror-permissiondenied-unblock",
        [],
        "Dir fehlt die Berechtigung, Benutzer zu entsperren.",
        "Vous n’avez pas le droit de débloquer les utilisateurs.",
    ),
    "unblock-none": Case(
        "Admin",
        {"action": "unblock", "user": "192.0.2.9"},
        "cantunblock",
        "ipb_cant_unblock",
        ["192.0.2.9"],
        "Fehler: Sperre für 192.0.2.9 nicht gefunden. Möglicherweise wurde sie bereits aufgehoben.",
        "Erreur\u202f: blocage pour 192.0.2.9 non trouvé. Il a peut-être déjà été supprimé.",
    ),
    "unblock-noid": Case(
        "Admin",
        {"action": "unblock", "id": "99999"},
        "cantunblock",
        "ipb_cant_unblock",
        ["#99999"],
        "Fehler: Sperre für #99999 nicht gefunden. Möglicherweise wurde sie bereits aufgehoben.",
        "Erreur\u202f: blocage pour #99999 non trouvé. Il a peut-être déjà été supprimé.",
    ),
    "unblock-unknown-id": Case(
        "Admin",
        {"action": "unblock", "user": "#99999"},
        "cantunblock",
        "ipb_cant_unblock",
        ["Unknown user"],
        "Fehler: Sperre für Unknown user nicht gefunden. Möglicherweise wurde sie bereits "
        "aufgehoben.",
        "Erreur\u202f: blocage pour Unknown user non trouvé. Il a peut-être déjà été supprimé.",
    ),
    "userrights-nosuchuser": Case(
        "Admin",
        {"action": "userrights", "user": "Nosuch Person", "add": "bot"},
        "nosuchuser",
        "nosuchusershort",
        ["Nosuch Person"],
        "Der Benutzername „Nosuch Person“ ist nicht vorhanden. Bitte überprüfe die Schreibweise.",
        "Il n’y a pas de contributeur avec le nom « Nosuch Person ». Veuillez vérifier "
        "l’orthographe.",
    ),
    "userrights-toofewexpiries": Case(
        "Admin",
        {
            "action": "userrights",
            "user": "Alice",
            "add": "bot|sysop",
            "expiry": "infinite|infinite|infinite",
        },
        "toofewexpiries",
        "apierror-toofewexpiries",
        [3, 2],
        "3 expiry timestamps were provided where 2 were needed.",
        "3 horodatages d’expiration ont été fournis alors que 2 étaient attendus.",
    ),
    "tag-one": Case(
        "Admin",
        {"action": "tag", "rcid": "1", "add": "nosuchtag"},
        "badtags",
        "tags-apply-not-allowed-one",
        ["nosuchtag", 1],
        "Die Markierung „nosuchtag“ darf nicht manuell angewendet werden.",
        "La balise «\u202fnosuchtag\u202f» n’est pas autorisée à être appliquée manuellement.",
    ),
    "tag-multi": Case(
        "Admin",
        {"action": "tag", "rcid": "1", "add": "nosuchtag|other"},
        "badtags",
        "tags-apply-not-allowed-multi",
        ["nosuchtag, other", 2],
        "Die folgenden Markierungen dürfen nicht manuell angewendet werden: nosuchtag, other",
        "Les balises suivantes ne sont pas autorisées à être appliquées manuellement\u202f: "
        "nosuchtag, other",
    ),
    "upload-url": Case(
        "Admin",
        {"action": "upload", "filename": "X.png", "url": "http://example.org/x.png"},
        "copyuploaddisabled",
        "copyuploaddisabled",
        [],
        "Das Hochladen von URLs ist deaktiviert",
        "Téléversement de fichier par URL désactivé.",
    ),
    "upload-stash-missing": Case(
        "Alice",
        {"action": "upload", "filekey": "nosuch.jpg", "filename": "Zz.jpg"},
        "uploadstash-file-not-found",
        "uploadstash-file-not-found",
        ["nosuch.jpg"],
        "Der Schlüssel „nosuch.jpg“ wurde nicht im Speicher gefunden.",
        "La clé «\u202fnosuch.jpg\u202f» n’a pas été trouvée dans la réserve.",
    ),
    "upload-stash-badkey": Case(
        "Alice",
        {"action": "upload", "filekey": "nosuch", "filename": "Zz.jpg"},
        "invalid-file-key",
        "apierror-invalid-file-key",
        [],
        "Kein gültiger Dateischlüssel.",
        "Ne correspond pas à une clé valide de fichier.",
    ),
    "protect-toofewexpiries": Case(
        "Admin",
        {
            "action": "protect",
            "title": "Apple",
            "protections": "edit=sysop",
            "expiry": "1 day|2 days|3 days",
        },
        "toofewexpiries",
        "apierror-toofewexpiries",
        [3, 1],
        "3 expiry timestamps were provided where 1 was needed.",
        "3 horodatages d’expiration ont été fournis alors que 1 était attendu.",
    ),
    "protect-titleexists": Case(
        "Admin",
        {"action": "protect", "title": "Apple", "protections": "create=sysop"},
        "create-titleexists",
        "apierror-create-titleexists",
        [],
        'Existing titles can\'t be protected with "create".',
        'Les titres existants ne peuvent pas être protégés avec "create".',
    ),
    "protect-createonly": Case(
        "Admin",
        {"action": "protect", "title": "Nosuchpage 77", "protections": "edit=sysop"},
        "missingtitle-createonly",
        "apierror-missingtitle-createonly",
        [],
        'Missing titles can only be protected with "create".',
        'Les titres manquants ne peuvent être protégés qu’avec "create".',
    ),
    "protect-invalidaction": Case(
        "Admin",
        {"action": "protect", "title": "Apple", "protections": "foo=sysop"},
        "protect-invalidaction",
        "apierror-protect-invalidaction",
        ["foo"],
        "Ungültiger Schutztyp „foo“.",
        "Type de protection non valide «\xa0foo\xa0».",
    ),
    "protect-invalidlevel": Case(
        "Admin",
        {"action": "protect", "title": "Apple", "protections": "edit=bogus"},
        "protect-invalidlevel",
        "apierror-protect-invalidlevel",
        ["bogus"],
        "Ungültige Schutzstufe „bogus“.",
        "Niveau de protection non valide «\xa0bogus\xa0».",
    ),
    "rollback-unknown-id": Case(
        "Admin",
        {"action": "rollback", "title": "Apple", "user": "#99999"},
        "alreadyrolled",
        "alreadyrolled",
        ["Apple", "Unknown user", "Admin"],
        "Das Zurücksetzen der letzten Änderung von [[User:Unknown user|Unknown user]] ([[User "
        "talk:Unknown user|Diskussion]] | [[Special:Contributions/Unknown user|Beiträge]]) an "
        "[[:Apple]] ist gescheitert. Ein anderer Benutzer hat die Seite geändert. Die letzte "
        "Änderung stammt von [[User:Admin|Admin]] ([[User talk:Admin|Diskussion]] | "
        "[[Special:Contributions/Admin|Beiträge]]).",
        "Impossible de révoquer la dernière modification de la page «\u202f[[:Apple]]\u202f» effectuée par "
        "[[User:Unknown user|Unknown user]] ([[User talk:Unknown user|discuter]] | "
        "[[Special:Contributions/Unknown user|contributions]]). Quelqu’un d’autre a déjà modifié "
        "ou révoqué la page. La dernière modification de la page a été effectuée par "
        "[[User:Admin|Admin]] ([[User talk:Admin|discuter]] | "
        "[[Special:Contributions/Admin|contributions]]).",
    ),
    "purge-multisource": Case(
        "Admin",
        {"action": "purge", "titles": "Apple", "pageids": "1"},
        "multisource",
        "apierror-invalidparammix-cannotusewith",
        ["pageids", "titles"],
        'The "pageids" parameter cannot be used with "titles".',
        'Le paramètre "pageids" ne peut pas être utilisé avec "titles".',
    ),
    "watch-anon": Case(
        None,
        {"action": "watch", "titles": "Apple"},
        "notloggedin",
        "watchlistanontext",
        [],
        "Melde dich an, um deine Beobachtungsliste zu sehen oder Einträge auf ihr zu bearbeiten.",
        "Veuillez vous connecter pour visualiser ou modifier les éléments de votre liste de suivi.",
    ),
    "move-self": Case(
        "Admin",
        {"action": "move", "from": "Apple", "to": "Apple"},
        "selfmove",
        "selfmove",
        [],
        "Der Titel ist gleich. Eine Seite kann nicht auf sich selbst verschoben werden.",
        "Le titre est identique\u202f; impossible de renommer une page sur elle-même.",
    ),
    "move-special": Case(
        "Admin",
        {"action": "move", "from": "Apple", "to": "Special:Foo"},
        "immobile-target-namespace",
        "immobile-target-namespace",
        ["Special"],
        "Seiten können nicht in den „Special“-Namensraum verschoben werden",
        "Vous ne pouvez pas déplacer des pages vers l’espace de noms «\u202fSpecial\u202f».",
    ),
    "patrol-nosuchrcid": Case(
        "Admin",
        {"action": "patrol", "rcid": "999999"},
        "nosuchrcid",
        "apierror-nosuchrcid",
        [999999],
        "Es gibt keine letzte Änderung mit der ID 999999.",
        "Il n’y a pas de modification récente avec l’ID 999999.",
    ),
    "patrol-nosuchrevid": Case(
        "Admin",
        {"action": "patrol", "revid": "999999"},
        "nosuchrevid",
        "apierror-nosuchrevid",
        [999999],
        "Es gibt keine Version mit der ID 999999.",
        "Il n’y a pas de révision d’ID 999999.",
    ),
}

_TOKENS = {"userrights": "userrights", "rollback": "rollback", "patrol": "patrol"}


async def _ask(
    wiki: WikiHarness, client: httpx.AsyncClient, case: Case, **extra: str
) -> dict[str, Any]:
    params = {**case.request, "formatversion": "2", **extra}
    if params["action"] == "query":
        result: dict[str, Any] = await wiki.api(client, **params)
        return result
    kind = _TOKENS.get(params["action"], "csrf")
    tokens = await wiki.api(client, action="query", meta="tokens", type=kind)
    params["token"] = tokens["query"]["tokens"][f"{kind}token"]
    result = await wiki.post(client, **params)
    return result


def _entry(data: dict[str, Any], case: Case) -> dict[str, Any]:
    entries = data.get("warnings" if case.warning else "errors")
    assert entries, data
    found = [e for e in entries if e["code"] == case.code]
    assert found, data
    return dict(found[0])


@pytest.mark.parametrize("name", sorted(CASES))
async def test_refusal_as_the_reference(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str
) -> None:
    case = CASES[name]
    await wiki.edit_page("Apple", "An apple.")
    if case.user is not None:
        await wiki.login(client, case.user)
    raw = _entry(await _ask(wiki, client, case, errorformat="raw"), case)
    assert (raw["code"], raw["key"], raw["params"]) == (case.code, case.key, case.params)
    for lang, text in (("de", case.de), ("fr", case.fr)):
        if text:
            data = await _ask(wiki, client, case, errorformat="plaintext", uselang=lang)
            assert _entry(data, case)["text"] == text


async def test_invalid_user_names_have_no_reason(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """list=users: an invalid name is `invalid` alone, without `invalidreason`."""
    data = await wiki.api(
        client,
        action="query",
        list="users",
        ususers="Bad[x|Foo#x|Nosuch Person",
        formatversion="2",
        errorformat="raw",
    )
    assert data["query"]["users"] == [
        {"name": "Bad[x", "invalid": True},
        {"name": "Foo#x", "invalid": True},
        {"name": "Nosuch Person", "missing": True},
    ]
