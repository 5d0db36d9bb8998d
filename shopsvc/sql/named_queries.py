"""The named queries of ``shopsvc/sql``: every statement worth a DBA's look, by name.

Each entry builds its statement with the very function the service runs — ``products.page``
is ``sql.products.page_query``, the query ``GET /products`` executes — from ``--filter
key=value`` pairs, with defaults for what a statement cannot do without (ids, a product, the
current time). ``shopsvc CONFIG sql`` lists and prints them and ``shopsvc CONFIG explain`` shows
their plans (``shopsvc/cli/dba.py``); ``docs/sql.md`` says which index serves which of them.
The catalogue names the statements of reads and writes alike, so it is not split like the
families' modules.

Lists read the common list keys the way the API reads ``filter[...]`` (``page``, ``limit``,
``offset``, ``order``, ``orderby`` — a sort key —, ``in``, ``not_in``, ``created_at_min``,
``created_at_max``, ``updated_at_min``, ``updated_at_max``, ``q``) plus their own; a key an
entry does not read is refused, so that a typo does not silently explain another query.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Executable

from shopsvc.sql import (
    attributes,
    auth,
    auth_writes,
    deliveries,
    order_data,
    order_notes,
    order_refunds,
    orders,
    product_data,
    products,
    reviews,
    tax_writes,
    taxes,
    terms,
    webhooks,
)
from shopsvc.sql.common import bulk_insert
from shopsvc.sql.paging import Listable, ListFilters
from shopsvc.sql.tables import tax_rate_locations, tax_rates, utc_now


class FilterError(ValueError):
    """A ``--filter`` the named query cannot use (unknown key, bad value)."""


@dataclass(frozen=True)
class Built:
    """A named query's statement and, for a statement the service executes with a list of rows
    (an ``executemany`` insert), one such row."""

    statement: Executable
    parameters: dict[str, Any] | None = None


class Args:
    """The ``--filter key=value`` pairs of one build, read through typed getters; the keys read
    are remembered (``unread`` names the others)."""

    def __init__(self, values: Mapping[str, str], dialect: str = "postgresql") -> None:
        self.values = dict(values)
        self.read: set[str] = set()
        #: The database the statement is for (a few queries take another form on SQLite).
        self.dialect = dialect

    def _take(self, key: str) -> str | None:
        self.read.add(key)
        value = self.values.get(key)
        return None if value is None or not value.strip() else value.strip()

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self._take(key)
        return default if value is None else value

    def integer(self, key: str, default: int) -> int:
        found = self.optional_integer(key)
        return default if found is None else found

    def optional_integer(self, key: str) -> int | None:
        value = self._take(key)
        if value is None:
            return None
        try:
            return int(value)
        except ValueError:
            raise FilterError(f"{key}: {value!r} is not an integer") from None

    def ids(self, key: str, default: tuple[int, ...] = (1,)) -> tuple[int, ...]:
        found = self.optional_ids(key)
        return default if found is None else found

    def optional_ids(self, key: str) -> tuple[int, ...] | None:
        value = self._take(key)
        if value is None:
            return None
        try:
            return tuple(int(part) for part in value.split(",") if part.strip())
        except ValueError:
            raise FilterError(f"{key}: {value!r} is not a comma list of ids") from None

    def words(self, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        value = self._take(key)
        if value is None:
            return default
        return tuple(part.strip() for part in value.split(",") if part.strip())

    def flag(self, key: str) -> bool:
        value = self._take(key)
        if value is None:
            return False
        if value.lower() in ("true", "1", "yes"):
            return True
        if value.lower() in ("false", "0", "no"):
            return False
        raise FilterError(f"{key}: {value!r} is not a boolean")

    def moment(self, key: str, default: dt.datetime | None = None) -> dt.datetime | None:
        """An ISO 8601 date or time (``2025-01-01``, ``2025-01-01T10:00:00Z``), naive UTC."""
        value = self._take(key)
        if value is None:
            return default
        try:
            found = dt.datetime.fromisoformat(value)
        except ValueError:
            raise FilterError(f"{key}: {value!r} is not an ISO 8601 date or time") from None
        if found.tzinfo is not None:
            found = found.astimezone(dt.UTC).replace(tzinfo=None)
        return found

    def now(self) -> dt.datetime:
        found = self.moment("now")
        return utc_now() if found is None else found

    def prefixed(self, prefix: str) -> dict[str, str]:
        """Every given key that starts with ``prefix`` (``pa_color=red``), marked as read."""
        found = {
            k: v for k, v in self.values.items() if k.startswith(prefix) and len(k) > len(prefix)
        }
        self.read.update(found)
        self.read.add(f"{prefix}*")
        return found

    def page(
        self,
        listable: Listable,
        default_orderby: str = "created_at",
        fixed_order: str | None = None,
    ) -> ListFilters:
        """The common list keys (``shopsvc.web.listing.parse_list_params``); ``orderby`` is a sort
        key of the list; a list with a ``fixed_order`` ignores ``order`` and ``orderby``."""
        page = max(1, self.integer("page", 1))
        limit = max(1, self.integer("limit", 10))
        offset = self.integer("offset", 0)
        if fixed_order is None:
            orderby = self.text("orderby", default_orderby) or default_orderby
            order = (self.text("order", "DESC") or "DESC").upper()
        else:
            orderby, order = fixed_order, "ASC"
        if orderby not in listable.sort_keys:
            choices = ", ".join(sorted(listable.sort_keys))
            raise FilterError(f"orderby: {orderby!r} is not one of {choices}")
        if order not in ("ASC", "DESC"):
            raise FilterError(f"order: {order!r} is not ASC or DESC")
        return ListFilters(
            page=page,
            limit=limit,
            offset=offset if offset else (page - 1) * limit,
            descending=order == "DESC",
            orderby=orderby,
            ids_in=self.optional_ids("in"),
            ids_not_in=self.optional_ids("not_in") or (),
            created_min=self.moment("created_at_min"),
            created_max=self.moment("created_at_max"),
            updated_min=self.moment("updated_at_min"),
            updated_max=self.moment("updated_at_max"),
            q=self.text("q", "") or "",
        )

    def unread(self) -> list[str]:
        return sorted(set(self.values) - self.read)


Builder = Callable[[Args], "Built | Executable"]


@dataclass(frozen=True)
class NamedQuery:
    name: str
    description: str
    builder: Builder = field(repr=False)

    def build(self, values: Mapping[str, str] | None = None, dialect: str = "postgresql") -> Built:
        """The statement for these ``--filter`` values (``FilterError`` for a key it does not
        read or a value it cannot use), in ``dialect``'s form."""
        args = Args(values or {}, dialect)
        built = self.builder(args)
        unknown = args.unread()
        if unknown:
            known = ", ".join(self.filter_keys()) or "none"
            raise FilterError(
                f"{self.name} does not read {', '.join(unknown)} (its filters: {known})"
            )
        return built if isinstance(built, Built) else Built(built)

    def filter_keys(self) -> list[str]:
        """The ``--filter`` keys this query reads."""
        args = Args({})
        self.builder(args)
        return sorted(args.read)


#: Every named query, in the order ``shopsvc CONFIG sql`` lists them.
QUERIES: dict[str, NamedQuery] = {}


def named(name: str, description: str) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        if name in QUERIES:
            raise ValueError(f"named query {name!r} registered twice")
        QUERIES[name] = NamedQuery(name, description, builder)
        return builder

    return register


def get(name: str) -> NamedQuery:
    """The named query ``name`` (``KeyError`` when there is none)."""
    return QUERIES[name]


# --- products


def _product_filters(args: Args) -> products.ProductFilters:
    """``status`` (comma list, ``any`` = all but trash; default publish), ``type``,
    ``category``, ``tag``, ``shipping_class`` (slugs), ``pa_<attribute>`` (term slugs), ``sku``."""
    statuses: tuple[str, ...] | None = args.words("status", ("publish",))
    if statuses is not None and "any" in statuses:
        statuses = None
    return products.ProductFilters(
        statuses=statuses,
        types=args.words("type"),
        categories=args.words("category"),
        tags=args.words("tag"),
        shipping_classes=args.words("shipping_class"),
        attributes=tuple(
            (key[3:], tuple(part.strip() for part in value.split(",") if part.strip()))
            for key, value in sorted(args.prefixed("pa_").items())
        ),
        sku=args.text("sku"),
    )


@named("products.page", "GET /products: the ids of one page of products (every list filter)")
def _products_page(args: Args) -> Executable:
    return products.page_query(args.page(products.LISTABLE), _product_filters(args))


@named("products.count", "GET /products/count and the product list's total")
def _products_count(args: Args) -> Executable:
    return products.count_query(args.page(products.LISTABLE), _product_filters(args))


@named("products.kind", "a product's id, type, status, parent: every product route's check")
def _products_kind(args: Args) -> Executable:
    return products.kind_query(args.integer("id", 1))


@named("products.load.rows", "product records: the products and variations by id")
def _products_rows(args: Args) -> Executable:
    return product_data.rows_query(args.ids("ids"))


@named(
    "products.load.family",
    "product records: the products, parents, children, grandchildren (one statement)",
)
def _products_family(args: Args) -> Executable:
    return product_data.family_query(args.ids("ids"))


@named(
    "products.load.children",
    "product records: every child table (gallery … related) in one statement",
)
def _products_children(args: Args) -> Executable:
    return product_data.children_bundle_query(
        args.ids("ids"), args.flag("hide_out_of_stock"), args.dialect
    )


@named("products.load.variations", "product records: the variations and grouped children (part)")
def _products_variations(args: Args) -> Executable:
    return product_data.children_query(args.ids("ids"))


@named("products.load.gallery", "product records: the gallery image ids")
def _products_gallery(args: Args) -> Executable:
    return product_data.gallery_query(args.ids("ids"))


@named("products.load.media", "product records: the media rows of featured and gallery images")
def _products_media(args: Args) -> Executable:
    return product_data.media_query(args.ids("ids"), gallery_of=args.optional_ids("gallery_of"))


@named("products.load.terms", "product records: categories and tags")
def _products_terms(args: Args) -> Executable:
    return product_data.terms_query(args.ids("ids"))


@named("products.load.shipping_classes", "product records: the shipping classes")
def _products_shipping_classes(args: Args) -> Executable:
    return product_data.shipping_classes_query(args.ids("ids"))


@named("products.load.attributes", "product records: global and custom attributes")
def _products_attributes(args: Args) -> Executable:
    return product_data.attributes_query(args.ids("ids"))


@named("products.load.attribute_terms", "product records: the chosen terms of global attributes")
def _products_attribute_terms(args: Args) -> Executable:
    return product_data.attribute_terms_query(args.ids("ids"))


@named("products.load.variation_values", "product records: the attribute values of variations")
def _products_variation_values(args: Args) -> Executable:
    return product_data.variation_values_query(args.ids("ids"))


@named("products.load.downloads", "product records: the downloadable files")
def _products_downloads(args: Args) -> Executable:
    return product_data.downloads_query(args.ids("ids"))


@named("products.load.ratings", "product records: rating count and sum of approved reviews")
def _products_ratings(args: Args) -> Executable:
    return product_data.ratings_query(args.ids("ids"))


@named("products.load.related", "product records: related_ids (first members of the terms)")
def _products_related(args: Args) -> Executable:
    return products.related_query(
        args.ids("term_ids"), args.flag("hide_out_of_stock"), args.dialect
    )


@named("products.reviews", "GET /products/<id>/reviews: the approved reviews of a product")
def _products_reviews(args: Args) -> Executable:
    return reviews.approved_query(args.integer("id", 1))


def _order_filters(args: Args, product_id: int | None = None) -> orders.OrderFilters:
    """``status`` (comma list; ``any`` or nothing = all but trash), ``customer_id``."""
    statuses: tuple[str, ...] | None = args.words("status")
    if not statuses or "any" in statuses:
        statuses = None
    return orders.OrderFilters(
        statuses=statuses,
        customer_id=args.optional_integer("customer_id") or None,
        product_id=product_id,
    )


@named("products.orders", "GET /products/<id>/orders: one page of the orders with the product")
def _products_orders(args: Args) -> Executable:
    page = replace(args.page(orders.LISTABLE), ids_in=None)  # as the view: `in` is not read
    return orders.page_query(page, _order_filters(args, args.integer("id", 1)))


@named(
    "products.orders.count",
    "GET /products/<id>/orders: its total (no other filter: the trashed orders by their index)",
)
def _products_orders_count(args: Args) -> Executable:
    page = replace(args.page(orders.LISTABLE), ids_in=None)
    return orders.count_query(page, _order_filters(args, args.integer("id", 1)))


@named("products.orders.count.scan", "products.orders.count reading each order's row (any filter)")
def _products_orders_count_scan(args: Args) -> Executable:
    page = replace(args.page(orders.LISTABLE), ids_in=None)
    return orders.count_query(page, _order_filters(args, args.integer("id", 1)), scan=True)


# --- orders


@named("orders.get", "one order row: every order route's check, writes' reads")
def _orders_get(args: Args) -> Executable:
    return orders.order_row_query(args.integer("id", 1))


@named("orders.page", "GET /orders: the ids of one page of orders (every list filter)")
def _orders_page(args: Args) -> Executable:
    return orders.page_query(args.page(orders.LISTABLE), _order_filters(args))


@named(
    "orders.count",
    "GET /orders/count and the order list's total (status, created_at only: order_counts)",
)
def _orders_count(args: Args) -> Executable:
    return orders.count_query(args.page(orders.LISTABLE), _order_filters(args))


@named("orders.count.scan", "orders.count reading the matching orders (any other filter)")
def _orders_count_scan(args: Args) -> Executable:
    return orders.count_query(args.page(orders.LISTABLE), _order_filters(args), scan=True)


@named(
    "orders.count_by_status",
    "GET /orders/count?status=any: a count per status (created_at only: order_counts)",
)
def _orders_count_by_status(args: Args) -> Executable:
    return orders.count_by_status_query(args.page(orders.LISTABLE), _order_filters(args))


@named("orders.count_by_status.scan", "orders.count_by_status reading the orders (any filter)")
def _orders_count_by_status_scan(args: Args) -> Executable:
    page = args.page(orders.LISTABLE)
    return orders.count_by_status_query(page, _order_filters(args), scan=True)


@named("orders.load.rows", "order records: the order rows by id")
def _orders_rows(args: Args) -> Executable:
    return order_data.rows_query(args.ids("ids"))


@named(
    "orders.load.children",
    "order records: items, item meta, line products, meta labels, customers (one statement)",
)
def _orders_children(args: Args) -> Executable:
    return order_data.children_query(args.ids("ids"), args.ids("customer_ids"))


@named("orders.load.items", "order records: every item (part of orders.load.children)")
def _orders_items(args: Args) -> Executable:
    return order_data.items_query(args.ids("ids"))


@named("orders.load.item_meta", "order records: the item meta (part of orders.load.children)")
def _orders_item_meta(args: Args) -> Executable:
    return order_data.item_meta_query(args.ids("ids"))


@named("orders.load.line_products", "order records: SKU and parent of the line products (part)")
def _orders_line_products(args: Args) -> Executable:
    return order_data.line_products_query(args.ids("ids"))


@named("orders.load.global_labels", "order records: global attribute names of line meta (part)")
def _orders_global_labels(args: Args) -> Executable:
    return order_data.global_labels_query(args.ids("ids"))


@named("orders.load.custom_labels", "order records: custom attribute names of line products (part)")
def _orders_custom_labels(args: Args) -> Executable:
    return order_data.custom_labels_query(args.ids("ids"))


@named("orders.load.customers", "order records, customers: users and profiles (part)")
def _orders_customers(args: Args) -> Executable:
    return order_data.customers_query(args.ids("ids"))


@named("orders.load.customer_stats", "order records, customers: orders count, spent, last (part)")
def _orders_customer_stats(args: Args) -> Executable:
    return order_data.customer_stats_query(args.ids("ids"))


@named("orders.notes", "GET /orders/<id>/notes: the notes of an order")
def _orders_notes(args: Args) -> Executable:
    return order_notes.list_query(args.integer("id", 1))


@named("orders.refunds", "GET /orders/<id>/refunds: the refunds of an order")
def _orders_refunds(args: Args) -> Executable:
    return order_refunds.list_query(args.integer("id", 1))


@named("orders.refunds.items", "refund records: the items of the refunds")
def _orders_refund_items(args: Args) -> Executable:
    return order_refunds.refund_items_query(args.ids("ids"))


# --- taxes, terms, attributes, webhooks


def _tax_class(args: Args) -> taxes.ClassFilter:
    """``class``: none (any class), ``standard`` or a class slug."""
    value = args.text("class")
    return "" if value == "standard" else value


@named("taxes.page", "GET /taxes: one page of tax rates (class, in, q; by order)")
def _taxes_page(args: Args) -> Executable:
    page = args.page(taxes.LISTABLE, fixed_order="order")
    return taxes.page_query(page, _tax_class(args))


@named("taxes.count", "GET /taxes/count and the rate list's total")
def _taxes_count(args: Args) -> Executable:
    page = args.page(taxes.LISTABLE, fixed_order="order")
    return taxes.count_query(page, _tax_class(args))


@named("taxes.get", "one tax rate with its class: GET /taxes/<id>")
def _taxes_get(args: Args) -> Executable:
    return taxes.rate_query(args.integer("id", 1))


@named("taxes.rates", "tax rates by id (every rate without ids): order totals, order records")
def _taxes_rates(args: Args) -> Executable:
    return taxes.rates_query(args.optional_ids("ids"))


@named("taxes.locations", "tax rate records: the postcodes and cities of the rates")
def _taxes_locations(args: Args) -> Executable:
    return taxes.locations_query(args.ids("ids"))


@named("taxes.locations.insert", "rates' postcodes and cities, one statement for all (bulk)")
def _taxes_locations_insert(args: Args) -> Built:
    rows = tax_writes.location_rows([(args.integer("id", 1), "postcode", "12345")])
    return Built(*bulk_insert(args.dialect, tax_rate_locations, rows))


@named("taxes.locations.delete", "the replaced postcodes and cities of edited rates (ids)")
def _taxes_locations_delete(args: Args) -> Executable:
    ids = list(args.ids("ids"))
    return tax_writes.locations_delete({"postcode": ids, "city": ids})


@named("taxes.rates.insert", "new tax rates, one statement for all (POST /taxes, bulk)")
def _taxes_rates_insert(args: Args) -> Built:
    row = {
        "country": "FR",
        "state": "",
        "rate": 20,
        "name": "TVA",
        "priority": 1,
        "compound": False,
        "shipping": True,
        "rate_order": 0,
        "tax_class_id": args.optional_integer("class_id"),
    }
    return Built(*bulk_insert(args.dialect, tax_rates, [row], returning=True))


@named("taxes.rates.update", "edited rates' changed columns, one statement per column set")
def _taxes_rates_update(args: Args) -> Built:
    row = {"rate_id": args.integer("id", 1), "new_name": "TVA", "new_rate": 20}
    return Built(tax_writes.rate_update(("name", "rate")), row)


@named("terms.list", "GET /products/categories|tags|shipping_classes, attribute terms: counts")
def _terms_list(args: Args) -> Executable:
    attribute_id = args.optional_integer("attribute_id")
    if attribute_id is not None:
        return terms.list_query(terms.Scope(terms.ATTRIBUTE, attribute_id))
    taxonomy = args.text("taxonomy", products.CATEGORY) or products.CATEGORY
    store = terms.SHIPPING if taxonomy == products.SHIPPING_CLASS else terms.TAXONOMY
    return terms.list_query(terms.Scope(store, taxonomy))


@named("attributes.list", "GET /products/attributes: every global attribute")
def _attributes_list(args: Args) -> Executable:
    return attributes.list_query()


@named("webhooks.page", "GET /webhooks: one page of webhooks (status, q, dates)")
def _webhooks_page(args: Args) -> Executable:
    return webhooks.page_query(args.page(webhooks.LISTABLE), args.text("status"))


@named("webhooks.count", "GET /webhooks/count and the webhook list's total")
def _webhooks_count(args: Args) -> Executable:
    return webhooks.count_query(args.page(webhooks.LISTABLE), args.text("status"))


@named("webhooks.get", "one webhook: GET /webhooks/<id>, every webhook route's check")
def _webhooks_get(args: Args) -> Executable:
    return webhooks.get_query(args.integer("id", 1))


# --- authentication


@named("auth.find_key", "the consumer key by its hash: every authenticated request")
def _auth_find_key(args: Args) -> Executable:
    return auth.find_key_query(args.text("key_hash", "0" * 64) or "")


@named("auth.purge_nonces", "delete the expired OAuth nonces: every OAuth-signed request")
def _auth_purge_nonces(args: Args) -> Executable:
    return auth_writes.purge_nonces_query(int(args.now().replace(tzinfo=dt.UTC).timestamp()))


# --- the webhook outbox


@named("deliveries.subscribed", "outbox enqueue: the active webhooks of the fired topics")
def _deliveries_subscribed(args: Args) -> Executable:
    return deliveries.subscribed_query(args.words("topics", ("order.created",)))


@named("deliveries.pending", "outbox enqueue: pending deliveries a new event merges into")
def _deliveries_pending(args: Args) -> Executable:
    return deliveries.pending_query(args.ids("webhook_ids"), args.ids("resource_ids"), args.now())


@named("deliveries.enqueue", "outbox enqueue: the new deliveries, one statement for all")
def _deliveries_enqueue(args: Args) -> Built:
    now = args.now()
    row = {
        "delivery_id": "00000000-0000-0000-0000-000000000000",
        "webhook_id": args.integer("webhook_id", 1),
        "topic": "order.created",
        "resource": "order",
        "resource_id": args.integer("resource_id", 1),
        "state": deliveries.PENDING,
        "attempts": 0,
        "round_start": 0,
        "due_at": now,
        "source_url": "https://shop.example.com",
        "created_at": now,
        "updated_at": now,
    }
    return Built(deliveries.enqueue_insert(), row)


@named("deliveries.claim", "worker: claim due deliveries (FOR UPDATE SKIP LOCKED)")
def _deliveries_claim(args: Args) -> Executable:
    capped = args.optional_ids("capped") or ()
    pass_start = args.moment("pass_start")
    return deliveries.claim_query(args.now(), pass_start, capped, args.integer("limit", 8))


@named("deliveries.claim_mark", "worker: mark the claimed deliveries with the lease")
def _deliveries_claim_mark(args: Args) -> Executable:
    now = args.now()
    return deliveries.claim_mark_query(args.ids("ids"), "0" * 32, now + dt.timedelta(minutes=2))


@named("deliveries.has_due", "worker: whether a delivery is due (the idle poll)")
def _deliveries_has_due(args: Args) -> Executable:
    return deliveries.has_due_query(args.now(), args.moment("pass_start"))


@named("deliveries.attempts", "shopsvc CONFIG deliveries: the attempt log, newest first")
def _deliveries_attempts(args: Args) -> Executable:
    return deliveries.attempts_query(
        webhook_id=args.optional_integer("webhook_id"),
        failed=args.flag("failed"),
        limit=args.integer("limit", 100),
    )


@named("deliveries.log_attempt", "worker: one row of the attempt log")
def _deliveries_log_attempt(args: Args) -> Executable:
    values = {
        "delivery_id": "00000000-0000-0000-0000-000000000000",
        "webhook_id": args.integer("webhook_id", 1),
        "topic": "order.created",
        "resource_id": 1,
        "attempt": 1,
        "status": 200,
        "error": None,
        "duration_ms": 12,
        "at": args.now(),
    }
    return deliveries.log_attempt_query(values)
