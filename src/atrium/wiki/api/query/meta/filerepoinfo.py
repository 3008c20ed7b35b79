"""`meta=filerepoinfo` (ApiQueryFileRepoInfo): the wiki's one file repository, the local one, as
FileRepo::getInfo describes it (its name, the site's name, where files and their thumbnails are
served, how file names are capitalised, the script path and favicon) and whether uploads are on.
"""

from __future__ import annotations

from typing import Any

from atrium.wiki.api.params import ModuleSpec, Param, enum
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.site import SCRIPT_PATH

# ApiQueryFileRepoInfo::getProps: the local repository's keys and `canUpload`, sorted.
PROPS = (
    "canUpload", "displayname", "favicon", "initialCapital", "local", "name", "rootUrl",
    "scriptDirUrl", "thumbUrl", "url",
)  # fmt: skip
_FLAGS = ("canUpload", "initialCapital", "local")


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    ctx = q.ctx
    site = ctx.site
    files = site.images_path.rstrip("/")
    info: dict[str, Any] = {
        "name": "local",
        "displayname": site.sitename,
        "rootUrl": files,
        "local": True,
        "url": files,
        "thumbUrl": f"{files}/thumb",
        "initialCapital": True,
        "scriptDirUrl": SCRIPT_PATH,
        "favicon": f"{site.server}/favicon.ico",
        "canUpload": site.files_dir is not None,
    }
    wanted = set(params["prop"])
    repo: dict[str, Any] = {}
    for key, value in info.items():
        if key not in wanted:
            continue
        if key in _FLAGS:
            ctx.out.flag(repo, key, bool(value))
        else:
            repo[key] = value
    q.data["repos"] = [repo]


FILEREPOINFO = ModuleSpec(
    "filerepoinfo",
    "ApiQueryFileRepoInfo",
    "meta",
    "fri",
    (Param("prop", enum(*PROPS), default="|".join(PROPS), multi=True),),
    helpurls=("https://www.mediawiki.org/wiki/Special:MyLanguage/API:Filerepoinfo",),
)


MODULE = QueryModule(FILEREPOINFO, run)
