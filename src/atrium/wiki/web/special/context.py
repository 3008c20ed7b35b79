"""What a Special page sees of a request: the site, the database, the viewer (the account the
browser's session is signed in to, and its form token), the sub-page
(`Special:Contributions/<user>`), the form's values and files, and the page an action is about.

Forms carry MediaWiki's `wpEditToken`: the browser session's CSRF token, checked with the skin's
`csrf_ok` (the token and the request's origin).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request

from atrium.core.db import Database
from atrium.wiki.changes.journal import Performer
from atrium.wiki.changes.uploads import MAX_SIZE
from atrium.wiki.files import incoming
from atrium.wiki.files.incoming import Incoming
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_SPECIAL, InvalidTitle, Title
from atrium.wiki.web.viewer import Viewer, client_ip, csrf_ok, current_viewer

TOKEN_FIELD = "wpEditToken"


@dataclass
class SpecialContext:
    request: Request
    site: Site
    db: Database
    viewer: Viewer
    name: str  # the Special page's canonical name
    subpage: str
    form: dict[str, str] = field(default_factory=dict)
    # field -> the file, spooled to the data directory (only when uploads are enabled)
    files: dict[str, Incoming] = field(default_factory=dict)
    # Every posted (name, value), repeated names too (`titles[]`).
    form_items: list[tuple[str, str]] = field(default_factory=list)
    # The page a page action (`action=protect`) is about; None on a Special page.
    target: Title | None = None

    @property
    def reader(self) -> Account:
        return self.viewer.account

    @property
    def method(self) -> str:
        return self.request.method

    @property
    def client_ip(self) -> str:
        return client_ip(self.request)

    @property
    def title(self) -> Title:
        """The page being drawn: the action's page, or `Special:<Name>`."""
        return self.target or Title(NS_SPECIAL, self.name)

    def param(self, name: str, default: str = "") -> str:
        """A value from the form body, else the query string (WebRequest's order), without NUL
        characters (no database stores them, no title holds them)."""
        value = self.form[name] if name in self.form else self.request.query_params.get(name)
        return default if value is None else value.replace("\x00", "")

    def request_form_items(self) -> list[tuple[str, str]]:
        return [(k, v.replace("\x00", "")) for k, v in self.form_items]

    def flag(self, name: str) -> bool:
        return self.param(name) not in ("", "0")

    def int_param(self, name: str, default: int, low: int, high: int) -> int:
        """A whole number clamped to [low, high]; anything else is the default."""
        text = self.param(name).strip()
        if not text.lstrip("-").isdigit() or len(text) > 18:
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
        return self.viewer.csrf_token

    def token_ok(self) -> bool:
        """True when the form was posted with this session's token, from our own origin; an
        anonymous viewer has no session to act in."""
        if not self.reader.registered:
            return False
        return csrf_ok(self.request, self.site, self.viewer, self.form.get(TOKEN_FIELD))

    def performer(self) -> Performer:
        reader = self.reader
        return Performer(reader.id or None, reader.name, frozenset(reader.rights), self.client_ip)


async def load_context(
    request: Request, site: Site, db: Database, name: str, subpage: str
) -> SpecialContext:
    """The context of a request; a posted form is read once (the request keeps it). Files are
    copied to temporary files as they are read; `discard_files` removes what is left of them."""
    form: dict[str, str] = {}
    files: dict[str, Incoming] = {}
    items: list[tuple[str, str]] = []
    if request.method == "POST":
        fields = await request.form()
        for key, value in fields.multi_items():
            if isinstance(value, str):
                form[key] = value
                items.append((key, value))
            else:
                if site.files_dir is not None:
                    file_name = value.filename or ""
                    try:
                        files[key] = await incoming.spool(
                            value, file_name, site.files_dir, MAX_SIZE
                        )
                    except incoming.TooLarge:
                        # Its size alone makes the upload refuse it as too large.
                        stand_in = incoming.spool_dir(site.files_dir) / "too-large"
                        files[key] = Incoming(file_name, stand_in, MAX_SIZE + 1)
                await value.close()
    viewer = await current_viewer(request, db)
    clean = subpage.replace("\x00", "")
    return SpecialContext(request, site, db, viewer, name, clean, form, files, items)


def discard_files(ctx: SpecialContext) -> None:
    """Remove the temporary copies of the posted files (a published one was moved away)."""
    for file in ctx.files.values():
        file.discard()
