"""What every wiki request can reach, built once at start-up: settings, the database, the loaded
site, and the browser-session store shared with the other services' pages."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from atrium.core.body_limit import limited
from atrium.core.db import Database
from atrium.core.sessions import SessionStore
from atrium.settings import Settings
from atrium.wiki import body_limits
from atrium.wiki.site import Site


@dataclass
class WikiRuntime:
    settings: Settings
    db: Database
    site: Site
    # The browser-session store shared with the other services' pages (None: no browser access).
    sessions: SessionStore | None = None

    def admit(self, request: Request, *, reads_body: bool = False) -> Request:
        """The request as the wiki's handlers take it: the site's audience on its state (the
        viewer's rights follow it) and, for api.php and index.php, its body bounded."""
        if reads_body:
            request = limited(request, body_limits.body_limit(request, self.settings))
        request.state.wiki_audience = self.site.audience
        return request
