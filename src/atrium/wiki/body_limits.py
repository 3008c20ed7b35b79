"""How large a request body the wiki reads, and how it refuses a larger one.

MediaWiki leaves the bound to PHP (`post_max_size`) and the web server in front of it; here it is
decided per request before the body is read. Only a multipart body can carry a file, so it may be
as large as the largest upload; any other body needs at most a whole page ($wgMaxArticleSize) in
the form's encoding, about four times its size.
"""

from __future__ import annotations

from starlette.requests import Request

from atrium.core.body_limit import MULTIPART_OVERHEAD, is_multipart
from atrium.settings import Settings
from atrium.wiki.changes.uploads import MAX_SIZE
from atrium.wiki.messages import messages as msg
from atrium.wiki.site import MAX_ARTICLE_SIZE

# A whole page's text as a form sends it (characters of up to four bytes, the other fields).
PAGE_BODY_BYTES = 4 * MAX_ARTICLE_SIZE + MULTIPART_OVERHEAD

# What the web server in front of MediaWiki answers a body over its bound with.
TOO_LARGE_STATUS = 413


def max_upload_bytes() -> int:
    """The largest file an upload (api.php `action=upload`, Special:Upload) may carry."""
    return MAX_SIZE


def body_limit(request: Request, settings: Settings) -> int:
    """The largest body this request may send to api.php or index.php."""
    page = max(settings.max_body_bytes, PAGE_BODY_BYTES)
    if is_multipart(request):
        return max(page, max_upload_bytes() + MULTIPART_OVERHEAD)
    return page


def refusal(request: Request) -> tuple[str, msg.Message]:
    """MediaWiki's code and message for the refusal: a file over PHP's size bound
    (`file-too-large`) when the body could carry one, else a page over $wgMaxArticleSize
    (`contenttoobig`), the only text that large."""
    if is_multipart(request):
        return "file-too-large", msg.api("file-too-large")
    return "contenttoobig", msg.api("apierror-contenttoobig", msg.num(MAX_ARTICLE_SIZE // 1024))
