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

The validated shapes they take (``ImageInput``, ``AttributeInput``…) come from
``shopsvc.validation.products``, which the variations writer also calls to validate each element
of ``variations`` as it reaches it (an element's error is reported after the product's own).
"""
