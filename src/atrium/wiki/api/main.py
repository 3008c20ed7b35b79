"""`api.php`: MediaWiki's ApiMain — main parameters, caller, action dispatch, and the response.

One request: raw parameters (query string and form body) -> the caller from the session cookie ->
main parameters (`action`, `format`, `formatversion`, `errorformat`, `assert`, `maxlag`, …) -> the
action module -> the result with `warnings`, `limits`, `curtimestamp`, `requestid`, rendered as JSON
(or `jsonfm`). Every `ApiUsageError` becomes MediaWiki's error shape here and nowhere else.
"""

from __future__ import annotations

import contextlib
import functools
import html
import json
import logging
import secrets
import tempfile
from pathlib import Path
from typing import Any, BinaryIO

from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import Message as AsgiMessage
from starlette.types import Receive

from atrium.core.accounts import account_links
from atrium.core.body_limit import BodyTooLarge
from atrium.core.db import Database
from atrium.core.exceptions import exception_class
from atrium.core.session_cookies import SESSION_COOKIE as BROWSER_SESSION_COOKIE
from atrium.core.session_cookies import (
    clear_cookie,
    read_cookie,
    session_token,
    set_cookie,
    set_session_cookie,
)
from atrium.core.sessions import SessionStore
from atrium.wiki import body_limits
from atrium.wiki.api import cors, formats, jsonout, multipart, readmode
from atrium.wiki.api.actions.signin import STEP_COOKIES
from atrium.wiki.api.context import DB_LAG, SESSION_COOKIE, ApiContext, ModuleIndex, Out
from atrium.wiki.api.cors import jsonp_callback
from atrium.wiki.api.errors import ApiUsageError, InternalApiError
from atrium.wiki.api.params import ParamReader, WarningEntry
from atrium.wiki.api.registry import (
    ACTIONS,
    FORMATS,
    JSON_FORMAT,
    MAIN,
    OTHER_FORMATS,
    children,
    lookup,
)
from atrium.wiki.changes.uploads import MAX_SIZE as MAX_UPLOAD_SIZE
from atrium.wiki.files import incoming
from atrium.wiki.files.incoming import Incoming
from atrium.wiki.limits import wiki_limits
from atrium.wiki.messages import messages as msg
from atrium.wiki.messages.language import CONTENT_LANGUAGE, Language, english, language
from atrium.wiki.reads.linked import as_member
from atrium.wiki.reads.page_view import link_states
from atrium.wiki.reads.sessions import (
    BROWSER_SERVICE,
    BROWSER_SESSION_PREFIX,
    TOKEN_SALTS,
    Session,
    check_token,
    load_session,
)
from atrium.wiki.reads.users import Account, account_by_id, anonymous
from atrium.wiki.reads.users import options as user_options
from atrium.wiki.runtime import WikiRuntime
from atrium.wiki.site import MAX_ARTICLE_SIZE, Site
from atrium.wiki.timestamps import iso, now14
from atrium.wiki.wikitext.html.message import MessageHtml, link_targets

log = logging.getLogger(__name__)

ERROR_FORMATS = ("plaintext", "wikitext", "html", "raw", "none", "bc")
MAX_FIELD_BYTES = 4 * MAX_ARTICLE_SIZE + 1024 * 1024
MODULE_INDEX = ModuleIndex(lookup, children)
BASE_HEADERS = {
    "Cache-Control": "private, must-revalidate, max-age=0",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Vary": "Accept-Encoding, Treat-as-Untrusted, Cookie",
}


def docref(site: Site, lang: Language | None = None) -> str:
    """The `docref` of an error: MediaWiki's two messages as `text()` in the error language."""
    lang = lang or english()
    first = msg.api("api-usage-docref", site.api_url).render(lang, msg.WIKITEXT)
    second = msg.api("api-usage-mailinglist-ref").render(lang, msg.WIKITEXT)
    return f"{first} {second}".strip()


class _Format:
    def __init__(self) -> None:
        self.name = "jsonfm"
        self.fv = 1
        self.errorformat = "bc"
        self.uselang = english()  # `uselang`
        self.lang = english()  # the error language: `errorlang`, English in bc
        self.langinfo = False  # `responselanginfo`
        self.callback: str | None = None
        self.utf8 = False
        self.ascii = False
        self.links: MessageHtml | None = None  # errorformat=html: the linked pages that exist
        self.languages_set = False
        self.xml_namespace = False  # xml: `includexmlnamespace`


async def _raw_params(
    request: Request, uploads: dict[str, Incoming] | None = None, files_dir: Path | None = None
) -> tuple[dict[str, str], frozenset[str]]:
    """The request's values in WebRequest's order (`$_POST + $_GET`: the body first, its value
    winning), and the names the query string holds. Files are copied to temporary files in
    `files_dir` as they are read (none are kept without it)."""
    query = dict(request.query_params)
    params: dict[str, str] = {}
    if request.method == "POST":
        # A text field may hold a whole page: 2 MiB ($wgMaxArticleSize) of up to 4-byte characters,
        # so that an oversized edit is refused as `contenttoobig`, not by the form parser.
        content_type = request.headers.get("content-type", "")
        boundary = multipart.boundary_of(content_type)
        with contextlib.ExitStack() as cleanup:
            reader, spooled = request, None
            if content_type.lower().startswith("multipart/"):
                # Kept in a temporary file (not in memory) for the lenient reading, should the
                # strict one refuse; the strict one reads it back from there.
                spooled = cleanup.enter_context(await _spool_body(request, files_dir))
                reader = Request(request.scope, _replay(spooled))
            try:
                form = await reader.form(max_part_size=MAX_FIELD_BYTES)
            except (HTTPException, MultiPartException):
                if spooled is not None:
                    spooled.seek(0)
                    body = spooled.read()
                else:
                    body = await request.body()
                fields, files = multipart.parse(body, boundary) if boundary else ({}, {})
                params.update(fields)
                if uploads is not None and files_dir is not None:
                    for key, (name, data) in files.items():
                        uploads[key] = _kept(name, len(data), files_dir, data)
            else:
                for key, value in form.multi_items():
                    if isinstance(value, str):
                        params[key] = value
                    elif uploads is not None and files_dir is not None:
                        name = value.filename or ""
                        try:
                            uploads[key] = await incoming.spool(
                                value, name, files_dir, MAX_UPLOAD_SIZE
                            )
                        except incoming.TooLarge:
                            uploads[key] = _kept(name, MAX_UPLOAD_SIZE + 1, files_dir)
                await form.close()
    for key, value in query.items():
        params.setdefault(key, value)
    return params, frozenset(query)


async def _spool_body(request: Request, files_dir: Path | None) -> BinaryIO:
    """The request body in an anonymous temporary file, written as it arrives."""
    directory = incoming.spool_dir(files_dir) if files_dir is not None else None
    spooled = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115 (the caller closes it)
    try:
        async for chunk in request.stream():
            spooled.write(chunk)
    except BaseException:
        spooled.close()
        raise
    spooled.seek(0)
    return spooled


def _replay(spooled: BinaryIO) -> Receive:
    """An ASGI `receive` that hands the spooled body out again, in chunks."""

    async def receive() -> AsgiMessage:
        chunk = spooled.read(incoming.CHUNK)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunk)}

    return receive


def _kept(name: str, size: int, files_dir: Path, data: bytes | None = None) -> Incoming:
    """A file the lenient reader holds whole, or a stand-in for one past the largest size (its
    size alone makes the upload refuse it as `file-too-large`)."""
    if data is not None and size <= MAX_UPLOAD_SIZE:
        return incoming.from_bytes(name, data, files_dir, MAX_UPLOAD_SIZE)
    return Incoming(name, incoming.spool_dir(files_dir) / "too-large", size)


async def _caller(
    request: Request, db: Database, store: SessionStore | None
) -> tuple[Session | None, Account]:
    """The caller: the API's own session when it is signed in, else the browser session the
    wiki's pages signed in (the shared store of `core`), else the API's anonymous session."""
    ip = request.client.host if request.client else "127.0.0.1"
    session_id = read_cookie(request, SESSION_COOKIE)
    found: tuple[Session | None, Account | None] = (None, None)
    if session_id:
        found = await db.read(load_session, session_id)
        if found[0] is not None and found[1] is not None:
            member = await as_member(account_links(request), found[1])
            return found[0], member if member is not None else anonymous(ip)
    browser = await _browser_caller(request, db, store)
    if browser is not None:
        return browser
    return found[0], anonymous(ip)


async def _browser_caller(
    request: Request, db: Database, store: SessionStore | None
) -> tuple[Session, Account] | None:
    token = session_token(request)
    if store is None or token is None:
        return None
    browser = await store.get(token)
    user_id = browser.user_id(BROWSER_SERVICE) if browser is not None else None
    if browser is None or user_id is None:
        return None
    account = await db.read(account_by_id, user_id)
    account = await as_member(account_links(request), account) if account is not None else None
    if account is None:
        return None
    # Tokens derive from the browser session's own secret; ending this session (action=logout)
    # ends the browser's session.
    return Session(
        BROWSER_SESSION_PREFIX + str(browser.id), browser.csrf_token, user_id, None
    ), account


def internal_error(request: Request, exc: Exception) -> InternalApiError:
    """An unexpected exception as MediaWiki's error, logged with its traceback under a new
    request id (WebRequest::getRequestId: 24 random hex digits), the id the client sees."""
    request_id = secrets.token_hex(12)
    log.error(
        "[%s] %s %s: caught exception of type %s",
        request_id,
        request.method,
        request.url.path,
        exception_class(exc),
        exc_info=exc,
    )
    return InternalApiError(exc, request_id)


async def handle(request: Request, rt: WikiRuntime) -> Response:
    """api.php. An exception that escapes the request's own handling (while reading the body or
    the session, or while rendering) still gets MediaWiki's error envelope, in the format read
    so far."""
    fmt = _Format()
    error: ApiUsageError
    try:
        return await _handle(request, rt, fmt)
    except BodyTooLarge:
        code, message = body_limits.refusal(request)
        error = ApiUsageError(code, message, module="main", status=body_limits.TOO_LARGE_STATUS)
    except ClientDisconnect:
        # The client left before its body arrived: nobody reads this answer, and a gone
        # client is not an internal error.
        return Response(status_code=400)
    except Exception as exc:
        error = internal_error(request, exc)
    bare = _Format()
    bare.name, bare.fv, bare.callback = fmt.name, fmt.fv, fmt.callback
    if (
        request.query_params.get("format") == "json"
    ):  # failed before reading it (createErrorPrinter)
        bare.name = "json"
    bare.errorformat = fmt.errorformat if fmt.errorformat != "html" else "plaintext"
    return _render(rt.site, bare, {}, [], error, {})


async def _handle(request: Request, rt: WikiRuntime, fmt: _Format) -> Response:
    if request.method not in ("GET", "POST", "HEAD"):
        refused = ApiUsageError(
            "invalidmethod",
            msg.api("apierror-invalidmethod"),
            module="main",
            status=405,
        )
        fmt.name = "json"
        return _render(rt.site, fmt, {}, [], refused, {})
    uploads: dict[str, Incoming] = {}
    try:
        return await _handle_with(request, rt, fmt, uploads)
    finally:
        for upload in uploads.values():
            upload.discard()


async def _handle_with(
    request: Request, rt: WikiRuntime, fmt: _Format, uploads: dict[str, Incoming]
) -> Response:
    site, db = rt.site, rt.db
    raw, query_keys = await _raw_params(request, uploads, site.files_dir)
    if raw.get("errorformat") in ERROR_FORMATS:
        fmt.errorformat = raw["errorformat"]
    session, caller = await _caller(request, db, rt.sessions)
    reader = ParamReader(
        raw,
        high_limits=caller.allowed("apihighlimits"),
        namespaces=frozenset(site.namespaces.ids()),
    )
    ctx = ApiContext(
        site=site,
        db=db,
        params=reader,
        caller=caller,
        session=session,
        out=Out(1),
        method=request.method,
        query_keys=query_keys,
        client_ip=request.client.host if request.client else "127.0.0.1",
        modules=MODULE_INDEX,
        uploads=uploads,
        shared_sessions=rt.sessions is not None,
        accounts=account_links(request),
        limits=wiki_limits(request),
        cookies={
            name: value
            for name in STEP_COOKIES
            if (value := read_cookie(request, name)) is not None
        },
    )
    ctx.message_formatter = functools.partial(_format_in_result, ctx, fmt)
    ctx.uselang_renderer = functools.partial(_render_in_uselang, ctx, fmt)
    ctx.user_language_reader = functools.partial(_user_language, ctx, fmt)
    result: dict[str, Any] = {}
    error: ApiUsageError | None = None
    headers: dict[str, str] = {}
    try:
        _read_format(reader, fmt)
        ctx.out = Out(fmt.fv)
        origin = raw.get("origin")
        if origin is not None:
            header_origin = request.headers.get("origin")
            if origin != "*" and origin != header_origin:
                return Response(
                    "'origin' parameter does not match Origin header\n",
                    status_code=403,
                    media_type="text/html; charset=UTF-8",
                )
            if origin == "*":
                headers["Access-Control-Allow-Origin"] = "*"
                headers["Access-Control-Allow-Credentials"] = "false"
                ctx.caller = anonymous(ctx.client_ip)
                ctx.session = None
            elif header_origin and cors.allowed(header_origin, site):
                headers["Access-Control-Allow-Origin"] = header_origin
                headers["Access-Control-Allow-Credentials"] = "true"
        if fmt.callback is not None:
            ctx.caller = anonymous(ctx.client_ip)
            ctx.session = None
        main = reader.read(MAIN)
        fmt.langinfo = bool(main["responselanginfo"])
        _top_level(main, result)
        await _execute(ctx, main, result)
    except ApiUsageError as exc:
        error = exc
    except Exception as exc:
        error = internal_error(request, exc)
    # Warnings raised by then are in the result before action=query puts `continue` and
    # `batchcomplete` on top of it; ApiMain's own later ones go on top of those.
    ran_with_warnings = bool(reader.warnings)
    if error is None:
        unused = {i: k for i, k in enumerate(raw) if k not in reader.used}
        if unused:
            reader.warn("main", "unrecognizedparams", msg.unrecognized_params(unused))
    headers.update(ctx.extra_headers)
    if reader.warnings or error is not None or fmt.langinfo:
        await _languages(ctx, fmt)
        if fmt.langinfo:
            result["uselang"] = fmt.uselang.code
            result["errorlang"] = fmt.lang.code
    if fmt.errorformat == "html" and (reader.warnings or error is not None):
        fmt.links = await _message_links(ctx, fmt, reader.warnings, error)
    if ctx.raw_body is not None and error is None:
        body, media_type = ctx.raw_body
        if media_type.startswith("text/xml"):  # the export's XML, as ApiFormatRaw names it
            headers["Content-Disposition"] = "inline; filename=export.xml"
        return Response(body, headers=BASE_HEADERS | headers, media_type=media_type)
    response = _render(site, fmt, result, reader.warnings, error, headers, ran_with_warnings)
    store = rt.sessions
    if ctx.end_sessions_for is not None and store is not None and error is None:
        await store.end_all_for(BROWSER_SERVICE, ctx.end_sessions_for)
    if ctx.browser_login is not None and store is not None:
        # A new token (no session fixation); the previous browser session ends. The API's
        # anonymous session that held the login token is done with.
        token, _browser = await store.sign_in(
            BROWSER_SERVICE,
            ctx.browser_login,
            previous_token=session_token(request),
            user_agent=request.headers.get("user-agent", ""),
        )
        set_session_cookie(response, token, site.server)
        clear_cookie(response, SESSION_COOKIE, site.server)
    elif ctx.new_session is not None:
        set_cookie(response, SESSION_COOKIE, ctx.new_session[0], site.server, 30 * 24 * 3600)
    elif ctx.end_session:
        clear_cookie(response, SESSION_COOKIE, site.server)
    for name, cookie in ctx.set_cookies.items():
        if cookie is None:
            clear_cookie(response, name, site.server)
        else:
            set_cookie(response, name, cookie[0], site.server, cookie[1])
    if ctx.end_session and session is not None and session.id.startswith(BROWSER_SESSION_PREFIX):
        if store is not None:
            await store.sign_out(session_token(request))
        clear_cookie(response, BROWSER_SESSION_COOKIE, site.server)
    return response


def _read_format(reader: ParamReader, fmt: _Format) -> None:
    name = reader.get_raw("format")
    if name is None:
        # ApiOpenSearch prints with its own format parameter, whose default is json.
        name = "json" if reader.get_raw("action") == "opensearch" else "jsonfm"
    if name not in FORMATS:
        fmt.name = "jsonfm"
        raise ApiUsageError(
            "badvalue", msg.badvalue_enum("format", name, list(FORMATS)), module="main"
        )
    fmt.name = name
    if name in OTHER_FORMATS:
        values = reader.read(OTHER_FORMATS[name])
        # XML is printed from the formatversion 1 result (ApiFormatXml: BC booleans, `*`
        # content); rawfm from the formatversion 2 one.
        fmt.fv = 2 if name == "rawfm" or values.get("formatversion") == "2" else 1
        fmt.xml_namespace = bool(values.get("includexmlnamespace"))
        return
    try:
        values = reader.read(JSON_FORMAT)
    except ApiUsageError as exc:
        if exc.code == "badvalue" and exc.message.params[:1] == (msg.plain("formatversion"),):
            reader.warn("json", "badvalue", exc.message)
            reader.warn(
                "main",
                "errorprinterfailed",
                msg.api("apiwarn-errorprinterfailed"),
            )
        raise
    fmt.fv = 1 if values["formatversion"] == "1" else 2
    fmt.callback = jsonp_callback(values["callback"])
    fmt.utf8 = values["utf8"]
    fmt.ascii = values["ascii"]


def _top_level(main: dict[str, Any], result: dict[str, Any]) -> None:
    if main["requestid"] is not None:
        result["requestid"] = main["requestid"]


async def _user_language(ctx: ApiContext, fmt: _Format) -> str:
    await _languages(ctx, fmt)
    return fmt.uselang.code


async def _languages(ctx: ApiContext, fmt: _Format) -> None:
    """ApiMain's set-up of `uselang` and of the error formatter's language, from raw values.

    `user` is the caller's `language` preference (anonymous callers: the content language),
    `content` the content language; bc errors and warnings are always English.
    """
    if fmt.languages_set:
        return
    fmt.languages_set = True
    raw = ctx.params.raw
    code = raw.get("uselang") or "user"
    if code == "user":
        code = CONTENT_LANGUAGE
        if ctx.caller.registered and ctx.caller.id:
            prefs = await ctx.db.read(user_options, ctx.caller.id)
            code = str(prefs.get("language") or CONTENT_LANGUAGE)
    elif code == "content":
        code = CONTENT_LANGUAGE
    fmt.uselang = language(code)
    if fmt.errorformat == "bc":
        fmt.lang = english()
        return
    errorlang = raw.get("errorlang") or "uselang"
    if errorlang == "uselang":
        fmt.lang = fmt.uselang
    else:
        fmt.lang = language(CONTENT_LANGUAGE if errorlang == "content" else errorlang)


async def _format_in_result(
    ctx: ApiContext, fmt: _Format, message: msg.Message, bc_plain: bool = False
) -> Any:
    """A message as a result value: `$msg->text()` in English for bc (markup stripped with
    `bc_plain`), else the formatted object (code, text/html/key+params, data), in
    formatversion=1 with the text under `*`."""
    await _languages(ctx, fmt)
    message = message.localized(fmt.uselang)
    if fmt.errorformat == "bc":
        return message.render(english(), msg.PLAINTEXT if bc_plain else msg.WIKITEXT)
    saved = fmt.links
    if fmt.errorformat == "html":
        fmt.links = await _message_links(ctx, fmt, [], message)
    value: dict[str, Any] = {"code": msg.api_code(message.key)}
    value.update(_message_fields(message, fmt))
    fmt.links = saved
    if message.data:
        value["data"] = message.data
    return value


async def _render_in_uselang(ctx: ApiContext, fmt: _Format, message: msg.Message, form: str) -> str:
    """A message a module words itself (`$msg->setContext($module)`): the user language."""
    await _languages(ctx, fmt)
    message = message.localized(fmt.uselang)
    links = None
    if form == msg.HTML:
        links = await _message_links(ctx, fmt, [], message, fmt.uselang)
    return message.render(fmt.uselang, form, links)


async def _message_links(
    ctx: ApiContext,
    fmt: _Format,
    warnings: list[WarningEntry],
    error: ApiUsageError | msg.Message | None,
    lang: Language | None = None,
) -> MessageHtml:
    """The pages the HTML of this response's messages links to, looked up in one read; the
    messages are rendered in `lang`, by default the error language."""
    parser = ctx.site.parser
    messages = [entry.message for entry in warnings]
    if isinstance(error, ApiUsageError):
        messages += [each.message for each in error.all_errors]
    elif error is not None:
        messages.append(error)
    targets: set[tuple[int, str]] = set()
    for message in messages:
        wikitext = message.localized(fmt.uselang).render(lang or fmt.lang, msg.WIKITEXT)
        targets |= link_targets(parser, wikitext)
    known, redirects = await ctx.db.read(link_states, targets) if targets else (set(), set())
    return MessageHtml(parser, known, redirects=redirects)


async def _execute(ctx: ApiContext, main: dict[str, Any], result: dict[str, Any]) -> None:
    action = ACTIONS[main["action"]]
    spec = action.spec
    if action.token is not None:
        _check_token(ctx, action.token, spec.path, spec.prefix)
    ctx.caller = readmode.caller_on(ctx)
    reads = readmode.query_reads(ctx) if spec.name == "query" else spec.readrights
    if reads and not ctx.caller.allowed("read"):
        raise ApiUsageError(
            "readapidenied",
            msg.api("apierror-readapidenied"),
            module="main",
        )
    if spec.writerights and not ctx.caller.allowed("writeapi"):
        raise ApiUsageError(
            "writeapidenied",
            msg.api("apierror-writeapidenied"),
            module="main",
        )
    maxlag = main["maxlag"]
    if maxlag is not None and maxlag < DB_LAG:
        ctx.extra_headers["Retry-After"] = str(max(maxlag, 5))
        ctx.extra_headers["X-Database-Lag"] = str(DB_LAG)
        raise ApiUsageError(
            "maxlag",
            msg.api("apierror-maxlag-generic", DB_LAG),
            module="main",
            extra={"host": "", "lag": DB_LAG, "type": "db"},
        )
    if spec.mustbeposted and ctx.method != "POST":
        raise ApiUsageError(
            "mustbeposted",
            msg.api("apierror-mustbeposted", spec.name),
            module="main",
        )
    _check_asserts(ctx, main)
    members = await action.handler(ctx, spec)
    result.update(members)
    if ctx.params.limits_used:
        result["limits"] = dict(ctx.params.limits_used)
    if main["curtimestamp"]:
        result["curtimestamp"] = iso(now14())


def _check_token(ctx: ApiContext, token_type: str, path: str, prefix: str) -> None:
    key = prefix + "token"
    if key not in ctx.params.raw:
        raise ApiUsageError("missingparam", msg.missingparam(key), module=path)
    if key in ctx.query_keys:
        raise ApiUsageError(
            "mustpostparams",
            msg.api("apierror-mustpostparams", key, 1),
            module=path,
        )
    token = ctx.params.get_raw(key) or ""
    secret = ctx.session_secret
    if not check_token(secret, TOKEN_SALTS[token_type], token, not ctx.caller.registered):
        raise ApiUsageError("badtoken", msg.api("apierror-badtoken"), module=path)


def _check_asserts(ctx: ApiContext, main: dict[str, Any]) -> None:
    assertion = main["assert"]
    caller = ctx.caller
    if assertion == "user" and not caller.registered:
        raise ApiUsageError(
            "assertuserfailed",
            msg.api("apierror-assertuserfailed"),
            module="main",
        )
    if assertion == "anon" and caller.registered:
        raise ApiUsageError(
            "assertanonfailed",
            msg.api("apierror-assertanonfailed"),
            module="main",
        )
    if assertion == "bot" and not caller.allowed("bot"):
        raise ApiUsageError(
            "assertbotfailed",
            msg.api("apierror-assertbotfailed"),
            module="main",
        )
    wanted = main["assertuser"]
    if wanted is not None and caller.name != wanted:
        raise ApiUsageError(
            "assertnameduserfailed",
            msg.api("apierror-assertnameduserfailed", wanted),
            module="main",
        )


# --- rendering --------------------------------------------------------------------------------


def _message_fields(message: msg.Message, fmt: _Format) -> dict[str, Any]:
    """ApiErrorFormatter::formatMessageInternal; formatversion=1 puts the text under `*`."""
    message = message.localized(fmt.uselang)
    if fmt.errorformat in ("plaintext", "wikitext", "html"):
        name = "html" if fmt.errorformat == "html" else "text"
        links = fmt.links if fmt.errorformat == "html" else None
        return {"*" if fmt.fv < 2 else name: message.render(fmt.lang, fmt.errorformat, links)}
    if fmt.errorformat == "raw":
        return {"key": message.key, "params": list(message.params)}
    return {}


def _warnings(entries: list[WarningEntry], fmt: _Format) -> Any:
    if fmt.errorformat == "bc":
        grouped: dict[str, list[str]] = {}
        for entry in entries:
            texts = grouped.setdefault(entry.module_name, [])
            text = entry.message.localized(fmt.uselang).text
            if text not in texts:  # ApiErrorFormatter_BackCompat adds no duplicate warning
                texts.append(text)
        key = "*" if fmt.fv < 2 else "warnings"
        return {name: {key: "\n".join(texts)} for name, texts in grouped.items()}
    out: list[dict[str, Any]] = []
    for entry in entries:
        item: dict[str, Any] = {"code": entry.code}
        item.update(_message_fields(entry.message, fmt))
        if entry.message.data is not None:
            item["data"] = entry.message.data
        item["module"] = entry.module_path
        if item not in out:  # ApiErrorFormatter::addWarningOrError skips an equal entry
            out.append(item)
    return out


def _error_body(site: Site, fmt: _Format, error: ApiUsageError) -> dict[str, Any]:
    if fmt.errorformat == "bc":
        info = error.message.localized(fmt.uselang).text
        body: dict[str, Any] = {"code": error.code, "info": info}
        body.update(error.extra)
        if not isinstance(error, InternalApiError):
            body["*" if fmt.fv < 2 else "docref"] = docref(site)
        return {"error": body}
    items: list[dict[str, Any]] = []
    for each in error.all_errors:
        item: dict[str, Any] = {"code": each.code}
        item.update(_message_fields(each.message, fmt))
        data = dict(each.extra)
        if each.message.data:
            data.update(each.message.data)
        if data:
            item["data"] = data
        if not isinstance(each, InternalApiError):  # MediaWiki names no module for those
            item["module"] = each.module or "main"
        if item not in items:  # ApiErrorFormatter::addWarningOrError skips an equal entry
            items.append(item)
    if isinstance(error, InternalApiError):
        return {"errors": items}
    # ApiMain adds `docref` as a content value: `*` in formatversion=1.
    return {"errors": items, "*" if fmt.fv < 2 else "docref": docref(site, fmt.lang)}


def _render(
    site: Site,
    fmt: _Format,
    result: dict[str, Any],
    warnings: list[WarningEntry],
    error: ApiUsageError | None,
    headers: dict[str, str],
    ran_with_warnings: bool = False,
) -> Response:
    body: dict[str, Any] = {}
    if ran_with_warnings and error is None:
        # ApiResult::ADD_ON_TOP: action=query's members added after the modules' warnings.
        body.update({k: result[k] for k in ("batchcomplete", "continue") if k in result})
    if warnings:
        body["warnings"] = _warnings(warnings, fmt)
    status = 200
    all_headers = dict(BASE_HEADERS)
    all_headers.update(headers)
    if error is not None:
        body.update(_error_body(site, fmt, error))
        for key in ("requestid", "uselang", "errorlang"):
            if key in result:
                body[key] = result[key]
        status = error.status
        codes = dict.fromkeys(each.code for each in error.all_errors)
        all_headers["MediaWiki-API-Error"] = ", ".join(codes)
        all_headers.update(error.headers)
    else:
        body.update(result)
    return Response(
        _encode(site, fmt, body),
        status_code=status,
        headers=all_headers,
        media_type=_media_type(fmt),
    )


_MEDIA_TYPES = {
    "xml": "text/xml; charset=utf-8",
    "php": "application/vnd.php.serialized; charset=utf-8",
    "none": "text/plain; charset=utf-8",
}


def _media_type(fmt: _Format) -> str:
    if fmt.name.endswith("fm"):
        return "text/html; charset=utf-8"
    if fmt.name in _MEDIA_TYPES:
        return _MEDIA_TYPES[fmt.name]
    if fmt.callback is not None:
        return "text/javascript; charset=utf-8"
    return "application/json; charset=utf-8"


_FORMAT_NAMES = {"jsonfm": "JSON", "rawfm": "JSON", "xmlfm": "XML", "phpfm": "PHP"}


def _pretty_page(site: Site, fmt: _Format, text: str) -> bytes:
    """The HTML page of a `…fm` format: the output, escaped, under MediaWiki's explanation."""
    kind = _FORMAT_NAMES[fmt.name]
    plain = fmt.name.removesuffix("fm") if fmt.name != "rawfm" else "json"
    return (
        '<!DOCTYPE html>\n<html lang="en" dir="ltr">\n<head>\n<meta charset="UTF-8"/>\n'
        f"<title>MediaWiki API result - {html.escape(site.sitename)}</title>\n</head>\n<body>\n"
        f"<p>This is the HTML representation of the {kind} format. HTML is good for debugging, "
        "but is unsuitable for application use.</p>\n<p>Specify the <var>format</var> parameter "
        f"to change the output format. To see the non-HTML representation of the {kind} format, "
        f"set <var>format={plain}</var>.</p>\n"
        f'<pre class="api-pretty-content">{_pre_text(text)}</pre>\n</body>\n</html>\n'
    ).encode()


def _pre_text(text: str) -> str:
    """Html::element's escaping, as MediaWiki's pretty formats show their output: `&` and `<`."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


def _encode(site: Site, fmt: _Format, body: dict[str, Any]) -> bytes:
    if fmt.name == "none":
        return b""
    if fmt.name in ("xml", "xmlfm"):
        text = formats.xml(body, pretty=fmt.name == "xmlfm", namespace=fmt.xml_namespace)
        return _pretty_page(site, fmt, text) if fmt.name == "xmlfm" else text.encode()
    if fmt.name in ("php", "phpfm"):
        text = formats.php(body)
        return _pretty_page(site, fmt, text) if fmt.name == "phpfm" else text.encode()
    if fmt.name == "rawfm":
        return _pretty_page(site, fmt, formats.raw(body))
    escape_unicode = (fmt.fv < 2 and not fmt.utf8) or (fmt.fv >= 2 and fmt.ascii)
    if fmt.name == "jsonfm":
        pretty = json.dumps(body, ensure_ascii=escape_unicode, indent=4)
        return _pretty_page(site, fmt, pretty)
    data = jsonout.compact(body, escape_unicode=escape_unicode)
    if fmt.callback is not None:
        return b"/**/" + fmt.callback.encode() + b"(" + data + b")"
    return data
