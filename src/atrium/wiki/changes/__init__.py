"""Every state change of the wiki, each one transaction, shared by the API, the importer and the CLI.

Functions here take a `Conn` (they run inside `Database.write`) and raise `ChangeError` when the
change is refused; the API turns that into its own error, the CLI into a message.
"""

from __future__ import annotations


class ChangeError(Exception):
    """A refused change: MediaWiki's error code and message key, and the English text.

    `more` holds the refusals found with it, in order, when a change is refused for several
    reasons at once (a MediaWiki Status with several fatal errors); `several` builds one.
    """

    def __init__(
        self,
        code: str,
        text: str,
        key: str = "",
        params: tuple[object, ...] = (),
        *,
        more: tuple[ChangeError, ...] = (),
    ) -> None:
        super().__init__(text)
        self.code = code
        self.text = text
        self.key = key or f"apierror-{code}"
        self.params = params
        self.more = more

    @classmethod
    def several(cls, errors: list[ChangeError]) -> ChangeError:
        """The first refusal carrying the others; a repeated key with the same parameters is
        kept once, as `StatusValue::addError` does."""
        unique: dict[tuple[str, tuple[object, ...]], ChangeError] = {}
        for error in errors:
            unique.setdefault((error.key, error.params), error)
        first, *rest = unique.values()
        return cls(first.code, first.text, first.key, first.params, more=tuple(rest))
