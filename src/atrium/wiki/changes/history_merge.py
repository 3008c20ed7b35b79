"""Merging one page's early history into another (MediaWiki's MergeHistory): the source's
revisions up to a point move to the destination, whose own history must all come later.

A source left without revisions becomes a redirect to the destination. The checks run in
MergeHistory's order: the pages and the timestamps first, the performer's right after.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes import ChangeError, invalidation
from atrium.wiki.changes.journal import Performer, log_event
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.changes.protection import page_row
from atrium.wiki.site import Site
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import Title

REV = schema.revision
REVISION_LIMIT = 5000  # MergeHistory::REVISION_LIMIT


@dataclass(frozen=True)
class Merged:
    revisions: int
    mergepoint: str  # 14 digits: the latest revision moved
    log_id: int


def _fail(key: str, text: str, *params: object) -> ChangeError:
    return ChangeError(key, text, key, params)


def merge_history(
    conn: Conn,
    site: Site,
    who: Performer,
    source: Title,
    dest: Title,
    timestamp: str | None,
    reason: str,
) -> Merged:
    """Move `source`'s revisions up to `timestamp` (14 digits; all of them when None) to
    `dest`."""
    source_row, dest_row = page_row(conn, source), page_row(conn, dest)
    errors: list[ChangeError] = []
    if source_row is None:
        errors.append(_fail("mergehistory-fail-invalid-source", "Source page is invalid."))
    if dest_row is None:
        errors.append(_fail("mergehistory-fail-invalid-dest", "Destination page is invalid."))
    if (source.ns, source.dbkey) == (dest.ns, dest.dbkey):
        errors.append(
            _fail("mergehistory-fail-self-merge", "Source and destination pages are the same.")
        )
    if errors:
        raise ChangeError.several(errors)
    assert source_row is not None and dest_row is not None
    source_id, dest_id = int(source_row["page_id"]), int(dest_row["page_id"])
    # The destination's history must all come after what moves.
    first_dest = conn.scalar(
        sa.select(sa.func.min(REV.c.rev_timestamp)).where(REV.c.rev_page == dest_id)
    )
    if timestamp is not None:
        limit = conn.scalar(
            sa.select(sa.func.max(REV.c.rev_timestamp)).where(
                REV.c.rev_page == source_id, REV.c.rev_timestamp <= timestamp
            )
        )
    else:
        limit = conn.scalar(
            sa.select(REV.c.rev_timestamp).where(REV.c.rev_id == source_row["page_latest"])
        )
    # No revision up to the timestamp: MergeHistory's limit falls back to now, which overlaps.
    if limit is None or (first_dest is not None and str(limit) > str(first_dest)):
        raise _fail(
            "mergehistory-fail-timestamps-overlap",
            "Source revisions overlap or come after destination revisions.",
        )
    limit = str(limit)
    moving = REV.c.rev_page == source_id, REV.c.rev_timestamp <= limit
    count = int(conn.scalar(sa.select(sa.func.count()).select_from(REV).where(*moving)) or 0)
    if count > REVISION_LIMIT:
        raise _fail(
            "mergehistory-fail-toobig",
            f"Unable to perform history merge as more than the limit of {REVISION_LIMIT} "
            "revisions would be moved.",
            REVISION_LIMIT,
        )
    if not who.allowed("mergehistory"):
        raise _fail("mergehistory-fail-permission", "Insufficient permissions to merge history.")
    conn.execute(sa.update(REV).where(*moving).values(rev_page=dest_id))
    source_text = site.parser.prefixed_text(source.ns, source.dbkey)
    dest_text = site.parser.prefixed_text(dest.ns, dest.dbkey)
    comment = reason
    left = conn.scalar(sa.select(REV.c.rev_id).where(REV.c.rev_page == source_id).limit(1))
    if left is None:
        # The source keeps its title as a redirect to where its history went; the revision
        # follows the one that was its latest, as MediaWiki records it.
        comment = f"Merged [[:{source_text}]] into [[:{dest_text}]]" + (
            f": {reason}" if reason else ""
        )
        save_revision(
            conn,
            site,
            source,
            f"#REDIRECT [[{dest_text}]]",
            Editor(who.user_id, who.name, who.rights),
            comment=comment,
            count_edit=False,
            model="wikitext",  # only wikitext redirects, whatever the source held
        )
    log_id = log_event(
        conn,
        who,
        "merge",
        "merge",
        source,
        page_id=source_id,
        reason=comment,
        params={"dest_ns": dest.ns, "dest_title": dest_text, "mergepoint": iso(limit)},
        site=site,
    )
    # Both histories changed: what shows either page (history, diffs) is stale.
    invalidation.touch(conn, [source, dest], invalidation.log_change(log_id), existence=False)
    return Merged(count, limit, log_id)
