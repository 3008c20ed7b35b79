"""Joins the two histories that both grew from 0007: 0008 (settings, reactions, presence) and
0009 (uploads, emoji, bots, invitations). Nothing to change: each stands alone.

Revision ID: 0010
Revises: 0008, 0009
"""

from collections.abc import Sequence

revision: str = "0010"
down_revision: str | Sequence[str] | None = ("0008", "0009")
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
