"""The wiki's tables, shaped after MediaWiki's (same names, same columns where they matter).

Timestamps are MediaWiki's 14-character `YYYYMMDDHHMMSS` strings (UTC), which sort like the times
they stand for and are what the API and dumps convert from. Booleans are real booleans.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

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
    sa.UniqueConstraint("page_namespace", "page_title", name="page_name_title"),
    sa.Index("page_redirect_namespace_len", "page_is_redirect", "page_namespace", "page_len"),
    sa.Index("page_len", "page_len"),
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
    sa.Index("el_from", "el_from"),
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
