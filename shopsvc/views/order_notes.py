"""Order notes: ``/orders/<order_id>/notes`` and ``/orders/<order_id>/notes/<id>``.

Checks run in the reference's order (orders.md §6, decisions.md §6 and §7 "Capabilities"):

* list, get — the order (``read``: id 0 / existence → 404, then 401), the note id (0 → 400),
  the note (missing → 404, of another order → 400);
* create — envelope, ``publish_shop_orders`` (before the order id), the order (``edit``), then
  ``note`` (required) and the field types;
* edit — envelope, the order (``edit``), the note, then the field types;
* delete — the order (``delete``), the note.

The list is unpaginated (every note, newest first; decisions.md §7 "Unpaginated lists").
"""

from __future__ import annotations

from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from pyramid.view import view_config

from shopsvc.loaders.orders import ORDER_NOTES, ORDERS
from shopsvc.records.order_notes import note_record, note_record_by_id, note_records
from shopsvc.validation.types import require_object
from shopsvc.views import READ
from shopsvc.web import rendering
from shopsvc.web.resources import OrderNote, OrderNotes
from shopsvc.writers import order_notes as writes

SINGULAR = "order_note"
PLURAL = "order_notes"
MISSING = "shop_api_missing_order_note_data"
EDIT = {"request_method": ("POST", "PUT", "PATCH")}


def _envelope(request: Request, action: str) -> Any:
    return request.envelope(
        SINGULAR, MISSING, f"No {SINGULAR} data specified to {action} {SINGULAR}"
    )


@view_config(context=OrderNotes, **READ)
def list_notes(context: OrderNotes, request: Request) -> Response:
    order = ORDERS.load(request, context.order_id, "read")
    records = note_records(request.record_context, order["id"])
    return rendering.listing(request, PLURAL, records, len(records))


@view_config(context=OrderNotes, request_method="POST")
def create_note(context: OrderNotes, request: Request) -> Response:
    data = _envelope(request, "create")
    ORDER_NOTES.require(request, "create")
    order = ORDERS.load(request, context.order_id, "edit")
    note_id = writes.create_note(request.write_context, order["id"], require_object(data, SINGULAR))
    record = note_record_by_id(request.record_context, note_id)
    return rendering.single(request, SINGULAR, record, status=201)


@view_config(context=OrderNote, **READ)
def get_note(context: OrderNote, request: Request) -> Response:
    order = ORDERS.load(request, context.order_id, "read")
    row = ORDER_NOTES.load(request, context.id, "read", order["id"])
    return rendering.single(request, SINGULAR, note_record(request.record_context, row))


@view_config(context=OrderNote, **EDIT)
def edit_note(context: OrderNote, request: Request) -> Response:
    data = _envelope(request, "edit")
    order = ORDERS.load(request, context.order_id, "edit")
    row = ORDER_NOTES.load(request, context.id, "edit", order["id"])
    writes.edit_note(request.write_context, row["id"], require_object(data, SINGULAR))
    record = note_record_by_id(request.record_context, row["id"])
    return rendering.single(request, SINGULAR, record)


@view_config(context=OrderNote, request_method="DELETE")
def delete_note(context: OrderNote, request: Request) -> Response:
    order = ORDERS.load(request, context.order_id, "delete")
    row = ORDER_NOTES.load(request, context.id, "delete", order["id"])
    writes.delete_note(request.write_context, row["id"])
    return rendering.message(request, "Permanently deleted order note")
