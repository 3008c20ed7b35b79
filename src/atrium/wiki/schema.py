"""The wiki's tables, shaped after MediaWiki's (same names, same columns where they matter).

Timestamps are MediaWiki's 14-character `YYYYMMDDHHMMSS` strings (UTC), which sort like the times
they stand for and are what the API and dumps convert from. Booleans are real booleans.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from atrium.core.mail.outbox import outbox_table

metadata = sa.MetaData()

Str = sa.String
TS = sa.String(14)
# Titles and names sort byte-wise, as in MediaWiki; PostgreSQL's default collation would not.
Key = sa.String(255).with_variant(postgresql.VARCHAR(255, collation="C"), "postgresql")

namespace = sa.Table(
    "namespace",
    metadata,
    sa.Column("ns_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("ns_name", Str(255), nullable=False),
    sa.Column("ns_canonical", Str(255), nullable=False),
    sa.Column("ns_case", Str(16), nullable=False, server_default="first-letter"),
    sa.Column("ns_subpages", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ns_content", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ns_nonincludable", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ns_protection", Str(64), nullable=True),
)

namespace_alias = sa.Table(
    "namespace_alias",
    metadata,
    sa.Column("nsa_name", Str(255), primary_key=True),
    sa.Column("nsa_ns", sa.Integer, nullable=False),
)

site_config = sa.Table(
    "site_config",
    metadata,
    sa.Column("sc_name", Str(64), primary_key=True),
    sa.Column("sc_value", sa.Text, nullable=False),
)

actor = sa.Table(
    "actor",
    metadata,
    sa.Column("actor_id", sa.Integer, primary_key=True),
    sa.Column("actor_user", sa.Integer, nullable=True, unique=True),
    sa.Column("actor_name", Key, nullable=False, unique=True),
)

user = sa.Table(
    "user",
    metadata,
    sa.Column("user_id", sa.Integer, primary_key=True),
    sa.Column("user_name", Key, nullable=False, unique=True),
    sa.Column("user_real_name", Str(255), nullable=False, server_default=""),
    sa.Column("user_password", sa.Text, nullable=False, server_default=""),
    sa.Column("user_email", Str(255), nullable=False, server_default=""),
    sa.Column("user_registration", TS, nullable=True),
    sa.Column("user_touched", TS, nullable=False),
    sa.Column("user_editcount", sa.Integer, nullable=False, server_default="0"),
    # A temporary password mailed by Special:PasswordReset (hashed) and when it was made.
    sa.Column("user_newpassword", sa.Text, nullable=False, server_default=""),
    sa.Column("user_newpass_time", TS, nullable=True),
    # When the address was confirmed (None: not confirmed), and the pending confirmation code
    # (its SHA-256, as hex) with its expiry.
    sa.Column("user_email_authenticated", TS, nullable=True),
    sa.Column("user_email_token", Str(64), nullable=True),
    sa.Column("user_email_token_expires", TS, nullable=True),
)

user_groups = sa.Table(
    "user_groups",
    metadata,
    sa.Column("ug_user", sa.Integer, sa.ForeignKey("user.user_id"), primary_key=True),
    sa.Column("ug_group", Str(255), primary_key=True),
    sa.Column("ug_expiry", TS, nullable=True),
    sa.Index("ug_group", "ug_group"),
)

user_properties = sa.Table(
    "user_properties",
    metadata,
    sa.Column("up_user", sa.Integer, sa.ForeignKey("user.user_id"), primary_key=True),
    sa.Column("up_property", Str(255), primary_key=True),
    sa.Column("up_value", sa.Text, nullable=False),
)

bot_passwords = sa.Table(
    "bot_passwords",
    metadata,
    sa.Column("bp_user", sa.Integer, sa.ForeignKey("user.user_id"), primary_key=True),
    sa.Column("bp_app_id", Str(32), primary_key=True),
    sa.Column("bp_password", sa.Text, nullable=False),
    sa.Column("bp_token", Str(255), nullable=False, server_default=""),
    sa.Column("bp_restrictions", sa.Text, nullable=False, server_default=""),
    sa.Column("bp_grants", sa.Text, nullable=False, server_default=""),
)

session = sa.Table(
    "session",
    metadata,
    sa.Column("s_id", Str(64), primary_key=True),
    sa.Column("s_user", sa.Integer, nullable=True),
    sa.Column("s_bot_app", Str(32), nullable=True),
    sa.Column("s_secret", Str(64), nullable=False),
    sa.Column("s_expiry", sa.BigInteger, nullable=False),
    sa.Index("s_expiry", "s_expiry"),
)

comment = sa.Table(
    "comment",
    metadata,
    sa.Column("comment_id", sa.Integer, primary_key=True),
    sa.Column("comment_text", sa.Text, nullable=False),
)

text = sa.Table(
    "text",
    metadata,
    sa.Column("old_id", sa.Integer, primary_key=True),
    sa.Column("old_text", sa.Text, nullable=False),
    sa.Column("old_flags", Str(64), nullable=False, server_default="utf-8"),
)

page = sa.Table(
    "page",
    metadata,
    sa.Column("page_id", sa.Integer, primary_key=True),
    sa.Column("page_namespace", sa.Integer, nullable=False),
    sa.Column("page_title", Key, nullable=False),
    sa.Column("page_is_redirect", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("page_is_new", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("page_random", sa.Float, nullable=False),
    sa.Column("page_touched", TS, nullable=False),
    sa.Column("page_links_updated", TS, nullable=True),
    sa.Column("page_latest", sa.Integer, nullable=False),
    sa.Column("page_len", sa.Integer, nullable=False),
    sa.Column("page_content_model", Str(32), nullable=False, server_default="wikitext"),
    sa.Column("page_lang", Str(35), nullable=True),
    # Not MediaWiki's: set to a value never used before (from the id of the revision or log entry
    # that caused it) whenever anything the page's rendering depends on changes, so that a cached
    # rendering is keyed by it (page_touched has one-second steps and can go backwards on import).
    sa.Column("page_render_version", sa.BigInteger, nullable=False, server_default="0"),
    sa.UniqueConstraint("page_namespace", "page_title", name="page_name_title"),
    sa.Index("page_redirect_namespace_len", "page_is_redirect", "page_namespace", "page_len"),
    sa.Index("page_len", "page_len"),
    # Ids are never reused (MediaWiki's AUTOINCREMENT): `archive` keeps those of deleted pages.
    sqlite_autoincrement=True,
)

revision = sa.Table(
    "revision",
    metadata,
    sa.Column("rev_id", sa.Integer, primary_key=True),
    sa.Column("rev_page", sa.Integer, sa.ForeignKey("page.page_id"), nullable=False),
    sa.Column("rev_text_id", sa.Integer, sa.ForeignKey("text.old_id"), nullable=False),
    sa.Column("rev_comment_id", sa.Integer, sa.ForeignKey("comment.comment_id"), nullable=False),
    sa.Column("rev_actor", sa.Integer, sa.ForeignKey("actor.actor_id"), nullable=False),
    sa.Column("rev_timestamp", TS, nullable=False),
    sa.Column("rev_minor_edit", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("rev_deleted", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rev_len", sa.Integer, nullable=False),
    sa.Column("rev_parent_id", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rev_sha1", Str(32), nullable=False),
    sa.Column("rev_content_model", Str(32), nullable=False, server_default="wikitext"),
    sa.Column("rev_content_format", Str(64), nullable=False, server_default="text/x-wiki"),
    sa.Index("rev_page_timestamp", "rev_page", "rev_timestamp"),
    sa.Index("rev_actor_timestamp", "rev_actor", "rev_timestamp"),
    sa.Index("rev_timestamp", "rev_timestamp"),
    # Ids are never reused: a deleted revision keeps its id in `archive`.
    sqlite_autoincrement=True,
)

change_tag_def = sa.Table(
    "change_tag_def",
    metadata,
    sa.Column("ctd_id", sa.Integer, primary_key=True),
    sa.Column("ctd_name", Str(255), nullable=False, unique=True),
    sa.Column("ctd_user_defined", sa.Boolean, nullable=False),
    sa.Column("ctd_count", sa.Integer, nullable=False, server_default="0"),
)

change_tag = sa.Table(
    "change_tag",
    metadata,
    sa.Column("ct_rev_id", sa.Integer, sa.ForeignKey("revision.rev_id"), primary_key=True),
    sa.Column("ct_tag_id", sa.Integer, sa.ForeignKey("change_tag_def.ctd_id"), primary_key=True),
    sa.Index("ct_tag_id_id", "ct_tag_id", "ct_rev_id"),
)


def _link_table(name: str, prefix: str) -> sa.Table:
    return sa.Table(
        name,
        metadata,
        sa.Column(f"{prefix}_from", sa.Integer, sa.ForeignKey("page.page_id"), primary_key=True),
        sa.Column(f"{prefix}_namespace", sa.Integer, primary_key=True),
        sa.Column(f"{prefix}_title", Key, primary_key=True),
        sa.Column(f"{prefix}_from_namespace", sa.Integer, nullable=False),
        sa.Index(f"{prefix}_target", f"{prefix}_namespace", f"{prefix}_title", f"{prefix}_from"),
        sa.Index(
            f"{prefix}_backlinks_namespace",
            f"{prefix}_from_namespace",
            f"{prefix}_namespace",
            f"{prefix}_title",
            f"{prefix}_from",
        ),
    )


pagelinks = _link_table("pagelinks", "pl")
templatelinks = _link_table("templatelinks", "tl")

categorylinks = sa.Table(
    "categorylinks",
    metadata,
    sa.Column("cl_from", sa.Integer, sa.ForeignKey("page.page_id"), primary_key=True),
    sa.Column("cl_to", Key, primary_key=True),
    sa.Column("cl_sortkey", Key, nullable=False),
    sa.Column("cl_sortkey_prefix", Str(255), nullable=False, server_default=""),
    sa.Column("cl_timestamp", TS, nullable=False),
    sa.Column("cl_collation", Str(32), nullable=False, server_default="uppercase"),
    sa.Column("cl_type", Str(6), nullable=False, server_default="page"),
    sa.Index("cl_sortkey", "cl_to", "cl_type", "cl_sortkey", "cl_from"),
    sa.Index("cl_timestamp", "cl_to", "cl_timestamp"),
)

imagelinks = sa.Table(
    "imagelinks",
    metadata,
    sa.Column("il_from", sa.Integer, sa.ForeignKey("page.page_id"), primary_key=True),
    sa.Column("il_to", Key, primary_key=True),
    sa.Column("il_from_namespace", sa.Integer, nullable=False),
    sa.Index("il_to", "il_to", "il_from"),
    sa.Index("il_backlinks_namespace", "il_from_namespace", "il_to", "il_from"),
)

externallinks = sa.Table(
    "externallinks",
    metadata,
    sa.Column("el_id", sa.Integer, primary_key=True),
    sa.Column("el_from", sa.Integer, sa.ForeignKey("page.page_id"), nullable=False),
    sa.Column("el_to", sa.Text, nullable=False),
    # LinkFilter's reversed-domain index (atrium.wiki.wikitext.linkfilter); one row per index.
    sa.Column("el_index", sa.Text, nullable=False, server_default=""),
    sa.Column(
        "el_index_60",
        sa.String(60).with_variant(postgresql.VARCHAR(60, collation="C"), "postgresql"),
        nullable=False,
        server_default="",
    ),
    sa.Index("el_from", "el_from"),
    sa.Index("el_index_60", "el_index_60", "el_id"),
)

langlinks = sa.Table(
    "langlinks",
    metadata,
    sa.Column("ll_from", sa.Integer, sa.ForeignKey("page.page_id"), primary_key=True),
    sa.Column("ll_lang", Str(35), primary_key=True),
    sa.Column("ll_title", Key, nullable=False),
    sa.Index("ll_lang", "ll_lang", "ll_title"),
)

redirect = sa.Table(
    "redirect",
    metadata,
    sa.Column("rd_from", sa.Integer, sa.ForeignKey("page.page_id"), primary_key=True),
    sa.Column("rd_namespace", sa.Integer, nullable=False),
    sa.Column("rd_title", Key, nullable=False),
    sa.Column("rd_interwiki", Str(32), nullable=False, server_default=""),
    sa.Column("rd_fragment", Str(255), nullable=False, server_default=""),
    sa.Index("rd_ns_title", "rd_namespace", "rd_title", "rd_from"),
)


# --- lists and the write actions that feed them -----------------------------------------------
# recent changes and the log, watchlists, deleted revisions, blocks, protections, files (current, deleted and stashed). The full-text index lives in `search.py` (an FTS5 virtual
# table or a tsvector column, which differ too much per dialect to describe here).

recentchanges = sa.Table(
    "recentchanges",
    metadata,
    sa.Column("rc_id", sa.Integer, primary_key=True),
    sa.Column("rc_timestamp", TS, nullable=False),
    sa.Column("rc_actor", sa.Integer, nullable=False),
    sa.Column("rc_namespace", sa.Integer, nullable=False),
    sa.Column("rc_title", Key, nullable=False),
    sa.Column("rc_comment_id", sa.Integer, nullable=False),
    sa.Column("rc_minor", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("rc_bot", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("rc_new", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("rc_cur_id", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rc_this_oldid", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rc_last_oldid", sa.Integer, nullable=False, server_default="0"),
    # 0 edit, 1 new, 3 log, 5 external, 6 categorize (MediaWiki's RC_* constants)
    sa.Column("rc_type", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rc_source", Str(16), nullable=False, server_default=""),
    # 0 unpatrolled, 1 patrolled, 2 autopatrolled
    sa.Column("rc_patrolled", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rc_ip", Str(40), nullable=False, server_default=""),
    sa.Column("rc_old_len", sa.Integer, nullable=True),
    sa.Column("rc_new_len", sa.Integer, nullable=True),
    sa.Column("rc_deleted", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rc_logid", sa.Integer, nullable=False, server_default="0"),
    sa.Column("rc_log_type", Str(32), nullable=True),
    sa.Column("rc_log_action", Str(32), nullable=True),
    sa.Column("rc_params", sa.Text, nullable=True),
    sa.Index("rc_timestamp", "rc_timestamp", "rc_id"),
    sa.Index("rc_name_type_patrolled_timestamp", "rc_namespace", "rc_title", "rc_timestamp"),
    sa.Index("rc_actor", "rc_actor", "rc_timestamp"),
    sa.Index("rc_cur_id", "rc_cur_id"),
    sa.Index("rc_this_oldid", "rc_this_oldid"),
)

logging = sa.Table(
    "logging",
    metadata,
    sa.Column("log_id", sa.Integer, primary_key=True),
    sa.Column("log_type", Str(32), nullable=False),
    sa.Column("log_action", Str(32), nullable=False),
    sa.Column("log_timestamp", TS, nullable=False),
    sa.Column("log_actor", sa.Integer, nullable=False),
    sa.Column("log_namespace", sa.Integer, nullable=False),
    sa.Column("log_title", Key, nullable=False),
    sa.Column("log_page", sa.Integer, nullable=True),
    sa.Column("log_comment_id", sa.Integer, nullable=False),
    sa.Column("log_params", sa.Text, nullable=False, server_default=""),  # JSON
    sa.Column("log_deleted", sa.Integer, nullable=False, server_default="0"),
    sa.Index("log_type_time", "log_type", "log_timestamp", "log_id"),
    sa.Index("log_timestamp", "log_timestamp", "log_id"),
    sa.Index("log_actor_time", "log_actor", "log_timestamp"),
    sa.Index("log_page_time", "log_namespace", "log_title", "log_timestamp"),
    sa.Index("log_page_id_time", "log_page", "log_timestamp"),
)

# What log entries are about, to find them by it (MediaWiki's log_search): `rev_id`, `log_id`,
# `ar_timestamp`, `oi_archive_name`, `fa_id` for the items a revision deletion changed,
# `target_author_actor` for their authors, `associated_rev_id` for an entry's revision.
log_search = sa.Table(
    "log_search",
    metadata,
    sa.Column("ls_field", Str(32), primary_key=True),
    sa.Column("ls_value", Str(255), primary_key=True),
    sa.Column("ls_log_id", sa.Integer, primary_key=True),
    sa.Index("ls_log_id", "ls_log_id"),
)

# Tags of recent changes and log entries (change_tag itself is keyed by revision).
change_tag_event = sa.Table(
    "change_tag_event",
    metadata,
    sa.Column("cte_id", sa.Integer, primary_key=True),
    sa.Column("cte_rc_id", sa.Integer, nullable=True),
    sa.Column("cte_log_id", sa.Integer, nullable=True),
    sa.Column("cte_tag_id", sa.Integer, sa.ForeignKey("change_tag_def.ctd_id"), nullable=False),
    sa.Index("cte_rc", "cte_rc_id"),
    sa.Index("cte_log", "cte_log_id"),
)

watchlist = sa.Table(
    "watchlist",
    metadata,
    sa.Column("wl_id", sa.Integer, primary_key=True),
    sa.Column("wl_user", sa.Integer, sa.ForeignKey("user.user_id"), nullable=False),
    sa.Column("wl_namespace", sa.Integer, nullable=False),
    sa.Column("wl_title", Key, nullable=False),
    sa.Column("wl_notificationtimestamp", TS, nullable=True),
    sa.UniqueConstraint("wl_user", "wl_namespace", "wl_title", name="wl_user_ns_title"),
    sa.Index("wl_namespace_title", "wl_namespace", "wl_title"),
)

# The new-talk notification: a row while the user (or the IP address) has an unseen edit to
# their talk page (MediaWiki's user_newtalk).
user_newtalk = sa.Table(
    "user_newtalk",
    metadata,
    sa.Column("user_id", sa.Integer, nullable=False, server_default="0"),
    sa.Column("user_ip", sa.String(40), nullable=False, server_default=""),
    sa.Column("user_last_timestamp", TS, nullable=True),
    sa.Index("un_user_id", "user_id"),
    sa.Index("un_user_ip", "user_ip"),
)

archive = sa.Table(
    "archive",
    metadata,
    sa.Column("ar_id", sa.Integer, primary_key=True),
    sa.Column("ar_namespace", sa.Integer, nullable=False),
    sa.Column("ar_title", Key, nullable=False),
    sa.Column("ar_comment_id", sa.Integer, nullable=False),
    sa.Column("ar_actor", sa.Integer, nullable=False),
    sa.Column("ar_timestamp", TS, nullable=False),
    sa.Column("ar_minor_edit", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ar_rev_id", sa.Integer, nullable=False, unique=True),
    sa.Column("ar_text_id", sa.Integer, nullable=False),
    sa.Column("ar_deleted", sa.Integer, nullable=False, server_default="0"),
    sa.Column("ar_len", sa.Integer, nullable=True),
    sa.Column("ar_page_id", sa.Integer, nullable=True),
    sa.Column("ar_parent_id", sa.Integer, nullable=True),
    sa.Column("ar_sha1", Str(32), nullable=False, server_default=""),
    sa.Column("ar_content_model", Str(32), nullable=False, server_default="wikitext"),
    sa.Column("ar_content_format", Str(64), nullable=False, server_default="text/x-wiki"),
    sa.Index("ar_name_title_timestamp", "ar_namespace", "ar_title", "ar_timestamp"),
    sa.Index("ar_actor_timestamp", "ar_actor", "ar_timestamp"),
    sa.Index("ar_timestamp", "ar_timestamp", "ar_id"),
)

# Tags of archived revisions, moved out of change_tag at deletion and back at undeletion.
archive_tag = sa.Table(
    "archive_tag",
    metadata,
    sa.Column("at_rev_id", sa.Integer, primary_key=True),
    sa.Column("at_tag_id", sa.Integer, primary_key=True),
)

ipblocks = sa.Table(
    "ipblocks",
    metadata,
    sa.Column("ipb_id", sa.Integer, primary_key=True),
    sa.Column("ipb_address", Key, nullable=False),
    sa.Column("ipb_user", sa.Integer, nullable=False, server_default="0"),
    sa.Column("ipb_by_actor", sa.Integer, nullable=False),
    sa.Column("ipb_reason_id", sa.Integer, nullable=False),
    sa.Column("ipb_timestamp", TS, nullable=False),
    sa.Column("ipb_auto", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ipb_anon_only", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ipb_create_account", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("ipb_enable_autoblock", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("ipb_expiry", Str(14), nullable=False),  # 14 digits or "infinity"
    # Hexadecimal bounds of an IP or range ("" for an account), as MediaWiki's IPUtils::toHex.
    sa.Column("ipb_range_start", Str(40), nullable=False, server_default=""),
    sa.Column("ipb_range_end", Str(40), nullable=False, server_default=""),
    sa.Column("ipb_deleted", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ipb_block_email", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ipb_allow_usertalk", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ipb_parent_block_id", sa.Integer, nullable=True),
    sa.Column("ipb_sitewide", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.UniqueConstraint("ipb_address", "ipb_user", "ipb_auto", name="ipb_address_unique"),
    sa.Index("ipb_user", "ipb_user"),
    sa.Index("ipb_range", "ipb_range_start", "ipb_range_end"),
    sa.Index("ipb_timestamp", "ipb_timestamp", "ipb_id"),
)

ipblocks_restrictions = sa.Table(
    "ipblocks_restrictions",
    metadata,
    sa.Column("ir_ipb_id", sa.Integer, primary_key=True),
    sa.Column("ir_type", sa.Integer, primary_key=True),  # 1 page, 2 namespace
    sa.Column("ir_value", sa.Integer, primary_key=True),
)

page_restrictions = sa.Table(
    "page_restrictions",
    metadata,
    sa.Column("pr_id", sa.Integer, primary_key=True),
    sa.Column("pr_page", sa.Integer, sa.ForeignKey("page.page_id"), nullable=False),
    sa.Column("pr_type", Str(60), nullable=False),
    sa.Column("pr_level", Str(60), nullable=False),
    sa.Column("pr_cascade", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("pr_expiry", Str(14), nullable=True),
    sa.UniqueConstraint("pr_page", "pr_type", name="pr_pagetype"),
    sa.Index("pr_typelevel", "pr_type", "pr_level"),
)

protected_titles = sa.Table(
    "protected_titles",
    metadata,
    sa.Column("pt_namespace", sa.Integer, primary_key=True),
    sa.Column("pt_title", Key, primary_key=True),
    sa.Column("pt_user", sa.Integer, nullable=False),
    sa.Column("pt_reason_id", sa.Integer, nullable=False),
    sa.Column("pt_timestamp", TS, nullable=False),
    sa.Column("pt_expiry", Str(14), nullable=False),
    sa.Column("pt_create_perm", Str(60), nullable=False),
    sa.Index("pt_timestamp", "pt_timestamp"),
)


def _file_columns(p: str) -> list[sa.Column[object]]:
    return [
        sa.Column(f"{p}_size", sa.Integer, nullable=False, server_default="0"),
        sa.Column(f"{p}_width", sa.Integer, nullable=False, server_default="0"),
        sa.Column(f"{p}_height", sa.Integer, nullable=False, server_default="0"),
        sa.Column(f"{p}_bits", sa.Integer, nullable=False, server_default="0"),
        sa.Column(f"{p}_metadata", sa.Text, nullable=False, server_default=""),
        sa.Column(f"{p}_media_type", Str(16), nullable=True),
        sa.Column(f"{p}_major_mime", Str(16), nullable=False, server_default="unknown"),
        sa.Column(f"{p}_minor_mime", Str(100), nullable=False, server_default="unknown"),
        sa.Column(f"{p}_description_id", sa.Integer, nullable=False),
        sa.Column(f"{p}_actor", sa.Integer, nullable=False),
        sa.Column(f"{p}_timestamp", TS, nullable=False),
        sa.Column(f"{p}_sha1", Str(32), nullable=False, server_default=""),
    ]


image = sa.Table(
    "image",
    metadata,
    sa.Column("img_name", Key, primary_key=True),
    *_file_columns("img"),
    sa.Index("img_timestamp", "img_timestamp"),
    sa.Index("img_size", "img_size"),
    sa.Index("img_sha1", "img_sha1"),
    sa.Index("img_actor_timestamp", "img_actor", "img_timestamp"),
)

# Earlier versions of a file (LocalFile::publish moves the current one here on re-upload),
# named by `oi_archive_name` ("<timestamp of archiving>!<name>") under images/archive/.
oldimage = sa.Table(
    "oldimage",
    metadata,
    sa.Column("oi_id", sa.Integer, primary_key=True),
    sa.Column("oi_name", Key, nullable=False),
    sa.Column("oi_archive_name", Key, nullable=False),
    sa.Column("oi_deleted", sa.Integer, nullable=False, server_default="0"),
    *_file_columns("oi"),
    sa.Index("oi_name_timestamp", "oi_name", "oi_timestamp"),
    sa.Index("oi_name_archive_name", "oi_name", "oi_archive_name"),
    sa.Index("oi_actor_timestamp", "oi_actor", "oi_timestamp"),
    sa.Index("oi_sha1", "oi_sha1"),
)

filearchive = sa.Table(
    "filearchive",
    metadata,
    sa.Column("fa_id", sa.Integer, primary_key=True),
    sa.Column("fa_name", Key, nullable=False),
    sa.Column("fa_archive_name", Str(255), nullable=True),
    sa.Column("fa_storage_key", Str(64), nullable=True),
    sa.Column("fa_deleted_user", sa.Integer, nullable=True),
    sa.Column("fa_deleted_timestamp", TS, nullable=True),
    sa.Column("fa_deleted_reason_id", sa.Integer, nullable=False),
    sa.Column("fa_deleted", sa.Integer, nullable=False, server_default="0"),
    *_file_columns("fa"),
    sa.Index("fa_name", "fa_name", "fa_timestamp"),
    sa.Index("fa_sha1", "fa_sha1"),
)

uploadstash = sa.Table(
    "uploadstash",
    metadata,
    sa.Column("us_id", sa.Integer, primary_key=True),
    sa.Column("us_user", sa.Integer, nullable=False),
    sa.Column("us_key", Str(255), nullable=False, unique=True),
    sa.Column("us_orig_path", Str(255), nullable=False),
    sa.Column("us_path", Str(255), nullable=False),
    sa.Column("us_source_type", Str(50), nullable=True),
    sa.Column("us_timestamp", TS, nullable=False),
    sa.Column("us_status", Str(50), nullable=False),
    sa.Column("us_size", sa.Integer, nullable=False),
    sa.Column("us_sha1", Str(31), nullable=False),
    sa.Column("us_mime", Str(255), nullable=True),
    sa.Column("us_media_type", Str(16), nullable=True),
    sa.Column("us_image_width", sa.Integer, nullable=True),
    sa.Column("us_image_height", sa.Integer, nullable=True),
    sa.Column("us_image_bits", sa.Integer, nullable=True),
    sa.Index("us_user", "us_user"),
    sa.Index("us_timestamp", "us_timestamp"),
)

# Page properties set by the wikitext (`__HIDDENCAT__`, `{{DISPLAYTITLE:}}`, `{{DEFAULTSORT:}}` …).
page_props = sa.Table(
    "page_props",
    metadata,
    sa.Column("pp_page", sa.Integer, sa.ForeignKey("page.page_id"), primary_key=True),
    sa.Column("pp_propname", Str(60), primary_key=True),
    sa.Column("pp_value", sa.Text, nullable=False),
    sa.Index("pp_propname_page", "pp_propname", "pp_page"),
)

iwlinks = sa.Table(
    "iwlinks",
    metadata,
    sa.Column("iwl_from", sa.Integer, sa.ForeignKey("page.page_id"), primary_key=True),
    sa.Column("iwl_prefix", Str(32), primary_key=True),
    sa.Column("iwl_title", Key, primary_key=True),
    sa.Index("iwl_prefix_title_from", "iwl_prefix", "iwl_title", "iwl_from"),
)


# The tables a page's text determines, each with the column naming the page: an edit replaces a
# page's rows in all of them, a deletion drops them.
LINK_TABLES: tuple[tuple[sa.Table, str], ...] = (
    (pagelinks, "pl_from"),
    (templatelinks, "tl_from"),
    (categorylinks, "cl_from"),
    (imagelinks, "il_from"),
    (externallinks, "el_from"),
    (langlinks, "ll_from"),
    (redirect, "rd_from"),
    (iwlinks, "iwl_from"),
    (page_props, "pp_page"),
)

# The mails this service has to send (core/mail/outbox.py).
mail_outbox = outbox_table(metadata)
