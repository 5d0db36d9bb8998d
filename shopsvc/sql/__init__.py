"""The statements: SQLAlchemy Core over the tables of ``tables.py``, one module per family and
side.

Every family splits its statements the same way (``tests/test_layers.py`` checks it):

* ``<family>.py`` reads — ``SELECT`` only: one row, a page of ids, a count, the rows a writer
  checks or locks before it writes (``FOR UPDATE`` is a read). ``products``, ``orders``,
  ``taxes``, ``terms``, ``attributes``, ``webhooks``, ``customers``, ``reviews``, ``media``,
  ``auth``, ``order_notes``, ``order_refunds``.
* ``<family>_writes.py`` writes — ``INSERT``, ``UPDATE``, ``DELETE`` of one record at a time; a
  write returns what its statement returns (an id, whether a row changed) and reads only what it
  needs to write (the slug it renames, the profile it merges into):
  ``product_writes``, ``order_writes``, ``tax_writes``, ``term_writes``, ``attribute_writes``,
  ``webhook_writes``, ``customer_writes``, ``review_writes``, ``media_writes``, ``auth_writes``,
  ``order_note_writes``, ``order_refund_writes``.
* ``<family>_batch.py`` the writes of a set-based ``/bulk`` (all its elements in one statement per
  table): ``product_batch``, ``order_batch`` — the latter writes every order create and edit,
  single or bulk (a single one is a batch of one), so ``order_writes`` keeps only the trash and
  the delete, and ``customer_writes`` the profiles an order plan merged. The tax rates' writes
  are set-based for one rate and for a bulk alike, so the taxes have none.

The two largest families spread their reads over more modules, each named for what it reads:
``product_data`` and ``order_data`` (the data of a page of records, for ``shopsvc.records``),
``product_lookups`` and ``order_lookups`` (what the writers read before they write: one record's
and a set-based bulk's; an order plan's, single or bulk), ``order_counts`` (the counters of
migration 0007).

The other modules belong to no family and are not split, because each is one piece of machinery
used by both sides or one whole of its own: ``tables`` (the schema), ``common`` (what reads and
writes share: the savepoint a unique index may fail, the slugs a new slug avoids, the bulk
insert), ``paging`` (the list parameters and the pager), ``bundle`` (several child queries in one
statement), ``prepared`` (hot statements compiled once), ``json_rows`` (SQLite's one-row reads),
``deliveries`` (the webhook outbox: a queue whose claim reads and marks in one step, and whose
finish is guarded by the claim), ``named_queries`` (the DBA's catalogue of both sides'
statements) and ``demo`` (the reads and writes of the demo-data generator).
"""
