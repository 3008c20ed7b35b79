"""What the chat's pages may show of a service composed beside it (the wiki), through values
handed to the chat's database (`Database.services`) by whoever composes them: the chat never
imports the wiki. Absent when the chat runs alone, and its part of the page with it."""

from __future__ import annotations

from atrium.core.db import Database

# The wiki's home (the top bar's "Wiki" link); with it, the client's search also finds pages.
WIKI_HOME = "wiki_home"


def wiki_home(db: Database) -> str | None:
    home = db.services.get(WIKI_HOME)
    return home if isinstance(home, str) else None
