"""One user per email address, case-insensitively.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op
from alembic.util import CommandError

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Before this revision `shopsvc create-user` accepted an email that was already taken: refuse
    # to go on (naming the addresses) rather than fail on the index or change anyone's email.
    duplicates = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT lower(email) FROM users GROUP BY lower(email) "
                "HAVING count(*) > 1 ORDER BY lower(email)"
            )
        )
        .scalars()
        .all()
    )
    if duplicates:
        raise CommandError(
            "cannot make user emails unique: more than one user has the email "
            + ", ".join(duplicates)
            + "; give those users distinct emails (UPDATE users SET email = … WHERE id = …) "
            "and migrate again"
        )
    op.create_index("uq_users_email", "users", [sa.text("lower(email)")], unique=True)


def downgrade() -> None:
    op.drop_index("uq_users_email", table_name="users")
