"""The wiki's site-wide configuration: name, URLs, namespaces, interwiki prefixes, secret key.

Loaded once at start-up from the database (namespaces and the secret live there, so every worker
of a scale-out deployment agrees on them) and passed to everything that needs it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from atrium.core.db import Conn
from atrium.core.mail.message import Composer
from atrium.wiki import schema
from atrium.wiki.titles import (
    STANDARD_ALIASES,
    Namespace,
    Namespaces,
    TitleParser,
    standard_namespaces,
)

GENERATOR = "MediaWiki 1.39.17"
SITENAME = "Atrium Wiki"
WIKI_ID = "atriumwiki"
SCRIPT_PATH = "/w"
ARTICLE_PATH = "/wiki/$1"
MAIN_PAGE = "Main Page"
MAX_ARTICLE_SIZE = 2097152  # bytes, MediaWiki's default $wgMaxArticleSize of 2048 KiB

# Interlanguage prefixes: `[[fr:Pomme]]` is a language link, as on Wikipedia.
LANGUAGE_PREFIXES: frozenset[str] = frozenset(
    [
        "ar",
        "cs",
        "da",
        "de",
        "el",
        "en",
        "eo",
        "es",
        "fa",
        "fi",
        "fr",
        "he",
        "hu",
        "id",
        "it",
        "ja",
        "ko",
        "nl",
        "no",
        "pl",
        "pt",
        "ro",
        "ru",
        "sv",
        "tr",
        "uk",
        "vi",
        "zh",
    ]
)
INTERWIKI_URL = "https://{prefix}.wikipedia.org/wiki/$1"  # each language prefix's wiki


@dataclass
class Site:
    server: str  # "http://127.0.0.1:8080"
    namespaces: Namespaces
    secret: str
    sitename: str = SITENAME
    languages: frozenset[str] = LANGUAGE_PREFIXES
    files_dir: Path | None = None  # uploads and the upload stash; None: no uploads
    # Who may use the wiki without signing in (`private`, `read` or `edit`): the rights of `*`
    # (accounts/audience.py), recorded in the site_config row `audience` (see settle_audience).
    audience: str = "edit"
    # ATRIUM_USER_CONTENT_URL: the separate, cookieless origin that serves `/images/` to
    # readers (pointed at this same server); "" serves them from the wiki's own origin.
    user_content_url: str = ""
    thumb_cache_bytes: int = 512 * 1024 * 1024  # the on-disk store of scaled copies
    # Other origins whose api.php requests may carry credentials ($wgCrossSiteAJAXdomains).
    cors_origins: tuple[str, ...] = ()
    # Interwiki prefixes besides the languages ($wgInterwikiMap): prefix -> URL with `$1`, given
    # by whoever runs a service beside the wiki (`[[chat:stream/topic]]`).
    interwiki: dict[str, str] = field(default_factory=dict)
    # Builds the wiki's mails (From, Reply-To, links); the default serves a site made by hand.
    composer: Composer = field(
        default_factory=lambda: Composer(
            "http://localhost", "noreply@localhost", "noreply@localhost"
        )
    )
    parser: TitleParser = field(init=False)

    def __post_init__(self) -> None:
        self.parser = TitleParser(self.namespaces, {*self.languages, *self.interwiki})

    def add_interwiki(self, prefix: str, url: str) -> None:
        """Links `[[prefix:rest]]` to `url` with `$1` replaced by the rest, wfUrlencode'd."""
        self.interwiki[prefix.lower()] = url
        self.parser = TitleParser(self.namespaces, {*self.languages, *self.interwiki})

    @property
    def private(self) -> bool:
        """`$wgGroupPermissions['*']['read'] = false`: anonymous visitors read nothing."""
        return self.audience == "private"

    @property
    def api_url(self) -> str:
        return f"{self.server}{SCRIPT_PATH}/api.php"

    @property
    def images_url(self) -> str:
        """The absolute base of file URLs (`prop=imageinfo`'s `url` and `thumburl`)."""
        return f"{self.user_content_url or self.server}/images/"

    @property
    def images_path(self) -> str:
        """The base of file URLs in pages: the wiki's own `/images/`, or the user content
        origin's."""
        return f"{self.user_content_url}/images/" if self.user_content_url else "/images/"

    def article_url(self, prefixed_dbkey: str) -> str:
        return self.server + ARTICLE_PATH.replace("$1", prefixed_dbkey)

    def interwiki_url(self, prefix: str, title: str) -> str:
        """The URL of an interwiki title (`fr:Page name`): the prefix's map URL (as
        `siprop=interwikimap` lists it) with `$1` = the rest, underscored and wfUrlencode'd."""
        rest = title.split(":", 1)[1] if ":" in title else ""
        target = quote(rest.replace(" ", "_"), safe=";:@$!*(),/~")
        return INTERWIKI_URL.replace("{prefix}", prefix).replace("$1", target)


def ensure_site_rows(conn: Conn, sitename: str = SITENAME) -> None:
    """First start: the standard namespaces, their aliases and a fresh secret key."""
    if conn.scalar(sa.select(sa.func.count()).select_from(schema.namespace)) == 0:
        conn.executemany(
            sa.insert(schema.namespace),
            [
                {
                    "ns_id": ns.id,
                    "ns_name": ns.name,
                    "ns_canonical": ns.canonical,
                    "ns_case": ns.case,
                    "ns_subpages": ns.subpages,
                    "ns_content": ns.content,
                    "ns_nonincludable": ns.nonincludable,
                    "ns_protection": ns.protection,
                }
                for ns in standard_namespaces(sitename)
            ],
        )
        conn.executemany(
            sa.insert(schema.namespace_alias),
            [{"nsa_name": name, "nsa_ns": ns} for name, ns in STANDARD_ALIASES],
        )
    if (
        conn.scalar(
            sa.select(schema.site_config.c.sc_value).where(schema.site_config.c.sc_name == "secret")
        )
        is None
    ):
        conn.execute(
            sa.insert(schema.site_config).values(sc_name="secret", sc_value=secrets.token_hex(32))
        )


def _config(conn: Conn, name: str) -> str | None:
    value = conn.scalar(
        sa.select(schema.site_config.c.sc_value).where(schema.site_config.c.sc_name == name)
    )
    return None if value is None else str(value)


def settle_audience(conn: Conn, wanted: str | None) -> str:
    """The wiki's audience, recorded in site_config so that a restart without the setting keeps
    it. `wanted` (the setting) wins and is recorded. Without it: the recorded audience; a new wiki
    (no namespaces yet) starts `private`; a wiki from before the setting existed keeps the rights
    it had (`edit`, or `private` where its old `private` row says so). Call it before
    ensure_site_rows, which makes a new wiki's namespaces."""
    # Upserts: the workers of a scale-out deployment start together on one database.
    insert = (sqlite_insert if conn.is_sqlite else postgresql_insert)(schema.site_config)
    if wanted is not None:
        row = insert.values(sc_name="audience", sc_value=wanted)
        conn.execute(
            row.on_conflict_do_update(index_elements=["sc_name"], set_={"sc_value": wanted})
        )
        return wanted
    recorded = _config(conn, "audience")
    if recorded is not None:
        return recorded
    new = conn.scalar(sa.select(sa.func.count()).select_from(schema.namespace)) == 0
    derived = "private" if new or _config(conn, "private") == "1" else "edit"
    # Another worker may have recorded it first: its choice, made on the same data, stands.
    conn.execute(insert.values(sc_name="audience", sc_value=derived).on_conflict_do_nothing())
    return _config(conn, "audience") or derived


def load_site(conn: Conn, server: str) -> Site:
    rows = conn.all(sa.select(schema.namespace).order_by(schema.namespace.c.ns_id))
    by_id = {
        row["ns_id"]: Namespace(
            id=row["ns_id"],
            canonical=row["ns_canonical"],
            name=row["ns_name"],
            case=row["ns_case"],
            subpages=bool(row["ns_subpages"]),
            content=bool(row["ns_content"]),
            nonincludable=bool(row["ns_nonincludable"]),
            protection=row["ns_protection"],
        )
        for row in rows
    }
    aliases = [
        (row["nsa_name"], row["nsa_ns"])
        for row in conn.all(
            sa.select(schema.namespace_alias).order_by(schema.namespace_alias.c.nsa_name)
        )
    ]
    secret = conn.scalar(
        sa.select(schema.site_config.c.sc_value).where(schema.site_config.c.sc_name == "secret")
    )
    project = by_id.get(4)
    sitename = project.name if project else SITENAME
    return Site(
        server=server,
        namespaces=Namespaces(by_id, aliases),
        secret=secret,
        sitename=sitename,
        audience=_config(conn, "audience") or "edit",
    )
