"""What the tests share, one module per kind of helper (import them as ``tests.helpers.<module>``);
the fixtures built on them live in the conftests (``tests/conftest.py`` for every test, one per
folder for that folder's tests).

* :mod:`tests.helpers.api`: the API roots, credentials, ``error``/``errors``/``assert_error``,
  the one ``create``, and the checks every collection route shares.
* :mod:`tests.helpers.databases`: the test databases (a scratch PostgreSQL database, SQLite
  without fsync, emptying every table between tests) and one migration command on a connection.
* :mod:`tests.helpers.sql`: rows straight into and out of the database, and the one SQL-statement
  capture (``statements``).
* :mod:`tests.helpers.cli`: the console script run in this process, and the JSON lines it
  printed.
* :mod:`tests.helpers.server`: the one local HTTP server (127.0.0.1, a free port, a daemon
  thread, a fast shutdown) and the image host built on it; :mod:`tests.helpers.receivers`: the
  webhook receivers built on it.
* :mod:`tests.helpers.oauth`: requests signed with OAuth 1.0a by oauthlib;
  :mod:`tests.helpers.legacy_client`: the real PyPI ``woocommerce`` client run against a TestApp.
* :mod:`tests.helpers.products`, :mod:`tests.helpers.orders` (with the ``OrderFactory``),
  :mod:`tests.helpers.order_writes`, :mod:`tests.helpers.taxes`, :mod:`tests.helpers.webhooks`,
  :mod:`tests.helpers.deliveries`: each family's routes, requests and seeds.
* :mod:`tests.helpers.terms`: the table of the term families that ``tests/terms/`` runs over.

What the benchmarks in ``bench/`` use too lives in :mod:`shopsvc.testing` (the catalogue
factory, scratch databases, a user with a key, row inserts), never here: ``bench/`` imports
nothing from ``tests/``.
"""
