"""What the pre-save transform reads from the database: the signer's preferences and the current
text of the templates an edit substitutes. The transform itself (`wikitext.pst`) stays pure."""

from __future__ import annotations

from atrium.core.db import Conn
from atrium.wiki.reads import users
from atrium.wiki.reads.page_view import current_text
from atrium.wiki.titles import Title, TitleParser
from atrium.wiki.wikitext.pst import Signer, pre_save_transform


def signer_of(conn: Conn, user_id: int | None, name: str) -> Signer:
    """The signer for a user id (None or 0: anonymous, named by IP), with the signature
    options of their preferences."""
    if not user_id:
        return Signer(name, False)
    prefs = users.options(conn, user_id)
    fancy = str(prefs.get("fancysig", "0")) not in ("0", "", "False")
    return Signer(name, True, str(prefs.get("nickname") or ""), fancy)


def transform_for_save(
    conn: Conn, parser: TitleParser, page: Title, text: str, user_id: int | None, name: str
) -> str:
    """`pre_save_transform` for an edit by this user, templates read from the current pages."""

    def loader(ns: int, dbkey: str) -> str | None:
        found = current_text(conn, ns, dbkey)
        return found[2] if found else None

    return pre_save_transform(
        text, parser=parser, page=page, signer=signer_of(conn, user_id, name), loader=loader
    )
