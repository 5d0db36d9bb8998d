"""The hostile-input suite: property-based requests against every write, list and count route,
and the regressions they found (``test_*.py`` here), built from:

* :mod:`~tests.hostile.bodies`: request bodies ``json.dumps`` cannot write (:class:`Raw` numbers
  that overflow or have 5000 digits, nesting deeper than Python's recursion limit, lone
  surrogates), and bodies that are not JSON at all.
* :mod:`~tests.hostile.values`: hostile values of every JSON type, and integers and amounts at
  and beyond the edges of their columns.
* :mod:`~tests.hostile.records`: plausible values per kind of field, and records (envelopes)
  built from a family's write fields: mostly plausible, with one field (chosen evenly) and up to
  two more fields or unknown keys made hostile, so requests get past the first check and into
  the deeper ones.
* :mod:`~tests.hostile.shapes` (products, variations, terms, taxes, webhooks) and
  :mod:`~tests.hostile.order_shapes` (orders, notes, refunds): each family's write fields, read
  off ``shopsvc/validation/*.py`` and ``shopsvc/views/*.py``.
* :mod:`~tests.hostile.writes`: every write route of every family (``FAMILIES``) and the
  requests drawn for them; :mod:`~tests.hostile.queries`: query strings for the list, count and
  single GET routes; :mod:`~tests.hostile.paths`: odd paths and methods;
  :mod:`~tests.hostile.int_fields`: where each integer field goes in a body.
* :mod:`~tests.hostile.harness` sends one request and checks the properties
  (:mod:`~tests.hostile.checks`): no 5xx; a 4xx carries the error JSON with a
  ``shop_(api_)?…`` code; a request that failed (or a bulk request whose every element failed)
  changed no row of any table. :mod:`~tests.hostile.world` makes the records the routes name.

Bodies name the suite's records by placeholders (``"{order}"``, ``"<line>"`` for an object key)
that :meth:`Harness.fill <tests.hostile.harness.Harness.fill>` replaces with their ids.

No URL in the generated data can reach the network: image and delivery URLs are either not
``http(s)`` at all or name a private IP literal, and the suite's app refuses private targets
(``shopsvc.outbound.allow_private_targets = false``), so neither a download nor a webhook ping
ever opens a connection.
"""
