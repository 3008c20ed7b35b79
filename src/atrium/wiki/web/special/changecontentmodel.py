"""`Special:ChangeContentModel`: MediaWiki's two-step form. First the page (`pagetitle`, or
the sub-page); then, with the page fixed, its current model, the new one (any other model a page
can be edited in) and a reason. Posting it makes the same change as `action=changecontentmodel`,
except that a missing page is created empty in the new model, as MediaWiki's form does.

Restricted to `editcontentmodel`; the change needs the session's token, and the rights to edit
the page in its old and new model (someone else's script, the site's style). Refusals are shown
above the form, at 200, as MediaWiki's HTMLForm shows them.
"""

from __future__ import annotations

from markupsafe import Markup
from starlette.responses import Response

from atrium.wiki import content_models
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.blocks import Blocked
from atrium.wiki.changes.content_model import create_or_change
from atrium.wiki.limits import wiki_limits
from atrium.wiki.reads.parsing import model_of
from atrium.wiki.titles import InvalidTitle, Title
from atrium.wiki.web.special.blocknotice import block_notice
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.log_extract import log_extract
from atrium.wiki.web.special.msg import inline_html, msg_links
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import (
    Links,
    message_page,
    permission_error,
    render_with_subtitle,
    wikitext_html,
)
from atrium.wiki.web.texts import text
from atrium.wiki.wikitext.escaping import escape_wikitext

HEADING = "Change content model of a page"
# The models offered, in ContentHandlerFactory's order.
_MODELS = ("wikitext", "javascript", "json", "css", "text")
REASON_LIMIT = 500  # CommentStore::COMMENT_CHARACTER_LIMIT


def _title_error(ctx: SpecialContext, raw: str) -> tuple[Title | None, str]:
    """The page typed in, or None with HTMLTitleTextField's reason."""
    if not raw.strip():
        return None, text("htmlform-required")
    try:
        parsed = ctx.site.parser.parse(raw)
    except InvalidTitle as exc:
        return None, text(exc.key, *exc.params, exc.title or raw)
    if parsed.interwiki or not parsed.dbkey:
        return None, text("htmlform-title-badnamespace", raw)
    if parsed.ns < 0:
        return None, text("apierror-pagecannotexist")
    return Title(parsed.ns, parsed.dbkey), ""


async def _backlink(ctx: SpecialContext, title: Title | None) -> Markup | None:
    """OutputPage::addBacklinkSubtitle: "← Page", red when the page does not exist."""
    if title is None:
        return None
    name = escape_wikitext(Links(ctx.site).name(title))
    return Markup("← ") + await inline_html(ctx, f"[[:{name}]]")


def _field_text(message: str) -> Markup:
    """A field's error as HTMLForm writes it: only `&` and `<` escaped (quotes stay)."""
    return Markup(message.replace("&", "&amp;").replace("<", "&lt;"))


async def _form(
    ctx: SpecialContext,
    title: Title | None,
    raw: str,
    *,
    errors: list[Markup] | None = None,
    title_error: str = "",
    model_error: str = "",
) -> Response:
    """The title form, or with a page the model form, and that page's log."""
    values: dict[str, object] = {
        "errors": errors or [],
        "title_error": _field_text(title_error),
        "model_error": _field_text(model_error),
        "pagetitle": Links(ctx.site).name(title) if title is not None else raw,
        "model_form": title is not None,
        "log": None,
    }
    if title is not None:
        current = await ctx.db.read(model_of, title)
        options = [(m, text(content_models.name_key(m))) for m in _MODELS if m != current]
        posted = ctx.param("model")
        values.update(
            current=current,
            options=options,
            selected=posted if posted in dict(options) else options[0][0],
            reason=ctx.param("reason")[:REASON_LIMIT],
            log=await log_extract(ctx, "contentmodel", title),
        )
    return await render_with_subtitle(
        ctx, "changecontentmodel.html", HEADING, await _backlink(ctx, title), 200, **values
    )


async def _change(ctx: SpecialContext, title: Title) -> Response:
    model = ctx.param("model")
    current = await ctx.db.read(model_of, title)
    if current not in content_models.EDITABLE:
        reason = text("changecontentmodel-nodirectediting", text(content_models.name_key(current)))
        return await _form(ctx, title, "", title_error=reason)
    if model not in _MODELS or model == current:
        problems = Markup("<p>{}</p>").format(text("htmlform-invalid-input"))
        return await _form(
            ctx, title, "", errors=[problems], model_error=text("htmlform-select-badoption")
        )
    if await wiki_limits(ctx.request).ping(ctx.reader, "editcontentmodel", ctx.client_ip):
        # ThrottledError: MediaWiki's error page, at 429.
        return await message_page(ctx, "Action throttled", text("actionthrottledtext"), 429)
    try:
        await ctx.db.write(
            create_or_change, ctx.site, ctx.performer(), title, Links(ctx.site).name(title),
            model, ctx.param("reason")[:REASON_LIMIT],
        )  # fmt: skip
    except Blocked as exc:
        return await block_notice(ctx, exc.block)
    except ChangeError as exc:
        shown = [Markup(await wikitext_html(ctx, each.text)) for each in (exc, *exc.more)]
        return await _form(ctx, title, "", errors=shown)
    done = await msg_links(ctx, "changecontentmodel-success-text", title)
    return await render_with_subtitle(
        ctx, "message.html", "The content model was changed", await _backlink(ctx, title), 200,
        box="", text=Markup("<p>{}</p>").format(done),
    )  # fmt: skip


async def handle(ctx: SpecialContext) -> Response:
    if not ctx.reader.allowed("editcontentmodel"):
        project = ctx.site.namespaces.by_id[4].name
        refusal = ChangeError(
            "badaccess-groups",
            "The action you have requested is limited to users in the group: "
            f"[[{project}:Users|Users]].",
        )
        return await permission_error(ctx, "edit the content model of a page", refusal)
    raw = ctx.param("pagetitle", ctx.subpage)
    title, reason = _title_error(ctx, raw)
    if ctx.method != "POST" or not ctx.token_ok():
        # A form posted without this session's token is shown again, nothing changed, as
        # HTMLForm does; an invalid title asked for in the address starts an empty form.
        return await _form(ctx, title, "" if title is None else raw)
    if title is None:
        problems = Markup("<p>{}</p>").format(text("htmlform-invalid-input"))
        return await _form(ctx, None, raw, errors=[problems], title_error=reason)
    if ctx.param("wpFormIdentifier") != "modelform":
        return await _form(ctx, title, raw)
    return await _change(ctx, title)


PAGE = SpecialPage("ChangeContentModel", HEADING, "pagetools", handle, "editcontentmodel")
