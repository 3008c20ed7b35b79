"""Outgoing email, for any service: composing messages, the outbox table and its claims, and the
transports (an SMTP server, or the mail-sink directory when none is configured)."""
