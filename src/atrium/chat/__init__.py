"""The team chat service: a Zulip-compatible REST API under /api/v1."""
