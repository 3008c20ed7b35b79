"""`action=query` and its modules: `execute.py` runs a query (the page set, module dispatch,
continuation), `prop/`, `list/` and `meta/` hold one file per module, `modules.py` lists them.

This file only re-exports: code here would see the subpackage `list` in place of the builtin.
"""

from __future__ import annotations

from atrium.wiki.api.query.execute import QUERY, execute

__all__ = ["QUERY", "execute"]
