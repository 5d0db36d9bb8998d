"""Data builders that the test suite and the benchmarks share: scratch PostgreSQL databases, a
user with a key, catalogue rows inserted directly."""
