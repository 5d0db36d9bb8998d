"""The one write path of orders: every create and edit — ``POST /orders``, ``PUT|PATCH|POST
/orders/<id>`` (a batch of one, :meth:`OrderBatch.write_one`) and the elements of
``/orders/bulk`` (the ``Batch`` of ``shopsvc.web.bulk``) — is *planned* (every check of the
spec's order of checks, with reads only), then *written* with one statement per table, and the
records are loaded together. ``docs/architecture.md`` "One write path" shows the shape.

* **prepare** reads, before the first plan, what every plan may read, in a fixed number of
  statements (``sql.order_lookups``): the edited orders (locked), one bundle of the customers
  and their profiles, the edited orders' items and refunds, the tax rates and classes, and the
  products the lines name (by id or SKU) with their families (locked, in id order);
* **plan** makes an element's checks in the reference's step order (orders.md §3 create, §4
  edit) on copies of those rows — customer, status, addresses (and the customer's profile),
  the four item arrays and the totals (``writers.order_arrays``), payment details, currency,
  ``order_meta``, the status change with its note, stock, sales and refund
  (``writers.order_status``), "payment complete" — and returns its :class:`Plan`; a failing
  element raises its :class:`ApiError` and nothing of it is written;
* **write** inserts the new rows (orders, items, item meta, notes, refunds; ``sql.order_batch``),
  updates the edited orders, items, profiles, stock and sales, deletes the removed items, and
  records the webhook events in the order the plans raised them.

A bulk's elements see the earlier elements' effects where a run of batches of one would:
stock (moved in input order, with the same clamping, statuses and variable parents' statuses),
sales, customer profiles and the id sequences and ``order_key`` draws (see ``sql.order_batch``:
a failing create uses up the ids it always did, on PostgreSQL). What a bulk cannot plan with
that outcome raises :class:`~shopsvc.errors.Sequential`, and the bulk runs each element as its
own batch of one, with the same outcome: two elements on the same order; an element that
changes what an earlier element's record shows of its customer (a record shows the customer's
profile, orders count, total spent and last order as they were after its element: a new order
of that customer, a change of customer, a profile write, a status moving into or out of the
paid statuses or the trash — completing many processing orders of one customer stays
set-based); an edit of an id above the highest order while the bulk creates orders before it
(an earlier element may create that order); ``filter[expand]=products`` (records show the stock
as it was after each element). A batch of one never raises it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from shopsvc.domain import orders as rules
from shopsvc.domain.tax import TaxRate
from shopsvc.errors import ApiError, Sequential
from shopsvc.loaders.base import Caller
from shopsvc.loaders.orders import ORDERS, order_id_is_invalid
from shopsvc.sql import customer_writes as customer_writes_sql
from shopsvc.sql import order_batch as sql
from shopsvc.sql import order_lookups as order_lookups_sql
from shopsvc.sql.orders import PAID_STATUSES as PAID
from shopsvc.sql.taxes import with_locations
from shopsvc.validation import orders as validation
from shopsvc.validation.orders import OrderInput
from shopsvc.validation.types import MAX_INT
from shopsvc.writers.context import WriteContext
from shopsvc.writers.order_arrays import plan_arrays, plan_totals
from shopsvc.writers.order_plan import Plan, PlannedOrder, Scratch, element_order_id
from shopsvc.writers.order_status import StatusSteps
from shopsvc.writers.order_totals import rate_rules
from shopsvc.writers.orders import (
    Client,
    cannot_create_status,
    check_currency,
    invalid_customer,
    invalid_status,
    payment_details_required,
)

Row = dict[str, Any]
_ZERO = Decimal(0)


class OrderBatch(StatusSteps):
    """The orders' planner: a single write's (:meth:`write_one`) and ``/orders/bulk``'s
    :class:`shopsvc.web.bulk.Batch` (see the module docstring)."""

    def __init__(
        self,
        ctx: WriteContext,
        caller: Caller,
        client: Client,
        load_records: Callable[[Sequence[int]], list[Row]],
        expand_products: bool = False,
    ) -> None:
        self.ctx = ctx
        self.caller = caller
        self.client = client
        self.load_records = load_records
        self.expand_products = expand_products
        self.now = ctx.now
        self.settings = ctx.settings
        # loaded by prepare
        self._orders: dict[int, Row] = {}
        self._items: dict[int, list[Row]] = {}
        self._refunded: dict[int, Decimal] = {}
        self._users: dict[int, Row] = {}
        self._products: dict[int, Row] = {}
        self._covered: set[int] = set()
        self._children: dict[int, list[int]] = {}
        self._families: set[int] = set()
        self._values: dict[int, dict[str, str]] = {}
        self._sku_owners: dict[str, int] = {}
        self._rates: list[TaxRate] = []
        self._classes: tuple[str, ...] = ()
        # the state the plans build
        self._slots: dict[str, list[Row | None]] = {t: [] for t in sql.TABLES}
        self._keys: list[Row | None] = []
        self._links: list[tuple[Row, str, Row]] = []
        self._stock: dict[int, Row] = {}
        self._sales: dict[int, int] = {}
        self._profiles: dict[int, dict[str, Any]] = {}
        self._item_updates: dict[int, Row] = {}
        self._item_deletes: list[int] = []
        #: the customers the records of the plans so far show
        self._shown: set[int] = set()
        self._edited: set[int] = set()
        self._created = False
        self._highest_order = 0
        self._remaining = 0
        self._passed = 0
        #: each element's clean fields (or the error of its validation), by ``id(element)``
        self._cleaned: dict[int, OrderInput | ApiError] = {}
        #: a single write's target (None: a create), by ``id(element)``; a bulk element's
        #: target is its ``id`` field
        self._targets: dict[int, int | None] = {}

    def write_one(self, element: Any, order_id: int | None = None) -> int:
        """A single create (``order_id`` None) or edit of ``order_id`` as a batch of one: every
        check, then the writes; the order's id. Raises the element's :class:`ApiError` before
        anything is written."""
        self._targets[id(element)] = order_id
        self.prepare([element])
        plan = self.plan(element)
        return self.write([plan])[0]

    def _target(self, element: Any) -> int | None:
        """The order the element edits (None: it creates one)."""
        if id(element) in self._targets:
            return self._targets[id(element)]
        return element_order_id(element) or None

    # --- prepare

    def prepare(self, elements: Sequence[Any]) -> None:
        """Load what every plan reads: the edited orders and their lines, the customers, the
        products the lines name (by id or SKU) with their families, the tax rates and classes."""
        if self.expand_products and not self._targets:
            raise Sequential  # records show the stock as it was after each element
        edit_ids: list[int] = []
        customer_ids: set[int] = set()
        product_ids: set[int] = set()
        skus: set[str] = set()
        creates = totals = refunds = False
        for element in elements:
            if not isinstance(element, dict):
                continue
            self._remaining += 1
            try:
                order_id = self._target(element)
            except ApiError:
                continue
            if order_id is not None:
                if order_id in edit_ids:
                    raise Sequential  # two elements on one order
                edit_ids.append(order_id)
            else:
                creates = True
            try:
                clean = validation.clean_order(element, create=order_id is None)
            except ApiError as exc:
                self._cleaned[id(element)] = exc
                continue
            self._cleaned[id(element)] = clean
            totals = totals or order_id is None or bool(clean.items)
            refunds = refunds or (order_id is not None and clean.status == "refunded")
            if clean.customer_id:
                customer_ids.add(clean.customer_id)
            for item in clean.items.get("line_items", []):
                if item.values.get("product_id"):
                    product_ids.add(item.values["product_id"])
                if item.values.get("sku"):
                    skus.add(item.values["sku"].lower())
        conn = self.ctx.conn
        self._orders = {row["id"]: row for row in order_lookups_sql.lock_orders(conn, edit_ids)}
        if creates and set(edit_ids) - set(self._orders):
            self._highest_order = order_lookups_sql.highest_order_id(conn)
        customer_ids.update(row["customer_id"] for row in self._orders.values())
        found = order_lookups_sql.plan_reads(
            conn,
            user_ids=[i for i in customer_ids if 0 < i <= MAX_INT],
            order_ids=list(self._orders),
            taxes=totals,
            refunds=refunds,
        )
        for item in found.get("items", []):
            self._items.setdefault(item["order_id"], []).append(item)
            if item["item_type"] == "line_item":
                product_ids.add(item["variation_id"] or item["product_id"] or 0)
        for refund in found.get("refunds", []):
            before = self._refunded.get(refund["order_id"], _ZERO)
            self._refunded[refund["order_id"]] = before + Decimal(refund["amount"])
        self._users = {row["id"]: row for row in found.get("users", [])}
        self._load_products(sorted(i for i in product_ids if 0 < i <= MAX_INT), sorted(skus))
        if totals:
            rates = with_locations(found["rates"], [tuple(r.values()) for r in found["locations"]])
            self._rates = rate_rules(rates)
            self._classes = tuple(row["slug"] for row in found["classes"])

    def _load_products(self, product_ids: list[int], skus: list[str]) -> None:
        conn = self.ctx.conn
        loaded = order_lookups_sql.products_with_families(conn, product_ids, skus)
        asked, lowered = set(product_ids), set(skus)
        named = [row for row in loaded if row["id"] in asked or row["sku_lower"] in lowered]
        found = {row["id"]: row for row in loaded}
        self._covered = asked | {row["parent_id"] for row in named if row["parent_id"]}
        self._families = {row["id"] for row in named} | self._covered
        for row in sorted(found.values(), key=lambda r: r["id"]):
            if row["sku_lower"] is not None and row["status"] != "trash":
                self._sku_owners.setdefault(row["sku_lower"], row["id"])
            if row["parent_id"]:
                self._children.setdefault(row["parent_id"], []).append(row["id"])
        self._covered |= set(found)
        for product_id, row in found.items():
            values = row.pop("variation_values")
            if row["type"] == "variation":
                self._values[product_id] = values
        self._products = found
        self._skus = set(skus)

    # --- what the line checks read (order_items.Catalog)

    def sku_owner(self, sku: str) -> int | None:
        if sku.lower() not in self._skus:
            raise Sequential
        return self._sku_owners.get(sku.lower())

    def product(self, product_id: int) -> Row | None:
        if not 0 < product_id <= MAX_INT:
            return None  # no row has such an id
        if product_id not in self._covered:
            raise Sequential
        return self._products.get(product_id)

    def variations(self, parent_id: int) -> list[tuple[int, dict[str, str]]]:
        if parent_id not in self._families:
            raise Sequential
        found = [
            self._products[i]
            for i in self._children.get(parent_id, [])
            if self._products[i]["type"] == "variation" and self._products[i]["status"] != "trash"
        ]
        found.sort(key=lambda row: (row["menu_order"], row["id"]))
        return [(row["id"], dict(self._values.get(row["id"], {}))) for row in found]

    def rates(self) -> list[TaxRate]:
        return self._rates

    # --- plan

    def plan(self, element: Row) -> Plan:
        scratch = Scratch()
        order_id: int | None = None
        self._remaining -= 1
        try:
            order_id = self._target(element)
            if order_id is not None:
                order = self._plan_edit(scratch, order_id, element)
            else:
                order = self._plan_create(scratch, element)
        except ApiError:
            # nothing of it is written, but the ids and keys it took are taken (PostgreSQL)
            for table, rows in scratch.rows.items():
                self._slots[table].extend([None] * len(rows))
            self._keys.extend([None] * len(scratch.keys))
            if not self._remaining and not self._passed:
                self._take_ids()  # no write follows: take what the failed elements took
            raise
        self._commit(scratch, order, edit=order_id is not None)
        self._passed += 1
        return Plan(order.row, scratch.events, edit=order_id is not None)

    def _commit(self, scratch: Scratch, order: PlannedOrder, edit: bool) -> None:
        changed = self._customers_changed(scratch, order, edit)
        if changed & self._shown:
            raise Sequential  # an earlier element's record shows that customer as it was
        if order.row["customer_id"]:
            self._shown.add(order.row["customer_id"])
        if edit:
            self._edited.add(order.row["id"])
        else:
            self._created = True
        for table, rows in scratch.rows.items():
            self._slots[table].extend(rows)
        self._keys.extend(scratch.keys)
        self._links.extend(scratch.links)
        self._stock.update(scratch.stock)
        for product_id, delta in scratch.sales.items():
            self._sales[product_id] = self._sales.get(product_id, 0) + delta
        self._profiles.update(scratch.profiles)
        self._item_updates.update(scratch.updated_items)
        self._item_deletes.extend(scratch.deleted_items)

    def _customers_changed(self, scratch: Scratch, order: PlannedOrder, edit: bool) -> set[int]:
        """The customers whose block in an order record (profile, orders count, total spent,
        last order) this element changes: a new order's customer; an edit's customers before
        and after when it changes the customer; a profile it writes; the order's customer when
        its status moves into or out of the paid statuses or the trash."""
        row = order.row
        if not edit:
            return {row["customer_id"]} - {0}
        before = self._orders[row["id"]]
        changed = set(scratch.profiles)
        if before["customer_id"] != row["customer_id"]:
            changed |= {before["customer_id"], row["customer_id"]}
        old, new = before["status"], row["status"]
        if (old in PAID) != (new in PAID) or (old == rules.TRASH) != (new == rules.TRASH):
            changed.add(row["customer_id"])
        return changed - {0}

    def _plan_create(self, s: Scratch, element: Row) -> PlannedOrder:
        """A create (reference orders.md §3 steps 3-11): capability, fields, customer, status,
        the order row, addresses, items, totals, payment details, currency, meta, then the
        status change from pending and "payment complete"."""
        ORDERS.require(self.caller, "create")
        clean = self._clean(element, create=True)
        customer_id = clean.customer_id or 0
        if customer_id and customer_id not in self._users:
            raise invalid_customer()
        status = clean.status or "pending"
        if not rules.is_status(status):
            raise cannot_create_status()
        row = {
            **sql.new_order_row(),
            "order_key": None,
            "status": "pending",
            "currency": self.ctx.settings.currency,
            "prices_include_tax": self.ctx.settings.prices_include_tax,
            "customer_id": customer_id,
            "customer_note": clean.note or "",
            "customer_ip": self.client.ip,
            "customer_user_agent": self.client.user_agent,
            "created_at": self.now,
            "updated_at": self.now,
        }
        s.keys.append(row)
        s.add(sql.ORDERS, row)
        order = PlannedOrder(row, [])
        self._addresses(s, order, clean)
        self._fill_billing_email(order)
        plan_arrays(self.ctx, self, s, order, clean)
        plan_totals(self.ctx, s, order, self._rates, self._classes)
        payment = clean.payment
        if payment is not None:
            if not payment.method_id or not payment.method_title:
                raise payment_details_required()
            row["payment_method"] = payment.method_id
            row["payment_method_title"] = payment.method_title
        check_currency(clean)
        if clean.currency is not None:
            row["currency"] = clean.currency
        self._meta(order, clean)
        s.events.append(("order", row, "created", ["shop_new_order"]))
        self._change_status(s, order, status)
        if payment is not None and payment.paid:
            self._payment_complete(s, order, payment.transaction_id)
        return order

    def _plan_edit(self, s: Scratch, order_id: int, element: Row) -> PlannedOrder:
        """An edit (reference §4 steps 4-13): the id (404), the order (400
        ``shop_api_invalid_order_id`` when there is none, decisions.md §6), capability, fields,
        note, customer, addresses, items and totals (only when an array was sent), currency,
        payment (judged on this request's totals), meta, status (a trashed order comes back
        first). The order's row was locked by ``prepare``: two edits of one order run one after
        the other, and the second plans on the first one's outcome."""
        ORDERS.check_id(order_id)
        loaded = self._orders.get(order_id)
        if loaded is None:
            if self._created and order_id > self._highest_order:
                raise Sequential  # an earlier element, run alone, may have created it
            raise order_id_is_invalid()
        ORDERS.require(self.caller, "edit")
        clean = self._clean(element, create=False)
        if order_id in self._edited:
            raise Sequential
        row = dict(loaded)
        order = PlannedOrder(row, [dict(item) for item in self._items.get(order_id, [])])
        values: Row = {"updated_at": self.now}
        if clean.note is not None:
            values["customer_note"] = clean.note
        if clean.customer_id is not None and clean.customer_id != row["customer_id"]:
            if clean.customer_id not in self._users:
                raise invalid_customer()
            values["customer_id"] = clean.customer_id
        self._addresses(s, order, clean)
        if clean.items:
            plan_arrays(self.ctx, self, s, order, clean)
            check_currency(clean)
            plan_totals(self.ctx, s, order, self._rates, self._classes)
        else:
            check_currency(clean)
        if clean.currency is not None:
            values["currency"] = clean.currency
        row.update(values)
        self._fill_billing_email(order)
        payment = clean.payment
        if payment is not None:
            if payment.method_id is not None:
                row["payment_method"] = payment.method_id
            if payment.method_title is not None:
                row["payment_method_title"] = payment.method_title
            needs_payment = row["status"] in ("pending", "failed") and row["total"] > 0
            if payment.paid and needs_payment:
                self._payment_complete(s, order, payment.transaction_id)
        self._meta(order, clean)
        restoring = False
        if clean.status:
            if not rules.is_status(clean.status):
                raise invalid_status()
            if row["status"] == rules.TRASH:
                row["status"] = row["status_before_trash"] or "pending"
                row["status_before_trash"] = None
                restoring = True
            self._change_status(s, order, clean.status, clean.status_note)
        event = "restored" if restoring else "updated"
        s.events.append(("order", row, event, ["shop_update_order"]))
        return order

    def _clean(self, element: Row, create: bool) -> OrderInput:
        """``validation.orders.clean_order`` of the element, as prepare found it."""
        found = self._cleaned.get(id(element))
        if found is None:
            return validation.clean_order(element, create=create)
        if isinstance(found, ApiError):
            raise found
        return found

    # --- the steps

    def _addresses(self, s: Scratch, order: PlannedOrder, clean: OrderInput) -> None:
        """``writers.orders._write_addresses`` (the profile of the order's customer before this
        request)."""
        values: Row = {}
        for prefix, given in (("billing", clean.billing), ("shipping", clean.shipping)):
            for key, value in (given or {}).items():
                values[f"{prefix}_{key}"] = value
        customer_id = order.row["customer_id"]
        if customer_id and (clean.billing or clean.shipping):
            self._upsert_profile(s, customer_id, clean.billing or {}, clean.shipping or {})
        order.row.update(values)

    def _upsert_profile(
        self, s: Scratch, user_id: int, billing: dict[str, str], shipping: dict[str, str]
    ) -> None:
        current = s.profiles.get(user_id) or self._profiles.get(user_id)
        if current is None:
            user = self._users.get(user_id)
            if user is None:
                return  # a customer id kept after its user was deleted: no profile to write
            exists = user["billing"] is not None
            current = {
                "exists": exists,
                "billing": json.loads(user["billing"]) if exists else None,
                "shipping": json.loads(user["shipping"]) if exists else None,
            }
        if current["billing"] is None:
            merged = {"billing": dict(billing), "shipping": dict(shipping)}
        else:
            merged = {
                "billing": {**current["billing"], **billing},
                "shipping": {**current["shipping"], **shipping},
            }
        s.profiles[user_id] = {"exists": current["exists"], **merged}

    def _fill_billing_email(self, order: PlannedOrder) -> None:
        row = order.row
        if row["billing_email"] or not row["customer_id"]:
            return
        user = self._users.get(row["customer_id"])
        if user is not None and user["email"]:
            row["billing_email"] = user["email"]

    def _meta(self, order: PlannedOrder, clean: OrderInput) -> None:
        if not clean.order_meta:
            return
        meta = {**json.loads(order.row["order_meta"] or "{}"), **clean.order_meta}
        order.row["order_meta"] = json.dumps(meta)

    # --- write and records

    def _take_ids(self) -> None:
        """Draw the order keys and take the ids of every slot in input order, inserting the
        rows of the plans that passed (a failed element's slots are only used up)."""
        for row in self._keys:
            key = rules.new_order_key()
            if row is not None:
                row["order_key"] = key
        parents = [sql.ORDERS, sql.ITEMS] if self._slots[sql.ITEM_META] else [sql.ORDERS]
        sql.insert_tables(self.ctx.conn, self._slots, parents, self._link)

    def _link(self) -> None:
        """Set each child row's link to its parent once the parent has an id."""
        for child, fk, parent in self._links:
            if "id" in parent:
                child[fk] = parent["id"]

    def write(self, plans: Sequence[Plan]) -> list[int]:
        conn = self.ctx.conn
        self._take_ids()
        edits = [plan.row for plan in plans if plan.edit]
        sql.update_orders(conn, edits)
        sql.delete_items(conn, self._item_deletes)
        deleted = set(self._item_deletes)
        updated = sorted(self._item_updates.items())
        sql.update_items(conn, [row for i, row in updated if i not in deleted])
        self._write_profiles()
        changed = {
            i: (row["stock_quantity"], row["stock_status"])
            for i, row in self._stock.items()
            if (row["stock_quantity"], row["stock_status"])
            != (self._products[i]["stock_quantity"], self._products[i]["stock_status"])
        }
        sql.update_products(
            conn,
            [
                (i, *changed.get(i, (None, None)), self._sales.get(i, 0))
                for i in sorted(set(changed) | set(self._sales))
            ],
        )
        for plan in plans:
            for resource, ref, event, actions in plan.events:
                record_id = ref["id"] if isinstance(ref, dict) else ref
                self.ctx.events.record(resource, record_id, event, actions)
        return [int(plan.row["id"]) for plan in plans]

    def _write_profiles(self) -> None:
        new, known = [], []
        for user_id, profile in self._profiles.items():
            row = {
                "user_id": user_id,
                "billing": json.dumps(profile["billing"]),
                "shipping": json.dumps(profile["shipping"]),
                "updated_at": self.now,
            }
            (known if profile["exists"] else new).append(row)
        customer_writes_sql.insert_profiles(self.ctx.conn, new)
        customer_writes_sql.update_profiles(self.ctx.conn, known)

    def records(self, ids: Sequence[int]) -> list[Row]:
        return self.load_records(ids)
