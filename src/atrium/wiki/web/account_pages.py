"""Signing in and out in a browser: `Special:UserLogin`, `Special:UserLogout`,
`Special:CreateAccount` and `Special:ChangePassword`, with MediaWiki 1.39's form names.

The session is the shared browser session of `core` (signed in to the service "wiki"), so the
same cookie serves the pages and `api.php`. Passwords are checked as `action=login` checks them;
failed attempts are throttled as MediaWiki's `$wgPasswordAttemptThrottle` (wiki/limits.py).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from atrium.core import workers
from atrium.core.accounts import account_links
from atrium.core.db import Database
from atrium.core.session_cookies import (
    LOGIN_CSRF_COOKIE,
    SESSION_COOKIE,
    clear_cookie,
    session_token,
    set_cookie,
)
from atrium.core.sessions import SessionStore
from atrium.wiki.accounts.password_policy import password_problems
from atrium.wiki.accounts.usernames import is_creatable, normalize_username
from atrium.wiki.changes import ChangeError
from atrium.wiki.changes.accounts import set_password
from atrium.wiki.changes.registration import register
from atrium.wiki.limits import ACCOUNT_CREATION, duration, wiki_limits
from atrium.wiki.reads.password_check import linked_password_ok, password_ok
from atrium.wiki.reads.users import (
    Account,
    account_by_id,
    account_by_name,
    hash_password,
    password_hash,
)
from atrium.wiki.site import MAIN_PAGE, Site
from atrium.wiki.titles import NS_SPECIAL, InvalidTitle, Title
from atrium.wiki.web import links
from atrium.wiki.web.password_reset_pages import (
    new_password_page,
    set_new_password,
    temporary_password_matches,
)
from atrium.wiki.web.skin import render_page
from atrium.wiki.web.specialpages import special_page
from atrium.wiki.web.texts import text
from atrium.wiki.web.viewer import (
    SERVICE,
    Viewer,
    csrf_ok,
    current_viewer,
    session_store,
)


def _returnto(site: Site, value: str | None) -> Title:
    """Where to go after signing in: a local page title (never another site)."""
    try:
        title = site.parser.parse(value or MAIN_PAGE)
    except InvalidTitle:
        return site.parser.parse(MAIN_PAGE)
    if title.interwiki or not title.dbkey:
        return site.parser.parse(MAIN_PAGE)
    return title


async def _form(request: Request) -> dict[str, str]:
    fields = await request.form()
    return {k: v for k, v in fields.multi_items() if isinstance(v, str)}


def _store(request: Request) -> SessionStore:
    store = session_store(request)
    if store is None:
        raise RuntimeError("the wiki's pages need the shared session store")
    return store


async def sign_in_response(
    request: Request, site: Site, account: Account, target: Title, remember: bool
) -> Response:
    """Start a new browser session for `account` and go to `target` (no session fixation: a new
    token every time; the previous session ends, its other sign-ins with it)."""
    token, _session = await _store(request).sign_in(
        SERVICE,
        account.id,
        previous_token=session_token(request),
        user_agent=request.headers.get("user-agent", ""),
    )
    response = RedirectResponse(links.page_href(site, target), 302)
    response.headers["Cache-Control"] = "no-store"
    # Without "keep me logged in" the cookie ends with the browser (the session still expires).
    lifetime = _store(request).lifetime_seconds if remember else None
    set_cookie(response, SESSION_COOKIE, token, site.server, lifetime)
    clear_cookie(response, LOGIN_CSRF_COOKIE, site.server)
    return response


async def _login_page(
    request: Request,
    site: Site,
    db: Database,
    *,
    error: str = "",
    name: str = "",
    returnto: str = "",
) -> Response:
    viewer = await current_viewer(request, db)
    return await render_page(
        request,
        site,
        db,
        "login.html",
        {
            "error": error,
            "name": name,
            "returnto_value": returnto,
            "can_create": viewer.account.allowed("createaccount") and not viewer.signed_in,
        },
        title=Title(NS_SPECIAL, "UserLogin"),
        heading="Log in",
    )


@special_page("UserLogin", aliases=("Login",), group="login", post=True)
async def user_login(request: Request, site: Site, db: Database, subpage: str | None) -> Response:
    returnto = request.query_params.get("returnto", "")
    if request.method != "POST":
        return await _login_page(request, site, db, returnto=returnto)
    form = await _form(request)
    returnto = form.get("returnto", returnto)
    viewer = await current_viewer(request, db)
    raw_name = form.get("wpName", "")
    if not csrf_ok(request, site, viewer, form.get("wpLoginToken")):
        return await _login_page(
            request, site, db, error=text("sessionfailure"), name=raw_name, returnto=returnto
        )
    people = account_links(request)
    # A workspace member signs in with their email or wiki user name and their one password.
    by_email = people is not None and "@" in raw_name
    name = raw_name.strip().lower() if by_email else normalize_username(raw_name)
    password = form.get("wpPassword", "")
    # The login form shows itself again with the error, at 200, for every refusal below.
    if not raw_name.strip() or not password:
        # HTMLForm's check of its required fields, before any account is looked at.
        return await _login_page(
            request, site, db, error=text("htmlform-required"), name=raw_name, returnto=returnto
        )
    if name is None:
        return await _login_page(
            request, site, db, error=text("wrongpassword"), name=raw_name, returnto=returnto
        )
    address = request.client.host if request.client else ""
    throttle = wiki_limits(request).passwords
    refused = await throttle.refusal(name, address)
    if refused is not None:
        # AuthManager's throttle fails the login like a wrong password: the form again, at 200
        # (only a rate limit's ThrottledError answers 429 in MediaWiki 1.39).
        return await _login_page(
            request, site, db, error=text("login-throttled", duration(refused.rule.window)),
            name=raw_name, returnto=returnto,
        )  # fmt: skip
    linked = await people.for_login(SERVICE, name) if people is not None else None
    account: Account | None
    if linked is not None:
        ok = await linked_password_ok(linked, password)
        account = await db.read(account_by_id, linked.user_id) if linked.user_id else None
    elif by_email:
        ok, account = await password_ok("", password), None
    else:
        account = await db.read(account_by_name, name)
        stored = await db.read(password_hash, account.id) if account is not None else ""
        ok = await password_ok(stored, password)
    if account is not None and not ok and await temporary_password_matches(db, account, password):
        # Signed in with a mailed temporary password: a new password first, then the session.
        if form.get("wpResetPass") != "1":
            return await new_password_page(request, site, db, raw_name, password, returnto)
        errors = await set_new_password(db, account, form, people)
        if errors:
            return await new_password_page(request, site, db, raw_name, password, returnto, errors)
        await _store(request).end_all_for(SERVICE, account.id)
        return await sign_in_response(request, site, account, _returnto(site, returnto), False)
    if not ok or account is None:
        await throttle.failed(name, address)
        return await _login_page(
            request, site, db, error=text("wrongpassword"), name=raw_name, returnto=returnto
        )
    return await sign_in_response(
        request, site, account, _returnto(site, returnto), form.get("wpRemember") == "1"
    )


@special_page("UserLogout", aliases=("Logout",), group="login", post=True)
async def user_logout(request: Request, site: Site, db: Database, subpage: str | None) -> Response:
    viewer = await current_viewer(request, db)
    title = Title(NS_SPECIAL, "UserLogout")
    if request.method != "POST":
        # Without script MediaWiki asks first: a GET must not sign anyone out.
        return await render_page(
            request, site, db, "logout.html", {"done": False}, title=title, heading="Log out"
        )
    form = await _form(request)
    if not viewer.signed_in or not csrf_ok(request, site, viewer, form.get("wpEditToken")):
        return await render_page(
            request,
            site,
            db,
            "logout.html",
            {"done": False, "error": text("sessionfailure")},
            title=title,
            heading="Log out",
        )
    await _store(request).sign_out(session_token(request))
    request.state.wiki_viewer = None
    response = await render_page(
        request, site, db, "logout.html", {"done": True}, title=title, heading="Log out"
    )
    clear_cookie(response, SESSION_COOKIE, site.server)
    return response


async def _create_page(
    request: Request,
    site: Site,
    db: Database,
    viewer: Viewer,
    *,
    errors: list[str] | None = None,
    values: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    return await render_page(
        request,
        site,
        db,
        "createaccount.html",
        {
            "errors": errors or [],
            "values": values or {},
            "allowed": viewer.account.allowed("createaccount"),
            "returnto_value": request.query_params.get("returnto", ""),
        },
        title=Title(NS_SPECIAL, "CreateAccount"),
        heading="Create account",
        status=status,
    )


@special_page("CreateAccount", group="login", post=True)
async def create_account(
    request: Request, site: Site, db: Database, subpage: str | None
) -> Response:
    viewer = await current_viewer(request, db)
    if not viewer.account.allowed("createaccount"):
        return await _create_page(request, site, db, viewer, status=403)
    if request.method != "POST":
        return await _create_page(request, site, db, viewer)
    form = await _form(request)
    values = {"wpName": form.get("wpName", ""), "email": form.get("email", ""),
              "realname": form.get("realname", "")}  # fmt: skip
    if not csrf_ok(request, site, viewer, form.get("wpCreateaccountToken")):
        return await _create_page(
            request, site, db, viewer, errors=[text("sessionfailure")], values=values
        )
    name = normalize_username(values["wpName"])
    password, retype = form.get("wpPassword", ""), form.get("retype", "")
    errors: list[str] = []
    if name is None or not is_creatable(name):
        errors.append(text("noname"))
    elif await db.read(account_by_name, name) is not None:
        errors.append(text("userexists"))
    elif not password:
        errors.append(text("authmanager-create-no-primary"))
    elif password != retype:
        errors.append(text("badretype"))
    else:
        errors.extend(text(p.key, *p.params) for p in password_problems(name, password))
    if errors or name is None:
        # The form shown again with the errors, at 200, as AuthManagerSpecialPage does.
        return await _create_page(request, site, db, viewer, errors=errors, values=values)
    address = request.client.host if request.client else ""
    if await wiki_limits(request).account_creation_refused(viewer.account, address):
        count, window = ACCOUNT_CREATION
        refusal = text("acct_creation_throttle_hit", count, duration(window))
        return await _create_page(request, site, db, viewer, errors=[refusal], values=values)
    stored = await workers.run(hash_password, password)
    try:
        await db.write(
            lambda conn: register(
                conn,
                name,
                password,
                None,
                email=values["email"],
                real_name=values["realname"],
                password_hash=stored,
                site=site,
            )
        )
    except ChangeError as exc:  # made meanwhile by another request
        return await _create_page(
            request, site, db, viewer, errors=[text(exc.key, *exc.params)], values=values
        )
    account = await db.read(account_by_name, name)
    assert account is not None
    return await sign_in_response(
        request, site, account, _returnto(site, form.get("returnto")), remember=False
    )


@special_page("ChangePassword", aliases=("ChangeCredentials",), group="users", post=True)
async def change_password(
    request: Request, site: Site, db: Database, subpage: str | None
) -> Response:
    viewer = await current_viewer(request, db)
    title = Title(NS_SPECIAL, "ChangePassword")

    async def page(errors: list[str], done: bool = False) -> Response:
        return await render_page(
            request,
            site,
            db,
            "changepassword.html",
            {"errors": errors, "done": done},
            title=title,
            heading="Change password",
        )

    if not viewer.signed_in:
        return RedirectResponse(
            links.special_href("UserLogin", returnto="Special:ChangePassword"), 302
        )
    if request.method != "POST":
        return await page([], done=request.query_params.get("success") == "1")
    form = await _form(request)
    if not csrf_ok(request, site, viewer, form.get("wpEditToken")):
        return await page([text("sessionfailure")])
    account = viewer.account
    current = form.get("currentpassword", "")
    password, retype = form.get("password", ""), form.get("retype", "")
    address = request.client.host if request.client else ""
    throttle = wiki_limits(request).passwords
    refused = await throttle.refusal(account.name, address)
    if refused is not None:
        return await page([text("login-throttled", duration(refused.rule.window))])
    people = account_links(request)
    linked = await people.for_user(SERVICE, account.id) if people is not None else None
    if linked is not None:
        current_ok = await linked_password_ok(linked, current)
    else:
        current_ok = await password_ok(await db.read(password_hash, account.id), current)
    # The form shown again with the error, at 200, as Special:ChangeCredentials does.
    if not current_ok:
        await throttle.failed(account.name, address)
        return await page([text("wrongpassword")])
    if not password:
        return await page([text("authmanager-create-no-primary")])
    if password != retype:
        return await page([text("badretype")])
    problems = [text(p.key, *p.params) for p in password_problems(account.name, password)]
    if problems:
        return await page(problems)
    # A workspace member's one password changes for every service at once.
    if people is None or not await people.change_password(SERVICE, account.id, password):
        stored = await workers.run(hash_password, password)
        await db.write(set_password, account.id, password, stored)
    # Every other browser signed in as this user is signed out; this one gets a new session.
    store = _store(request)
    await store.end_all_for(SERVICE, account.id)
    response = await sign_in_response(request, site, account, title, remember=True)
    response.headers["Location"] = links.special_href("ChangePassword", success="1")
    return response
