"""The orders phase: orders of 1-5 line items (products and variations, with their variation
meta) over the last two years (more lately), a shipping line, sometimes a gift-wrapping fee and a
coupon, taxes and one tax item per rate, totals as a recalculation stores them (``totals``),
status-change notes and some customer and private notes, refunds (``refunds``); every status,
to registered customers and guests."""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table

from shopsvc.cli.demo.batches import Batch, Counts, Row, batch_rng
from shopsvc.cli.demo.customers import Customer
from shopsvc.cli.demo.money import CENT, money_text, taxes_json
from shopsvc.cli.demo.products import Sellable
from shopsvc.cli.demo.refunds import (
    REFUND_COLUMNS,
    REFUND_ITEM_COLUMNS,
    Refund,
    full_refund,
    partial_refund,
)
from shopsvc.cli.demo.taxes import Taxes, Where
from shopsvc.cli.demo.totals import Line, Totals, order_totals
from shopsvc.cli.demo.vocabulary import (
    COMPANIES,
    CUSTOMER_NOTES,
    FIRST_NAMES,
    FLAT_RATES,
    FREE_SHIPPING_FROM,
    GIFT_WRAP,
    IP_PREFIXES,
    KEY_PAIRS,
    LAST_NAMES,
    LINE_COUNTS,
    PAID,
    PAYMENTS,
    PLACES,
    PRIVATE_NOTES,
    QUANTITIES,
    RECENT_STATUSES,
    SALES_RECORDED,
    SPAN,
    STATUS_PATHS,
    STATUSES,
    STREETS,
    USER_AGENTS,
    ascii_name,
    pick,
)
from shopsvc.domain import orders as order_rules
from shopsvc.domain.tax import Address
from shopsvc.sql import demo as sql
from shopsvc.sql.tables import (
    BILLING_FIELDS,
    SHIPPING_FIELDS,
    order_item_meta,
    order_items,
    order_notes,
    order_refunds,
    orders,
    refund_items,
)

#: A run of at most this many orders shows every status among its newest orders.
EVERY_STATUS_UP_TO = 1000
ORDER_COLUMNS = (
    *("id", "order_key", "status", "currency", "prices_include_tax", "customer_id"),
    *("customer_note", "customer_ip", "customer_user_agent", "payment_method"),
    *("payment_method_title", "transaction_id", "date_paid", "date_completed"),
    *(f"billing_{name}" for name in BILLING_FIELDS),
    *(f"shipping_{name}" for name in SHIPPING_FIELDS),
    *("discount_total", "discount_tax", "shipping_total", "shipping_tax", "cart_tax"),
    *("total_tax", "total", "stock_reduced", "sales_recorded", "order_meta"),
    *("created_at", "updated_at"),
)
ITEM_COLUMNS = (
    *("id", "order_id", "item_type", "name", "product_id", "variation_id", "quantity"),
    *("tax_class", "taxable", "method_id", "subtotal", "subtotal_tax", "total", "total_tax"),
    *("taxes", "rate_id", "rate_code", "compound", "tax_total", "shipping_tax_total"),
)
META_COLUMNS = ("item_id", "meta_key", "meta_value")
NOTE_COLUMNS = ("order_id", "note", "customer_note", "system", "created_at")
ZERO = "0"
#: The tax item columns of an item that is not a tax item.
NO_RATE = (None, "", False, ZERO, ZERO)


@dataclass
class _Order:
    """An order before its ids: its row and items without ids, item meta by item index, notes,
    and refunds whose items name the order's items by index."""

    row: Row
    items: list[Row]
    meta: list[tuple[int, str, str]]
    notes: list[tuple[str, bool, bool, dt.datetime]]
    refunds: list[Refund]


def _billing(customer: Customer) -> list[str]:
    """The customer's billing address in ``BILLING_FIELDS`` order (the account email when the
    profile has none)."""
    values = [str(customer.billing.get(name) or "") for name in BILLING_FIELDS]
    email = BILLING_FIELDS.index("email")
    values[email] = values[email] or customer.email
    return values


def _shipping(customer: Customer) -> list[str]:
    """The customer's shipping address (the billing one when the profile has none)."""
    values = [str(customer.shipping.get(name) or "") for name in SHIPPING_FIELDS]
    if not values[SHIPPING_FIELDS.index("country")]:
        values = _billing(customer)[: len(SHIPPING_FIELDS)]
    return values


def _where(address: Sequence[str]) -> Address:
    """The tax ``Address`` of an address in ``BILLING_FIELDS`` (or ``SHIPPING_FIELDS``) order."""
    return Address(address[8], address[6], address[7], address[5])


@dataclass
class _Buyers:
    """What the orders of one process draw from, made once per process."""

    cumulative: list[float]  # popularity of the sellables
    buyers: list[tuple[int, tuple[str, ...], tuple[str, ...], Where]]
    times: list[dt.datetime]
    places: list[Where]


@dataclass
class OrderPhase:
    """Orders over the last two years; a batch's result is ``(units sold per product id,
    Counts)``. ``dated``: a customer only buys after signing up (False for the customers of an
    earlier run, whose sign-up dates are not spread over the orders' two years)."""

    key: str
    now: dt.datetime
    total: int
    sellables: list[Sellable]
    customers: list[Customer]
    taxes: Taxes
    currency: str
    prices_include_tax: bool
    size: int
    dated: bool = True
    leading: Table = orders
    _state: _Buyers | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_state": None}  # each process makes its own

    def _prepare(self) -> _Buyers:
        # popular products sell more: weights 1/(rank + 10) over a shuffled order
        ranks = list(range(len(self.sellables)))
        random.Random(f"{self.key}:popularity").shuffle(ranks)
        cumulative = list(itertools.accumulate(1 / (rank + 10) for rank in ranks))
        start = self.now - SPAN
        customers = sorted(self.customers, key=lambda customer: customer.created_at)
        buyers = []
        for customer in customers:
            billing, shipping = _billing(customer), _shipping(customer)
            where = self.taxes.where(_where(billing), _where(shipping))
            buyers.append((customer.id, tuple(billing), tuple(shipping), where))
        times = [c.created_at if self.dated else start - SPAN for c in customers]
        places = []
        for place in PLACES:
            address = Address(place.country, place.state, place.postcode, place.city)
            places.append(self.taxes.where(address, address))
        return _Buyers(cumulative, buyers, times, places)

    # --- one order

    def _guest(
        self, rnd: Any, number: int, state: _Buyers
    ) -> tuple[tuple[str, ...], tuple[str, ...], Where]:
        at = int(rnd() * len(PLACES))
        place = PLACES[at]
        first, last = pick(rnd, FIRST_NAMES), pick(rnd, LAST_NAMES)
        company = pick(rnd, COMPANIES) if rnd() < 0.1 else ""
        street = f"{1 + int(rnd() * 240)} {pick(rnd, STREETS)}"
        flat = f"Apt {1 + int(rnd() * 40)}" if rnd() < 0.2 else ""
        shipping = (first, last, company, street, flat, place.city, place.state, place.postcode)
        shipping += (place.country,)
        email = f"{ascii_name(first)}.{ascii_name(last)}{number}@example.org"
        billing = (*shipping, email, f"{place.phone}{int(rnd() * 10000):04d}")
        return billing, shipping, state.places[at]

    def _lines(self, rng: random.Random, coupon: bool, state: _Buyers) -> list[Line]:
        rnd = rng.random
        wanted = pick(rnd, LINE_COUNTS)
        picked = rng.choices(self.sellables, cum_weights=state.cumulative, k=wanted)
        seen: set[int] = set()
        lines = []
        for sellable in picked:
            key = sellable.variation_id or sellable.product_id
            if key in seen:
                continue
            seen.add(key)
            quantity = pick(rnd, QUANTITIES)
            subtotal = sellable.price * quantity
            total = (subtotal * 9 + 5 * CENT) // (10 * CENT) * CENT if coupon else subtotal
            lines.append((sellable, quantity, subtotal, total))
        return lines

    def plan(self, rng: random.Random, number: int, state: _Buyers) -> _Order:
        """The order ``number`` (0-based) of the phase."""
        rnd = rng.random
        now = self.now
        fraction = (number + rnd()) / self.total
        # more orders lately: a shop that grows
        created = now - SPAN + SPAN * ((fraction + math.sqrt(fraction)) / 2)
        created = min(created, now - dt.timedelta(minutes=1)).replace(microsecond=0)
        recent = now - created < dt.timedelta(days=4)
        status = pick(rnd, RECENT_STATUSES if recent else STATUSES)
        newest = self.total - 1 - number
        if self.total <= EVERY_STATUS_UP_TO and newest < len(STATUS_PATHS):
            status = tuple(STATUS_PATHS)[newest]  # a small store shows every status
        buyer = None
        if state.buyers and rnd() < 0.75:
            known = bisect.bisect_right(state.times, created)
            if known:
                buyer = state.buyers[int(rnd() * known)]
        if buyer is not None:
            customer_id, billing, shipping, where = buyer
        else:
            customer_id = 0
            billing, shipping, where = self._guest(rnd, number, state)
        coupon = rnd() < 0.15
        lines = self._lines(rng, coupon, state)
        if rnd() < 0.05:
            method_id, method_title, cost = "local_pickup", "Local pickup", 0
        elif sum(line[3] for line in lines) >= FREE_SHIPPING_FROM:
            method_id, method_title, cost = "free_shipping", "Free shipping", 0
        else:
            method_id, method_title, cost = "flat_rate", "Flat rate", pick(rnd, FLAT_RATES)
        fee = GIFT_WRAP if rnd() < 0.08 else None
        totals = order_totals(self.taxes, where, lines, cost, fee)
        items, meta = self._items(lines, totals, (method_id, method_title, cost), fee, coupon)

        # what happened to it: status changes and their notes, other notes, a refund
        paid_at = created + dt.timedelta(minutes=1 + int(rnd() * 30))
        completed_at = None
        notes: list[tuple[str, bool, bool, dt.datetime]] = []
        updated = created
        moment = paid_at
        for previous, step in STATUS_PATHS[status]:
            if step == "completed":
                moment = min(moment + dt.timedelta(hours=6 + int(rnd() * 90)), now)
                completed_at = moment
            elif step == "refunded":
                moment = min(moment + dt.timedelta(days=3 + int(rnd() * 22)), now)
            notes.append((order_rules.status_note(previous, step), False, True, moment))
            updated = moment
        if completed_at is not None and rnd() < 0.2:
            tracking = f"Your order is on its way. Tracking number: 1Z{rng.getrandbits(40):010X}"
            notes.append((tracking, True, False, completed_at))
        if rnd() < 0.05:
            noted = min(created + dt.timedelta(hours=2), now)
            notes.append((pick(rnd, PRIVATE_NOTES), False, False, noted))
            updated = max(updated, noted)
        refunds: list[Refund] = []
        if status == "refunded":
            refunds.append(full_refund(rnd, items, lines, totals, updated))
        elif completed_at is not None and rnd() < 0.04:
            refund_at = min(completed_at + dt.timedelta(days=2 + int(rnd() * 18)), now)
            partial = partial_refund(rnd, items, lines, totals, refund_at)
            if partial is not None:
                refunds.append(partial)
                updated = max(updated, refund_at)

        method, payment_title, prefix = pick(rnd, PAYMENTS)
        paid = status in PAID
        transaction = f"{prefix}{rng.getrandbits(48):012x}" if paid and prefix else ""
        recorded = status in SALES_RECORDED
        bits = rng.getrandbits(84)
        pairs = [KEY_PAIRS[(bits >> shift) & 4095] for shift in range(0, 84, 12)]
        order_key = order_rules.ORDER_KEY_PREFIX + "".join(pairs)[:13]
        ip = f"{pick(rnd, IP_PREFIXES)}.{1 + int(rnd() * 254)}"
        note = pick(rnd, CUSTOMER_NOTES) if rnd() < 0.06 else ""
        agent = pick(rnd, USER_AGENTS)
        head = (order_key, status, self.currency, self.prices_include_tax, customer_id, note)
        payment = (method, payment_title, transaction, paid_at if paid else None, completed_at)
        amounts = (
            money_text(totals.discount_total),
            money_text(totals.discount_tax),
            money_text(totals.shipping_total),
            money_text(totals.shipping_tax),
            money_text(totals.cart_tax),
            money_text(totals.total_tax),
            money_text(totals.total),
        )
        tail = (recorded, recorded, "{}", created, updated)
        row = (*head, ip, agent, *payment, *billing, *shipping, *amounts, *tail)
        return _Order(row, items, meta, notes, refunds)

    def _items(
        self,
        lines: Sequence[Line],
        totals: Totals,
        shipping: tuple[str, str, int],
        fee: int | None,
        coupon: bool,
    ) -> tuple[list[Row], list[tuple[int, str, str]]]:
        """The order's items (``ITEM_COLUMNS`` but the ids) in the writers' order: lines,
        shipping, fee, coupon, taxes; and the lines' meta ``(item index, key, value)``."""
        items: list[Row] = []
        meta: list[tuple[int, str, str]] = []
        for (sellable, quantity, subtotal, total), result in zip(lines, totals.lines, strict=True):
            sub_tax, line_tax, line_taxes, sub_taxes = result
            meta.extend((len(items), key, value) for key, value in sellable.meta)
            product = (sellable.name, sellable.product_id, sellable.variation_id, quantity)
            charge = (sellable.tax_class, sellable.taxable, "", money_text(subtotal))
            amounts = (money_text(sub_tax), money_text(total), money_text(line_tax))
            taxes = taxes_json(line_taxes, sub_taxes)
            items.append(("line_item", *product, *charge, *amounts, taxes, *NO_RATE))
        method_id, method_title, cost = shipping
        shipping_tax, shipping_taxes = totals.shipping
        cost_text = money_text(cost)
        shipped = (method_title, None, None, 0, "", False, method_id, cost_text, ZERO, cost_text)
        taxes = taxes_json(shipping_taxes, ())
        items.append(("shipping", *shipped, money_text(shipping_tax), taxes, *NO_RATE))
        if totals.fee is not None:
            fee_total, fee_tax, fee_taxes = totals.fee
            charged = ("Gift wrapping", None, None, 0, "", True, "", money_text(fee or 0), ZERO)
            amounts = (money_text(fee_total), money_text(fee_tax), taxes_json(fee_taxes, ()))
            items.append(("fee", *charged, *amounts, *NO_RATE))
        if coupon:
            amount = money_text(totals.discount_total)
            code = ("save10", None, None, 0, "", False, "", amount, ZERO, amount, ZERO, "{}")
            items.append(("coupon", *code, *NO_RATE))
        for rate_id, cart_tax, ship_tax in totals.tax_items:
            code_text, title, compound = self.taxes.lines[rate_id]
            blank = (title, None, None, 0, "", False, "", ZERO, ZERO, ZERO, ZERO, "{}")
            rate = (rate_id, code_text, compound, money_text(cart_tax), money_text(ship_tax))
            items.append(("tax", *blank, *rate))
        return items, meta

    # --- a batch

    def batch(self, index: int, reserver: sql.IdReserver, ids: Sequence[int]) -> Batch:
        if self._state is None:
            self._state = self._prepare()
        rng = batch_rng(self.key, index)
        first = index * self.size
        plans = [self.plan(rng, first + offset, self._state) for offset in range(len(ids))]
        item_ids = iter(reserver.reserve(order_items, sum(len(p.items) for p in plans)))
        refund_ids = iter(reserver.reserve(order_refunds, sum(len(p.refunds) for p in plans)))
        order_rows: list[Row] = []
        item_rows: list[Row] = []
        meta_rows: list[Row] = []
        note_rows: list[Row] = []
        refund_rows: list[Row] = []
        refund_item_rows: list[Row] = []
        sold: Counter[int] = Counter()
        for order_id, plan in zip(ids, plans, strict=True):
            order_rows.append((order_id, *plan.row))
            made = []
            for item in plan.items:
                item_id = next(item_ids)
                made.append(item_id)
                item_rows.append((item_id, order_id, *item))
            meta_rows.extend((made[at], key, value) for at, key, value in plan.meta)
            note_rows.extend((order_id, *note) for note in plan.notes)
            for amount, reason, moment, given in plan.refunds:
                refund_id = next(refund_ids)
                refund_rows.append((refund_id, order_id, amount, reason, moment))
                refund_item_rows.extend((refund_id, made[at], *item) for at, item in given)
            if plan.row[-4]:  # sales_recorded
                for item in plan.items:
                    if item[0] == "line_item":
                        sold[item[2]] += item[4]
        counts = Counts(
            orders=len(order_rows),
            order_items=len(item_rows),
            order_item_meta=len(meta_rows),
            order_notes=len(note_rows),
            refunds=len(refund_rows),
            refund_items=len(refund_item_rows),
        )
        tables = [
            (orders, ORDER_COLUMNS, order_rows),
            (order_items, ITEM_COLUMNS, item_rows),
            (order_item_meta, META_COLUMNS, meta_rows),
            (order_notes, NOTE_COLUMNS, note_rows),
            (order_refunds, REFUND_COLUMNS, refund_rows),
            (refund_items, REFUND_ITEM_COLUMNS, refund_item_rows),
        ]
        return Batch(tables, len(order_rows), (sold, counts))
