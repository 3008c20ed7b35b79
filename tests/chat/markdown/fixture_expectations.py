"""Cases of Zulip's markdown fixture we do not render identically, and why.

Kept as data: a case leaves this table when the renderer learns the feature,
and the strict xfail in `test_zulip_fixture.py` fails until it does.
"""

REGULAR_XFAILS: dict[str, str] = {}

LINKIFY_XFAILS: dict[str, str] = {}
