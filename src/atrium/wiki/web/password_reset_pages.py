"""`Special:PasswordReset`, and the step of `Special:UserLogin` that a temporary password leads
to: choosing a new password, which then signs the user in (MediaWiki's ResetPasswordSecondary
flow, without script)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.accounts import AccountLinks
from atrium.core.db import Database
from atrium.wiki.accounts.password_policy import password_problems
from atrium.wiki.changes.password_reset import (
    change_temporary_password,
    reset_passwords,
    reset_refused,
)
from atrium.wiki.limits import wiki_limits
from atrium.wiki.reads.temporary_password import temporary_password_ok
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_SPECIAL, Title
from atrium.wiki.web.skin import render_page
from atrium.wiki.web.specialpages import special_page
from atrium.wiki.web.texts import text
from atrium.wiki.web.viewer import csrf_ok, current_viewer

MAX_EMAIL_LENGTH = 255


@special_page("PasswordReset", group="users", post=True)
async def password_reset(
    request: Request, site: Site, db: Database, subpage: str | None
) -> Response:
    viewer = await current_viewer(request, db)
    title = Title(NS_SPECIAL, "PasswordReset")

    async def page(
        errors: list[str], done: bool = False, status: int = 200, name: str = "", email: str = ""
    ) -> Response:
        context = {
            "text": text,
            "errors": errors,
            "done": done,
            "name": name,
            "email": email,
            "sink": not site.composer.sends_mail,
            "refused": False,
        }
        return await render_page(
            request,
            site,
            db,
            "passwordreset.html",
            context,
            title=title,
            heading=text("passwordreset"),
            status=status,
        )

    address = request.client.host if request.client else ""
    if await db.read(reset_refused, viewer.account.id or None, address):
        # SpecialPasswordReset::checkExecutePermissions: an error page in place of the form.
        return await render_page(
            request,
            site,
            db,
            "passwordreset.html",
            {"text": text, "errors": [text("blocked-mailpassword")], "refused": True},
            title=title,
            heading=text("internalerror"),
        )
    if request.method != "POST":
        return await page([])
    fields = await request.form()
    form = {k: v for k, v in fields.multi_items() if isinstance(v, str)}
    name, email = form.get("wpUsername", "").strip(), form.get("wpEmail", "").strip()
    if not csrf_ok(request, site, viewer, form.get("wpEditToken")):
        return await page([text("sessionfailure")], name=name, email=email)
    if not name and not email:
        # HTMLForm shows the form again with the error, at 200.
        return await page([text("passwordreset-nodata")])
    if len(email) > MAX_EMAIL_LENGTH or (email and "@" not in email):
        return await page([text("noemailtext")], name=name, email=email)
    if await wiki_limits(request).ping(viewer.account, "mailpassword", address):
        return await page([text("actionthrottledtext")], status=429, name=name, email=email)
    caller = viewer.account.name if viewer.signed_in else None
    await reset_passwords(db, site, name or None, email or None, address, caller)
    return await page([], done=True)


async def temporary_password_matches(db: Database, account: Account, password: str) -> bool:
    """Whether `password` is the account's unexpired mailed temporary password."""
    return bool(await temporary_password_ok(db, account.id, password))


async def new_password_page(
    request: Request,
    site: Site,
    db: Database,
    name: str,
    temporary: str,
    returnto: str,
    errors: list[str] | None = None,
) -> Response:
    """The form that follows a sign-in with a temporary password. It carries the temporary
    password back (hidden), which is checked again when the new one is set. Its refusals show
    it again at 200, as the login form's do."""
    response = await render_page(
        request,
        site,
        db,
        "resetpass.html",
        {
            "text": text,
            "errors": errors or [],
            "name": name,
            "temporary": temporary,
            "returnto_value": returnto,
        },
        title=Title(NS_SPECIAL, "UserLogin"),
        heading="Reset password",
    )
    response.headers["Cache-Control"] = "no-store"
    return response


async def set_new_password(
    db: Database, account: Account, form: dict[str, str], people: AccountLinks | None = None
) -> list[str]:
    """Set the new password from the form after a temporary password; the errors, if any. A
    workspace member's one password changes for every service at once."""
    password, retype = form.get("password", ""), form.get("retype", "")
    if not password:
        return [text("authmanager-create-no-primary")]
    if password != retype:
        return [text("badretype")]
    problems = [text(p.key, *p.params) for p in password_problems(account.name, password)]
    if problems:
        return problems
    await change_temporary_password(db, account.id, password, people)
    return []
