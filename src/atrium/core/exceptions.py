"""How an unexpected exception is named where it is reported: in an error answer and in the log."""

from __future__ import annotations


def exception_class(exc: BaseException) -> str:
    """The exception's class qualified by its module (builtins by their bare name), as
    MediaWiki's `errorclass` names a PHP class."""
    kind = type(exc)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"
