"""Term writes for the four term-like families (categories, tags, shipping classes, attribute
terms; reference products.md §13–§15, §17), after the view's checks and the field validation
(``shopsvc.validation.terms.clean_term``).

The rules, in the reference's order: create — the name (attribute terms: its own code), the
parent, the image, then the name and slug rules (``…cannot_create…``); edit — the image, then the
parent, the name and the slug rules (``…cannot_edit…``). A slug generated from the name is made
unique in the family (``-2``, ``-3``, …; ``shopsvc.domain.catalog.unique_slug``).

Every rule is checked before the first write: a downloaded image is taken in its place among
the checks (a failed download is the image's error) but its ``media`` row is written only once
the name and slug rules have passed, so a refused create or edit writes nothing. Only a
concurrent request that takes the slug between the check and the write (the unique index
refuses it) can refuse a write after the image's row, which the rollback then undoes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from shopsvc.domain.catalog import slugify_name, unique_slug
from shopsvc.errors import ApiError
from shopsvc.loaders.terms import TermFamily
from shopsvc.sql import media as media_sql
from shopsvc.sql import media_writes as media_writes_sql
from shopsvc.sql import term_writes as term_writes_sql
from shopsvc.sql import terms as terms_sql
from shopsvc.sql.terms import Scope
from shopsvc.validation.terms import MAX_SLUG, ImageRef
from shopsvc.writers.context import WriteContext

NAME_REQUIRED = "A name is required for this term."
#: Room kept for a ``-N`` suffix when a generated slug is made unique.
SLUG_BASE_LENGTH = MAX_SLUG - 10
CATEGORY_IMAGE_ERROR = "shop_api_product_category_image_upload_error"
CREATE_DEFAULTS: dict[str, Any] = {
    "name": "",
    "slug": "",
    "description": "",
    "parent": 0,
    "display": "",
    "menu_order": 0,
}


def _image(ctx: WriteContext, image: ImageRef) -> Callable[[], int | None]:
    """The media id of a written ``image``, as a call made once every check has passed: an
    existing image attachment, a downloaded URL (taken now: its failure is raised in its place
    among the checks; its media row is written by the call), or None (no image: ``""``, 0, or an
    id that is not a stored image)."""
    if image.url:
        reserved = ctx.reserve(image.url, CATEGORY_IMAGE_ERROR)
        return lambda: media_writes_sql.insert(ctx.conn, reserved)
    row = media_sql.get(ctx.conn, image.attachment_id) if image.attachment_id > 0 else None
    if row is None or not str(row["mime_type"]).startswith("image/"):
        return lambda: None
    media_id = int(row["id"])
    return lambda: media_id


def _free_slug(ctx: WriteContext, scope: Scope, name: str, exclude: int | None = None) -> str:
    """A slug generated from ``name``, made unique in the scope with ``-2``, ``-3``, …"""
    base = slugify_name(name)[:SLUG_BASE_LENGTH].rstrip("-")
    if not base:
        return ""
    return unique_slug(base, terms_sql.slugs_like(ctx.conn, scope, base, exclude))


def _duplicate_name(family: TermFamily) -> str:
    if "parent" in family.fields:
        return "A term with the name provided already exists with this parent."
    return "A term with the name provided already exists in this taxonomy."


def _slug_in_use(slug: str) -> str:
    return f'The slug "{slug}" is already in use by another term.'


def _conflict(
    ctx: WriteContext,
    family: TermFamily,
    scope: Scope,
    values: dict[str, Any],
    current: dict[str, Any] | None,
) -> str | None:
    """Why ``values`` (name, slug, parent) cannot be written, or None. On edit (``current``
    given) the name and the slug are checked only when they change."""
    term_id = None if current is None else current["id"]
    if not values["name"]:
        return NAME_REQUIRED
    parent = values.get("parent", 0)
    if (
        current is None or (values["name"], parent) != (current["name"], current["parent"])
    ) and terms_sql.sibling_named(ctx.conn, scope, values["name"], parent, term_id):
        return _duplicate_name(family)
    if values["slug"] and (current is None or values["slug"] != current["slug"]):
        owner = terms_sql.slug_owner(ctx.conn, scope, values["slug"])
        if owner is not None and owner != term_id:
            return _slug_in_use(values["slug"])
    return None


def _parent_allowed(ctx: WriteContext, scope: Scope, term_id: int, parent: int) -> bool:
    """Whether the term may move under ``parent`` (0: the top): an existing term of the scope
    that is neither the term itself nor one of its descendants."""
    if not parent:
        return True
    if not terms_sql.exists(ctx.conn, scope, parent):
        return False
    tree = terms_sql.parents(ctx.conn, scope)
    seen: set[int] = set()
    while parent and parent not in seen:
        if parent == term_id:
            return False
        seen.add(parent)
        parent = tree.get(parent, 0)
    return True


def _write(
    ctx: WriteContext,
    family: TermFamily,
    scope: Scope,
    values: dict[str, Any],
    term_id: int | None,
    generated: bool,
) -> int:
    """Insert (``term_id`` None) or update a term whose name and slug rules already passed.

    A unique index may still refuse the slug when a concurrent request took it: a generated
    slug is then made unique again, a given one is the family's ``cannot`` error. An empty
    generated slug (a name with nothing to slugify) becomes the term's id, as the original does.
    """
    conn = ctx.conn
    action = "create" if term_id is None else "edit"
    for _attempt in range(3):
        from_id = not values["slug"]
        if from_id:  # a placeholder no slug can collide with, replaced below
            values = {**values, "slug": f"-{uuid.uuid4().hex}"}
        if term_id is None:
            written = term_writes_sql.insert(conn, scope, values)
        elif term_writes_sql.update(conn, scope, term_id, values):
            written = term_id
        else:
            written = None
        if written is not None:
            if from_id:
                base = str(written)
                taken = terms_sql.slugs_like(conn, scope, base, written)
                term_writes_sql.update(conn, scope, written, {"slug": unique_slug(base, taken)})
            return written
        if not generated:
            break
        values = {**values, "slug": _free_slug(ctx, scope, values["name"], term_id)}
    raise family.cannot(action, _slug_in_use(values["slug"]))


def _stored_display(value: str) -> str:
    """``default`` is stored as ``""`` (and shown as ``default``)."""
    return "" if value == "default" else value


def create_term(ctx: WriteContext, family: TermFamily, scope: Scope, given: dict[str, Any]) -> int:
    """Insert a term of ``scope`` from the validated fields ``given``; its id."""
    if family.name_required_code and not given.get("name"):
        raise ApiError(family.name_required_code, "Missing parameter name", 400)
    values = CREATE_DEFAULTS | given
    values["display"] = _stored_display(values["display"])
    if values["parent"] and not terms_sql.exists(ctx.conn, scope, values["parent"]):
        raise family.invalid_parent()
    image = _image(ctx, values.pop("image")) if "image" in given else None
    problem = _conflict(ctx, family, scope, values, None)
    if problem is not None:
        raise family.cannot("create", problem)
    generated = not values["slug"]
    if generated:
        values["slug"] = _free_slug(ctx, scope, values["name"])
    if image is not None:  # every check has passed: the first write
        values["image_id"] = image()
    return _write(ctx, family, scope, values, None, generated)


def edit_term(
    ctx: WriteContext,
    family: TermFamily,
    scope: Scope,
    current: dict[str, Any],
    given: dict[str, Any],
) -> None:
    """Write the validated fields ``given`` to the term ``current`` of ``scope``."""
    term_id = current["id"]
    given = dict(given)
    image = _image(ctx, given.pop("image")) if "image" in given else None
    display = given.pop("display", "")
    if display:  # updated only when non-empty
        given["display"] = _stored_display(display)
    values = {"name": current["name"], "slug": current["slug"], "parent": current["parent"]}
    values |= given
    if values["parent"] != current["parent"]:
        if (
            family.edit_parent_code
            and values["parent"]
            and not terms_sql.exists(ctx.conn, scope, values["parent"])
        ):
            raise family.invalid_parent()
        if not _parent_allowed(ctx, scope, term_id, values["parent"]):
            raise family.cannot("edit", "Parent term does not exist or would create a loop.")
    generated = "slug" in given and not given["slug"]
    if generated:
        values["slug"] = _free_slug(ctx, scope, values["name"], term_id)
    problem = _conflict(ctx, family, scope, values, current)
    if problem is not None:
        raise family.cannot("edit", problem)
    if image is not None:  # every check has passed: the first write
        values["image_id"] = image()
    _write(ctx, family, scope, values, term_id, generated)


def delete_term(ctx: WriteContext, family: TermFamily, scope: Scope, term_id: int) -> None:
    """Delete the term (its children move up, products stop using it); the family's 401 when
    nothing was deleted."""
    if not term_writes_sql.delete(ctx.conn, scope, term_id):
        raise family.cannot_delete()
