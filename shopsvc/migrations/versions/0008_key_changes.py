"""Key changes notified (issue 10, goal 2; ``shopsvc.auth.key_cache``): on PostgreSQL, triggers on
``api_keys`` and ``users`` send a ``NOTIFY shopsvc_keys`` in the transaction of every change
that a cached key row would miss, whoever writes it:

* ``api_keys``: a row deleted, or its ``user_id``, ``permissions``, ``consumer_secret`` or
  ``consumer_key_hash`` updated — the payload is the (old) ``consumer_key_hash``. Not a new
  key (nothing caches a key that is not there) nor ``last_access``, written once a minute;
* ``users``: a row deleted, or its ``login`` or ``role`` updated — ``user:<id>``;
* either table truncated — ``*``.

Row-level triggers: a change reaches only the entries it concerns (PostgreSQL sends a payload
once per transaction, however many rows repeat it). SQLite has no notifications and caches no
keys: nothing to do there.

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_FUNCTIONS = {
    "api_keys_changed": "PERFORM pg_notify('shopsvc_keys', OLD.consumer_key_hash);",
    "users_changed": "PERFORM pg_notify('shopsvc_keys', 'user:' || OLD.id);",
    "keys_truncated": "PERFORM pg_notify('shopsvc_keys', '*');",
}
#: name: (table, when, for each, function)
_TRIGGERS = {
    "api_keys_changed": (
        "api_keys",
        "AFTER UPDATE OF user_id, permissions, consumer_secret, consumer_key_hash OR DELETE",
        "ROW",
        "api_keys_changed",
    ),
    "users_changed": ("users", "AFTER UPDATE OF login, role OR DELETE", "ROW", "users_changed"),
    "api_keys_truncated": ("api_keys", "AFTER TRUNCATE", "STATEMENT", "keys_truncated"),
    "users_truncated": ("users", "AFTER TRUNCATE", "STATEMENT", "keys_truncated"),
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name, body in _FUNCTIONS.items():
        op.execute(
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            f"BEGIN\n    {body}\n    RETURN NULL;\nEND\n$$"
        )
    for name, (table, when, each, function) in _TRIGGERS.items():
        op.execute(
            f"CREATE TRIGGER {name} {when} ON {table} FOR EACH {each} EXECUTE FUNCTION {function}()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name, (table, *_) in _TRIGGERS.items():
        op.execute(f"DROP TRIGGER {name} ON {table}")
    for name in _FUNCTIONS:
        op.execute(f"DROP FUNCTION {name}()")
