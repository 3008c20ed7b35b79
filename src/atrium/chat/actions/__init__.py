"""Every state change of the chat service, one transaction each.

An action is a plain function over a `Conn` (run through `db.write`), so that the same code serves
the API, the CLI and the tests on SQLite and PostgreSQL alike.
"""
