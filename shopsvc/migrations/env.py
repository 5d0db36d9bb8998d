"""Alembic environment: the connection is handed in by ``shopsvc.db.schema.migrate``, and the
callback that logs each migration applied."""

from alembic import context

from shopsvc.sql.tables import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    on_version_apply=context.config.attributes.get("on_version_apply", ()),
)
with context.begin_transaction():
    context.run_migrations()
