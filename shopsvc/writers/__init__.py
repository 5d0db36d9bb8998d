"""Writes that touch the database, per family, apart from the code that routes.

A view (or the bulk runner, element by element) checks the request in the spec's order, validates
the fields (``shopsvc.validation``) and hands the clean values to a writer with a
:class:`~shopsvc.writers.context.WriteContext`: the connection, the settings, the clock and the
image download. Writers never see the request and never import Pyramid, so the CLI can use them.

Products and variations (reference products.md §5, §6, §8, §9) have one write path, plan →
every check → write each table once, for a single create or edit and a bulk alike:

* ``product_batch``: the planner (:class:`~shopsvc.writers.product_batch.ProductBatch`): reads
  what the checks need, makes every check of every product in the original's order, then
  writes; ``variation_plan`` its variations part (upsert, titles, a variation's own edit,
  restores); ``product_plan`` what a plan holds and a product's attribute list with the terms it
  creates; ``product_write`` the write of the plans;
* ``products``: the basic columns of a create or edit, the term checks, and deleting a product;
* ``fields``: the write fields products and variations share (SKU, shipping, prices, tax class,
  downloads);
* ``stock``: the stock columns after a save and a variable parent's status from its variations
  (the rules: ``shopsvc.domain.stock``), and stock moved by orders;
* ``images``: featured image and gallery; ``attribute_options``: which term or attribute an
  option names, and a variation's title.

Orders (reference orders.md §3, §4, §9, §10) have one writer, a planner: ``order_batch`` plans
every create and edit, single (a batch of one) or in ``/orders/bulk``, with every check before
the first write, then writes each table once (``docs/architecture.md`` "One write path"). Its
steps: ``order_items`` (one item element's checks and columns), ``order_arrays`` (the item arrays
and the totals), ``order_totals`` (the computation), ``order_status`` (status, payment, stock,
sales, refund), ``order_plan`` (what a plan holds); ``orders`` holds the errors they share and
the delete. Notes and refunds have their own writers (``order_notes``, ``order_refunds``).

The validated shapes they take (``ImageInput``, ``AttributeInput``…) come from
``shopsvc.validation.products``; the planner validates each element of ``variations`` as it
reaches it (an element's error is reported after the product's own).
"""
