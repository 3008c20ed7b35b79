"""The "rollback N edits" link of a page's latest revision (Linker::generateRollback), shown on
the history page and on the diff of the latest revision to viewers who may roll back and edit
the page. The link carries the session's rollback token, as MediaWiki's does; following it is
`index.php?action=rollback` (`special/rollback.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from atrium.core.db import Database
from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads.sessions import TOKEN_SALTS, make_token
from atrium.wiki.site import Site
from atrium.wiki.titles import Title
from atrium.wiki.web import links
from atrium.wiki.web.edit_permission import may_edit
from atrium.wiki.web.viewer import Viewer
from atrium.wiki.web.visibility import DELETED_TEXT, DELETED_USER

# $wgShowRollbackEditCount: how many of the last author's edits the link counts.
SHOW_ROLLBACK_EDIT_COUNT = 10
TOOLTIP = '"Rollback" reverts the last contributor\'s edit(s) to this page in one click'


@dataclass(frozen=True)
class RollbackLink:
    href: str
    label: str
    tooltip: str = TOOLTIP


def edits_to_roll_back(rows: Sequence[Any]) -> tuple[str, int] | None:
    """(the last author, how many of the newest `rows` are theirs) when a rollback can be
    offered: Linker::getRollbackEditCount with `verify`. None when the last author's name is
    hidden (the link would name them), when the revision it would go back to has its text or
    author hidden, or when the last author is the page's only one."""
    if not rows:
        return None
    top = rows[0]
    if int(top["rev_deleted"] or 0) & DELETED_USER:
        return None
    user = str(top["actor_name"])
    count = 0
    for row in rows:
        if str(row["actor_name"]) != user:
            if int(row["rev_deleted"] or 0) & (DELETED_TEXT | DELETED_USER):
                return None
            return user, count
        count += 1
    if count <= SHOW_ROLLBACK_EDIT_COUNT:
        return None  # fewer rows than asked for, all theirs: the only author
    return user, count


def label(count: int) -> str:
    if count > SHOW_ROLLBACK_EDIT_COUNT:
        return f"rollback more than {SHOW_ROLLBACK_EDIT_COUNT} edits"
    return f"rollback {count} edit{'' if count == 1 else 's'}"


def rollback_token(viewer: Viewer) -> str:
    """The API's rollback token of this browser session (the same secret, the same salt)."""
    return make_token(viewer.csrf_token, TOKEN_SALTS["rollback"])


async def may_roll_back(
    request: Request, site: Site, db: Database, viewer: Viewer, title: Title
) -> bool:
    """HistoryPager's test: the `rollback` right and the page editable (quick check)."""
    if not viewer.signed_in or not viewer.account.allowed("rollback"):
        return False
    return await may_edit(request, site, db, viewer, title, True)


async def rollback_link(
    request: Request, site: Site, db: Database, viewer: Viewer, title: Title, page_id: int
) -> RollbackLink | None:
    """The link for the page's latest revision, or None when this viewer gets none."""
    if not await may_roll_back(request, site, db, viewer, title):
        return None
    rows = await db.read(reading.history, page_id, SHOW_ROLLBACK_EDIT_COUNT + 1)
    found = edits_to_roll_back(rows)
    if found is None:
        return None
    user, count = found
    href = links.index_href(
        site, title, action="rollback", **{"from": user}, token=rollback_token(viewer)
    )
    return RollbackLink(href, label(count))
