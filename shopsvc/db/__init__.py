"""The database: the engine, the schema's migrations, a request's connection and transaction,
and the PostgreSQL LISTEN thread."""
