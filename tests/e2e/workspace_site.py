"""A real `atrium serve` running both services, with the browser tests' people (workspace members:
each a chat user and a wiki user under one account) and a few wiki pages written in-process
before it starts: the workspace's browser tests share it."""

from __future__ import annotations

import configparser
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from atrium.core.db import Conn
from atrium.settings import Settings
from atrium.wiki.app import open_wiki
from atrium.wiki.changes.pages import Editor, save_revision
from atrium.wiki.reads.users import account_by_name
from tests.e2e.chat_browser import PASSWORD, USERS, Api, Site
from tests.e2e.seed import ChatUser, create_members, create_wiki_users, prepare_data_dir, zuliprc
from tests.e2e.server import atrium_env, running_server

WIKI_EDITOR = ("Editor", "editor-password-1")


def write_pages(settings: Settings, pages: dict[str, str]) -> None:
    db, site = open_wiki(settings)
    try:

        def write(conn: Conn) -> None:
            editor = account_by_name(conn, WIKI_EDITOR[0])
            assert editor is not None
            for title, text in pages.items():
                save_revision(
                    conn, site, site.parser.parse(title), text, Editor(editor.id, editor.name)
                )

        db.write_sync(write)
    finally:
        db.close()


@contextmanager
def start_workspace(
    data_dir: Path, pages: dict[str, str], seed: Callable[[Settings], Any] | None = None
) -> Iterator[Site]:
    env = atrium_env(
        data_dir,
        None,
        ATRIUM_RATE_LIMIT_API="2000",
        ATRIUM_RATE_LIMIT_PASSWORD="1000",
        ATRIUM_WIKI_FEED_SECONDS="0.5",
    )
    settings = prepare_data_dir(data_dir, None, None)
    create_members(
        settings,
        "Workspace Test",
        [ChatUser(email, name, PASSWORD, role) for email, name, role in USERS.values()],
    )
    create_wiki_users(settings, [(*WIKI_EDITOR, ["sysop"])])
    write_pages(settings, pages)
    seeded = seed(settings) if seed is not None else None
    with running_server(env) as server:
        api = {}
        for short, (email, _name, _role) in USERS.items():
            config = configparser.ConfigParser()
            config.read_string(zuliprc(settings, email, server.url))
            api[short] = Api(server.url, email, config["api"]["key"])
        users = api["olive"].call("GET", "/users")["members"]
        ids = {
            s: next(u["user_id"] for u in users if u["email"] == e)
            for s, (e, _, _) in USERS.items()
        }
        yield Site(server.url, api, ids, seeded)
