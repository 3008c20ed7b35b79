"""`/w/rest.php/v1/search/title` (MediaWiki's REST title search, which Vector 2022's search box
asks): the content pages whose titles start with `q`, each with its first sentence as the
`description` (MediaWiki leaves that to extensions such as ShortDescription), for the header's
suggestions. Readers without the `read` right are refused as the REST API refuses them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from atrium.core.db import Database
from atrium.core.page_headers import PAGE_HEADERS
from atrium.wiki.reads.prefix_search import current_texts, prefix_matches
from atrium.wiki.site import Site
from atrium.wiki.web.viewer import current_viewer
from atrium.wiki.wikitext.first_sentence import first_sentence

MAX_LIMIT = 100


def _error(key: str, text: str, status: int) -> Response:
    body = {"errorKey": key, "messageTranslations": {"en": text}, "httpCode": status}
    return JSONResponse(body, status_code=status, headers=PAGE_HEADERS)


async def title_search(request: Request, site: Site, db: Database) -> Response:
    viewer = await current_viewer(request, db)
    if not viewer.account.allowed("read"):
        return _error("rest-permission-denied-anon", "Permission denied", 403)
    query = request.query_params.get("q", "").replace("\x00", "")[:255]
    limit_text = request.query_params.get("limit", "10")
    if not limit_text.isdigit() or not 1 <= int(limit_text) <= MAX_LIMIT:
        return _error(
            "paramvalidator-outofrange-minmax",
            f"Invalid value for parameter limit: must be between 1 and {MAX_LIMIT}.",
            400,
        )
    limit = int(limit_text)
    rows = (await db.read(prefix_matches, site.parser, query, [0], limit))[:limit] if query else []
    texts = await db.read(current_texts, [int(r["page_id"]) for r in rows])
    pages = []
    for row in rows:
        page_id = int(row["page_id"])
        title = site.parser.prefixed_text(int(row["page_namespace"]), str(row["page_title"]))
        sentence = first_sentence(texts[page_id]) if page_id in texts else ""
        pages.append(
            {
                "id": page_id,
                "key": site.parser.prefixed_dbkey(
                    int(row["page_namespace"]), str(row["page_title"])
                ),
                "title": title,
                "excerpt": title,
                "matched_title": None,
                "description": sentence or None,
                "thumbnail": None,
            }
        )
    return JSONResponse({"pages": pages}, headers=PAGE_HEADERS)
