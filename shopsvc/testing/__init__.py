"""Data builders that the test suite and the benchmarks share: scratch PostgreSQL databases and a
user with a key (``databases``), rows inserted through an engine or a connection (``rows``), and
catalogue rows inserted directly (``catalog``)."""
