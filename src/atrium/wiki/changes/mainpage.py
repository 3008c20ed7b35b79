"""A new wiki's Main Page: written once, on the first start, as MediaWiki's installer does, so
that `/wiki/Main_Page` answers and clients that detect a wiki from it (pywikibot's
generate_family_file) find one. A site_config marker keeps a deleted Main Page deleted."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.site import MAIN_PAGE, Site

MARKER = "main_page_created"
AUTHOR = "MediaWiki default"
TEXT = (
    "'''This wiki is ready.'''\n\n"
    "Its pages are read at <code>/wiki/</code> and written through the MediaWiki Action API at "
    "<code>/w/api.php</code>, which MediaWiki's clients (pywikibot, mwclient) use as they are.\n\n"
    "== Getting started ==\n"
    "* Edit this page, or create a new one by following a red link.\n"
    "* Bots log in with bot passwords (<code>atrium wiki bot-password</code>).\n"
)


def ensure_main_page(conn: Conn, site: Site) -> bool:
    """Create the Main Page unless it was created once already; whether it was created now."""
    config = schema.site_config
    marked = conn.scalar(sa.select(config.c.sc_value).where(config.c.sc_name == MARKER))
    if marked is not None:
        return False
    conn.execute(sa.insert(config).values(sc_name=MARKER, sc_value="1"))
    title = site.parser.parse(MAIN_PAGE)
    if conn.scalar(
        sa.select(schema.page.c.page_id).where(
            schema.page.c.page_namespace == title.ns, schema.page.c.page_title == title.dbkey
        )
    ):
        return False
    save_revision(conn, site, title, TEXT, Editor(None, AUTHOR), count_edit=False)
    return True
