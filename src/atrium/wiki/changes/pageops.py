"""Deleting, undeleting, moving and protecting pages, rollback and patrol, each as MediaWiki does
it: the archive keeps deleted revisions (with their ids and tags), a move leaves a redirect and a
null revision, protections live in `page_restrictions` / `protected_titles`, and every one of them
is logged (`logging`, plus `recentchanges` where MediaWiki publishes it)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema, search
from atrium.wiki.changes import ChangeError, enotif, invalidation, movecheck
from atrium.wiki.changes.expiry import INFINITY, api_expiry
from atrium.wiki.changes.hideuser import DELETED_USER
from atrium.wiki.changes.journal import (
    PATROLLED_AUTO,
    PATROLLED_MANUAL,
    PATROLLED_NONE,
    Performer,
    actor_id,
    comment_id,
    log_event,
)
from atrium.wiki.changes.pages import (
    Editor,
    EditRequest,
    RenderedLinks,
    clear_links,
    journal_edit,
    page_links,
    render_links,
    save_revision,
    software_tag_id,
    tag_revision,
    write_links,
)
from atrium.wiki.changes.protection import (
    check_protection,
    page_row,
    require,
)
from atrium.wiki.changes.watching import pair
from atrium.wiki.site import Site
from atrium.wiki.timestamps import formatted, now14
from atrium.wiki.titles import NS_FILE, Title

P = schema.page
REV = schema.revision
AR = schema.archive


def _text_of(conn: Conn, rev_id: int) -> str:
    return str(
        conn.scalar(
            sa.select(schema.text.c.old_text)
            .select_from(REV.join(schema.text, schema.text.c.old_id == REV.c.rev_text_id))
            .where(REV.c.rev_id == rev_id)
        )
        or ""
    )


def _editor(who: Performer) -> Editor:
    return Editor(who.user_id, who.name, who.rights)


# --- delete -----------------------------------------------------------------------------------


def auto_delete_reason(conn: Conn, page: Any) -> str:
    """DeletePage::getAutoReason: the start of the text, and the only contributor if one."""
    text = _text_of(conn, int(page["page_latest"]))
    authors = conn.all(
        sa.select(schema.actor.c.actor_name)
        .select_from(REV.join(schema.actor, schema.actor.c.actor_id == REV.c.rev_actor))
        .where(REV.c.rev_page == page["page_id"])
        .distinct()
        .limit(2)
    )
    if text.strip() == "":
        body = "page was empty"
    else:
        snippet = " ".join(text.split())
        if len(snippet) > 150:
            snippet = snippet[:147] + "..."
        body = f'content was: "{snippet}"'
    if len(authors) == 1:
        name = str(authors[0]["actor_name"])
        body += (
            f', and the only contributor was "[[Special:Contributions/{name}|{name}]]" '
            f"([[User talk:{name}|talk]])"
        )
    return body


def _logged(
    conn: Conn,
    site: Site,
    who: Performer,
    log_type: str,
    action: str,
    title: Title,
    *,
    reason: str,
    **fields: Any,
) -> int:
    """`log_event` for a deletion, restoration or move, mailing the page's watchers."""
    return log_event(conn, who, log_type, action, title, reason=reason, site=site, **fields)


@dataclass
class Deleted:
    page_id: int
    log_id: int
    reason: str


def delete_page(
    conn: Conn, site: Site, who: Performer, title: Title, reason: str | None
) -> Deleted:
    require(site, who, "delete")
    page = page_row(conn, title)
    if page is None:
        raise ChangeError("missingtitle", "The page you specified doesn't exist.")
    page_id = int(page["page_id"])
    if reason is None or reason == "":
        reason = auto_delete_reason(conn, page)
    # In revision order, so that `ar_id` orders revisions saved within one second as
    # their ids do (PostgreSQL returns rows in no order unless asked).
    revisions = conn.all(sa.select(REV).where(REV.c.rev_page == page_id).order_by(REV.c.rev_id))
    if revisions:
        conn.executemany(
            sa.insert(AR),
            [
                {
                    "ar_namespace": title.ns,
                    "ar_title": title.dbkey,
                    "ar_comment_id": r["rev_comment_id"],
                    "ar_actor": r["rev_actor"],
                    "ar_timestamp": r["rev_timestamp"],
                    "ar_minor_edit": r["rev_minor_edit"],
                    "ar_rev_id": r["rev_id"],
                    "ar_text_id": r["rev_text_id"],
                    "ar_deleted": r["rev_deleted"],
                    "ar_len": r["rev_len"],
                    "ar_page_id": page_id,
                    "ar_parent_id": r["rev_parent_id"],
                    "ar_sha1": r["rev_sha1"],
                    "ar_content_model": r["rev_content_model"],
                    "ar_content_format": r["rev_content_format"],
                }
                for r in revisions
            ],
        )
    rev_ids = [int(r["rev_id"]) for r in revisions]
    ct = schema.change_tag
    tags = conn.all(sa.select(ct).where(ct.c.ct_rev_id.in_(rev_ids))) if rev_ids else []
    if tags:
        conn.executemany(
            sa.insert(schema.archive_tag),
            [{"at_rev_id": t["ct_rev_id"], "at_tag_id": t["ct_tag_id"]} for t in tags],
        )
        conn.execute(sa.delete(ct).where(ct.c.ct_rev_id.in_(rev_ids)))
    clear_links(conn, page_id)
    if title.ns == NS_FILE:
        _archive_file(conn, who, title, reason)
    search.unindex_page(conn, page_id)
    rc = schema.recentchanges
    conn.execute(sa.delete(rc).where(rc.c.rc_cur_id == page_id, rc.c.rc_type != 3))
    conn.execute(
        sa.delete(schema.page_restrictions).where(schema.page_restrictions.c.pr_page == page_id)
    )
    conn.execute(sa.delete(REV).where(REV.c.rev_page == page_id))
    conn.execute(sa.delete(P).where(P.c.page_id == page_id))
    log_id = _logged(
        conn, site, who, "delete", "delete", title, page_id=page_id, reason=reason, params={}
    )
    return Deleted(page_id, log_id, reason)


def _archive_file(conn: Conn, who: Performer, title: Title, reason: str) -> None:
    """LocalFileDeleteBatch: the file's current version moves to `filearchive` (what
    list=filearchive reads); the stored bytes stay where they are."""
    img = schema.image
    row = conn.one(sa.select(img).where(img.c.img_name == title.dbkey))
    if row is None:
        return
    ext = title.dbkey.rsplit(".", 1)[-1].lower() if "." in title.dbkey else ""
    file_values = {f"fa_{k[4:]}": row[k] for k in row if k != "img_name"}
    conn.execute(
        sa.insert(schema.filearchive).values(
            fa_name=title.dbkey,
            fa_archive_name=None,
            fa_storage_key=f"{row['img_sha1']}.{ext}" if ext else str(row["img_sha1"]),
            fa_deleted_user=who.user_id,
            fa_deleted_timestamp=now14(),
            fa_deleted_reason_id=comment_id(conn, reason),
            fa_deleted=0,
            **file_values,
        )
    )
    conn.execute(sa.delete(img).where(img.c.img_name == title.dbkey))
    # Its old versions go too, each keeping its archive name.
    old = schema.oldimage
    for version in conn.all(sa.select(old).where(old.c.oi_name == title.dbkey)):
        values = {
            f"fa_{k[3:]}": version[k]
            for k in version
            if k not in ("oi_id", "oi_name", "oi_archive_name", "oi_deleted")
        }
        conn.execute(
            sa.insert(schema.filearchive).values(
                fa_name=title.dbkey,
                fa_archive_name=version["oi_archive_name"],
                fa_storage_key=f"{version['oi_sha1']}.{ext}" if ext else str(version["oi_sha1"]),
                fa_deleted_user=who.user_id,
                fa_deleted_timestamp=now14(),
                fa_deleted_reason_id=comment_id(conn, reason),
                fa_deleted=int(version["oi_deleted"]),
                **values,
            )
        )
    conn.execute(sa.delete(old).where(old.c.oi_name == title.dbkey))


@dataclass
class Restored:
    page_id: int
    revisions: int
    log_id: int
    files: int = 0


def _file_values(row: Any, source: str, target: str) -> dict[str, Any]:
    """The file columns shared by image, oldimage and filearchive, renamed between them."""
    names = [c.name[4:] for c in schema.image.columns if c.name != "img_name"]
    return {f"{target}_{n}": row[f"{source}_{n}"] for n in names}


def _restore_files(conn: Conn, title: Title, file_ids: list[int]) -> int:
    """LocalFileRestoreBatch: the archived versions (all, or those of `file_ids`), newest
    first; the newest becomes the current version unless the file exists again, the others old
    versions under their archive names (a deleted current version gets "<time of deletion>!Name",
    a second later while taken). Returns how many were restored."""
    fa, img, oi = schema.filearchive, schema.image, schema.oldimage
    query = sa.select(fa).where(fa.c.fa_name == title.dbkey)
    if file_ids:
        query = query.where(fa.c.fa_id.in_(file_ids))
    rows = conn.all(query.order_by(fa.c.fa_timestamp.desc(), fa.c.fa_id.desc()))
    exists = conn.scalar(sa.select(img.c.img_name).where(img.c.img_name == title.dbkey))
    first, restored = True, 0
    taken: set[str] = set()
    for row in rows:
        if not row["fa_storage_key"]:
            continue  # its bytes were missing when it was deleted
        if first and exists is None:
            conn.execute(
                sa.insert(img).values(img_name=title.dbkey, **_file_values(row, "fa", "img"))
            )
        else:
            archive_name = row["fa_archive_name"]
            if archive_name is None:
                when = datetime.strptime(str(row["fa_deleted_timestamp"]), "%Y%m%d%H%M%S")
                archive_name = f"{when:%Y%m%d%H%M%S}!{title.dbkey}"
                while archive_name in taken:
                    when += timedelta(seconds=1)
                    archive_name = f"{when:%Y%m%d%H%M%S}!{title.dbkey}"
            taken.add(archive_name)
            conn.execute(
                sa.insert(oi).values(
                    oi_name=title.dbkey,
                    oi_archive_name=archive_name,
                    oi_deleted=int(row["fa_deleted"]),
                    **_file_values(row, "fa", "oi"),
                )
            )
        conn.execute(sa.delete(fa).where(fa.c.fa_id == row["fa_id"]))
        first = False
        restored += 1
    return restored


def undelete_page(
    conn: Conn,
    site: Site,
    who: Performer,
    title: Title,
    reason: str,
    timestamps: list[str],
    file_ids: list[int] | None = None,
    rendered: RenderedLinks | None = None,
) -> Restored:
    """PageArchive::undeleteAsUser: the archived revisions (all, or those of `timestamps`) and,
    for a file, its archived versions (all, or those of `file_ids`); with only one of the two
    lists given, only that kind is restored. `rendered`: from `undelete_rendering`."""
    require(site, who, "undelete")
    file_ids = file_ids or []
    restore_all = not timestamps and not file_ids
    query = sa.select(AR).where(AR.c.ar_namespace == title.ns, AR.c.ar_title == title.dbkey)
    if timestamps:
        query = query.where(AR.c.ar_timestamp.in_(timestamps))
    rows = conn.all(query.order_by(AR.c.ar_timestamp, AR.c.ar_rev_id))
    if not (restore_all or timestamps):
        rows = []
    files = 0
    if title.ns == NS_FILE and (restore_all or file_ids):
        files = _restore_files(conn, title, file_ids)
    if not rows and not files:
        raise ChangeError(
            "cantundelete",
            "Couldn't undelete: the requested revisions may not exist, or may have been "
            "undeleted already.",
        )
    page = page_row(conn, title)
    if not rows:
        page_id = int(page["page_id"]) if page is not None else 0
        log_id = _logged(
            conn, site, who, "delete", "restore", title, page_id=page_id, reason=reason,
            params={"count": {"revisions": 0, "files": files}},
        )  # fmt: skip
        return Restored(page_id, 0, log_id, files)
    created = page is None
    if page is None:
        wanted = rows[-1]["ar_page_id"]
        taken = wanted is not None and conn.scalar(
            sa.select(P.c.page_id).where(P.c.page_id == wanted)
        )
        values: dict[str, Any] = {
            "page_namespace": title.ns,
            "page_title": title.dbkey,
            "page_random": random.random(),
            "page_touched": now14(),
            "page_latest": 0,
            "page_len": 0,
        }
        if wanted is not None and not taken:
            values["page_id"] = int(wanted)
        row = conn.one(sa.insert(P).values(**values).returning(P.c.page_id))
        assert row is not None
        page_id = int(row["page_id"])
    else:
        page_id = int(page["page_id"])
    conn.executemany(
        sa.insert(REV),
        [
            {
                "rev_id": r["ar_rev_id"],
                "rev_page": page_id,
                "rev_text_id": r["ar_text_id"],
                "rev_comment_id": r["ar_comment_id"],
                "rev_actor": r["ar_actor"],
                "rev_timestamp": r["ar_timestamp"],
                "rev_minor_edit": r["ar_minor_edit"],
                "rev_deleted": r["ar_deleted"],
                "rev_len": r["ar_len"] or 0,
                "rev_parent_id": r["ar_parent_id"] or 0,
                "rev_sha1": r["ar_sha1"],
                "rev_content_model": r["ar_content_model"],
                "rev_content_format": r["ar_content_format"],
            }
            for r in rows
        ],
    )
    rev_ids = [int(r["ar_rev_id"]) for r in rows]
    at = schema.archive_tag
    tags = conn.all(sa.select(at).where(at.c.at_rev_id.in_(rev_ids)))
    if tags:
        conn.executemany(
            sa.insert(schema.change_tag),
            [{"ct_rev_id": t["at_rev_id"], "ct_tag_id": t["at_tag_id"]} for t in tags],
        )
        conn.execute(sa.delete(at).where(at.c.at_rev_id.in_(rev_ids)))
    conn.execute(sa.delete(AR).where(AR.c.ar_rev_id.in_(rev_ids)))
    latest = conn.one(
        sa.select(REV)
        .where(REV.c.rev_page == page_id)
        .order_by(REV.c.rev_timestamp.desc(), REV.c.rev_id.desc())
        .limit(1)
    )
    assert latest is not None
    latest_id = int(latest["rev_id"])
    if created or page is None or latest_id != int(page["page_latest"]):
        text = _text_of(conn, latest_id)
        model = str(latest["rev_content_model"])
        links = page_links(conn, site, title, text, rendered, model=model)
        ts = now14()
        conn.execute(
            sa.update(P)
            .where(P.c.page_id == page_id)
            .values(
                page_latest=latest_id,
                page_content_model=model,
                page_len=int(latest["rev_len"]),
                page_is_redirect=links.redirect is not None,
                page_is_new=int(latest["rev_parent_id"]) == 0,
                page_touched=ts,
                page_links_updated=ts,
            )
        )
        write_links(conn, page_id, title, links, ts)
        search.index_page(conn, page_id, title.dbkey, text)
    log_id = _logged(
        conn,
        site,
        who,
        "delete",
        "restore",
        title,
        page_id=page_id,
        reason=reason,
        params={"count": {"revisions": len(rows), "files": files}},
    )
    return Restored(page_id, len(rows), log_id, files)


# --- move -------------------------------------------------------------------------------------


@dataclass
class Moved:
    page_id: int
    redirect_created: bool
    over_redirect: bool
    log_id: int


def undelete_rendering(
    conn: Conn, site: Site, title: Title, timestamps: list[str], file_ids: list[int] | None
) -> RenderedLinks | None:
    """The expansion `undelete_page` needs, made before its write in a rendering thread: of the
    newest revision it restores, which becomes the current one when it is the newest."""
    if file_ids and not timestamps:
        return None  # only file versions are restored
    query = sa.select(AR.c.ar_text_id).where(
        AR.c.ar_namespace == title.ns, AR.c.ar_title == title.dbkey
    )
    if timestamps:
        query = query.where(AR.c.ar_timestamp.in_(timestamps))
    text_id = conn.scalar(query.order_by(AR.c.ar_timestamp.desc(), AR.c.ar_rev_id.desc()).limit(1))
    if text_id is None:
        return None
    text = conn.scalar(sa.select(schema.text.c.old_text).where(schema.text.c.old_id == text_id))
    return render_links(conn, site, title, str(text or ""))


def move_page(
    conn: Conn,
    site: Site,
    who: Performer,
    source: Title,
    target: Title,
    reason: str,
    noredirect: bool = False,
) -> Moved:
    page = page_row(conn, source)
    if page is None:
        raise ChangeError("missingtitle", "The page you specified doesn't exist.")
    refusals = movecheck.move_refusals(conn, site, who, source, target)
    if refusals:
        raise ChangeError.several(refusals)
    existing = page_row(conn, target)
    over_redirect = False
    target_text = site.parser.prefixed_text(target.ns, target.dbkey)
    if existing is not None:
        # A one-revision redirect back to the source (MovePage::isValidMoveTarget) is replaced.
        if not who.allowed("delete"):
            raise ChangeError(
                "redirectexists",
                f"A redirect already exists at [[:{target_text}]], and it cannot be deleted "
                "automatically. Please choose another name.",
                "redirectexists",
                (target_text,),
            )
        _purge_page(conn, int(existing["page_id"]))
        over_redirect = True
    suppress = noredirect and who.allowed("suppressredirect")
    page_id = int(page["page_id"])
    source_text = site.parser.prefixed_text(source.ns, source.dbkey)
    comment = f"{who.name} moved page [[{source_text}]] to [[{target_text}]]"
    if reason:
        comment += f": {reason}"
    if over_redirect:
        comment = f"{who.name} moved page [[{source_text}]] to [[{target_text}]] over redirect" + (
            f": {reason}" if reason else ""
        )
    conn.execute(
        sa.update(P)
        .where(P.c.page_id == page_id)
        .values(page_namespace=target.ns, page_title=target.dbkey, page_touched=now14())
    )
    for table, prefix in ((schema.pagelinks, "pl"), (schema.templatelinks, "tl")):
        conn.execute(
            sa.update(table)
            .where(table.c[f"{prefix}_from"] == page_id)
            .values({f"{prefix}_from_namespace": target.ns})
        )
    search.retitle_page(conn, page_id, target.dbkey)
    # The moved page gets a null revision recording the move (same text, same size).
    null_id = null_revision(conn, site, who, target, page_id, comment, minor=True)
    # The log entry marks what shows the source; what shows the target changes as much.
    invalidation.touch(conn, [target], invalidation.revision_change(null_id))
    redirect_created = False
    if not suppress:
        save_revision(
            conn,
            site,
            source,
            f"#REDIRECT [[{target_text}]]",
            _editor(who),
            comment=comment,
            count_edit=False,
            # A wikitext redirect whatever the title's default model: only wikitext redirects.
            model="wikitext",
        )
        redirect_created = True
    _copy_watchers(conn, source, target)
    params: dict[str, Any] = {"target_ns": target.ns, "target_title": target_text}
    if suppress:
        params["suppressredirect"] = True
    log_id = _logged(
        conn,
        site,
        who,
        "move",
        "move_redir" if over_redirect else "move",
        source,
        page_id=page_id,
        reason=reason,
        params=params,
        rev_id=null_id,
    )
    return Moved(page_id, redirect_created, over_redirect, log_id)


def _purge_page(conn: Conn, page_id: int) -> None:
    """Remove a page outright (the redirect a move replaces: MediaWiki deletes it unlogged
    into the archive; its single revision is archived here too)."""
    page = conn.one(sa.select(P).where(P.c.page_id == page_id))
    assert page is not None
    for r in conn.all(sa.select(REV).where(REV.c.rev_page == page_id).order_by(REV.c.rev_id)):
        conn.execute(
            sa.insert(AR).values(
                ar_namespace=page["page_namespace"],
                ar_title=page["page_title"],
                ar_comment_id=r["rev_comment_id"],
                ar_actor=r["rev_actor"],
                ar_timestamp=r["rev_timestamp"],
                ar_minor_edit=r["rev_minor_edit"],
                ar_rev_id=r["rev_id"],
                ar_text_id=r["rev_text_id"],
                ar_len=r["rev_len"],
                ar_page_id=page_id,
                ar_parent_id=r["rev_parent_id"],
                ar_sha1=r["rev_sha1"],
            )
        )
    conn.execute(
        sa.delete(schema.change_tag).where(
            schema.change_tag.c.ct_rev_id.in_(
                sa.select(REV.c.rev_id).where(REV.c.rev_page == page_id)
            )
        )
    )
    clear_links(conn, page_id)
    search.unindex_page(conn, page_id)
    rc = schema.recentchanges
    conn.execute(sa.delete(rc).where(rc.c.rc_cur_id == page_id, rc.c.rc_type != 3))
    conn.execute(sa.delete(REV).where(REV.c.rev_page == page_id))
    conn.execute(sa.delete(P).where(P.c.page_id == page_id))


def _copy_watchers(conn: Conn, source: Title, target: Title) -> None:
    """WatchedItemStore::duplicateAllAssociatedEntries: watchers of a moved page (and of its
    talk page) watch the new title too."""
    wl = schema.watchlist
    for old, new in zip(pair(source), pair(target), strict=True):
        users = conn.all(
            sa.select(wl.c.wl_user, wl.c.wl_notificationtimestamp).where(
                wl.c.wl_namespace == old.ns, wl.c.wl_title == old.dbkey
            )
        )
        for u in users:
            exists = conn.scalar(
                sa.select(wl.c.wl_id).where(
                    wl.c.wl_user == u["wl_user"],
                    wl.c.wl_namespace == new.ns,
                    wl.c.wl_title == new.dbkey,
                )
            )
            if exists is None:
                conn.execute(
                    sa.insert(wl).values(
                        wl_user=u["wl_user"],
                        wl_namespace=new.ns,
                        wl_title=new.dbkey,
                        wl_notificationtimestamp=u["wl_notificationtimestamp"],
                    )
                )


def null_revision(
    conn: Conn, site: Site, who: Performer, title: Title, page_id: int, comment: str, *, minor: bool
) -> int:
    """A revision with the current text and a new comment (moves, protections)."""
    page = conn.one(sa.select(P).where(P.c.page_id == page_id))
    assert page is not None
    latest = conn.one(sa.select(REV).where(REV.c.rev_id == page["page_latest"]))
    assert latest is not None
    row = conn.one(
        sa.insert(REV)
        .values(
            rev_page=page_id,
            rev_text_id=latest["rev_text_id"],
            rev_comment_id=comment_id(conn, comment),
            rev_actor=actor_id(conn, who),
            rev_timestamp=now14(),
            rev_minor_edit=minor,
            rev_len=latest["rev_len"],
            rev_parent_id=latest["rev_id"],
            rev_sha1=latest["rev_sha1"],
            rev_content_model=latest["rev_content_model"],
            rev_content_format=latest["rev_content_format"],
        )
        .returning(REV.c.rev_id)
    )
    assert row is not None
    rev_id = int(row["rev_id"])
    conn.execute(sa.update(P).where(P.c.page_id == page_id).values(page_latest=rev_id))
    return rev_id


# --- protect ----------------------------------------------------------------------------------


@dataclass
class Protection:
    action: str
    level: str  # "" removes it
    expiry: str  # `infinity` or 14 digits


def _describe(items: list[Protection]) -> str:
    parts = []
    for p in items:
        if not p.level:
            continue
        expires = (
            "(indefinite)" if p.expiry == INFINITY else f"(expires {formatted(p.expiry)} (UTC))"
        )
        parts.append(f"\u200e[{p.action}={p.level}] {expires}")
    return "".join(parts)


def protect(
    conn: Conn,
    site: Site,
    who: Performer,
    title: Title,
    items: list[Protection],
    reason: str,
    cascade: bool,
) -> tuple[bool, int]:
    """Set page (or title) protections; returns (cascade applied, log id)."""
    require(site, who, "protect")
    page = page_row(conn, title)
    ts = now14()
    pr = schema.page_restrictions
    pt = schema.protected_titles
    cascade = cascade and any(p.level == "sysop" and p.action == "edit" for p in items)
    if page is None:
        previous = conn.one(
            sa.select(pt).where(pt.c.pt_namespace == title.ns, pt.c.pt_title == title.dbkey)
        )
        conn.execute(
            sa.delete(pt).where(pt.c.pt_namespace == title.ns, pt.c.pt_title == title.dbkey)
        )
        for p in items:
            if p.level:
                conn.execute(
                    sa.insert(pt).values(
                        pt_namespace=title.ns,
                        pt_title=title.dbkey,
                        pt_user=who.user_id or 0,
                        pt_reason_id=comment_id(conn, reason),
                        pt_timestamp=ts,
                        pt_expiry=p.expiry,
                        pt_create_perm=p.level,
                    )
                )
        had = previous is not None
        page_id = None
    else:
        page_id = int(page["page_id"])
        had = (
            conn.scalar(sa.select(sa.func.count()).select_from(pr).where(pr.c.pr_page == page_id))
            > 0
        )
        # WikiPage::doUpdateRestrictions: a restriction type the request leaves out is lifted,
        # so an empty `protections=` unprotects the page.
        conn.execute(sa.delete(pr).where(pr.c.pr_page == page_id))
        for p in items:
            if p.level:
                conn.execute(
                    sa.insert(pr).values(
                        pr_page=page_id,
                        pr_type=p.action,
                        pr_level=p.level,
                        pr_cascade=cascade and p.action == "edit",
                        pr_expiry=p.expiry,
                    )
                )
    active = [p for p in items if p.level]
    action = "unprotect" if not active else ("modify" if had else "protect")
    params: dict[str, Any] = {}
    if active:
        params["description"] = _describe(items)
        if cascade:
            params["cascade"] = True
        params["details"] = [
            {"type": p.action, "level": p.level, "expiry": api_expiry(p.expiry)}
            | ({"cascade": True} if cascade and p.action == "edit" else {})
            for p in active
        ]
    null_id = 0
    if page_id is not None:
        text = site.parser.prefixed_text(title.ns, title.dbkey)
        verb = {"protect": "Protected", "modify": "Changed protection settings for",
                "unprotect": "Removed protection from"}[action]  # fmt: skip
        comment = f'{verb} "{text}"' + (f": {reason}" if reason else "")
        if active:
            comment += " " + params["description"].replace("\u200e", "")
        null_id = null_revision(conn, site, who, title, page_id, comment, minor=True)
    log_id = log_event(
        conn, who, "protect", action, title, page_id=page_id, reason=reason, params=params,
        rev_id=null_id, site=site,
    )  # fmt: skip
    return cascade, log_id


# --- rollback and patrol ----------------------------------------------------------------------


@dataclass
class RolledBack:
    page_id: int
    summary: str
    rev_id: int
    old_revid: int
    last_revid: int


def rollback(
    conn: Conn,
    site: Site,
    who: Performer,
    title: Title,
    user: str,
    summary: str,
    markbot: bool,
    rendered: RenderedLinks | None = None,
) -> RolledBack:
    """RollbackPage: the edits of `user` at the top of the history reverted to the revision
    before them; `rendered`: from `rollback_rendering`."""
    require(site, who, "rollback")
    page = page_row(conn, title)
    if page is None:
        raise ChangeError("missingtitle", "The page you specified doesn't exist.")
    # A rollback is an edit: RollbackPage asks for the edit permission, protection included.
    check_protection(conn, title, who, "edit")
    page_id = int(page["page_id"])
    actor = schema.actor
    history = conn.all(
        sa.select(
            REV.c.rev_id,
            REV.c.rev_text_id,
            REV.c.rev_deleted,
            REV.c.rev_content_model,
            actor.c.actor_name,
        )
        .join(actor, actor.c.actor_id == REV.c.rev_actor)
        .where(REV.c.rev_page == page_id)
        .order_by(REV.c.rev_timestamp.desc(), REV.c.rev_id.desc())
    )
    text = site.parser.prefixed_text(title.ns, title.dbkey)
    current = history[0]
    if str(current["actor_name"]) != user:
        last = str(current["actor_name"])
        raise ChangeError(
            "alreadyrolled",
            f"Cannot rollback last edit of [[:{text}]] by [[User:{user}|{user}]] ([[User talk:"
            f"{user}|talk]]); someone else has edited or rolled back the page already.\n\nThe "
            f"last edit to the page was by [[User:{last}|{last}]] ([[User talk:{last}|talk]]).",
            "alreadyrolled",
            (text, user, last),
        )
    target = next((h for h in history if str(h["actor_name"]) != user), None)
    if target is None:
        raise ChangeError(
            "onlyauthor",  # ApiMessageTrait's code for `cantrollback`
            "Cannot revert the edit. The last contributor is the only author of this page.",
            "cantrollback",
        )
    good_text = _text_of(conn, int(target["rev_id"]))
    target_name = str(target["actor_name"])
    if not summary and int(current["rev_deleted"] or 0) & DELETED_USER:
        # RollbackPage: a hidden user's name stays out of the summary (`revertpage-nouser`).
        summary = (
            "Reverted edits by (username removed) to last revision by "
            f"[[User:{target_name}|{target_name}]]"
        )
    elif not summary:
        summary = (
            f"Reverted edits by [[Special:Contributions/{user}|{user}]] ([[User talk:{user}|talk]]) "
            f"to last revision by [[User:{target_name}|{target_name}]]"
        )
    bot = markbot and who.allowed("markbotedits")
    # The restored revision comes back in its own content model.
    saved = save_revision(
        conn, site, title, good_text, _editor(who), comment=summary, minor=True,
        rendered=rendered, model=str(target["rev_content_model"]),
    )  # fmt: skip
    tag_id = software_tag_id(conn, "mw-rollback")
    tag_revision(conn, saved.rev_id, [tag_id])
    request = EditRequest(
        title=title, editor=_editor(who), summary=summary, minor=True, bot=bot, ip=who.ip
    )
    # A rollback is a (minor) edit: its watchers are mailed as for any, before journal_edit
    # marks them notified.
    enotif.mail_page_change(
        conn,
        site,
        enotif.PageChange(
            title, who.user_id, who.name, summary, True, False, saved.rev_id,
            saved.parent_id, saved.timestamp,
        ),
    )  # fmt: skip
    journal_edit(conn, request, saved, True, [tag_id])
    rc = schema.recentchanges
    reverted = [int(h["rev_id"]) for h in history[: history.index(target)]]
    changes: dict[str, Any] = {}
    if bot:
        changes["rc_bot"] = True
    if who.allowed("autopatrol"):
        changes["rc_patrolled"] = PATROLLED_AUTO
    if changes and reverted:
        conn.execute(sa.update(rc).where(rc.c.rc_this_oldid.in_(reverted)).values(**changes))
    return RolledBack(page_id, summary, saved.rev_id, int(current["rev_id"]), int(target["rev_id"]))


def rollback_rendering(conn: Conn, site: Site, title: Title, user: str) -> RenderedLinks | None:
    """The expansion `rollback` needs, made before its write in a rendering thread: of the
    newest revision not by `user`, which the rollback restores."""
    page = page_row(conn, title)
    if page is None:
        return None
    actor = schema.actor
    rev_id = conn.scalar(
        sa.select(REV.c.rev_id)
        .join(actor, actor.c.actor_id == REV.c.rev_actor)
        .where(REV.c.rev_page == int(page["page_id"]), actor.c.actor_name != user)
        .order_by(REV.c.rev_timestamp.desc(), REV.c.rev_id.desc())
        .limit(1)
    )
    return None if rev_id is None else render_links(conn, site, title, _text_of(conn, int(rev_id)))


def patrol(conn: Conn, site: Site, who: Performer, rcid: int | None, revid: int | None) -> Any:
    rc = schema.recentchanges
    if rcid is not None:
        row = conn.one(sa.select(rc).where(rc.c.rc_id == rcid))
        if row is None:
            raise ChangeError(
                "nosuchrcid", f"There is no recent change with ID {rcid}.", params=(rcid,)
            )
    else:
        row = conn.one(sa.select(rc).where(rc.c.rc_this_oldid == revid))
        if row is None:
            raise ChangeError(
                "nosuchrevid", f"There is no revision with ID {revid}.", params=(revid,)
            )
    require(site, who, "patrol")
    own = int(row["rc_actor"]) == conn.scalar(
        sa.select(schema.actor.c.actor_id).where(schema.actor.c.actor_name == who.name)
    )
    if own and not who.allowed("autopatrol"):
        raise ChangeError(
            "noautopatrol",
            "You are not allowed to mark your own changes as patrolled.",
            "markedaspatrollederror-noautopatrol",
        )
    if int(row["rc_patrolled"]) == PATROLLED_NONE:
        conn.execute(
            sa.update(rc).where(rc.c.rc_id == row["rc_id"]).values(rc_patrolled=PATROLLED_MANUAL)
        )
        log_event(
            conn,
            who,
            "patrol",
            "patrol",
            Title(int(row["rc_namespace"]), str(row["rc_title"])),
            page_id=int(row["rc_cur_id"]) or None,
            params={
                "curid": int(row["rc_this_oldid"]),
                "previd": int(row["rc_last_oldid"]),
                "auto": False,
            },
            in_rc=False,
        )
    return row


def purge(conn: Conn, page_id: int) -> None:
    conn.execute(sa.update(P).where(P.c.page_id == page_id).values(page_touched=now14()))


def _current_page(conn: Conn, page_id: int) -> tuple[Title, str]:
    page = conn.one(sa.select(P).where(P.c.page_id == page_id))
    assert page is not None
    title = Title(int(page["page_namespace"]), str(page["page_title"]))
    return title, _text_of(conn, int(page["page_latest"]))


def render_current_links(conn: Conn, site: Site, page_id: int) -> RenderedLinks:
    """The expansion `refresh_links` needs, made before its write in a rendering thread."""
    title, text = _current_page(conn, page_id)
    return render_links(conn, site, title, text)


def refresh_links(
    conn: Conn, site: Site, page_id: int, rendered: RenderedLinks | None = None
) -> None:
    """Rewrite a page's link tables; `rendered` from `render_current_links` (a page edited
    since is expanded here)."""
    title, text = _current_page(conn, page_id)
    ts = now14()
    model = str(conn.scalar(sa.select(P.c.page_content_model).where(P.c.page_id == page_id)))
    links = page_links(conn, site, title, text, rendered, model=model)
    write_links(conn, page_id, title, links, ts)
    conn.execute(sa.update(P).where(P.c.page_id == page_id).values(page_links_updated=ts))
