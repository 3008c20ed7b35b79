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

from atrium.core.db import Conn
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
LANGUAGE_NAMES: dict[str, str] = {
    "ar": "العربية", "cs": "čeština", "da": "dansk", "de": "Deutsch", "el": "Ελληνικά",
    "en": "English", "eo": "Esperanto", "es": "español", "fa": "فارسی", "fi": "suomi",
    "fr": "français", "he": "עברית", "hu": "magyar", "id": "Bahasa Indonesia", "it": "italiano",
    "ja": "日本語", "ko": "한국어", "nl": "Nederlands", "no": "norsk", "pl": "polski",
    "pt": "português", "ro": "română", "ru": "русский", "sv": "svenska", "tr": "Türkçe",
    "uk": "українська", "vi": "Tiếng Việt", "zh": "中文",
}  # fmt: skip


@dataclass
class Site:
    server: str  # "http://127.0.0.1:8080"
    namespaces: Namespaces
    secret: str
    sitename: str = SITENAME
    languages: frozenset[str] = LANGUAGE_PREFIXES
    files_dir: Path | None = None  # uploads and the upload stash; None: no uploads
    # A private wiki: anonymous callers lack `read` ($wgGroupPermissions['*']['read'] = false);
    # the site_config row `private` = "1".
    private: bool = False
    # Other origins whose api.php requests may carry credentials ($wgCrossSiteAJAXdomains).
    cors_origins: tuple[str, ...] = ()
    parser: TitleParser = field(init=False)

    def __post_init__(self) -> None:
        self.parser = TitleParser(self.namespaces, self.languages)

    @property
    def api_url(self) -> str:
        return f"{self.server}{SCRIPT_PATH}/api.php"

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
    private = conn.scalar(
        sa.select(schema.site_config.c.sc_value).where(schema.site_config.c.sc_name == "private")
    )
    return Site(
        server=server,
        namespaces=Namespaces(by_id, aliases),
        secret=secret,
        sitename=sitename,
        private=private == "1",
    )
