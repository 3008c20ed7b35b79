"""`Special:Contributions/<user>`: a user's edits, newest first, with a namespace filter and a
limit. A user hidden by a `hidename` block is "not registered" to readers without `hideuser`, and
no revision whose user is deleted is listed, as the API's `list=usercontribs` does."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.reads.contributions import contributions
from atrium.wiki.reads.users import account_by_name, is_hidden
from atrium.wiki.titles import Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.recentchanges import namespace_filter
from atrium.wiki.web.special.render import render
from atrium.wiki.web.visibility import shown_comment


async def handle(ctx: SpecialContext) -> Response:
    target = (ctx.param("target") or ctx.subpage).strip().replace("_", " ")
    namespace = namespace_filter(ctx)
    limit = ctx.int_param("limit", 50, 1, 500)
    entries = []
    known = True
    if target:
        account = await ctx.db.read(account_by_name, target)
        hidden = account is not None and await ctx.db.read(is_hidden, account.id)
        if hidden and not ctx.reader.allowed("hideuser"):
            known, account = False, None
        if account is not None:
            target = account.name
        rows = await ctx.db.read(contributions, target, namespace, limit) if known else []
        prefixes = {ns: ctx.site.namespaces.prefix(ns) for ns in ctx.site.namespaces.ids()}
        for row in rows:
            ns, key = int(row["page_namespace"]), str(row["page_title"])
            entries.append(
                {
                    "title": Title(ns, key),
                    "name": prefixes.get(ns, "") + key.replace("_", " "),
                    "rev_id": int(row["rev_id"]),
                    "parent": int(row["rev_parent_id"] or 0),
                    "time": local_time(str(row["rev_timestamp"])),
                    "minor": bool(row["rev_minor_edit"]),
                    "size": int(row["rev_len"] or 0),
                    "current": int(row["page_latest"]) == int(row["rev_id"]),
                    "comment": shown_comment(
                        ctx.reader, int(row["rev_deleted"] or 0), str(row["comment_text"] or "")
                    ),
                }
            )
    entries = await with_comment_html(ctx.db, ctx.site, entries)
    return await render(
        ctx,
        "contributions.html",
        f"Contributions of {target}" if target else "User contributions",
        target=target,
        known=known,
        namespace=namespace,
        limit=limit,
        entries=entries,
    )


PAGE = SpecialPage("Contributions", "User contributions", "users", handle)
