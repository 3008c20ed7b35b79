"""wiki foundation schema

Revision ID: 0001_wiki_foundation
Revises:
Create Date: 2026-11-21 04:52:26.073165
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_wiki_foundation"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "actor",
        sa.Column("actor_id", sa.Integer(), nullable=False),
        sa.Column("actor_user", sa.Integer(), nullable=True),
        sa.Column(
            "actor_name",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("actor_id"),
        sa.UniqueConstraint("actor_name"),
        sa.UniqueConstraint("actor_user"),
    )
    op.create_table(
        "change_tag_def",
        sa.Column("ctd_id", sa.Integer(), nullable=False),
        sa.Column("ctd_name", sa.String(length=255), nullable=False),
        sa.Column("ctd_user_defined", sa.Boolean(), nullable=False),
        sa.Column("ctd_count", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("ctd_id"),
        sa.UniqueConstraint("ctd_name"),
    )
    op.create_table(
        "comment",
        sa.Column("comment_id", sa.Integer(), nullable=False),
        sa.Column("comment_text", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("comment_id"),
    )
    op.create_table(
        "namespace",
        sa.Column("ns_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("ns_name", sa.String(length=255), nullable=False),
        sa.Column("ns_canonical", sa.String(length=255), nullable=False),
        sa.Column("ns_case", sa.String(length=16), server_default="first-letter", nullable=False),
        sa.Column("ns_subpages", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ns_content", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ns_nonincludable", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("ns_protection", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("ns_id"),
    )
    op.create_table(
        "namespace_alias",
        sa.Column("nsa_name", sa.String(length=255), nullable=False),
        sa.Column("nsa_ns", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("nsa_name"),
    )
    op.create_table(
        "page",
        sa.Column("page_id", sa.Integer(), nullable=False),
        sa.Column("page_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "page_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("page_is_redirect", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("page_is_new", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("page_random", sa.Float(), nullable=False),
        sa.Column("page_touched", sa.String(length=14), nullable=False),
        sa.Column("page_links_updated", sa.String(length=14), nullable=True),
        sa.Column("page_latest", sa.Integer(), nullable=False),
        sa.Column("page_len", sa.Integer(), nullable=False),
        sa.Column(
            "page_content_model", sa.String(length=32), server_default="wikitext", nullable=False
        ),
        sa.Column("page_lang", sa.String(length=35), nullable=True),
        sa.PrimaryKeyConstraint("page_id"),
        sa.UniqueConstraint("page_namespace", "page_title", name="page_name_title"),
    )
    with op.batch_alter_table("page", schema=None) as batch_op:
        batch_op.create_index("page_len", ["page_len"], unique=False)
        batch_op.create_index(
            "page_redirect_namespace_len",
            ["page_is_redirect", "page_namespace", "page_len"],
            unique=False,
        )

    op.create_table(
        "session",
        sa.Column("s_id", sa.String(length=64), nullable=False),
        sa.Column("s_user", sa.Integer(), nullable=True),
        sa.Column("s_bot_app", sa.String(length=32), nullable=True),
        sa.Column("s_secret", sa.String(length=64), nullable=False),
        sa.Column("s_expiry", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("s_id"),
    )
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.create_index("s_expiry", ["s_expiry"], unique=False)

    op.create_table(
        "site_config",
        sa.Column("sc_name", sa.String(length=64), nullable=False),
        sa.Column("sc_value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("sc_name"),
    )
    op.create_table(
        "text",
        sa.Column("old_id", sa.Integer(), nullable=False),
        sa.Column("old_text", sa.Text(), nullable=False),
        sa.Column("old_flags", sa.String(length=64), server_default="utf-8", nullable=False),
        sa.PrimaryKeyConstraint("old_id"),
    )
    op.create_table(
        "user",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column(
            "user_name",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("user_real_name", sa.String(length=255), server_default="", nullable=False),
        sa.Column("user_password", sa.Text(), server_default="", nullable=False),
        sa.Column("user_email", sa.String(length=255), server_default="", nullable=False),
        sa.Column("user_registration", sa.String(length=14), nullable=True),
        sa.Column("user_touched", sa.String(length=14), nullable=False),
        sa.Column("user_editcount", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("user_id"),
        sa.UniqueConstraint("user_name"),
    )
    op.create_table(
        "bot_passwords",
        sa.Column("bp_user", sa.Integer(), nullable=False),
        sa.Column("bp_app_id", sa.String(length=32), nullable=False),
        sa.Column("bp_password", sa.Text(), nullable=False),
        sa.Column("bp_token", sa.String(length=255), server_default="", nullable=False),
        sa.Column("bp_restrictions", sa.Text(), server_default="", nullable=False),
        sa.Column("bp_grants", sa.Text(), server_default="", nullable=False),
        sa.ForeignKeyConstraint(
            ["bp_user"],
            ["user.user_id"],
        ),
        sa.PrimaryKeyConstraint("bp_user", "bp_app_id"),
    )
    op.create_table(
        "categorylinks",
        sa.Column("cl_from", sa.Integer(), nullable=False),
        sa.Column(
            "cl_to",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "cl_sortkey",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("cl_sortkey_prefix", sa.String(length=255), server_default="", nullable=False),
        sa.Column("cl_timestamp", sa.String(length=14), nullable=False),
        sa.Column("cl_collation", sa.String(length=32), server_default="uppercase", nullable=False),
        sa.Column("cl_type", sa.String(length=6), server_default="page", nullable=False),
        sa.ForeignKeyConstraint(
            ["cl_from"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("cl_from", "cl_to"),
    )
    with op.batch_alter_table("categorylinks", schema=None) as batch_op:
        batch_op.create_index(
            "cl_sortkey", ["cl_to", "cl_type", "cl_sortkey", "cl_from"], unique=False
        )
        batch_op.create_index("cl_timestamp", ["cl_to", "cl_timestamp"], unique=False)

    op.create_table(
        "externallinks",
        sa.Column("el_id", sa.Integer(), nullable=False),
        sa.Column("el_from", sa.Integer(), nullable=False),
        sa.Column("el_to", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["el_from"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("el_id"),
    )
    with op.batch_alter_table("externallinks", schema=None) as batch_op:
        batch_op.create_index("el_from", ["el_from"], unique=False)

    op.create_table(
        "imagelinks",
        sa.Column("il_from", sa.Integer(), nullable=False),
        sa.Column(
            "il_to",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("il_from_namespace", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["il_from"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("il_from", "il_to"),
    )
    with op.batch_alter_table("imagelinks", schema=None) as batch_op:
        batch_op.create_index(
            "il_backlinks_namespace", ["il_from_namespace", "il_to", "il_from"], unique=False
        )
        batch_op.create_index("il_to", ["il_to", "il_from"], unique=False)

    op.create_table(
        "langlinks",
        sa.Column("ll_from", sa.Integer(), nullable=False),
        sa.Column("ll_lang", sa.String(length=35), nullable=False),
        sa.Column(
            "ll_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["ll_from"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("ll_from", "ll_lang"),
    )
    with op.batch_alter_table("langlinks", schema=None) as batch_op:
        batch_op.create_index("ll_lang", ["ll_lang", "ll_title"], unique=False)

    op.create_table(
        "pagelinks",
        sa.Column("pl_from", sa.Integer(), nullable=False),
        sa.Column("pl_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "pl_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("pl_from_namespace", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["pl_from"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("pl_from", "pl_namespace", "pl_title"),
    )
    with op.batch_alter_table("pagelinks", schema=None) as batch_op:
        batch_op.create_index(
            "pl_backlinks_namespace",
            ["pl_from_namespace", "pl_namespace", "pl_title", "pl_from"],
            unique=False,
        )
        batch_op.create_index("pl_target", ["pl_namespace", "pl_title", "pl_from"], unique=False)

    op.create_table(
        "redirect",
        sa.Column("rd_from", sa.Integer(), nullable=False),
        sa.Column("rd_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "rd_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("rd_interwiki", sa.String(length=32), server_default="", nullable=False),
        sa.Column("rd_fragment", sa.String(length=255), server_default="", nullable=False),
        sa.ForeignKeyConstraint(
            ["rd_from"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("rd_from"),
    )
    with op.batch_alter_table("redirect", schema=None) as batch_op:
        batch_op.create_index("rd_ns_title", ["rd_namespace", "rd_title", "rd_from"], unique=False)

    op.create_table(
        "revision",
        sa.Column("rev_id", sa.Integer(), nullable=False),
        sa.Column("rev_page", sa.Integer(), nullable=False),
        sa.Column("rev_text_id", sa.Integer(), nullable=False),
        sa.Column("rev_comment_id", sa.Integer(), nullable=False),
        sa.Column("rev_actor", sa.Integer(), nullable=False),
        sa.Column("rev_timestamp", sa.String(length=14), nullable=False),
        sa.Column("rev_minor_edit", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("rev_deleted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rev_len", sa.Integer(), nullable=False),
        sa.Column("rev_parent_id", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rev_sha1", sa.String(length=32), nullable=False),
        sa.Column(
            "rev_content_model", sa.String(length=32), server_default="wikitext", nullable=False
        ),
        sa.Column(
            "rev_content_format", sa.String(length=64), server_default="text/x-wiki", nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["rev_actor"],
            ["actor.actor_id"],
        ),
        sa.ForeignKeyConstraint(
            ["rev_comment_id"],
            ["comment.comment_id"],
        ),
        sa.ForeignKeyConstraint(
            ["rev_page"],
            ["page.page_id"],
        ),
        sa.ForeignKeyConstraint(
            ["rev_text_id"],
            ["text.old_id"],
        ),
        sa.PrimaryKeyConstraint("rev_id"),
    )
    with op.batch_alter_table("revision", schema=None) as batch_op:
        batch_op.create_index("rev_actor_timestamp", ["rev_actor", "rev_timestamp"], unique=False)
        batch_op.create_index("rev_page_timestamp", ["rev_page", "rev_timestamp"], unique=False)
        batch_op.create_index("rev_timestamp", ["rev_timestamp"], unique=False)

    op.create_table(
        "templatelinks",
        sa.Column("tl_from", sa.Integer(), nullable=False),
        sa.Column("tl_namespace", sa.Integer(), nullable=False),
        sa.Column(
            "tl_title",
            sa.String(length=255).with_variant(sa.VARCHAR(length=255, collation="C"), "postgresql"),
            nullable=False,
        ),
        sa.Column("tl_from_namespace", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tl_from"],
            ["page.page_id"],
        ),
        sa.PrimaryKeyConstraint("tl_from", "tl_namespace", "tl_title"),
    )
    with op.batch_alter_table("templatelinks", schema=None) as batch_op:
        batch_op.create_index(
            "tl_backlinks_namespace",
            ["tl_from_namespace", "tl_namespace", "tl_title", "tl_from"],
            unique=False,
        )
        batch_op.create_index("tl_target", ["tl_namespace", "tl_title", "tl_from"], unique=False)

    op.create_table(
        "user_groups",
        sa.Column("ug_user", sa.Integer(), nullable=False),
        sa.Column("ug_group", sa.String(length=255), nullable=False),
        sa.Column("ug_expiry", sa.String(length=14), nullable=True),
        sa.ForeignKeyConstraint(
            ["ug_user"],
            ["user.user_id"],
        ),
        sa.PrimaryKeyConstraint("ug_user", "ug_group"),
    )
    with op.batch_alter_table("user_groups", schema=None) as batch_op:
        batch_op.create_index("ug_group", ["ug_group"], unique=False)

    op.create_table(
        "user_properties",
        sa.Column("up_user", sa.Integer(), nullable=False),
        sa.Column("up_property", sa.String(length=255), nullable=False),
        sa.Column("up_value", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["up_user"],
            ["user.user_id"],
        ),
        sa.PrimaryKeyConstraint("up_user", "up_property"),
    )
    op.create_table(
        "change_tag",
        sa.Column("ct_rev_id", sa.Integer(), nullable=False),
        sa.Column("ct_tag_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ct_rev_id"],
            ["revision.rev_id"],
        ),
        sa.ForeignKeyConstraint(
            ["ct_tag_id"],
            ["change_tag_def.ctd_id"],
        ),
        sa.PrimaryKeyConstraint("ct_rev_id", "ct_tag_id"),
    )
    with op.batch_alter_table("change_tag", schema=None) as batch_op:
        batch_op.create_index("ct_tag_id_id", ["ct_tag_id", "ct_rev_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("change_tag", schema=None) as batch_op:
        batch_op.drop_index("ct_tag_id_id")

    op.drop_table("change_tag")
    op.drop_table("user_properties")
    with op.batch_alter_table("user_groups", schema=None) as batch_op:
        batch_op.drop_index("ug_group")

    op.drop_table("user_groups")
    with op.batch_alter_table("templatelinks", schema=None) as batch_op:
        batch_op.drop_index("tl_target")
        batch_op.drop_index("tl_backlinks_namespace")

    op.drop_table("templatelinks")
    with op.batch_alter_table("revision", schema=None) as batch_op:
        batch_op.drop_index("rev_timestamp")
        batch_op.drop_index("rev_page_timestamp")
        batch_op.drop_index("rev_actor_timestamp")

    op.drop_table("revision")
    with op.batch_alter_table("redirect", schema=None) as batch_op:
        batch_op.drop_index("rd_ns_title")

    op.drop_table("redirect")
    with op.batch_alter_table("pagelinks", schema=None) as batch_op:
        batch_op.drop_index("pl_target")
        batch_op.drop_index("pl_backlinks_namespace")

    op.drop_table("pagelinks")
    with op.batch_alter_table("langlinks", schema=None) as batch_op:
        batch_op.drop_index("ll_lang")

    op.drop_table("langlinks")
    with op.batch_alter_table("imagelinks", schema=None) as batch_op:
        batch_op.drop_index("il_to")
        batch_op.drop_index("il_backlinks_namespace")

    op.drop_table("imagelinks")
    with op.batch_alter_table("externallinks", schema=None) as batch_op:
        batch_op.drop_index("el_from")

    op.drop_table("externallinks")
    with op.batch_alter_table("categorylinks", schema=None) as batch_op:
        batch_op.drop_index("cl_timestamp")
        batch_op.drop_index("cl_sortkey")

    op.drop_table("categorylinks")
    op.drop_table("bot_passwords")
    op.drop_table("user")
    op.drop_table("text")
    op.drop_table("site_config")
    with op.batch_alter_table("session", schema=None) as batch_op:
        batch_op.drop_index("s_expiry")

    op.drop_table("session")
    with op.batch_alter_table("page", schema=None) as batch_op:
        batch_op.drop_index("page_redirect_namespace_len")
        batch_op.drop_index("page_len")

    op.drop_table("page")
    op.drop_table("namespace_alias")
    op.drop_table("namespace")
    op.drop_table("comment")
    op.drop_table("change_tag_def")
    op.drop_table("actor")
