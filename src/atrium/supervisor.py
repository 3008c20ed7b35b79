"""What `atrium serve` becomes once the migrations are applied: granian's supervisor process.

`atrium serve` replaces itself (exec) with this module rather than starting granian in its own
image: the CLI has imported both services, Alembic and SQLAlchemy, which the supervisor would keep
for nothing (about 55 MB of PSS measured idle) and fork into every worker, whose copies its
reference counting then dirties. Here the supervisor imports granian alone, and each worker imports
the app for itself. The process id and group stay those of the command that was started, and so
does the data directory's lock (its descriptor is passed along, see core/data_lock.py).
"""

from __future__ import annotations

import sys

from atrium.core.listen import listen_problem
from atrium.ops import metrics_dir
from atrium.settings import Settings


def addresses(settings: Settings) -> str:
    """The line a person reads to know the server is up and where to open it."""
    base = settings.base_url
    parts = []
    if "chat" in settings.services:
        parts.append(f"chat {base}/")
    if "wiki" in settings.services:
        parts.append(f"wiki {base}/wiki/Main_Page")
    return f"Atrium listening on {settings.host}:{settings.port}: {', '.join(parts)}"


def main(argv: list[str]) -> None:
    host, port, workers, _lock_fd = argv
    # Asked again here, just before granian binds, since the migrations took a while.
    problem = listen_problem(host, int(port))
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        sys.exit(1)
    # Before granian, whose workers inherit the environment: see ops/metrics_dir.py.
    figures = metrics_dir.prepare(int(workers))
    try:
        _serve(host, int(port), int(workers))
    finally:
        metrics_dir.remove(figures)


def _serve(host: str, port: int, workers: int) -> None:
    from granian import Granian
    from granian.constants import Interfaces

    server = Granian(
        "atrium.server:app_from_env",
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        workers=workers,
        factory=True,
        log_access=False,
    )
    # granian's start-up hooks run once its socket is bound, so the line is never a false one.
    line = addresses(Settings.from_env())
    server.on_startup(lambda: print(line, flush=True))
    server.serve()


if __name__ == "__main__":
    main(sys.argv[1:])
