"""The sections a file description page adds around its text (ImagePage): `#file` with the image
(a thumbnail of at most 800×600 linking to the original), `#filehistory` with every version, and
`#filelinks` with the pages that use the file. A hidden uploader or summary reads "(username
removed)" / "(edit summary removed)" for readers who may not see it."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from atrium.core.db import Database, Row
from atrium.wiki.files import thumb_cache
from atrium.wiki.files.paths import archive_path, hash_path, url_name
from atrium.wiki.reads.file_page import file_page
from atrium.wiki.reads.users import Account
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_FILE, Title
from atrium.wiki.web.comments import with_comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.render import Links, template
from atrium.wiki.web.visibility import (
    DELETED_RESTRICTED,
    DELETED_USER,
    shown_comment,
    shown_user,
)

MAX_WIDTH, MAX_HEIGHT = 800, 600  # $wgImageLimits for the default `imagesize` preference
USAGE_LIMIT = 100


@dataclass(frozen=True)
class Version:
    current: bool
    time: str
    url: str
    thumb: str
    width: int
    height: int
    size: int
    user: str | None
    comment: str | None
    title: Title


def _fit(width: int, height: int, max_width: int, max_height: int) -> int:
    """The shown width of an image fitted into a box (never enlarged)."""
    if width <= 0 or height <= 0:
        return 0
    scale = min(1.0, max_width / width, max_height / height)
    return max(1, round(width * scale))


def _version(
    site: Site, reader: Account, row: Row, prefix: str, hidden: set[int], current: bool
) -> Version:
    name = str(row[f"{prefix}_name"])
    deleted = int(row["oi_deleted"] or 0) if prefix == "oi" else 0
    if row["actor_user"] and int(row["actor_user"]) in hidden:
        deleted |= DELETED_USER | DELETED_RESTRICTED
    images = site.images_path
    if current:
        rel = f"{hash_path(name)}{url_name(name)}"
    else:
        rel = archive_path(name, url_name(str(row["oi_archive_name"])))
    url = images + rel
    width, height = int(row[f"{prefix}_width"] or 0), int(row[f"{prefix}_height"] or 0)
    shown = _fit(width, height, 120, 120)
    # FileRepo names every scaled copy after the file itself, old versions' too.
    thumb = f"{images}thumb/{rel}/{shown}px-{url_name(name)}"
    if shown and shown < width:
        thumb_cache.record(site.files_dir, name, shown)
    return Version(
        current=current,
        time=local_time(str(row[f"{prefix}_timestamp"])),
        url=url,
        thumb=thumb if shown and shown < width else url,
        width=width,
        height=height,
        size=int(row[f"{prefix}_size"] or 0),
        user=shown_user(reader, deleted, str(row["actor_name"])),
        comment=shown_comment(reader, deleted, str(row["comment_text"] or "")),
        title=Title(NS_FILE, name),
    )


async def sections_html(site: Site, db: Database, reader: Account, title: Title) -> Markup:
    found = await db.read(file_page, title.dbkey, USAGE_LIMIT)
    versions = []
    if found.current is not None:
        versions.append(_version(site, reader, found.current, "img", found.hidden_users, True))
    versions += [
        _version(site, reader, row, "oi", found.hidden_users, False) for row in found.older
    ]
    versions = await with_comment_html(db, site, versions)
    display = None
    if found.current is not None:
        latest = versions[0]
        width = _fit(latest.width, latest.height, MAX_WIDTH, MAX_HEIGHT)
        name = url_name(title.dbkey)
        src = latest.url
        if width and width < latest.width:
            src = f"{site.images_path}thumb/{hash_path(title.dbkey)}{name}/{width}px-{name}"
            thumb_cache.record(site.files_dir, title.dbkey, width)
        height = round(latest.height * width / latest.width) if width else 0
        display = {"src": src, "width": width, "height": height, "original": latest.url}
    used = [Title(int(r["page_namespace"]), str(r["page_title"])) for r in found.used_by]
    return Markup(
        template("file_sections.html").render(
            links=Links(site),
            title=title,
            display=display,
            versions=versions,
            used=used,
            more_users=found.more_users,
            mime=(
                f"{found.current['img_major_mime']}/{found.current['img_minor_mime']}"
                if found.current is not None
                else ""
            ),
        )
    )
