"""The bridge's own tables (the `bridge` SQLite file or PostgreSQL schema): neither service's
database holds what joins them."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# What a rule posts: wiki changes of one scope, as the Notification Bot, to a stream's topic.
wiki_feed_rule = sa.Table(
    "wiki_feed_rule",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("realm_id", sa.Integer, nullable=False),
    sa.Column("stream_id", sa.Integer, nullable=False),
    # "" posts each change to the topic named after its page.
    sa.Column("topic", sa.String(60), nullable=False, server_default=""),
    # "all", "namespace" (target: its id), "category" (target: its name as a dbkey) or "page"
    # (target: the prefixed dbkey).
    sa.Column("scope", sa.String(16), nullable=False),
    sa.Column("target", sa.String(300), nullable=False, server_default=""),
    # Comma-separated: create, edit, move, delete, upload.
    sa.Column("events", sa.String(64), nullable=False),
    sa.Column("created_by", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

# Each notification posted, by what it showed, so that hiding that later withdraws it.
wiki_feed_post = sa.Table(
    "wiki_feed_post",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("rule_id", sa.Integer, nullable=False),
    sa.Column("message_id", sa.Integer, nullable=False),
    sa.Column("page_id", sa.Integer, nullable=False),
    sa.Column("rev_id", sa.Integer, nullable=True),
    sa.Column("log_id", sa.Integer, nullable=True),
    sa.Index("wiki_feed_post_page", "page_id"),
)

# How far the feed has read the wiki's recent changes and log (name -> last id seen).
wiki_feed_cursor = sa.Table(
    "wiki_feed_cursor",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.Integer, nullable=False),
)

# The organization's workspace settings (the discussion stream of the pages' Chat tabs).
workspace_setting = sa.Table(
    "workspace_setting",
    metadata,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("value", sa.String(300), nullable=False),
)

# Each person's own settings, by their chat user (watchlist notifications in chat).
person_setting = sa.Table(
    "person_setting",
    metadata,
    sa.Column("chat_user_id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("value", sa.String(300), nullable=False),
)
