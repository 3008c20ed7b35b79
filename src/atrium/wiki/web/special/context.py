"""What a Special page sees of a request: the site, the database, the signed-in reader, the
sub-page (`Special:Contributions/<user>`), the query and form values, and the form token.

The reader is the session of the wiki's session cookie, the one `action=login` sets, so a browser
and the API share a sign-in. Forms carry MediaWiki's `wpEditToken`: the session's CSRF token, the
same one `meta=tokens` hands the API.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from atrium.core.db import Database
from atrium.wiki.changes.journal import Performer
from atrium.wiki.reads.sessions import (
    SESSION_COOKIE,
    Session,
    check_token,
    load_session,
    make_token,
)
from atrium.wiki.reads.users import Account, anonymous
from atrium.wiki.site import Site
from atrium.wiki.titles import InvalidTitle, Title

TOKEN_FIELD = "wpEditToken"

# The wiki's skin: (site, escaped heading, body HTML, the page's title, status) -> the page.
Skin = Callable[[Site, str, str, Title | None, int], Response]


@dataclass
class SpecialContext:
    request: Request
    site: Site
    db: Database
    reader: Account
    session: Session | None
    subpage: str
    skin: Skin
    form: dict[str, str] = field(default_factory=dict)
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # field -> (name, data)
    # The page a page action (`action=protect`) is about.
    target: Title | None = None

    @property
    def method(self) -> str:
        return self.request.method

    @property
    def client_ip(self) -> str:
        return self.request.client.host if self.request.client else "127.0.0.1"

    def param(self, name: str, default: str = "") -> str:
        """A value from the form body, else the query string (WebRequest's order), without NUL
        characters (no database stores them, no title holds them)."""
        value = self.form[name] if name in self.form else self.request.query_params.get(name)
        return default if value is None else value.replace("\x00", "")

    def flag(self, name: str) -> bool:
        return self.param(name) not in ("", "0")

    def int_param(self, name: str, default: int, low: int, high: int) -> int:
        """A whole number clamped to [low, high]; anything else is the default."""
        text = self.param(name).strip()
        if not text.lstrip("-").isdigit():
            return default
        return max(low, min(high, int(text)))

    def subpage_title(self) -> Title | None:
        """The sub-page as a title (`Special:MovePage/<page>`), or None when it is not one."""
        return self.title_of(self.subpage)

    def title_of(self, text: str) -> Title | None:
        """A title typed into a form, or None when it is empty or invalid."""
        try:
            title = self.site.parser.parse(text)
        except InvalidTitle:
            return None
        if title.interwiki or not title.dbkey or title.ns < 0:
            return None
        return Title(title.ns, title.dbkey)

    @property
    def token(self) -> str:
        """The form token of this reader's session (`+\\` without one, as MediaWiki's)."""
        if self.session is None or not self.reader.registered:
            return "+\\"
        return make_token(self.session.secret, "")

    def token_ok(self) -> bool:
        """True when the form was posted with this session's token."""
        sent = self.form.get(TOKEN_FIELD, "")
        if self.session is None or not self.reader.registered:
            return False
        return check_token(self.session.secret, "", sent, anonymous=False)

    def performer(self) -> Performer:
        reader = self.reader
        return Performer(reader.id or None, reader.name, frozenset(reader.rights), self.client_ip)


async def _session(request: Request, db: Database) -> tuple[Session | None, Account]:
    ip = request.client.host if request.client else "127.0.0.1"
    session_id = request.cookies.get(SESSION_COOKIE)
    if session_id:
        found, account = await db.read(load_session, session_id)
        if found is not None:
            return found, account or anonymous(ip)
    return None, anonymous(ip)


async def reader(request: Request, db: Database) -> Account:
    """The signed-in reader of a request (anonymous without a session)."""
    return (await _session(request, db))[1]


async def load_context(
    request: Request, site: Site, db: Database, subpage: str, form: dict[str, str], skin: Skin
) -> SpecialContext:
    ip = request.client.host if request.client else "127.0.0.1"
    session: Session | None = None
    reader = anonymous(ip)
    session_id = request.cookies.get(SESSION_COOKIE)
    if session_id:
        found, account = await db.read(load_session, session_id)
        if found is not None:
            session = found
            if account is not None:
                reader = account
    return SpecialContext(
        request, site, db, reader, session, subpage.replace("\x00", ""), skin, form
    )
