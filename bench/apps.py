"""The ASGI applications the benchmarks serve besides `atrium serve`, and their granian launcher.

- `ceiling_app`: a bare Starlette JSON endpoint (`GET /bare`) and the same endpoint doing one SQLite
  insert with the stdlib driver inline (`GET /insert`, WAL, `synchronous=NORMAL`, one commit per
  request): the ceilings every figure is quoted against.
- `chat_app`: the chat service alone, for checkouts where `atrium serve` cannot build the wiki yet.

`python -m bench.apps ceiling|chat --port P` serves one of them exactly as `atrium serve` serves
Atrium: granian, ASGI interface, one worker, application factory, no access log.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

CEILING_DB_ENV = "BENCH_CEILING_DB"
SUCCESS = {"result": "success", "msg": ""}


def ceiling_app() -> Starlette:
    path = Path(os.environ.get(CEILING_DB_ENV, "bench-ceiling.sqlite3"))
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS hit (id INTEGER PRIMARY KEY, created REAL NOT NULL, "
        "payload TEXT NOT NULL)"
    )

    async def bare(request: Request) -> JSONResponse:
        return JSONResponse(SUCCESS)

    async def insert(request: Request) -> JSONResponse:
        conn.execute("INSERT INTO hit (created, payload) VALUES (?, ?)", (time.time(), "ceiling"))
        return JSONResponse(SUCCESS)

    return Starlette(routes=[Route("/bare", bare), Route("/insert", insert)])


def chat_app() -> Starlette:
    from atrium.server import create_app
    from atrium.settings import Settings

    return create_app(Settings.from_env(), services=("chat",))


TARGETS = {"ceiling": "bench.apps:ceiling_app", "chat": "bench.apps:chat_app"}


def serve(target: str, host: str, port: int) -> None:
    from granian import Granian
    from granian.constants import Interfaces

    Granian(
        target,
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        workers=1,
        factory=True,
        log_access=False,
    ).serve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app", choices=sorted(TARGETS))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    serve(TARGETS[args.app], args.host, args.port)


if __name__ == "__main__":
    main()
