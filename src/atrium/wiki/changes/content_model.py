"""Changing a page's content model (`action=changecontentmodel`, Special:ChangeContentModel): a
new revision with the same text in the new model, tagged `mw-contentmodelchange`, and a
`contentmodel` log entry, in one transaction.

The change needs the rights to edit the page in its old model and in its new one: a wikitext
user subpage turned into JavaScript is then someone's script, and a `MediaWiki:` page turned into
CSS the site's style.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import content_models, schema
from atrium.wiki.changes import ChangeError, enotif
from atrium.wiki.changes.blocks import refuse_blocked
from atrium.wiki.changes.journal import Performer
from atrium.wiki.changes.pages import (
    Editor,
    EditRequest,
    check_content,
    check_model_rights,
    journal_edit,
    log_model_change,
    page_model,
    save_revision,
    software_tag_id,
    tag_revision,
)
from atrium.wiki.changes.pages import _check_tags as check_tags
from atrium.wiki.changes.pages import _interface_protected as interface_protected
from atrium.wiki.changes.protection import check_protection
from atrium.wiki.messages import messages
from atrium.wiki.messages.log_sentences import message
from atrium.wiki.messages.store import MESSAGES
from atrium.wiki.reads.page_view import current_text
from atrium.wiki.site import Site
from atrium.wiki.titles import Title


@dataclass(frozen=True)
class ModelChanged:
    page_id: int
    rev_id: int
    log_id: int
    model: str


def _page(conn: Conn, title: Title) -> Row | None:
    p = schema.page
    return conn.one(
        sa.select(p.c.page_id, p.c.page_content_model).where(
            p.c.page_namespace == title.ns, p.c.page_title == title.dbkey
        )
    )


def authorize(conn: Conn, site: Site, who: Performer, title: Title, model: str) -> None:
    """ContentModelChange::authorizeChange: `editcontentmodel` and `edit` of the page as it is
    and as it would be, in PermissionManager's order (namespace, code pages, protection,
    block)."""
    if not who.allowed("editcontentmodel"):
        raise ChangeError(
            "permissiondenied",
            "You don't have permission to edit the content model of a page.",
            "apierror-permissiondenied",
            (messages.message("action-editcontentmodel"),),
        )
    protection = site.namespaces.by_id[title.ns].protection
    if protection and not who.allowed(protection):
        raise interface_protected()
    old_model = page_model(_page(conn, title), title)
    editor = Editor(who.user_id, who.name, who.rights)
    check_model_rights(title, editor, old_model, model, editing=False)
    check_protection(conn, title, who, "edit")
    refuse_blocked(conn, who, title)


def summary_of(
    who: Performer, title_text: str, old_model: str | None, model: str, reason: str
) -> str:
    """The revision's summary: the log entry's sentence in plain wikitext, then the reason."""
    names = [message(f"content-model-{m}") for m in (old_model or "", model)]
    key = "logentry-contentmodel-change" if old_model else "logentry-contentmodel-new"
    sentence = message(key, who.name, who.name, f"[[{title_text}]]", *names)
    sentence = re.sub(r"\s+", " ", sentence).strip()
    return f"{sentence}: {reason}" if reason else sentence


def change_content_model(
    conn: Conn,
    site: Site,
    who: Performer,
    title: Title,
    title_text: str,
    model: str,
    reason: str,
    tags: tuple[str, ...] = (),
    bot: bool = False,
    *,
    create: bool = False,
) -> ModelChanged:
    """Save the page's text again in `model`; with `create`, a missing page is created empty in
    it (Special:ChangeContentModel), else refused as the API does."""
    page = _page(conn, title)
    if page is None and not create:
        raise ChangeError(
            "changecontentmodel-missingtitle",
            "The page you specified doesn't exist. To create a new page with a custom content "
            'model, use the "action=edit" module.',
        )
    authorize(conn, site, who, title, model)
    tag_ids = check_tags(conn, tags, who.rights)
    old_model = page_model(page, title)
    if page is not None and old_model not in content_models.EDITABLE:
        # A model no one edits here (imported as such): it cannot be turned into another.
        name = MESSAGES.get(content_models.name_key(old_model), old_model)
        raise ChangeError(
            "changecontentmodel-nodirectediting",
            f"Content model {name} does not support direct editing",
            "apierror-changecontentmodel-nodirectediting",
            (name,),
        )
    if page is not None and model == old_model:
        raise ChangeError("nochanges", "No changes were requested.")
    found = current_text(conn, title.ns, title.dbkey) if page is not None else None
    # A page created here starts empty, as each model's empty content is ("{}" for JSON).
    text = found[2] if found is not None else ("{}" if model == content_models.JSON else "")
    check_content(model, text)
    editor = Editor(who.user_id, who.name, who.rights)
    summary = summary_of(who, title_text, old_model if page is not None else None, model, reason)
    saved = save_revision(conn, site, title, text, editor, comment=summary, model=model)
    if not saved.created:
        # The tag marks a revision whose model differs from its parent's: a creation has none.
        tag_ids.append(software_tag_id(conn, "mw-contentmodelchange"))
    tag_revision(conn, saved.rev_id, tag_ids)
    bot = bot and who.allowed("bot")
    request = EditRequest(title=title, editor=editor, summary=summary, bot=bot, ip=who.ip)
    enotif.mail_page_change(
        conn,
        site,
        enotif.PageChange(
            title, who.user_id, who.name, summary, False, saved.created, saved.rev_id,
            saved.parent_id, saved.timestamp,
        ),
    )  # fmt: skip
    journal_edit(conn, request, saved, False, tag_ids)
    log_id = log_model_change(
        conn, who, title, saved, old_model, model, reason, tags, name_default=True
    )
    return ModelChanged(saved.page_id, saved.rev_id, log_id, model)


def create_or_change(
    conn: Conn,
    site: Site,
    who: Performer,
    title: Title,
    title_text: str,
    model: str,
    reason: str,
) -> ModelChanged:
    """Special:ChangeContentModel's change: a missing page is created empty in `model`, and
    the edit is a bot edit when the performer may make one."""
    return change_content_model(
        conn, site, who, title, title_text, model, reason, (), True, create=True
    )
