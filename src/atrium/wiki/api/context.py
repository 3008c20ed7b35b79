"""What an API module sees of a request: parameters, caller, session, site, and the output format."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from atrium.core.accounts import AccountLinks
from atrium.core.db import Database
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import ModuleSpec, ParamReader
from atrium.wiki.changes import ChangeError
from atrium.wiki.files.incoming import Incoming
from atrium.wiki.limits import WikiLimits
from atrium.wiki.messages.messages import Message
from atrium.wiki.reads.sessions import SESSION_COOKIE as SESSION_COOKIE
from atrium.wiki.reads.sessions import Session
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site

DB_LAG = -1  # one database server, no replicas: MediaWiki reports a lag of -1


@dataclass(frozen=True)
class ModuleIndex:
    """Every module the API serves, by path (`main`, `query+info`) and by parent. Main hands it to
    the modules that describe modules (`paraminfo`, `help`), which are themselves in the index."""

    lookup: Callable[[str], ModuleSpec | None]
    children: Callable[[str], list[ModuleSpec]]


class Out:
    """The differences between formatversion 1 and 2, applied where results are built."""

    def __init__(self, fv: int) -> None:
        self.fv = fv

    def flag(self, obj: dict[str, Any], key: str, value: bool) -> None:
        """A boolean MediaWiki shows in both versions when true, and in fv2 also when false."""
        if self.fv >= 2:
            obj[key] = bool(value)
        elif value:
            obj[key] = ""

    def flag_if(self, obj: dict[str, Any], key: str, value: bool) -> None:
        """A boolean shown only when true (`""` in fv1, `true` in fv2)."""
        if value:
            obj[key] = True if self.fv >= 2 else ""

    def content(self, obj: dict[str, Any], key: str, value: Any) -> None:
        """Text content: `*` in fv1, the named key in fv2."""
        obj["*" if self.fv < 2 else key] = value


@dataclass
class ApiContext:
    site: Site
    db: Database
    params: ParamReader
    caller: Account
    session: Session | None
    out: Out
    method: str
    query_keys: frozenset[str]
    client_ip: str
    modules: ModuleIndex
    new_session: tuple[str, str] | None = None  # (id, secret) to set as cookie
    end_session: bool = False
    # The app has the shared browser-session store of `core`: a password login signs the
    # browser's session there, so the wiki's pages and the API are one session.
    shared_sessions: bool = False
    # The account a login just signed in to that shared session (main sets its cookie).
    browser_login: int | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)
    # The request's cookies by plain name (what a step of a sign-in left), and the cookies the
    # response sets: a value and its lifetime in seconds, or None to clear it.
    cookies: dict[str, str] = field(default_factory=dict)
    set_cookies: dict[str, tuple[str, int] | None] = field(default_factory=dict)
    # The account whose other browser sessions end (its password changed); main ends them.
    end_sessions_for: int | None = None
    # The person's one account across services, when the wiki runs inside a workspace.
    accounts: AccountLinks | None = None
    # The app's throttles (passwords, edits, new accounts); None in a context built by hand.
    limits: WikiLimits | None = None
    # A body sent as it is instead of the formatted result (`exportnowrap`): bytes, media type.
    raw_body: tuple[bytes, str] | None = None
    uploads: dict[str, Incoming] = field(default_factory=dict)  # file fields, spooled to disk
    # A message inside the result (`invalidreason`) in the response's error format; set by main.
    message_formatter: Callable[[Message, bool], Awaitable[Any]] | None = None
    # A message as a module's own text in the user language (`wikitext`, `html`); set by main.
    uselang_renderer: Callable[[Message, str], Awaitable[str]] | None = None
    # Reads the user language's code (`uselang`, else the caller's preference); set by main.
    user_language_reader: Callable[[], Awaitable[str]] | None = None

    @property
    def fv(self) -> int:
        return self.out.fv

    def read(self, module: ModuleSpec, extra_prefix: str = "") -> dict[str, Any]:
        return self.params.read(module, extra_prefix)

    def warn(self, module: ModuleSpec | str, code: str, message: Message) -> None:
        self.params.warn(module, code, message)

    async def format_message(self, message: Message, bc_plain: bool = False) -> Any:
        """ApiErrorFormatter::formatMessage: in bc English text (its markup stripped with
        `bc_plain`, as ApiLogin does), else the object of the response's error format."""
        if self.message_formatter is None:
            return message.render("en", "plaintext" if bc_plain else "wikitext")
        return await self.message_formatter(message, bc_plain)

    async def render_in_uselang(self, message: Message, form: str) -> str:
        """`$msg->setContext($module)->text()` (`wikitext`) or its HTML (`html`): the user
        language, whatever `errorlang` says."""
        if self.uselang_renderer is None:
            return message.render("en", form)
        return await self.uselang_renderer(message, form)

    async def user_language(self) -> str:
        """The user language's code, for what a module answers in it (language names)."""
        if self.user_language_reader is None:
            return "en"
        return await self.user_language_reader()

    @property
    def session_secret(self) -> str | None:
        if self.new_session is not None:
            return self.new_session[1]
        return self.session.secret if self.session is not None else None


def change_error(exc: ChangeError, module: str) -> ApiUsageError:
    """A refused change as an API error: its code, and its message from the message store (and
    so for each further refusal it carries)."""
    more = tuple(change_error(other, module) for other in exc.more)
    return ApiUsageError(exc.code, Message(exc.key, exc.params), module=module, more=more)


@contextmanager
def change_errors(module: str) -> Iterator[None]:
    """Run changes whose refusal (`ChangeError`) is this module's API error."""
    try:
        yield
    except ChangeError as exc:
        raise change_error(exc, module) from exc
