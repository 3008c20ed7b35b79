"""Atrium: a Zulip-compatible team chat and a MediaWiki-compatible wiki in one Python package."""
