"""What the tests share, one module per kind of helper (import them as ``tests.helpers.<module>``):

* :mod:`tests.helpers.api`: the API roots, credentials, ``error``/``errors``/``assert_error``,
  the one ``create``, and the checks every collection route shares.
* :mod:`tests.helpers.sql`: rows straight into and out of the database, and the one SQL-statement
  capture (``statements``).
* :mod:`tests.helpers.server`: the one local HTTP server (127.0.0.1, a free port, a daemon
  thread, a fast shutdown) and the image host built on it.
* :mod:`tests.helpers.oauth`: requests signed with OAuth 1.0a by oauthlib.
* :mod:`tests.helpers.products`, :mod:`tests.helpers.taxes`, :mod:`tests.helpers.webhooks`: each
  family's routes, requests and seeds.
* :mod:`tests.helpers.terms`: the table of the term families that ``tests/terms/test_common.py``
  runs over.

The catalogue factory (``tests/catalog_factory.py``), the scratch databases
(``tests/databases.py``) and the legacy client (``tests/legacy_client.py``) stay where they are:
the benchmark in ``bench/`` and the CLI tests import them too.
"""
