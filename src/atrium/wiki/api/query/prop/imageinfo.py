"""`prop=imageinfo`: the versions of each File: page's file as ApiQueryImageInfo lists them — the
current one (when within `iistart`/`iiend`), then the old ones from `oldimage`, newest first, up to
`iilimit`; with one title the next version becomes `iistart`, with several the list stops at the
limit (MediaWiki continues them only by size). `uploadwarning` is the warning HTML an upload of that
name would show, `extmetadata` what core MediaWiki's FormatMetadata gives a local file."""

from __future__ import annotations

from typing import Any

from atrium.core.db import Row
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    TIMESTAMP,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.fileinfo import file_rows, file_titles, info, old_versions
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, badcontinue
from atrium.wiki.reads.upload_warning import exists_warning_html
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_FILE, Title


def extmetadata(row: Row, wanted: list[str] | None) -> dict[str, Any]:
    """FormatMetadata::fetchExtendedMetadata for a local file without embedded metadata shown:
    the version's time and the name without its extension, filtered by `extmetadatafilter`."""
    name = str(row["img_name"]).replace("_", " ")
    base = name.rsplit(".", 1)[0] if "." in name else name
    fields = {
        "DateTime": {
            "value": iso(str(row["img_timestamp"])),
            "source": "mediawiki-metadata",
            "hidden": "",
        },
        "ObjectName": {"value": base, "source": "mediawiki-metadata", "hidden": ""},
    }
    if wanted:
        return {k: v for k, v in fields.items() if k in wanted}
    return fields


def _continue(value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    name, sep, ts = value.partition("|")
    if not sep or "|" in ts:
        raise badcontinue()
    return name, ts


IMAGEINFO = ModuleSpec(
    "imageinfo",
    "ApiQueryImageInfo",
    "prop",
    "ii",
    (
        Param(
            "prop",
            enum(
                "archivename",
                "badfile",
                "bitdepth",
                "canonicaltitle",
                "comment",
                "commonmetadata",
                "dimensions",
                "extmetadata",
                "mediatype",
                "metadata",
                "mime",
                "parsedcomment",
                "sha1",
                "size",
                "thumbmime",
                "timestamp",
                "uploadwarning",
                "url",
                "user",
                "userid",
            ),
            default="timestamp|user",
            multi=True,
        ),
        limit(default=1),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("urlwidth", INTEGER, default=-1),
        Param("urlheight", INTEGER, default=-1),
        Param("metadataversion", default="1"),
        Param("extmetadatalanguage", default="en"),
        Param("extmetadatamultilang", BOOLEAN),
        Param("extmetadatafilter", multi=True),
        Param("urlparam", default=""),
        Param("badfilecontexttitle"),
        Param("continue"),
        Param("localonly", BOOLEAN),
    ),
)


async def imageinfo(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    props = set(params["prop"])
    titles = sorted(file_titles(q), key=lambda t: t[1])
    if not titles:
        return
    cont = _continue(params["continue"])
    if cont is not None:
        titles = [t for t in titles if t[1] >= cont[0]]
    limit, end = int(params["limit"]), params["end"]
    single = len(titles) == 1
    rows = await ctx.db.read(file_rows, [name for _, name in titles])
    warnings: dict[str, str] = {}
    if "uploadwarning" in props:
        warnings = await ctx.db.read(
            lambda conn: {
                name: exists_warning_html(conn, ctx.site, Title(NS_FILE, name))
                for _, name in titles
            }
        )

    def shown(version: Row) -> dict[str, Any]:
        vals = info(q, version, props, params)
        if "extmetadata" in props:
            vals["extmetadata"] = extmetadata(version, params["extmetadatafilter"])
        if "uploadwarning" in props:
            vals["html"] = warnings[name]
        return vals

    for key, name in titles:
        entry = q.page_entry(key)
        start = cont[1] if cont is not None and name == cont[0] else params["start"]
        row = rows.get(name)
        if row is None and not props & {"uploadwarning", "badfile"}:
            entry["imagerepository"] = ""
            continue
        entry["imagerepository"] = "local" if row is not None else ""
        if "badfile" in props:
            q.ctx.out.flag(entry, "badfile", False)
        infos = entry.setdefault("imageinfo", [])
        if row is None:
            missing: dict[str, Any] = {}
            if "uploadwarning" in props:
                missing["html"] = warnings[name]
            missing["filemissing"] = True
            infos.append(missing)
            continue
        ts = str(row["img_timestamp"])
        got_one = (start is None or ts <= start) and (end is None or ts >= end)
        if got_one:
            infos.append(shown(row))
        count = 1 if got_one else 0
        oldies = await ctx.db.read(old_versions, name, limit - count + 1, start, end)
        for oldie in oldies:
            count += 1
            if count > limit:
                if single:
                    q.continuation.add(IMAGEINFO, "start", iso(str(oldie["img_timestamp"])))
                break
            infos.append(shown(oldie))


MODULE = QueryModule(IMAGEINFO, imageinfo)
