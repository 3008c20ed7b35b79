"""wiki lists: recent changes, log, watchlist, archive, blocks, protections, page props, files,
and the full-text search index

Revision ID: 0002
Revises: 0001_wiki_foundation
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from atrium.wiki import search

revision: str = "0002"
down_revision: str | None = "0001_wiki_foundation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "archive",
        sa.Column("ar_id", sa.Integer(), nullable=False),
        sa.Column("ar_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "ar_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("ar_comment_id", sa.Integer(), nullable=False),
        sa.Column("ar_actor", sa.Integer(), nullable=False),
        sa.Column("ar_timestamp", sa.String(length=14), nullable=False),
        sa.Column("ar_minor_edit", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ar_rev_id", sa.Integer(), nullable=False),
        sa.Column("ar_text_id", sa.Integer(), nullable=False),
        sa.Column("ar_deleted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("ar_len", sa.Integer(), nullable=True),
        sa.Column("ar_page_id", sa.Integer(), nullable=True),
        sa.Column("ar_parent_id", sa.Integer(), nullable=True),
        sa.Column("ar_sha1", sa.String(length=32), server_default="", nullable=False),
        sa.Column(
            "ar_content_model", sa.String(length=32), server_default="wikitext", nullable=False
        ),
        sa.Column(
            "ar_content_format", sa.String(length=64), server_default="text/x-wiki", nullable=False
        ),
        sa.PrimaryKeyConstraint("ar_id"),
        sa.UniqueConstraint("ar_rev_id"),
    )
    with op.batch_alter_table("archive", schema=None) as batch_op:
        batch_op.create_index("ar_actor_timestamp", ["ar_actor", "ar_timestamp"], unique=False)
        batch_op.create_index(
            "ar_name_title_timestamp", ["ar_namespace", "ar_title", "ar_timestamp"], unique=False
        )
        batch_op.create_index("ar_timestamp", ["ar_timestamp", "ar_id"], unique=False)

    op.create_table(
        "archive_tag",
        sa.Column("at_rev_id", sa.Integer(), nullable=False),
        sa.Column("at_tag_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("at_rev_id", "at_tag_id"),
    )
    op.create_table(
        "filearchive",
        sa.Column("fa_id", sa.Integer(), nullable=False),
        sa.Column(
            "fa_name",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("fa_archive_name", sa.String(length=255), nullable=True),
        sa.Column("fa_storage_key", sa.String(length=64), nullable=True),
        sa.Column("fa_deleted_user", sa.Integer(), nullable=True),
        sa.Column("fa_deleted_timestamp", sa.String(length=14), nullable=True),
        sa.Column("fa_deleted_reason_id", sa.Integer(), nullable=False),
        sa.Column("fa_deleted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("fa_size", sa.Integer(), server_default="0", nullable=False),
        sa.Column("fa_width", sa.Integer(), server_default="0", nullable=False),
        sa.Column("fa_height", sa.Integer(), server_default="0", nullable=False),
        sa.Column("fa_bits", sa.Integer(), server_default="0", nullable=False),
        sa.Column("fa_metadata", sa.Text(), server_default="", nullable=False),
        sa.Column("fa_media_type", sa.String(length=16), nullable=True),
        sa.Column("fa_major_mime", sa.String(length=16), server_default="unknown", nullable=False),
        sa.Column("fa_minor_mime", sa.String(length=100), server_default="unknown", nullable=False),
        sa.Column("fa_description_id", sa.Integer(), nullable=False),
        sa.Column("fa_actor", sa.Integer(), nullable=False),
        sa.Column("fa_timestamp", sa.String(length=14), nullable=False),
        sa.Column("fa_sha1", sa.String(length=32), server_default="", nullable=False),
        sa.PrimaryKeyConstraint("fa_id"),
    )
    with op.batch_alter_table("filearchive", schema=None) as batch_op:
        batch_op.create_index("fa_name", ["fa_name", "fa_timestamp"], unique=False)
        batch_op.create_index("fa_sha1", ["fa_sha1"], unique=False)

    op.create_table(
        "image",
        sa.Column(
            "img_name",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("img_size", sa.Integer(), server_default="0", nullable=False),
        sa.Column("img_width", sa.Integer(), server_default="0", nullable=False),
        sa.Column("img_height", sa.Integer(), server_default="0", nullable=False),
        sa.Column("img_bits", sa.Integer(), server_default="0", nullable=False),
        sa.Column("img_metadata", sa.Text(), server_default="", nullable=False),
        sa.Column("img_media_type", sa.String(length=16), nullable=True),
        sa.Column("img_major_mime", sa.String(length=16), server_default="unknown", nullable=False),
        sa.Column(
            "img_minor_mime", sa.String(length=100), server_default="unknown", nullable=False
        ),
        sa.Column("img_description_id", sa.Integer(), nullable=False),
        sa.Column("img_actor", sa.Integer(), nullable=False),
        sa.Column("img_timestamp", sa.String(length=14), nullable=False),
        sa.Column("img_sha1", sa.String(length=32), server_default="", nullable=False),
        sa.PrimaryKeyConstraint("img_name"),
    )
    with op.batch_alter_table("image", schema=None) as batch_op:
        batch_op.create_index("img_actor_timestamp", ["img_actor", "img_timestamp"], unique=False)
        batch_op.create_index("img_sha1", ["img_sha1"], unique=False)
        batch_op.create_index("img_size", ["img_size"], unique=False)
        batch_op.create_index("img_timestamp", ["img_timestamp"], unique=False)

    op.create_table(
        "ipblocks",
        sa.Column("ipb_id", sa.Integer(), nullable=False),
        sa.Column(
            "ipb_address",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("ipb_user", sa.Integer(), server_default="0", nullable=False),
        sa.Column("ipb_by_actor", sa.Integer(), nullable=False),
        sa.Column("ipb_reason_id", sa.Integer(), nullable=False),
        sa.Column("ipb_timestamp", sa.String(length=14), nullable=False),
        sa.Column("ipb_auto", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ipb_anon_only", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ipb_create_account", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("ipb_enable_autoblock", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("ipb_expiry", sa.String(length=14), nullable=False),
        sa.Column("ipb_range_start", sa.String(length=40), server_default="", nullable=False),
        sa.Column("ipb_range_end", sa.String(length=40), server_default="", nullable=False),
        sa.Column("ipb_deleted", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ipb_block_email", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ipb_allow_usertalk", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ipb_parent_block_id", sa.Integer(), nullable=True),
        sa.Column("ipb_sitewide", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.PrimaryKeyConstraint("ipb_id"),
        sa.UniqueConstraint("ipb_address", "ipb_user", "ipb_auto", name="ipb_address_unique"),
    )
    with op.batch_alter_table("ipblocks", schema=None) as batch_op:
        batch_op.create_index("ipb_range", ["ipb_range_start", "ipb_range_end"], unique=False)
        batch_op.create_index("ipb_timestamp", ["ipb_timestamp", "ipb_id"], unique=False)
        batch_op.create_index("ipb_user", ["ipb_user"], unique=False)

    op.create_table(
        "ipblocks_restrictions",
        sa.Column("ir_ipb_id", sa.Integer(), nullable=False),
        sa.Column("ir_type", sa.Integer(), nullable=False),
        sa.Column("ir_value", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("ir_ipb_id", "ir_type", "ir_value"),
    )
    op.create_table(
        "logging",
        sa.Column("log_id", sa.Integer(), nullable=False),
        sa.Column("log_type", sa.String(length=32), nullable=False),
        sa.Column("log_action", sa.String(length=32), nullable=False),
        sa.Column("log_timestamp", sa.String(length=14), nullable=False),
        sa.Column("log_actor", sa.Integer(), nullable=False),
        sa.Column("log_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "log_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("log_page", sa.Integer(), nullable=True),
        sa.Column("log_comment_id", sa.Integer(), nullable=False),
        sa.Column("log_params", sa.Text(), server_default="", nullable=False),
        sa.Column("log_deleted", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("log_id"),
    )
    with op.batch_alter_table("logging", schema=None) as batch_op:
        batch_op.create_index("log_actor_time", ["log_actor", "log_timestamp"], unique=False)
        batch_op.create_index("log_page_id_time", ["log_page", "log_timestamp"], unique=False)
        batch_op.create_index(
            "log_page_time", ["log_namespace", "log_title", "log_timestamp"], unique=False
        )
        batch_op.create_index("log_timestamp", ["log_timestamp", "log_id"], unique=False)
        batch_op.create_index(
            "log_type_time", ["log_type", "log_timestamp", "log_id"], unique=False
        )

    op.create_table(
        "protected_titles",
        sa.Column("pt_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "pt_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("pt_user", sa.Integer(), nullable=False),
        sa.Column("pt_reason_id", sa.Integer(), nullable=False),
        sa.Column("pt_timestamp", sa.String(length=14), nullable=False),
        sa.Column("pt_expiry", sa.String(length=14), nullable=False),
        sa.Column("pt_create_perm", sa.String(length=60), nullable=False),
        sa.PrimaryKeyConstraint("pt_namespace", "pt_title"),
    )
    with op.batch_alter_table("protected_titles", schema=None) as batch_op:
        batch_op.create_index("pt_timestamp", ["pt_timestamp"], unique=False)

    op.create_table(
        "recentchanges",
        sa.Column("rc_id", sa.Integer(), nullable=False),
        sa.Column("rc_timestamp", sa.String(length=14), nullable=False),
        sa.Column("rc_actor", sa.Integer(), nullable=False),
        sa.Column("rc_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "rc_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("rc_comment_id", sa.Integer(), nullable=False),
        sa.Column("rc_minor", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("rc_bot", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("rc_new", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("rc_cur_id", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rc_this_oldid", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rc_last_oldid", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rc_type", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rc_source", sa.String(length=16), server_default="", nullable=False),
        sa.Column("rc_patrolled", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rc_ip", sa.String(length=40), server_default="", nullable=False),
        sa.Column("rc_old_len", sa.Integer(), nullable=True),
        sa.Column("rc_new_len", sa.Integer(), nullable=True),
        sa.Column("rc_deleted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rc_logid", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rc_log_type", sa.String(length=32), nullable=True),
        sa.Column("rc_log_action", sa.String(length=32), nullable=True),
        sa.Column("rc_params", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("rc_id"),
    )
    with op.batch_alter_table("recentchanges", schema=None) as batch_op:
        batch_op.create_index("rc_actor", ["rc_actor", "rc_timestamp"], unique=False)
        batch_op.create_index("rc_cur_id", ["rc_cur_id"], unique=False)
        batch_op.create_index(
            "rc_name_type_patrolled_timestamp",
            ["rc_namespace", "rc_title", "rc_timestamp"],
            unique=False,
        )
        batch_op.create_index("rc_this_oldid", ["rc_this_oldid"], unique=False)
        batch_op.create_index("rc_timestamp", ["rc_timestamp", "rc_id"], unique=False)

    op.create_table(
        "uploadstash",
        sa.Column("us_id", sa.Integer(), nullable=False),
        sa.Column("us_user", sa.Integer(), nullable=False),
        sa.Column("us_key", sa.String(length=255), nullable=False),
        sa.Column("us_orig_path", sa.String(length=255), nullable=False),
        sa.Column("us_path", sa.String(length=255), nullable=False),
        sa.Column("us_source_type", sa.String(length=50), nullable=True),
        sa.Column("us_timestamp", sa.String(length=14), nullable=False),
        sa.Column("us_status", sa.String(length=50), nullable=False),
        sa.Column("us_size", sa.Integer(), nullable=False),
        sa.Column("us_sha1", sa.String(length=31), nullable=False),
        sa.Column("us_mime", sa.String(length=255), nullable=True),
        sa.Column("us_media_type", sa.String(length=16), nullable=True),
        sa.Column("us_image_width", sa.Integer(), nullable=True),
        sa.Column("us_image_height", sa.Integer(), nullable=True),
        sa.Column("us_image_bits", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("us_id"),
        sa.UniqueConstraint("us_key"),
    )
    with op.batch_alter_table("uploadstash", schema=None) as batch_op:
        batch_op.create_index("us_timestamp", ["us_timestamp"], unique=False)
        batch_op.create_index("us_user", ["us_user"], unique=False)

    op.create_table(
        "change_tag_event",
        sa.Column("cte_id", sa.Integer(), nullable=False),
        sa.Column("cte_rc_id", sa.Integer(), nullable=True),
        sa.Column("cte_log_id", sa.Integer(), nullable=True),
        sa.Column("cte_tag_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["cte_tag_id"],
            ["change_tag_def.ctd_id"],
        ),
        sa.PrimaryKeyConstraint("cte_id"),
    )
    with op.batch_alter_table("change_tag_event", schema=None) as batch_op:
        batch_op.create_index("cte_log", ["cte_log_id"], unique=False)
        batch_op.create_index("cte_rc", ["cte_rc_id"], unique=False)

    op.create_table(
        "page_restrictions",
        sa.Column("pr_id", sa.Integer(), nullable=False),
        sa.Column("pr_page", sa.Integer(), nullable=False),
        sa.Column("pr_type", sa.String(length=60), nullable=False),
        sa.Column("pr_level", sa.String(length=60), nullable=False),
        sa.Column("pr_cascade", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("pr_expiry", sa.String(length=14), nullable=True),
        sa.ForeignKeyConstraint(
            ["pr_page"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("pr_id"),
        sa.UniqueConstraint("pr_page", "pr_type", name="pr_pagetype"),
    )
    with op.batch_alter_table("page_restrictions", schema=None) as batch_op:
        batch_op.create_index("pr_typelevel", ["pr_type", "pr_level"], unique=False)

    op.create_table(
        "watchlist",
        sa.Column("wl_id", sa.Integer(), nullable=False),
        sa.Column("wl_user", sa.Integer(), nullable=False),
        sa.Column("wl_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "wl_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("wl_notificationtimestamp", sa.String(length=14), nullable=True),
        sa.ForeignKeyConstraint(
            ["wl_user"],
            ["user.user_id"],
        ),
        sa.PrimaryKeyConstraint("wl_id"),
        sa.UniqueConstraint("wl_user", "wl_namespace", "wl_title", name="wl_user_ns_title"),
    )
    with op.batch_alter_table("watchlist", schema=None) as batch_op:
        batch_op.create_index("wl_namespace_title", ["wl_namespace", "wl_title"], unique=False)

    _create_search_index()


def _create_search_index() -> None:
    """The engine-specific full-text index, filled from the pages that already exist."""
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    for statement in search.SQLITE_DDL if sqlite else search.POSTGRES_DDL:
        op.execute(statement)
    rows = bind.execute(
        sa.text(
            "SELECT page_id, page_title, old_text FROM page"
            " JOIN revision ON rev_id = page_latest JOIN text ON old_id = rev_text_id"
        )
    ).fetchall()
    columns = "(rowid, si_title, si_text)" if sqlite else "(si_page, si_title, si_text)"
    insert = sa.text(f"INSERT INTO searchindex {columns} VALUES (:id, :title, :text)")
    for page_id, dbkey, text in rows:
        bind.execute(
            insert,
            {
                "id": page_id,
                "title": search.normalized_title(dbkey),
                "text": search.normalized_text(text),
            },
        )


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS searchindex")
    with op.batch_alter_table("watchlist", schema=None) as batch_op:
        batch_op.drop_index("wl_namespace_title")

    op.drop_table("watchlist")
    with op.batch_alter_table("page_restrictions", schema=None) as batch_op:
        batch_op.drop_index("pr_typelevel")

    op.drop_table("page_restrictions")
    with op.batch_alter_table("change_tag_event", schema=None) as batch_op:
        batch_op.drop_index("cte_rc")
        batch_op.drop_index("cte_log")

    op.drop_table("change_tag_event")
    with op.batch_alter_table("uploadstash", schema=None) as batch_op:
        batch_op.drop_index("us_user")
        batch_op.drop_index("us_timestamp")

    op.drop_table("uploadstash")
    with op.batch_alter_table("recentchanges", schema=None) as batch_op:
        batch_op.drop_index("rc_timestamp")
        batch_op.drop_index("rc_this_oldid")
        batch_op.drop_index("rc_name_type_patrolled_timestamp")
        batch_op.drop_index("rc_cur_id")
        batch_op.drop_index("rc_actor")

    op.drop_table("recentchanges")
    with op.batch_alter_table("protected_titles", schema=None) as batch_op:
        batch_op.drop_index("pt_timestamp")

    op.drop_table("protected_titles")
    with op.batch_alter_table("logging", schema=None) as batch_op:
        batch_op.drop_index("log_type_time")
        batch_op.drop_index("log_timestamp")
        batch_op.drop_index("log_page_time")
        batch_op.drop_index("log_page_id_time")
        batch_op.drop_index("log_actor_time")

    op.drop_table("logging")
    op.drop_table("ipblocks_restrictions")
    with op.batch_alter_table("ipblocks", schema=None) as batch_op:
        batch_op.drop_index("ipb_user")
        batch_op.drop_index("ipb_timestamp")
        batch_op.drop_index("ipb_range")

    op.drop_table("ipblocks")
    with op.batch_alter_table("image", schema=None) as batch_op:
        batch_op.drop_index("img_timestamp")
        batch_op.drop_index("img_size")
        batch_op.drop_index("img_sha1")
        batch_op.drop_index("img_actor_timestamp")

    op.drop_table("image")
    with op.batch_alter_table("filearchive", schema=None) as batch_op:
        batch_op.drop_index("fa_sha1")
        batch_op.drop_index("fa_name")

    op.drop_table("filearchive")
    op.drop_table("archive_tag")
    with op.batch_alter_table("archive", schema=None) as batch_op:
        batch_op.drop_index("ar_timestamp")
        batch_op.drop_index("ar_name_title_timestamp")
        batch_op.drop_index("ar_actor_timestamp")

    op.drop_table("archive")
