"""MediaWiki's tracking categories that a page's text earns besides the categories it names:
"Pages with broken file links" for an embedded file that does not exist, "Hidden categories"
for a category page marked `__HIDDENCAT__`, and one for each preprocessor limit the expansion
exceeded (node count, expansion depth, include and argument size). They are recorded like any other category (with the
page's default sort key), so every read of categories sees them."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.messages.store import CORE_MESSAGES
from atrium.wiki.titles import NS_CATEGORY, Title
from atrium.wiki.wikitext.links import Links

# The message keys of the tracking categories pages can earn here, in the order of MediaWiki's
# TrackingCategories::CORE_TRACKING_CATEGORIES (Special:TrackingCategories lists them).
TRACKING_MESSAGES = (
    "broken-file-category",
    "expansion-depth-exceeded-category",
    "hidden-category-category",
    "node-count-exceeded-category",
    "post-expand-template-argument-category",
    "post-expand-template-inclusion-category",
)
BROKEN_FILE = CORE_MESSAGES["broken-file-category"].replace(" ", "_")
HIDDEN_CATEGORY = CORE_MESSAGES["hidden-category-category"].replace(" ", "_")


def missing_files(conn: Conn, names: set[str]) -> set[str]:
    """The names among these that no uploaded file has."""
    if not names:
        return set()
    img = schema.image
    rows = conn.all(sa.select(img.c.img_name).where(img.c.img_name.in_(sorted(names))))
    return names - {str(r["img_name"]) for r in rows}


def tracking_categories(
    conn: Conn, title: Title, links: Links, exceeded: Iterable[str] = ()
) -> list[str]:
    """The tracking categories (dbkeys) this page's links earn, in MediaWiki's order of adding;
    `exceeded`: the message keys of the limits its expansion exceeded."""
    found = [CORE_MESSAGES[key].replace(" ", "_") for key in exceeded]
    if title.ns == NS_CATEGORY and "hiddencat" in links.props:
        found.append(HIDDEN_CATEGORY)
    if missing_files(conn, links.embedded_files):
        found.append(BROKEN_FILE)
    return found


def add_tracking_categories(
    conn: Conn, title: Title, links: Links, exceeded: Iterable[str] = ()
) -> list[str]:
    """Add the tracking categories to `links` (sorted under the default sort key, as
    `ParserOutput::addTrackingCategory` does); returns the ones that were not there."""
    added = []
    for name in tracking_categories(conn, title, links, exceeded):
        if name not in links.categories:
            links.categories[name] = links.defaultsort
            added.append(name)
    return added
