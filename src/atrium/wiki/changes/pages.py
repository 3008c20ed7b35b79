"""Saving revisions: the page row, the revision and its text, and the link tables, in one transaction.

`edit_page` is what `action=edit` does (conflict checks, sections, append/prepend, no-change
detection); `save_revision` is the shared core the importer uses too.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Prepared
from atrium.wiki import content_models, schema, search
from atrium.wiki.accounts.config_pages import config_refusal
from atrium.wiki.changes import ChangeError, enotif, invalidation, newtalk, watching
from atrium.wiki.changes.accounts import ensure_actor
from atrium.wiki.changes.blocks import refuse_blocked
from atrium.wiki.changes.journal import Performer, log_event, record_edit
from atrium.wiki.changes.protection import check_protection
from atrium.wiki.merge import merge3
from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads.page_view import current_text as current_revision_text
from atrium.wiki.reads.pst_inputs import transform_for_save
from atrium.wiki.reads.tracking import add_tracking_categories
from atrium.wiki.site import MAX_ARTICLE_SIZE, Site
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import NS_CATEGORY, NS_FILE, NS_MEDIAWIKI, NS_SPECIAL, Title
from atrium.wiki.wikitext.escaping import escape_wikitext
from atrium.wiki.wikitext.expand import Expander
from atrium.wiki.wikitext.linkfilter import make_indexes
from atrium.wiki.wikitext.links import Links, extract_links

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _add_transcluded_categories(
    conn: Conn, site: Site, title: Title, text: str, links: Links
) -> list[str]:
    """Categories, links, files and templates that templates bring in, as MediaWiki records
    everything of the parsed page in its link tables, not only what its text names. Returns
    the limits the expansion exceeded (their tracking categories' message keys)."""

    def loader(ns: int, dbkey: str) -> str | None:
        found = current_revision_text(conn, ns, dbkey)
        return found[2] if found else None

    expander = Expander(site.parser, loader, (title.ns, title.dbkey))
    expanded = expander.expand(text)
    # Every template used at any depth, as MediaWiki records them: a change of any of them
    # changes this page's rendering (`invalidation`).
    links.templates.update(expander.used)
    if expander.defaultsort is not None:
        # `{{DEFAULTSORT:…}}` from a template (or written with arguments) counts as the page's.
        links.set_defaultsort(expander.defaultsort)
    if expanded == text:
        return expander.stats.exceeded
    found = extract_links(expanded, site.parser, site.languages)
    for name, sortkey in found.categories.items():
        links.categories.setdefault(name, sortkey)
    # Links and files the templates bring in, as MediaWiki records them from the parser output.
    links.pages |= found.pages
    links.with_fragment |= found.with_fragment
    links.images |= found.images
    links.embedded_files |= found.embedded_files
    return expander.stats.exceeded


@dataclass(frozen=True)
class RenderedLinks:
    """What a page's text names once its templates are expanded: the costly part of its link
    tables, made before the write in a rendering thread (`Database.read_rendering`), since a
    write runs on the event loop (SQLite's writer) where a slow expansion would hold every
    other request."""

    ns: int
    dbkey: str
    text: str
    links: Links
    exceeded: list[str]

    def matches(self, title: Title, text: str) -> bool:
        return self.ns == title.ns and self.dbkey == title.dbkey and self.text == text


class RenderFirst(Exception):
    """Raised by a write told to render nothing itself when the text it saves has not been
    rendered beforehand (it changed meanwhile): the caller renders it and writes again."""

    def __init__(self, title: Title, text: str) -> None:
        super().__init__(title.dbkey)
        self.title = title
        self.text = text


def render_links(conn: Conn, site: Site, title: Title, text: str) -> RenderedLinks:
    """The links of `text` and of the templates it uses, expanded; reads only."""
    links = extract_links(text, site.parser, site.languages)
    exceeded: list[str] = []
    if "{{" in text:
        exceeded = _add_transcluded_categories(conn, site, title, text, links)
    return RenderedLinks(title.ns, title.dbkey, text, links, exceeded)


def page_links(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    rendered: RenderedLinks | None = None,
    *,
    render_outside: bool = False,
    model: str = content_models.WIKITEXT,
) -> Links:
    """The link-table rows of a page with this text: what its text names, the categories and
    default sort key its templates bring, and the tracking categories it earns. `rendered`:
    the expansion made beforehand; `render_outside`: raise `RenderFirst` rather than expand
    here when it is not the expansion of this text. A page of a `model` that is not parsed
    records nothing, and only wikitext makes a redirect."""
    if model not in content_models.PARSED:
        return Links()
    if rendered is None or not rendered.matches(title, text):
        if render_outside:
            raise RenderFirst(title, text)
        rendered = render_links(conn, site, title, text)
    # A copy: the tracking categories are added to it, and a write may run twice.
    links = copy.deepcopy(rendered.links)
    add_tracking_categories(conn, title, links, list(rendered.exceeded))
    if model != content_models.WIKITEXT:
        links.redirect = None
    return links


def sha1_base36(text: str) -> str:
    """MediaWiki's rev_sha1: the SHA-1 of the text in base 36, padded to 31 characters."""
    number = int(hashlib.sha1(text.encode()).hexdigest(), 16)
    digits = []
    while number:
        number, rem = divmod(number, 36)
        digits.append(_BASE36[rem])
    return "".join(reversed(digits)).rjust(31, "0")


def category_sortkey(prefix: str, title_text: str) -> str:
    """The `uppercase` collation of `prefix\\ntitle` (or just the title), cut at 230 bytes."""
    raw = f"{prefix}\n{title_text}" if prefix else title_text
    key = raw.upper().encode()[:230]
    return key.decode(errors="ignore")


@dataclass
class Editor:
    user_id: int | None  # None for an anonymous editor (named by IP)
    name: str
    rights: frozenset[str] = field(default_factory=frozenset)


@dataclass
class SavedRevision:
    page_id: int
    rev_id: int
    parent_id: int
    timestamp: str
    created: bool
    # What the journals (recent changes) need.
    actor_id: int = 0
    comment_id: int = 0
    old_len: int | None = None
    new_len: int = 0


_page_by_title = Prepared(
    sa.select(schema.page).where(
        schema.page.c.page_namespace == sa.bindparam("ns"),
        schema.page.c.page_title == sa.bindparam("title"),
    )
)


def _insert_id(conn: Conn, table: sa.Table, values: dict[str, object], pk: str) -> int:
    stmt = sa.insert(table).values(**values).returning(table.c[pk])
    row = conn.one(stmt)
    assert row is not None
    return int(row[pk])


def save_revision(
    conn: Conn,
    site: Site,
    title: Title,
    text: str,
    editor: Editor,
    *,
    comment: str = "",
    minor: bool = False,
    timestamp: str | None = None,
    update_links: bool = True,
    count_edit: bool = True,
    rendered: RenderedLinks | None = None,
    render_outside: bool = False,
    model: str | None = None,
) -> SavedRevision:
    """Append a revision to a page (creating the page if needed) and refresh its link tables
    (`rendered`, `render_outside`: see `page_links`). `model`: the content model it saves,
    by default the page's (a new page's from its title)."""
    ts = timestamp or now14()
    page = conn.one(_page_by_title, {"ns": title.ns, "title": title.dbkey})
    if model is None:
        model = page_model(page, title)
    actor_id = ensure_actor(conn, editor.user_id, editor.name)
    comment_id = _insert_id(conn, schema.comment, {"comment_text": comment}, "comment_id")
    text_id = _insert_id(conn, schema.text, {"old_text": text, "old_flags": "utf-8"}, "old_id")
    size = len(text.encode())
    created = page is None
    if page is None:
        page_id = _insert_id(
            conn,
            schema.page,
            {
                "page_namespace": title.ns,
                "page_title": title.dbkey,
                "page_is_redirect": False,
                "page_is_new": True,
                "page_random": random.random(),
                "page_touched": ts,
                "page_latest": 0,
                "page_len": size,
                "page_content_model": model,
            },
            "page_id",
        )
        parent_id = 0
    else:
        page_id = int(page["page_id"])
        parent_id = int(page["page_latest"])
    rev_id = _insert_id(
        conn,
        schema.revision,
        {
            "rev_page": page_id,
            "rev_text_id": text_id,
            "rev_comment_id": comment_id,
            "rev_actor": actor_id,
            "rev_timestamp": ts,
            "rev_minor_edit": minor,
            "rev_deleted": 0,
            "rev_len": size,
            "rev_parent_id": parent_id,
            "rev_sha1": sha1_base36(text),
            "rev_content_model": model,
            "rev_content_format": content_models.format_of(model),
        },
        "rev_id",
    )
    links = (
        page_links(conn, site, title, text, rendered, render_outside=render_outside, model=model)
        if update_links
        else None
    )
    is_redirect = links.redirect is not None if links is not None else False
    was_redirect = page is not None and bool(page["page_is_redirect"])
    conn.execute(
        sa.update(schema.page)
        .where(schema.page.c.page_id == page_id)
        .values(
            page_latest=rev_id,
            page_len=size,
            page_touched=ts,
            page_links_updated=ts,
            page_is_new=created,
            page_is_redirect=is_redirect,
            page_content_model=model,
        )
    )
    if links is not None:
        write_links(conn, page_id, title, links, ts)
    invalidation.touch(
        conn,
        [title],
        invalidation.revision_change(rev_id),
        existence=created or is_redirect != was_redirect,
    )
    search.index_page(conn, page_id, title.dbkey, text)
    if count_edit and editor.user_id:
        conn.execute(
            sa.update(schema.user)
            .where(schema.user.c.user_id == editor.user_id)
            .values(user_editcount=schema.user.c.user_editcount + 1)
        )
    old_len = None if page is None else int(page["page_len"])
    return SavedRevision(
        page_id, rev_id, parent_id, ts, created, actor_id, comment_id, old_len, size
    )


def page_model(page: Any, title: Title) -> str:
    """The content model of a page row, or the one a page of this title would be created in."""
    if page is not None:
        return str(page["page_content_model"])
    return content_models.default_model(title.ns, title.text)


def _missing_pages(conn: Conn, titles: set[tuple[int, str]]) -> set[tuple[int, str]]:
    if not titles:
        return set()
    p = schema.page
    found = conn.all(
        sa.select(p.c.page_namespace, p.c.page_title).where(
            sa.or_(*[sa.and_(p.c.page_namespace == n, p.c.page_title == t) for n, t in titles])
        )
    )
    return titles - {(int(r["page_namespace"]), str(r["page_title"])) for r in found}


def external_link_rows(page_id: int, urls: Iterable[str]) -> list[dict[str, object]]:
    """`externallinks` rows: one per LinkFilter index of each URL (none for a URL it cannot
    index, two for a protocol-relative one), as LinksUpdate writes them."""
    return [
        {"el_from": page_id, "el_to": url, "el_index": index, "el_index_60": index[:60]}
        for url in sorted(urls)
        for index in make_indexes(url)
    ]


def link_rows(
    page_id: int, title: Title, links: Links, ts: str, page_targets: set[tuple[int, str]]
) -> dict[str, list[dict[str, Any]]]:
    """The rows of every link table for one page, by table name; `page_targets` are its
    pagelinks (the links of its text, and for an edit also the missing templates it uses).
    A bare link to the page itself is never recorded: the parser renders it as a self-link,
    not as a link, so no backlink, count or generator sees it."""
    ns = title.ns
    own = (title.ns, title.dbkey)
    if own not in links.with_fragment:
        page_targets = page_targets - {own}
    cl_type = "subcat" if ns == NS_CATEGORY else "file" if ns == NS_FILE else "page"
    target = links.redirect
    return {
        "pagelinks": [
            {"pl_from": page_id, "pl_namespace": t_ns, "pl_title": t, "pl_from_namespace": ns}
            for t_ns, t in sorted(page_targets)
        ],
        "templatelinks": [
            {"tl_from": page_id, "tl_namespace": t_ns, "tl_title": t, "tl_from_namespace": ns}
            for t_ns, t in sorted(links.templates)
        ],
        "categorylinks": [
            {
                "cl_from": page_id,
                "cl_to": category,
                "cl_sortkey": category_sortkey(prefix or links.defaultsort, title.text),
                "cl_sortkey_prefix": prefix or links.defaultsort,
                "cl_timestamp": ts,
                "cl_collation": "uppercase",
                "cl_type": cl_type,
            }
            for category, prefix in sorted(links.categories.items())
        ],
        "imagelinks": [
            {"il_from": page_id, "il_to": name, "il_from_namespace": ns}
            for name in sorted(links.images)
        ],
        "externallinks": external_link_rows(page_id, links.external),
        "langlinks": [
            {"ll_from": page_id, "ll_lang": lang, "ll_title": target}
            for lang, target in sorted(links.langlinks.items())
        ],
        "redirect": []
        if target is None
        else [
            {
                "rd_from": page_id,
                "rd_namespace": target.ns,
                "rd_title": target.dbkey,
                "rd_interwiki": target.interwiki,
                "rd_fragment": target.fragment,
            }
        ],
        "iwlinks": [
            {"iwl_from": page_id, "iwl_prefix": prefix, "iwl_title": target}
            for prefix, target in sorted(links.interwiki)
        ],
        "page_props": [
            {"pp_page": page_id, "pp_propname": name, "pp_value": value}
            for name, value in sorted(links.props.items())
        ],
    }


def clear_links(conn: Conn, page_id: int) -> None:
    """Drop a page's rows from every link table."""
    for table, column in schema.LINK_TABLES:
        conn.execute(sa.delete(table).where(table.c[column] == page_id))


def write_links(conn: Conn, page_id: int, title: Title, links: Links, ts: str) -> None:
    """Replace the link-table rows of one page with those of its current text."""
    clear_links(conn, page_id)
    # A transclusion of a missing template renders as a link to it, so MediaWiki records one.
    page_targets = set(links.pages) | _missing_pages(conn, links.templates)
    rows = link_rows(page_id, title, links, ts, page_targets)
    for table, _ in schema.LINK_TABLES:
        if rows[table.name]:
            conn.executemany(sa.insert(table), rows[table.name])


# --- action=edit --------------------------------------------------------------------------------

_HEADING = re.compile(r"^(={1,6})(.+?)\1[ \t]*$", re.M)


def split_sections(text: str) -> list[str]:
    """Section 0 (the lead) followed by one entry per heading, each with its heading line."""
    starts = [m.start() for m in _HEADING.finditer(text)]
    bounds = [0, *starts, len(text)]
    return [text[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]


def _section_level(section: str) -> int:
    match = _HEADING.match(section)
    return len(match.group(1)) if match else 0


def replace_section(text: str, section: int, new_text: str) -> str | None:
    """The page text with one section (and its subsections) replaced; None if there is no such section."""
    parts = split_sections(text)
    if section < 0 or section >= len(parts):
        return None
    end = section + 1
    if section > 0:
        level = _section_level(parts[section])
        while end < len(parts) and _section_level(parts[end]) > level:
            end += 1
    before = "".join(parts[:section])
    after = "".join(parts[end:])
    body = new_text.rstrip("\n")
    if after:
        body += "\n\n"
    return before + body + after


@dataclass
class EditRequest:
    title: Title
    editor: Editor
    text: str | None = None
    appendtext: str | None = None
    prependtext: str | None = None
    section: str | None = None
    sectiontitle: str | None = None
    summary: str = ""
    minor: bool = False
    notminor: bool = False
    bot: bool = False
    basetimestamp: str | None = None
    starttimestamp: str | None = None
    createonly: bool = False
    nocreate: bool = False
    md5: str | None = None
    baserevid: int | None = None
    tags: tuple[str, ...] = ()
    software_tags: tuple[str, ...] = ()  # tags the software adds (`mw-undo`), not the user
    watch: bool | None = None  # add to (True) or remove from (False) the watchlist
    ip: str = "127.0.0.1"
    # Whose block and page protection the edit checks, in its own transaction (the API's edit);
    # None for writes whose caller has no such checks (the importer, the demo, tests).
    performer: Performer | None = None
    # The saved text's expansion, made before the write; with `render_outside` the write
    # raises `RenderFirst` rather than expand another text itself (see `page_links`).
    rendered: RenderedLinks | None = None
    render_outside: bool = False
    # The content model to save in (`contentmodel`); None keeps the page's.
    model: str | None = None


@dataclass
class EditOutcome:
    page_id: int
    title: Title
    nochange: bool = False
    created: bool = False
    old_rev_id: int = 0
    new_rev_id: int = 0
    timestamp: str = ""
    model: str = content_models.WIKITEXT


def _current(conn: Conn, page_id: int) -> tuple[str, str]:
    row = conn.one(
        sa.select(schema.text.c.old_text, schema.revision.c.rev_timestamp)
        .select_from(
            schema.page.join(schema.revision, schema.revision.c.rev_id == schema.page.c.page_latest)
        )
        .join(schema.text, schema.text.c.old_id == schema.revision.c.rev_text_id)
        .where(schema.page.c.page_id == page_id)
    )
    assert row is not None
    return str(row["old_text"]), str(row["rev_timestamp"])


def _conflicts(conn: Conn, page: Any, current_ts: str, req: EditRequest) -> bool:
    """EditPage::internalAttemptSave's conflict check: the base revision (`basetimestamp`,
    `baserevid`) is not the current one, unless the edit adds a new section (not a repeated
    submission of the last one) or replaces the whole page and every revision since
    `basetimestamp` is the editor's own (RevisionStore::userWasLastToEdit, 50 at most)."""
    latest = int(page["page_latest"])
    if not (
        (req.basetimestamp and req.basetimestamp != current_ts)
        or (req.baserevid is not None and req.baserevid != latest)
    ):
        return False
    R, A, C = schema.revision, schema.actor, schema.comment
    if req.section == "new":
        last = conn.one(
            sa.select(A.c.actor_name, C.c.comment_text)
            .select_from(
                R.join(A, A.c.actor_id == R.c.rev_actor).join(
                    C, C.c.comment_id == R.c.rev_comment_id
                )
            )
            .where(R.c.rev_id == latest)
        )
        return last is not None and (
            last["actor_name"] == req.editor.name and last["comment_text"] == req.summary
        )
    if req.section in (None, "") and req.basetimestamp and req.editor.user_id:
        since = conn.all(
            sa.select(A.c.actor_user)
            .select_from(R.join(A, A.c.actor_id == R.c.rev_actor))
            .where(R.c.rev_page == page["page_id"], R.c.rev_timestamp > req.basetimestamp)
            .order_by(R.c.rev_timestamp)
            .limit(50)
        )
        return any(row["actor_user"] != req.editor.user_id for row in since)
    return True


def _merged_edit(conn: Conn, page_id: int, current_text: str, req: EditRequest) -> str | None:
    """EditPage::mergeChangesIntoContent: the edit, made from its base revision, merged with
    what was saved since (None: no base revision to merge from, or the changes overlap). A
    section edit is applied to the base revision's text first, as MediaWiki does; a repeated
    new section stays a conflict."""
    if req.section == "new":
        return None
    R = schema.revision
    query = (
        sa.select(schema.text.c.old_text)
        .select_from(R.join(schema.text, schema.text.c.old_id == R.c.rev_text_id))
        .where(R.c.rev_page == page_id)
    )
    if req.baserevid is not None:
        query = query.where(R.c.rev_id == req.baserevid)
    else:  # RevisionStore::getRevisionByTimestamp: the revision saved at that very second
        query = query.where(R.c.rev_timestamp == req.basetimestamp).order_by(R.c.rev_id.desc())
    base_text = conn.scalar(query.limit(1))
    if base_text is None:
        return None
    return merge3(str(base_text), _compose(str(base_text), req), current_text)


def _check_tags(conn: Conn, tags: tuple[str, ...], rights: frozenset[str]) -> list[int]:
    """ChangeTags::canAddTagsAccompanyingChange: the `applychangetags` right, and only tags
    defined by users and active (`change_tag_def.ctd_user_defined`, set by `managetags`)."""
    if not tags:
        return []
    if "applychangetags" not in rights:
        raise ChangeError(
            "tags-apply-no-permission",
            "You do not have permission to apply change tags along with your changes.",
            "tags-apply-no-permission",
        )
    rows = conn.all(
        sa.select(schema.change_tag_def.c.ctd_id, schema.change_tag_def.c.ctd_name).where(
            schema.change_tag_def.c.ctd_name.in_(tags),
            schema.change_tag_def.c.ctd_user_defined.is_(True),
        )
    )
    known = {row["ctd_name"]: int(row["ctd_id"]) for row in rows}
    missing = [t for t in dict.fromkeys(tags) if t not in known]
    if len(missing) == 1:
        raise ChangeError(
            "tags-apply-not-allowed-one",
            f'The tag "{missing[0]}" is not allowed to be manually applied.',
            "tags-apply-not-allowed-one",
            (missing[0],),
        )
    if missing:
        raise ChangeError(
            "tags-apply-not-allowed-multi",
            f"The following tags are not allowed to be manually applied: {', '.join(missing)}",
            "tags-apply-not-allowed-multi",
            (", ".join(missing), len(missing)),
        )
    return list(dict.fromkeys(known[t] for t in tags))


def software_tag_id(conn: Conn, name: str) -> int:
    """The id of a software-defined tag (`mw-undo`, …), defined on first use as MediaWiki's
    NameTableStore does (`ctd_user_defined` false: users cannot apply it by hand)."""
    table = schema.change_tag_def
    found = conn.scalar(sa.select(table.c.ctd_id).where(table.c.ctd_name == name))
    if found is None:
        conn.execute(sa.insert(table).values(ctd_name=name, ctd_user_defined=False, ctd_count=0))
        found = conn.scalar(sa.select(table.c.ctd_id).where(table.c.ctd_name == name))
    return int(found)


def tag_revision(conn: Conn, rev_id: int, tag_ids: list[int]) -> None:
    """Apply tags to a revision and count them in their definitions (`ctd_count`)."""
    if not tag_ids:
        return
    conn.executemany(
        sa.insert(schema.change_tag), [{"ct_rev_id": rev_id, "ct_tag_id": t} for t in tag_ids]
    )
    conn.execute(
        sa.update(schema.change_tag_def)
        .where(schema.change_tag_def.c.ctd_id.in_(tag_ids))
        .values(ctd_count=schema.change_tag_def.c.ctd_count + 1)
    )


def _interface_protected() -> ChangeError:
    return ChangeError(
        "protectednamespace-interface",
        "This page provides interface text for the software on this wiki, and is protected "
        "to prevent abuse.",
        "protectedinterface",
    )


def predicted_text(conn: Conn, site: Site, req: EditRequest) -> str | None:
    """The text `edit_page` would save, composed and transformed as it does, as far as a read
    can tell (an edit conflict merges differently); None when it would save nothing, or a text
    of a model whose links are not read."""
    title = req.title
    if title.ns < 0:
        return None
    page = conn.one(_page_by_title, {"ns": title.ns, "title": title.dbkey})
    if (req.model or page_model(page, title)) not in content_models.PARSED:
        return None  # its links are not read: nothing to expand beforehand
    old_text = _current(conn, int(page["page_id"]))[0] if page is not None else ""
    try:
        composed = _compose(old_text, req)
    except ChangeError:
        return None
    new_text = transform_for_save(
        conn, site.parser, title, composed, req.editor.user_id, req.editor.name
    )
    if len(new_text.encode()) > MAX_ARTICLE_SIZE or (page is not None and new_text == old_text):
        return None
    return new_text


def edit_page(conn: Conn, site: Site, req: EditRequest) -> EditOutcome:
    """What `action=edit` changes, checked and applied in one transaction."""
    title = req.title
    if req.performer is not None:
        # Checked here rather than before the write, so a block or protection that lands
        # meanwhile is honoured.
        refuse_blocked(conn, req.performer, title)
        check_protection(conn, title, req.performer, "edit")
    if title.ns < 0 or title.ns == NS_SPECIAL:
        raise ChangeError(
            "invalidtitle",
            f'Bad title "{title.text}".',
            "apierror-invalidtitle",
            (escape_wikitext(title.text),),
        )
    protection = site.namespaces.by_id[title.ns].protection
    if protection and protection not in req.editor.rights:
        raise _interface_protected()
    tag_ids = _check_tags(conn, req.tags, req.editor.rights)
    tag_ids += [software_tag_id(conn, name) for name in req.software_tags]
    page = conn.one(_page_by_title, {"ns": title.ns, "title": title.dbkey})
    if page is None:
        if req.nocreate:
            raise ChangeError("missingtitle", "The page you specified doesn't exist.")
        if "createpage" not in req.editor.rights and title.ns % 2 == 0:
            anon = req.editor.user_id is None
            raise ChangeError(
                "cantcreate-anon" if anon else "cantcreate",
                "You do not have permission to create pages.",
                "nocreatetext" if anon else "nocreate-loggedin",
            )
        if req.section not in (None, "", "0", "new") and req.text is not None:
            raise ChangeError(
                "nosuchsection",
                f"There is no section {req.section}.",
                "apierror-nosuchsection",
                (req.section,),
            )
        old_text, old_ts, page_id = "", "", 0
    else:
        if req.createonly:
            raise ChangeError(
                "articleexists", "The article you tried to create has been created already."
            )
        page_id = int(page["page_id"])
        old_text, old_ts = _current(conn, page_id)
    old_model = page_model(page, title)
    model = req.model or old_model
    check_model_rights(title, req.editor, old_model, model)
    composed: str | None = None
    if page is not None and req.text is not None and _conflicts(conn, page, old_ts, req):
        composed = _merged_edit(conn, page_id, old_text, req)
        if composed is None:
            raise ChangeError("editconflict", "Edit conflict.", "edit-conflict")
    if composed is None:
        composed = _compose(old_text, req)
    new_text = saved_text(conn, site, title, model, composed, req.editor)
    if req.md5 is not None:
        # As ApiEditPage: appendtext/prependtext override text, for the hash too.
        supplied = (
            (req.prependtext or "") + (req.appendtext or "")
            if req.prependtext is not None or req.appendtext is not None
            else req.text or ""
        )
        if hashlib.md5(supplied.encode()).hexdigest() != req.md5.lower():
            raise ChangeError("badmd5", "The supplied MD5 hash was incorrect.")
    if len(new_text.encode()) > MAX_ARTICLE_SIZE:
        raise ChangeError(
            "contenttoobig",
            "The content you supplied exceeds the page size limit of 2,048 kibibytes.",
            params=(MAX_ARTICLE_SIZE // 1024,),  # $wgMaxArticleSize, in kibibytes
        )
    if page is not None and new_text == old_text and model == old_model:
        journal_watch(conn, req)
        return EditOutcome(page_id, title, nochange=True, model=model)
    if page is None and title.ns == NS_MEDIAWIKI and "editinterface" not in req.editor.rights:
        raise _interface_protected()
    summary = req.summary
    if req.section == "new" and req.sectiontitle is None and not summary:
        summary = ""
    if req.section == "new" and (req.sectiontitle or req.summary):
        heading = req.sectiontitle if req.sectiontitle is not None else req.summary
        summary = req.summary or f"/* {heading} */ new section"
    minor = req.minor and not req.notminor and "minoredit" in req.editor.rights and page is not None
    saved = save_revision(
        conn,
        site,
        title,
        new_text,
        req.editor,
        comment=summary,
        minor=minor,
        rendered=req.rendered,
        render_outside=req.render_outside,
        model=model,
    )
    if model != old_model and page is not None:
        # EditPage: a page saved in another model than it had is tagged as
        # Special:ChangeContentModel's changes are (and logged below, as is a page created in
        # another model than its title's default).
        tag_ids.append(software_tag_id(conn, "mw-contentmodelchange"))
    tag_revision(conn, saved.rev_id, tag_ids)
    # Before journal_edit: it marks the watchers notified, and the mail goes to those not yet.
    enotif.mail_page_change(
        conn,
        site,
        enotif.PageChange(
            title,
            req.editor.user_id,
            req.editor.name,
            summary,
            minor,
            saved.created,
            saved.rev_id,
            saved.parent_id,
            saved.timestamp,
        ),
    )
    journal_edit(conn, req, saved, minor, tag_ids)
    if model != old_model:
        log_model_change(conn, _performer(req), title, saved, old_model, model, summary, ())
    newtalk.notify_talk_edit(
        conn, title, req.editor.name, minor, frozenset(req.editor.rights), saved.timestamp
    )
    return EditOutcome(
        saved.page_id,
        title,
        created=saved.created,
        old_rev_id=saved.parent_id,
        new_rev_id=saved.rev_id,
        timestamp=saved.timestamp,
        model=model,
    )


def check_model_rights(
    title: Title, editor: Editor, old_model: str, model: str, *, editing: bool = True
) -> None:
    """The rights an edit in `model` of a page now in `old_model` needs beyond `edit`: those
    of a site or user code page for the page as it is, and to change the model,
    `editcontentmodel` and those of the page as it would be. An edit (`editing`) refuses the
    latter only as `cantchangecontentmodel` (EditPage's ContentModelChangeConstraint); a
    model change names the page's own refusal (ContentModelChange)."""
    key = config_refusal(title, old_model, editor.name, editor.rights)
    if key is not None:
        raise ChangeError(key, MESSAGES[key], key)
    if model == old_model:
        return
    cant = ChangeError(
        "cantchangecontentmodel", "You don't have permission to change the content model of a page."
    )
    if "editcontentmodel" not in editor.rights:
        raise cant
    key = config_refusal(title, model, editor.name, editor.rights)
    if key is not None:
        raise cant if editing else ChangeError(key, MESSAGES[key], key)


def _invalid_json(key: str) -> ChangeError:
    return ChangeError(
        "invalid-json-data", f"Invalid JSON: {MESSAGES[key]}", "invalid-json-data", (MESSAGES[key],)
    )


def check_content(model: str, text: str) -> None:
    """Refuse text its model cannot hold: JSON must parse."""
    if model != content_models.JSON:
        return
    problem = content_models.json_error(text)
    if problem is not None:
        raise _invalid_json(problem)


def saved_text(conn: Conn, site: Site, title: Title, model: str, text: str, editor: Editor) -> str:
    """The text an edit saves, transformed as its model does before saving (the wikitext
    pre-save transform for the parsed models); refused when the model cannot hold it."""
    if model in content_models.PARSED:
        return transform_for_save(conn, site.parser, title, text, editor.user_id, editor.name)
    # JSON is read once: the check is the decoding its pretty-printing needs anyway.
    try:
        return content_models.pre_save(model, text)
    except content_models.InvalidJson as exc:
        raise _invalid_json(exc.key) from exc


def log_model_change(
    conn: Conn,
    who: Performer,
    title: Title,
    saved: SavedRevision,
    old_model: str,
    model: str,
    reason: str,
    tags: tuple[str, ...],
    *,
    name_default: bool = False,
) -> int:
    """The `contentmodel` log entry of a page saved in a model it did not have: `new` for a
    page created in another model than its title's default, `change` otherwise. A creation
    names no old model (EditPage), or the title's default with `name_default`
    (Special:ChangeContentModel)."""
    created = saved.parent_id == 0
    log_id = log_event(
        conn,
        who,
        "contentmodel",
        "new" if created else "change",
        title,
        page_id=saved.page_id,
        reason=reason,
        params={
            "oldmodel": old_model if name_default or not created else False,
            "newmodel": model,
        },
        timestamp=saved.timestamp,
    )
    tag_ids = [software_tag_id(conn, name) for name in tags]  # checked by the caller
    if tag_ids:
        rc_id = conn.scalar(
            sa.select(schema.recentchanges.c.rc_id).where(schema.recentchanges.c.rc_logid == log_id)
        )
        conn.executemany(
            sa.insert(schema.change_tag_event),
            [{"cte_rc_id": rc_id, "cte_log_id": log_id, "cte_tag_id": t} for t in tag_ids],
        )
    return log_id


def _performer(req: EditRequest) -> Performer:
    editor = req.editor
    return Performer(editor.user_id, editor.name, editor.rights, req.ip)


def journal_watch(conn: Conn, req: EditRequest) -> None:
    if req.watch is not None and req.editor.user_id:
        watching.set_watch(conn, req.editor.user_id, req.title, req.watch)


def journal_edit(
    conn: Conn, req: EditRequest, saved: SavedRevision, minor: bool, tag_ids: list[int]
) -> None:
    """Recent changes, change tags and the watchlist of a saved edit."""
    rc_id = record_edit(
        conn,
        _performer(req),
        req.title,
        page_id=saved.page_id,
        rev_id=saved.rev_id,
        parent_id=saved.parent_id,
        comment=saved.comment_id,
        timestamp=saved.timestamp,
        minor=minor,
        bot=req.bot,
        old_len=saved.old_len,
        new_len=saved.new_len,
    )
    conn.executemany(
        sa.insert(schema.change_tag_event),
        [{"cte_rc_id": rc_id, "cte_tag_id": tag_id} for tag_id in tag_ids],
    )
    if saved.parent_id == 0:
        # $wgPageCreationLog: a page creation is also a `create` log entry, not shown in
        # recent changes (ManualLogEntry::publish to 'udp' only), with the edit summary.
        summary = conn.scalar(
            sa.select(schema.comment.c.comment_text).where(
                schema.comment.c.comment_id == saved.comment_id
            )
        )
        log_event(
            conn,
            _performer(req),
            "create",
            "create",
            req.title,
            page_id=saved.page_id,
            reason=str(summary or ""),
            timestamp=saved.timestamp,
            in_rc=False,
        )
    journal_watch(conn, req)


def _compose(old_text: str, req: EditRequest) -> str:
    section = req.section
    if req.text is not None and req.appendtext is None and req.prependtext is None:
        text = req.text
        if section is None or section == "":
            return text.rstrip()
        if section == "new":
            heading = req.sectiontitle if req.sectiontitle is not None else req.summary
            block = f"== {heading} ==\n\n{text}" if heading else text
            return (old_text.rstrip() + "\n\n" + block).strip() if old_text else block.rstrip()
        if not section.isdigit():
            raise ChangeError(
                "invalidsection", 'The "section" parameter must be a valid section ID or "new".'
            )
        replaced = replace_section(old_text, int(section), text)
        if replaced is None:
            raise ChangeError(
                "nosuchsection",
                f"There is no section {section}.",
                "apierror-nosuchsection",
                (section,),
            )
        return replaced.rstrip()
    if section not in (None, "") and section != "new":
        if not section.isdigit():
            raise ChangeError(
                "invalidsection", 'The "section" parameter must be a valid section ID or "new".'
            )
        parts = split_sections(old_text)
        index = int(section)
        if index >= len(parts):
            raise ChangeError(
                "nosuchsection",
                f"There is no section {section}.",
                "apierror-nosuchsection",
                (section,),
            )
        level = _section_level(parts[index])
        end = index + 1
        while end < len(parts) and _section_level(parts[end]) > level:
            end += 1
        current = "".join(parts[index:end]).rstrip("\n")
        updated = (req.prependtext or "") + current + (req.appendtext or "")
        replaced = replace_section(old_text, index, updated)
        assert replaced is not None
        return replaced.rstrip()
    return ((req.prependtext or "") + old_text + (req.appendtext or "")).rstrip()
