"""The JSON record of each family, built from a :class:`~shopsvc.records.context.RecordContext`
(connection, settings, public URL, what the caller may see, the clock) — by a view, the CLI or
the delivery worker alike. Nothing here imports Pyramid."""
