"""``shopsvc CONFIG seed``: realistic demo data, from a small demo store to a million orders.

What a run writes (each batch in one transaction, so an interrupted run leaves whole records):

* the shared catalogue, found by name or slug and created when missing: categories (a tree),
  tags, shipping classes, global attributes (Color, Size) and their terms; when the store has no
  tax rate at all, a ``Reduced rate`` class and standard and reduced rates (four US states, GB,
  FR, DE). A store with rates keeps them, and the new orders are taxed with them;
* customers: users of role ``customer`` with a profile (billing and shipping address);
* published products: simple ones and variable ones with 2-3 variations (global or custom
  attributes), prices and sales, stock, weights and sizes, categories, tags, shipping classes,
  a featured image and a gallery (``media`` rows: tiny generated PNGs below ``media_dir`` for a
  demo-sized run, else the packaged placeholder);
* orders of 1-5 line items (products and variations, with their variation meta), a shipping
  line, sometimes a gift-wrapping fee and a coupon, taxes and one tax item per rate, totals as a
  recalculation stores them, status-change notes (and some customer and private notes), refunds
  and their items; every status, ``created_at`` over the last two years (more lately); the
  products' ``total_sales`` follow the orders that record sales.

Everything is pseudo-random from ``seed_value``, the run's tag and the batch number: a run makes
the same records however many processes write it (dates are relative to now; with several
processes, products and order items may get their ids in another order; orders and customers get
theirs in batch order, so order ids grow with ``created_at``). Names that must be unique (SKUs,
slugs, logins, emails) carry the run's tag ``s<N>`` -- the first N that no SKU, slug or login
carries yet -- so seeding an existing database appends without collisions. No webhook event is
queued.

The modules, in the order a run uses them: ``run`` (the options and the run, phase after phase,
with progress bars), ``catalogue`` (the shared catalogue), ``batches`` (a phase's batches, made
and written by a thread ahead or by worker processes loading with ``COPY``), the phases
``customers``, ``products`` and ``orders`` (with ``taxes``, ``totals`` and ``refunds``), and what
they draw on: ``vocabulary`` (words, places, weights), ``money`` (integer micro-units) and
``images`` (the PNGs). The SQL they run is ``shopsvc.sql.demo`` (id reservation, batched
inserts).

Totals: orders are taxed as ``shopsvc.domain.totals.calculate_totals`` taxes them; in the common
case the same arithmetic runs on integers (``totals.fast_totals``), proven equal to
``calculate_totals`` by ``tests/cli/test_demo_totals.py``.
"""
