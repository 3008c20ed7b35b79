"""Importing pages with their full history (from an XML dump): many revisions per transaction.

Contributors are matched to local accounts by name; a name without a local account becomes an
actor of its own (like an IP editor). Revisions not newer than a page's current revision are
skipped, so importing the same dump twice changes nothing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import sqlalchemy as sa

from atrium.core.db import Conn, Prepared
from atrium.wiki import schema
from atrium.wiki.changes.pages import sha1_base36, write_links
from atrium.wiki.site import Site
from atrium.wiki.titles import InvalidTitle, Title
from atrium.wiki.wikitext import extract_links


@dataclass
class ImportedRevision:
    timestamp: str
    contributor: str
    contributor_id: int | None
    comment: str
    minor: bool
    text: str
    model: str = "wikitext"
    format: str = "text/x-wiki"


@dataclass
class ImportedPage:
    title: str
    ns: int
    revisions: list[ImportedRevision] = field(default_factory=list)


@dataclass
class ImportResult:
    pages: int = 0
    revisions: int = 0
    skipped: list[str] = field(default_factory=list)


_actor = Prepared(
    sa.select(schema.actor.c.actor_id).where(schema.actor.c.actor_name == sa.bindparam("name"))
)
_user = Prepared(
    sa.select(schema.user.c.user_id).where(schema.user.c.user_name == sa.bindparam("name"))
)
_page = Prepared(
    sa.select(schema.page.c.page_id, schema.page.c.page_latest, schema.revision.c.rev_timestamp)
    .select_from(
        schema.page.outerjoin(
            schema.revision, schema.revision.c.rev_id == schema.page.c.page_latest
        )
    )
    .where(
        schema.page.c.page_namespace == sa.bindparam("ns"),
        schema.page.c.page_title == sa.bindparam("title"),
    )
)
_comment = Prepared(
    sa.insert(schema.comment)
    .values(comment_text=sa.bindparam("text"))
    .returning(schema.comment.c.comment_id)
)
_text = Prepared(
    sa.insert(schema.text)
    .values(old_text=sa.bindparam("text"), old_flags="utf-8")
    .returning(schema.text.c.old_id)
)
_revision = Prepared(
    sa.insert(schema.revision)
    .values(
        rev_page=sa.bindparam("page"),
        rev_text_id=sa.bindparam("text_id"),
        rev_comment_id=sa.bindparam("comment_id"),
        rev_actor=sa.bindparam("actor"),
        rev_timestamp=sa.bindparam("ts"),
        rev_minor_edit=sa.bindparam("minor"),
        rev_deleted=0,
        rev_len=sa.bindparam("len"),
        rev_parent_id=sa.bindparam("parent"),
        rev_sha1=sa.bindparam("sha1"),
        rev_content_model=sa.bindparam("model"),
        rev_content_format=sa.bindparam("format"),
    )
    .returning(schema.revision.c.rev_id)
)


def _actor_id(conn: Conn, cache: dict[str, int], name: str) -> int:
    cached = cache.get(name)
    if cached is not None:
        return cached
    actor_id = conn.scalar(_actor, {"name": name})
    if actor_id is None:
        user_id = conn.scalar(_user, {"name": name})
        conn.execute(sa.insert(schema.actor).values(actor_user=user_id, actor_name=name))
        actor_id = conn.scalar(_actor, {"name": name})
    cache[name] = int(actor_id)
    return int(actor_id)


def import_pages(conn: Conn, site: Site, pages: list[ImportedPage]) -> ImportResult:
    result = ImportResult()
    actors: dict[str, int] = {}
    for imported in pages:
        try:
            parsed = site.parser.parse(imported.title)
        except InvalidTitle:
            result.skipped.append(imported.title)
            continue
        if parsed.ns < 0 or parsed.interwiki or not parsed.dbkey:
            result.skipped.append(imported.title)
            continue
        title = Title(parsed.ns, parsed.dbkey)
        revisions = sorted(imported.revisions, key=lambda r: r.timestamp)
        existing = conn.one(_page, {"ns": title.ns, "title": title.dbkey})
        if existing is None:
            if not revisions:
                continue
            row = conn.one(
                sa.insert(schema.page)
                .values(
                    page_namespace=title.ns,
                    page_title=title.dbkey,
                    page_is_redirect=False,
                    page_is_new=True,
                    page_random=random.random(),
                    page_touched=revisions[-1].timestamp,
                    page_latest=0,
                    page_len=0,
                    page_content_model=revisions[-1].model,
                )
                .returning(schema.page.c.page_id)
            )
            assert row is not None
            page_id, parent, latest_ts = int(row["page_id"]), 0, ""
        else:
            page_id = int(existing["page_id"])
            parent = int(existing["page_latest"])
            latest_ts = str(existing["rev_timestamp"] or "")
        added = [r for r in revisions if r.timestamp > latest_ts]
        if not added:
            continue
        count = 0
        for rev in added:
            comment = conn.one(_comment, {"text": rev.comment})
            text = conn.one(_text, {"text": rev.text})
            assert comment is not None and text is not None
            row = conn.one(
                _revision,
                {
                    "page": page_id,
                    "text_id": text["old_id"],
                    "comment_id": comment["comment_id"],
                    "actor": _actor_id(conn, actors, rev.contributor),
                    "ts": rev.timestamp,
                    "minor": rev.minor,
                    "len": len(rev.text.encode()),
                    "parent": parent,
                    "sha1": sha1_base36(rev.text),
                    "model": rev.model,
                    "format": rev.format,
                },
            )
            assert row is not None
            parent = int(row["rev_id"])
            count += 1
        last = added[-1]
        links = extract_links(last.text, site.parser, site.languages)
        total_revisions = conn.scalar(
            sa.select(sa.func.count())
            .select_from(schema.revision)
            .where(schema.revision.c.rev_page == page_id)
        )
        conn.execute(
            sa.update(schema.page)
            .where(schema.page.c.page_id == page_id)
            .values(
                page_latest=parent,
                page_len=len(last.text.encode()),
                page_touched=last.timestamp,
                page_links_updated=last.timestamp,
                page_is_redirect=links.redirect is not None,
                page_is_new=total_revisions == 1,
                page_content_model=last.model,
            )
        )
        write_links(conn, page_id, title, links, last.timestamp)
        result.pages += 1
        result.revisions += count
    return result
