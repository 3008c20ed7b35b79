"""The Zulip API version Atrium speaks. Every feature-level-dependent behaviour follows this."""

ZULIP_FEATURE_LEVEL = 185
# Zulip 7.0 is the release whose last feature level is 185.
ZULIP_VERSION = "7.0"
ZULIP_MERGE_BASE = "7.0"
