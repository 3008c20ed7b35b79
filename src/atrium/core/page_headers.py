"""Security headers for every browser page and static file the services serve.

No inline script, no eval, no plugin, no framing, no form posting elsewhere: the page's own
scripts and styles from our origin only. Message and page HTML comes from the servers'
sanitizers; this policy is the second line should one of them let something through.
"""

from __future__ import annotations

from urllib.parse import urlsplit

# Images and media come from our origin only (uploads, emoji, thumbnails), plus Gravatar for the
# avatars of users who chose it; anything else a message links to is shown through the image
# proxy (Camo), whose origin `page_headers` adds, so readers' browsers contact no host a sender
# chose.
_IMAGES = "'self' data: blob: https://secure.gravatar.com"
_MEDIA = "'self' blob:"


def content_security_policy(media_origin: str | None = None) -> str:
    extra = f" {media_origin}" if media_origin else ""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            f"img-src {_IMAGES}{extra}",
            f"media-src {_MEDIA}{extra}",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


CONTENT_SECURITY_POLICY = content_security_policy()

PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def origin_of(url: str | None) -> str | None:
    """`scheme://host[:port]` of an absolute URL (a proxy's), None for anything else."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def page_headers(media_origin: str | None) -> dict[str, str]:
    """PAGE_HEADERS for a page that may show media proxied from `media_origin`."""
    if not media_origin:
        return PAGE_HEADERS
    return {**PAGE_HEADERS, "Content-Security-Policy": content_security_policy(media_origin)}
