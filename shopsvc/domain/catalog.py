"""Pure product rules: types and statuses, visibility and purchasability, descriptions, titles,
slugs, and the rules of global attributes (slug, type, order_by, term order).

Where the rules come from (decisions.md wins over the reference where they differ):

* ``/work/shared/reference/products.md`` §2 (``visible``, ``purchaseable``, ``description``),
  §3 (a variation's ``visible``), §5 (product types and their message), §16 (attribute slug
  sanitising, the length and reserved-name checks, the 74 reserved names, types, order_by) and
  §17 (term orders);
* ``/work/shared/spec/decisions.md`` §5 (attribute types ``select``, ``text``; slugs of 28
  characters or more refused) and §7 "Products" (writable statuses; plain-text descriptions
  stripped of their tags, then HTML-escaped in ``<p>`` paragraphs; HTML descriptions through
  ``nh3``), "Uniqueness"
  (generated slugs get ``-2``, ``-3``, …).

Everything here is pure: no I/O, no database.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from decimal import Decimal
from html import escape, unescape
from typing import Any, TypeVar

import nh3
from slugify import slugify

from shopsvc.errors import ApiError, invalid_param

T = TypeVar("T", bound=Mapping[str, Any])

__all__ = [
    "ATTRIBUTE_ORDER_BY",
    "ATTRIBUTE_TYPES",
    "CATALOG_VISIBILITIES",
    "INVALID_PRODUCT_TYPE_MESSAGE",
    "PRODUCT_TYPES",
    "RESERVED_SLUGS",
    "SLUG_MAX_LENGTH",
    "TAX_STATUSES",
    "WRITABLE_STATUSES",
    "check_attribute_order_by",
    "check_attribute_slug",
    "check_attribute_type",
    "check_catalog_visibility",
    "check_product_type",
    "check_status",
    "check_tax_status",
    "clean_attribute_slug",
    "name_num_key",
    "plain_text",
    "purchaseable",
    "render_description",
    "slugify_name",
    "strip_tags",
    "unique_slug",
    "variation_visible",
    "visible",
]

# --------------------------------------------------------------------------------------------
# Types, statuses, enumerations
# --------------------------------------------------------------------------------------------

#: Types accepted on create and edit, in the order the error message lists them
#: (``variation`` is not one of them).
PRODUCT_TYPES = ("simple", "grouped", "external", "variable")
INVALID_PRODUCT_TYPE_MESSAGE = (
    "Invalid product type - the product type must be any of these: " + ", ".join(PRODUCT_TYPES)
)

#: Statuses a client may write (decisions.md §7 "Products"); ``trash`` comes only from DELETE.
WRITABLE_STATUSES = ("draft", "pending", "private", "publish")

#: ``catalog_visibility`` values; the first two are visible outside search.
CATALOG_VISIBILITIES = ("visible", "catalog", "search", "hidden")

#: ``tax_status`` values; an empty value is stored as ``taxable``.
TAX_STATUSES = ("taxable", "shipping", "none")

#: Global attribute types (decisions.md §5) and term orders (spec), in message order.
ATTRIBUTE_TYPES = ("select", "text")
ATTRIBUTE_ORDER_BY = ("menu_order", "name", "name_num", "id")


def check_product_type(value: str) -> ApiError | None:
    """400 ``shop_api_invalid_product_type`` unless ``value`` is one of :data:`PRODUCT_TYPES`
    (exact, case-sensitive)."""
    if value in PRODUCT_TYPES:
        return None
    return ApiError("shop_api_invalid_product_type", INVALID_PRODUCT_TYPE_MESSAGE, 400)


def check_status(value: str, field: str = "product.status") -> ApiError | None:
    """400 ``shop_api_invalid_param`` unless ``value`` is one of :data:`WRITABLE_STATUSES`."""
    if value in WRITABLE_STATUSES:
        return None
    return invalid_param(field, "must be one of " + ", ".join(WRITABLE_STATUSES))


def check_catalog_visibility(value: str) -> ApiError | None:
    """400 ``product_invalid_catalog_visibility`` (the final core error, reference §5)."""
    if value in CATALOG_VISIBILITIES:
        return None
    return ApiError("product_invalid_catalog_visibility", "Invalid catalog visibility option.", 400)


def check_tax_status(value: str) -> ApiError | None:
    """400 ``product_invalid_tax_status`` (the final core error, reference §5). ``""`` passes:
    it is stored as ``taxable``."""
    if value == "" or value in TAX_STATUSES:
        return None
    return ApiError("product_invalid_tax_status", "Invalid product tax status.", 400)


# --------------------------------------------------------------------------------------------
# Visibility and purchasability
# --------------------------------------------------------------------------------------------


def visible(
    catalog_visibility: str,
    status: str,
    parent_status: str | None,
    hide_out_of_stock: bool,
    in_stock: bool,
    *,
    can_edit: bool = False,
) -> bool:
    """The ``visible`` field (reference §2, final).

    True for catalog visibility ``visible`` or ``catalog``; then false when the product is in
    the trash, unpublished (unless ``can_edit``: the viewer may edit it), has a parent
    (``parent_status`` not ``None``) that is not published, or is out of stock while the store
    hides out-of-stock items.
    """
    if catalog_visibility not in ("visible", "catalog"):
        return False
    if status == "trash":
        return False
    if status != "publish" and not can_edit:
        return False
    if parent_status is not None and parent_status != "publish":
        return False
    return not (hide_out_of_stock and not in_stock)


def variation_visible(status: str, price: Decimal | None) -> bool:
    """A variation's ``visible`` (reference §3): published and priced."""
    return status == "publish" and price is not None


def purchaseable(
    product_type: str,
    status: str,
    price: Decimal | None,
    variation_visible: bool | None = None,
    *,
    can_edit: bool = False,
) -> bool:
    """The ``purchaseable`` field (reference §2, §3; final).

    External and grouped products never are. Others need status ``publish`` (or ``can_edit``:
    the viewer may edit the product, not trashed) and a price. A variation must also be
    visible: ``variation_visible`` when given, else :func:`variation_visible` of its status and
    price.
    """
    if product_type in ("external", "grouped"):
        return False
    if price is None:
        return False
    if status != "publish" and not (can_edit and status != "trash"):
        return False
    if product_type == "variation":
        shown = variation_visible if variation_visible is not None else status == "publish"
        return bool(shown)
    return True


# --------------------------------------------------------------------------------------------
# Text: descriptions and titles
# --------------------------------------------------------------------------------------------

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")
_WHITESPACE = re.compile(r"\s+")


def render_description(text: str, html: bool = False) -> str:
    """The ``description`` / ``short_description`` output (decisions.md §7 "Products").

    HTML (``html``, i.e. ``enable_html_*`` was true): sanitised by ``nh3.clean`` with
    its default allowlist (``<script>`` and its content, event handlers and ``javascript:``
    links go).

    Plain text: first cleaned as the original cleans text (:func:`strip_tags`: tags and comments
    removed, ``<script>``/``<style>`` with their content, entities decoded), so
    ``<b>Bold</b> move`` is ``Bold move``. Then line endings are normalised; each paragraph
    (separated by one or more blank lines) is trimmed, HTML-escaped (``&``, ``<``, ``>``) and
    wrapped in ``<p>…</p>``; a single newline inside a paragraph becomes ``<br />`` followed by
    the newline (as WordPress' autop does); paragraphs are joined with ``"\\n"``. Empty or
    blank text → ``""``.
    """
    if html:
        return nh3.clean(text) if text else ""
    normalised = strip_tags(text.replace("\r\n", "\n").replace("\r", "\n"))
    paragraphs = []
    for block in _BLANK_LINE.split(normalised):
        lines = [line.rstrip() for line in block.strip().split("\n")]
        if lines == [""]:
            continue
        escaped = (escape(line, quote=False) for line in lines)
        paragraphs.append("<p>" + "<br />\n".join(escaped) + "</p>")
    return "\n".join(paragraphs)


def strip_tags(value: str) -> str:
    """The text of ``value`` read as HTML: tags and comments removed (``<script>`` and
    ``<style>`` with their content), entities decoded; whitespace is kept as it is. Done by
    ``nh3`` with no tag allowed, not by a regular expression."""
    if "<" not in value and "&" not in value:
        return value
    return unescape(nh3.clean(value, tags=set()))


def plain_text(value: str) -> str:
    """A title or other plain-text field: tags stripped (``<script>``/``<style>`` with their
    content; comments too), entities decoded, whitespace runs (newlines included) collapsed to
    one space, trimmed."""
    if not value:
        return ""
    return _WHITESPACE.sub(" ", strip_tags(value)).strip()


# --------------------------------------------------------------------------------------------
# Slugs
# --------------------------------------------------------------------------------------------

# Like WordPress' sanitize_title: lower case, runs of other characters become one "-", "_" kept.
_SLUG_DISALLOWED = r"[^-a-z0-9_]+"
_TAXONOMY_DISALLOWED = r"[^\w-]+"


def slugify_name(text: str) -> str:
    """The slug of a product (or term) name: lower-case ASCII (accents transliterated), runs of
    other characters → one ``-``, underscores kept, no ``-`` at either end. ``""`` when nothing
    is left."""
    return slugify(text, regex_pattern=_SLUG_DISALLOWED)


def unique_slug(base: str, taken: Collection[str]) -> str:
    """``base`` if it is free, else ``base-2``, ``base-3``, … — the first not in ``taken``
    (decisions.md §7 "Uniqueness")."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


# --------------------------------------------------------------------------------------------
# Global attributes
# --------------------------------------------------------------------------------------------

#: Slugs of 28 characters or more are refused (decisions.md §5), though the message says 28.
SLUG_MAX_LENGTH = 27

#: The 74 reserved terms of reference §16 (exact, case-sensitive match on the clean slug).
RESERVED_SLUGS = frozenset(
    {
        "attachment",
        "attachment_id",
        "author",
        "author_name",
        "calendar",
        "cat",
        "category",
        "category__and",
        "category__in",
        "category__not_in",
        "category_name",
        "comments_per_page",
        "comments_popup",
        "cpage",
        "day",
        "debug",
        "error",
        "exact",
        "feed",
        "hour",
        "link_category",
        "m",
        "minute",
        "monthnum",
        "more",
        "name",
        "nav_menu",
        "nopaging",
        "offset",
        "order",
        "orderby",
        "p",
        "page",
        "page_id",
        "paged",
        "pagename",
        "pb",
        "perm",
        "post",
        "post__in",
        "post__not_in",
        "post_format",
        "post_mime_type",
        "post_status",
        "post_tag",
        "post_type",
        "posts",
        "posts_per_archive_page",
        "posts_per_page",
        "preview",
        "robots",
        "s",
        "search",
        "second",
        "sentence",
        "showposts",
        "static",
        "subpost",
        "subpost_id",
        "tag",
        "tag__and",
        "tag__in",
        "tag__not_in",
        "tag_id",
        "tag_slug__and",
        "tag_slug__in",
        "taxonomy",
        "tb",
        "term",
        "type",
        "w",
        "withcomments",
        "withoutcomments",
        "year",
    }
)


def clean_attribute_slug(value: str) -> str:
    """An attribute slug as stored (reference §16): sanitised like a taxonomy slug (lower case,
    runs of spaces and special characters → one ``-``, underscores and non-ASCII letters kept),
    then a leading ``pa_`` stripped. Used for a given slug and for one derived from the name."""
    slug = slugify(value, allow_unicode=True, regex_pattern=_TAXONOMY_DISALLOWED)
    return slug[3:] if slug.startswith("pa_") else slug


def check_attribute_slug(slug: str, taken: Collection[str] | None = None) -> ApiError | None:
    """The first failing slug rule of reference §16, as a 400 error, or ``None``:

    1. 28 characters or more → ``shop_api_invalid_product_attribute_slug_too_long``;
    2. a reserved term → ``shop_api_invalid_product_attribute_slug_reserved_name``;
    3. in ``taken`` (pass the other attributes' slugs on create only) →
       ``shop_api_invalid_product_attribute_slug_already_exists``.

    Length counts characters (not UTF-8 bytes).
    """
    if len(slug) > SLUG_MAX_LENGTH:
        return ApiError(
            "shop_api_invalid_product_attribute_slug_too_long",
            f'Slug "{slug}" is too long (28 characters max). Shorten it, please.',
            400,
        )
    if slug in RESERVED_SLUGS:
        return ApiError(
            "shop_api_invalid_product_attribute_slug_reserved_name",
            f'Slug "{slug}" is not allowed because it is a reserved term. Change it, please.',
            400,
        )
    if taken is not None and slug in taken:
        return ApiError(
            "shop_api_invalid_product_attribute_slug_already_exists",
            f'Slug "{slug}" is already in use. Change it, please.',
            400,
        )
    return None


def check_attribute_type(value: str) -> ApiError | None:
    """400 ``shop_api_invalid_product_attribute_type`` unless one of :data:`ATTRIBUTE_TYPES`."""
    if value in ATTRIBUTE_TYPES:
        return None
    return ApiError(
        "shop_api_invalid_product_attribute_type",
        "Invalid product attribute type - the product attribute type must be any of these: "
        + ", ".join(ATTRIBUTE_TYPES),
        400,
    )


def check_attribute_order_by(value: str) -> ApiError | None:
    """400 ``shop_api_invalid_product_attribute_order_by`` unless one of
    :data:`ATTRIBUTE_ORDER_BY`."""
    if value in ATTRIBUTE_ORDER_BY:
        return None
    return ApiError(
        "shop_api_invalid_product_attribute_order_by",
        "Invalid product attribute order_by type - the product attribute order_by type must be "
        "any of these: " + ", ".join(ATTRIBUTE_ORDER_BY),
        400,
    )


_NUMBER_OR_TEXT = re.compile(r"(\d+(?:\.\d+)?)|(\D+)")


def name_num_key(name: str) -> tuple[tuple[tuple[int, Decimal, str], ...], str]:
    """A natural sort key for the ``name_num`` term order: the name split into numbers and text;
    numbers (``\\d+`` with an optional ``.digits`` fraction) compare by value and before text,
    text compares case-insensitively; ties fall back to the name itself. So ``2`` < ``10`` <
    ``10.5`` < ``S`` and ``Size 2`` < ``Size 10``."""
    parts: list[tuple[int, Decimal, str]] = []
    for number, text in _NUMBER_OR_TEXT.findall(name):
        if number:
            parts.append((0, Decimal(number), ""))
        else:
            parts.append((1, Decimal(0), text.casefold()))
    return tuple(parts), name


def name_key(name: str) -> tuple[str, str]:
    """Name order: case-insensitive, ties by the exact name."""
    return (name.casefold(), name)


TERM_ORDERINGS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "menu_order": lambda term: (term["menu_order"], *name_key(term["name"]), term["id"]),
    "name": lambda term: (*name_key(term["name"]), term["id"]),
    "name_num": lambda term: (name_num_key(term["name"]), term["id"]),
    "id": lambda term: term["id"],
}


def sort_terms(terms: Iterable[T], order_by: str) -> list[T]:
    """Attribute terms (mappings with ``id``, ``name``, ``menu_order``) in their attribute's
    ``order_by``: ``menu_order`` (then name), ``name``, ``name_num`` (natural) or ``id``."""
    return sorted(terms, key=TERM_ORDERINGS.get(order_by, TERM_ORDERINGS["menu_order"]))
