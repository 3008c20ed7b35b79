"""The page history's selection of revisions for Special:RevisionDelete and Special:EditTags,
as HistoryPager shows it: a check box per line (`ids[<rev>]`) and the buttons "Change visibility
of selected revisions" and "Edit tags of selected revisions" for those who may use them; for one
who may only look at hidden revisions, a "change visibility" link on each hidden one.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from atrium.core.db import Database
from atrium.wiki.reads.tag_targets import defined_tags
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_SPECIAL, Title
from atrium.wiki.web import links
from atrium.wiki.web.visibility import DELETED_RESTRICTED, can_see


@dataclass(frozen=True)
class Selection:
    revision_delete: bool  # the reader may change revisions' visibility
    edit_tags: bool  # ChangeTags::showTagEditingUI: the right, and tags to choose from

    @property
    def boxes(self) -> bool:
        return self.revision_delete or self.edit_tags


async def selection(db: Database, reader: Account) -> Selection:
    tags = reader.allowed("changetags") and bool(await db.read(defined_tags))
    return Selection(reader.allowed("deleterevision"), tags)


def line_control(
    site: Site, title: Title, reader: Account, chosen: Selection, rev_id: int, deleted: int
) -> Markup:
    """What leads a history line to the revision's visibility: its check box (disabled on a
    suppressed revision the reader could only tick for nothing), or the link."""
    if chosen.boxes:
        if not chosen.edit_tags and not can_see(reader, deleted, DELETED_RESTRICTED):
            return Markup('<input type="checkbox" name="deleterevisions" value="1" disabled>')
        return Markup(
            '<input type="checkbox" name="ids[{}]" value="1" class="mw-revdel-checkbox" '
            'aria-label="Select this revision">'
        ).format(rev_id)
    if deleted and reader.allowed("deletedhistory"):
        if not can_see(reader, deleted, DELETED_RESTRICTED):
            return Markup('<span class="mw-revdelundel-link">(change visibility)</span>')
        href = links.index_href(
            site, Title(NS_SPECIAL, "RevisionDelete"), type="revision",
            target=links.prefixed_text(site, title), ids=str(rev_id),
        )  # fmt: skip
        return Markup(
            '<span class="mw-revdelundel-link">(<a href="{}">change visibility</a>)</span>'
        ).format(href)
    return Markup("")
