"""What `atrium serve` becomes once the migrations are applied: granian's supervisor process.

`atrium serve` replaces itself (exec) with this module rather than starting granian in its own
image: the CLI has imported both services, Alembic and SQLAlchemy, which the supervisor would keep
for nothing (about 55 MB of PSS measured idle) and fork into every worker, whose copies its
reference counting then dirties. Here the supervisor imports granian alone, and each worker imports
the app for itself. The process id and group stay those of the command that was started.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> None:
    host, port, workers = argv
    from granian import Granian
    from granian.constants import Interfaces

    Granian(
        "atrium.server:app_from_env",
        address=host,
        port=int(port),
        interface=Interfaces.ASGI,
        workers=int(workers),
        factory=True,
        log_access=False,
    ).serve()


if __name__ == "__main__":
    main(sys.argv[1:])
