"""Every state change of the wiki, each one transaction, shared by the API, the importer and the CLI.

Functions here take a `Conn` (they run inside `Database.write`) and raise `ChangeError` when the
change is refused; the API turns that into its own error, the CLI into a message.
"""

from __future__ import annotations


class ChangeError(Exception):
    """A refused change: MediaWiki's error code and message key, and the English text."""

    def __init__(
        self, code: str, text: str, key: str = "", params: tuple[object, ...] = ()
    ) -> None:
        super().__init__(text)
        self.code = code
        self.text = text
        self.key = key or f"apierror-{code}"
        self.params = params
