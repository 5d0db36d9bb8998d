"""Writes that touch the database, per family, apart from the code that routes.

A view (or the bulk runner, element by element) checks the request in the spec's order, validates
the fields (``shopsvc.validation``) and hands the clean values to a writer with a
:class:`~shopsvc.writers.context.WriteContext`: the connection, the settings, the clock and the
image download. Writers never see the request and never import Pyramid, so the CLI can use them.

Products and variations (reference products.md §5, §6, §8, §9):

* ``products``: create, edit, delete of a product row (prices, SKU, terms, downloads, linked ids,
  restore from the trash), in the original's order;
* ``variations``: a variable product's variations (upsert, titles, attribute values) and
  ``PUT /products/<variation id>``;
* ``fields``: the write fields products and variations share (SKU, shipping, prices, tax class,
  downloads);
* ``stock``: the stock columns after a save and a variable parent's status from its variations
  (the rules: ``shopsvc.domain.stock``);
* ``images``: featured image and gallery;
* ``product_attributes``: a product's attribute list and the global terms it creates;
* ``product_batch``: ``/products/bulk`` set-based (the common shapes planned with the same checks,
  written together; anything else runs through the writers above, one element at a time).

Orders (reference orders.md §3, §4, §9, §10) have one writer, a planner: ``order_batch`` plans
every create and edit, single (a batch of one) or in ``/orders/bulk``, with every check before
the first write, then writes each table once (``docs/architecture.md`` "One write path"). Its
steps: ``order_items`` (one item element's checks and columns), ``order_arrays`` (the item arrays
and the totals), ``order_totals`` (the computation), ``order_status`` (status, payment, stock,
sales, refund), ``order_plan`` (what a plan holds); ``orders`` holds the errors they share and
the delete. Notes and refunds have their own writers (``order_notes``, ``order_refunds``).

The validated shapes they take (``ImageInput``, ``AttributeInput``…) come from
``shopsvc.validation.products``, which the variations writer also calls to validate each element
of ``variations`` as it reaches it (an element's error is reported after the product's own).
"""
