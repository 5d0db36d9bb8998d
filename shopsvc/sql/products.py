"""Product queries for the read side: a page of ids with the list filters, and loading N products
(or variations) with **all** their children in a fixed number of statements.

``load_products`` never runs a statement per product: it fetches the requested rows, then their
parents, then the children of both (variations, grouped children), then the children of those
children that need them for a price (a variable product inside a group), and then each child
table once with ``WHERE product_id IN (...)``. The number of statements therefore depends on the
shape of the data (empty stages are skipped), never on how many products are asked for.

Also here: the small helpers the shared record validation, DELETE and a variable product's stock
status need (``product_kind``, ``update_to_trash``, ``delete_product``, ``get_variation_stock``).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Executable,
    Integer,
    Select,
    and_,
    delete,
    func,
    select,
    true,
    type_coerce,
    union,
    union_all,
    update,
)

from shopsvc.sql import json_rows, paging
from shopsvc.sql.bundle import Bundle, Ids, ids_in, row_builder
from shopsvc.sql.common import stored_json, unindexed
from shopsvc.sql.paging import Listable, ListFilters, escape_like
from shopsvc.sql.prepared import Prepared, column_key
from shopsvc.sql.tables import (
    LISTED_PRODUCT,
    PRODUCT_SEARCH_TEXT,
    attribute_terms,
    attributes,
    downloads,
    media,
    product_attribute_terms,
    product_attributes,
    product_gallery,
    product_terms,
    products,
    reviews,
    terms,
    variation_attributes,
)

CATEGORY = "product_cat"
TAG = "product_tag"
SHIPPING_CLASS = "product_shipping_class"
#: At most this many ``related_ids`` per product (reference §2).
RELATED_LIMIT = 5
#: Catalog visibilities that make a product show up in the shop (and so in ``related_ids``).
CATALOG_VISIBLE = ("visible", "catalog")
#: Types whose children matter for their own record (variations, grouped children).
PARENT_TYPES = ("variable", "grouped")

# No ``search``: ``filter[q]`` is matched word by word by ``search_terms``.
LISTABLE = Listable.dated(
    products,
    # case-insensitive, as the original's MySQL collation and our term lists; then id
    {"title": func.lower(products.c.title), "menu_order": products.c.menu_order},
)


# --- loaded data


@dataclass
class ProductImage:
    """One entry of a product's image list: the media row and its position in the id list."""

    position: int
    media: dict[str, Any]


@dataclass
class ProductAttribute:
    """One attribute of a (non-variation) product.

    ``attribute_id`` is set for a global attribute, whose ``slug`` is the global slug (without
    ``pa_``), ``name`` the global label and ``options`` the chosen terms as dicts (``id``,
    ``name``, ``slug``, ``menu_order``), unordered (the record builder orders them by
    ``order_by``); a custom attribute has ``attribute_id`` None, its own ``name`` and its stored
    options (strings) as ``options``.
    """

    id: int
    attribute_id: int | None
    name: str
    slug: str
    position: int
    visible: bool
    variation: bool
    order_by: str
    options: list[Any] = field(default_factory=list)
    #: ``attribute_id is not None``: a global attribute.
    is_global: bool = field(init=False)

    def __post_init__(self) -> None:
        self.is_global = self.attribute_id is not None


@dataclass
class ProductData:
    """A product or variation row with everything its record needs.

    ``parent`` is the variable product of a variation, or the grouped product of a grouped child;
    ``children`` are the rows whose ``parent_id`` is this product (variations or grouped
    children, every status, by ``menu_order`` then id) — loaded for the requested products, their
    parents, and their children that are variable or grouped (whose price needs their children).
    Nodes are shared: a product appearing in several roles is one ``ProductData``.
    """

    row: dict[str, Any]
    images: list[ProductImage] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    shipping_class: dict[str, Any] | None = None
    attributes: list[ProductAttribute] = field(default_factory=list)
    variation_values: dict[str, str] = field(default_factory=dict)
    downloads: list[dict[str, Any]] = field(default_factory=list)
    rating_count: int = 0
    rating_total: int = 0
    related_ids: list[int] = field(default_factory=list)
    term_ids: list[int] = field(default_factory=list)
    parent: ProductData | None = None
    children: list[ProductData] = field(default_factory=list)
    children_loaded: bool = False
    #: ``row["id"]`` and ``row["type"]``, read once: a page of records asks for them thousands
    #: of times.
    id: int = field(init=False)
    type: str = field(init=False)

    def __post_init__(self) -> None:
        self.id = int(self.row["id"])
        self.type = str(self.row["type"])

    @property
    def featured_image(self) -> dict[str, Any] | None:
        """The media row of the product's own featured image (``image_id``), if it exists."""
        for image in self.images:
            if image.position == 0 and self.row["image_id"] == image.media["id"]:
                return image.media
        return None

    @property
    def average_rating(self) -> Decimal:
        if not self.rating_count:
            return Decimal(0)
        return Decimal(self.rating_total) / Decimal(self.rating_count)

    @property
    def upsell_ids(self) -> list[int]:
        return _id_list(self.row["upsell_ids"])

    @property
    def cross_sell_ids(self) -> list[int]:
        return _id_list(self.row["cross_sell_ids"])


def _id_list(text: str | None) -> list[int]:
    if not text or text == "[]":  # most products have none: nothing to parse
        return []
    try:
        value = stored_json(text)
    except ValueError:
        return []
    if not isinstance(value, list):
        return []
    return [int(item) for item in value if isinstance(item, int) and not isinstance(item, bool)]


def _options(text: str | None) -> list[str]:
    try:
        value = stored_json(text or "[]")
    except ValueError:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split("|") if part.strip()]
    if not isinstance(value, list):
        return []
    return [str(item) for item in value]


# --- loading

#: The rows of each part of the child tables' statement (``Bundle.split``).
Loaded = dict[str, list[dict[str, Any]]]


def _chunks(ids: Iterable[int]) -> list[int]:
    return sorted({int(i) for i in ids})


def _rows_where(where: ColumnElement[bool]) -> Select[Any]:
    return select(products).where(where).order_by(products.c.menu_order, products.c.id)


def rows_query(ids: Ids) -> Select[Any]:
    """Products and variations by id."""
    return _rows_where(ids_in(products.c.id, ids))


def children_query(parent_ids: Ids) -> Select[Any]:
    """The variations and grouped children of these products."""
    return _rows_where(ids_in(products.c.parent_id, parent_ids))


@functools.cache
def _family_rows() -> Select[Any]:
    """The rows :func:`load_products` needs, in one statement (``ids``: the requested ones):
    the requested rows, their parents, the children of both, and the children of those
    children that are variable or grouped (duplicates possible; no order)."""
    asked = products.alias("asked")
    parents = select(asked.c.parent_id).where(ids_in(asked.c.id, "ids"))
    # The requested ids (those that exist: a parent_id always names a product) and their
    # parents, as one sub-query: ``parent_id IN (…)`` of it is served by ``ix_products_parent``,
    # where two such conditions joined by OR had PostgreSQL read every product.
    heads = union(select(asked.c.id).where(ids_in(asked.c.id, "ids")), parents)
    kids = products.alias("kid")
    grouping = select(kids.c.id).where(
        kids.c.parent_id.in_(heads), unindexed(kids.c.type).in_(PARENT_TYPES)
    )
    return union_all(
        select(products).where(ids_in(products.c.id, "ids")),
        select(products).where(products.c.id.in_(parents)),
        select(products).where(products.c.parent_id.in_(heads)),
        select(products).where(products.c.parent_id.in_(grouping)),
    )


@functools.cache
def _family_prepared() -> Prepared:
    return Prepared(_family_rows())


@functools.cache
def _family_row() -> Callable[[Sequence[Any]], dict[str, Any]]:
    """A row of :func:`_family_rows` as a dict keyed by column."""
    columns = _family_rows().selected_columns
    return row_builder([(column_key(column.key), i) for i, column in enumerate(columns)])


def family_query(ids: Sequence[int]) -> Executable:
    """The statement :func:`load_product_rows` runs."""
    return _family_rows().params(ids=list(ids))


def load_product_rows(conn: Connection, ids: Sequence[int]) -> list[dict[str, Any]]:
    """The rows of the products ``ids`` and of their families (parents, children,
    grandchildren that a price needs), in one statement; ``load_products(…, rows=…)`` takes
    them (and the loader judges a product from them)."""
    wanted = _chunks(i for i in ids if isinstance(i, int) and i > 0)
    if not wanted:
        return []
    build = _family_row()
    one_row = json_rows.for_records(len(wanted))
    return [build(row) for row in _family_prepared().rows(conn, {"ids": wanted}, one_row=one_row)]


def kind_of(rows: Sequence[dict[str, Any]], product_id: int) -> dict[str, Any] | None:
    """``{id, type, status, parent_id}`` of ``product_id`` among loaded rows (as
    :func:`product_kind` reads it)."""
    for row in rows:
        if row["id"] == product_id:
            return {key: row[key] for key in ("id", "type", "status", "parent_id")}
    return None


def load_products(
    conn: Connection,
    ids: Sequence[int],
    *,
    hide_out_of_stock: bool = False,
    rows: Sequence[dict[str, Any]] | None = None,
) -> dict[int, ProductData]:
    """The products and variations of ``ids`` that exist, with all their children, by id.

    Every requested product also brings its parent and children (with *their* children data)
    into the returned nodes, linked through ``parent`` and ``children``; the result is keyed by
    every loaded id, so ``result[i]`` exists for each requested ``i`` that exists.
    ``hide_out_of_stock`` (the store setting) leaves out-of-stock products out of
    ``related_ids``. Two statements: the rows (:func:`load_product_rows`; none when ``rows``
    gives them) and every child table (:func:`children_bundle`).
    """
    wanted = _chunks(i for i in ids if isinstance(i, int) and i > 0)
    if not wanted:
        return {}
    if rows is None:
        rows = load_product_rows(conn, wanted)
    by_id = {row["id"]: row for row in rows}
    nodes: dict[int, ProductData] = {}

    def add(found: Iterable[dict[str, Any]]) -> list[ProductData]:
        added = []
        for row in found:
            node = nodes.get(row["id"])
            if node is None:
                node = nodes[row["id"]] = ProductData(row)
            added.append(node)
        return added

    def children_of(parent_ids: Iterable[int]) -> list[dict[str, Any]]:
        chosen = set(parent_ids)
        return [row for row in by_id.values() if row["parent_id"] in chosen]

    # 1. the requested rows; 2. their parents
    requested = add(by_id[i] for i in wanted if i in by_id)
    parent_ids = _chunks(p.row["parent_id"] for p in requested if p.row["parent_id"])
    add(by_id[i] for i in parent_ids if i not in nodes and i in by_id)
    # 3. the children of the requested rows and of their parents
    with_children = _chunks(nodes)
    children = add(children_of(with_children))
    loaded_children = set(with_children)
    # 4. the children of those children that are variable or grouped (for their prices)
    grand = [c.id for c in children if c.type in PARENT_TYPES and c.id not in loaded_children]
    if grand:
        add(children_of(grand))
        loaded_children.update(grand)

    _link(nodes, loaded_children)
    params = _children_params(nodes)
    related_for = params["related_for"]
    bundle = _children(hide_out_of_stock, conn.dialect.name)
    found = bundle.run(conn, params, one_row=json_rows.for_records(len(wanted)))
    _load_images(nodes, found)
    _load_terms(nodes, found)
    _load_attributes(nodes, found)
    _load_variation_values(nodes, found)
    _load_downloads(nodes, found)
    _load_ratings(nodes, found)
    _load_related(nodes, related_for, found)
    return nodes


def _children_params(nodes: dict[int, ProductData]) -> dict[str, Any]:
    """The parameters of :func:`_children` for the loaded ``nodes``, each id list sorted."""
    image_ids, class_ids, variation_ids, related_for = set(), set(), [], []
    for node_id, node in nodes.items():
        row = node.row
        if row["image_id"]:
            image_ids.add(row["image_id"])
        if row["shipping_class_id"]:
            class_ids.add(row["shipping_class_id"])
        (variation_ids if node.type == "variation" else related_for).append(node_id)
    return {
        "ids": sorted(nodes),
        "image_ids": sorted(image_ids),
        "class_ids": sorted(class_ids),
        "variation_ids": sorted(variation_ids),
        "related_for": sorted(related_for),
    }


@functools.cache
def _children(hide_out_of_stock: bool, dialect: str) -> Bundle:
    """Every child table of some products in one statement, built once; executed with
    ``ids`` (the products), ``image_ids`` (their featured images), ``class_ids`` (their
    shipping classes), ``variation_ids`` and ``related_for`` (those whose ``related_ids`` are
    wanted)."""
    return Bundle(
        {
            "gallery": gallery_query("ids"),
            "media": media_query("image_ids", gallery_of="ids"),
            "terms": terms_query("ids"),
            "shipping_classes": shipping_classes_query("class_ids"),
            "attributes": attributes_query("ids"),
            "attribute_terms": attribute_terms_query("ids"),
            "variation_values": variation_values_query("variation_ids"),
            "downloads": downloads_query("ids"),
            "ratings": ratings_query("ids"),
            "related": related_query(_listed_terms("related_for"), hide_out_of_stock, dialect),
        }
    )


def children_bundle_query(
    ids: Sequence[int], hide_out_of_stock: bool = False, dialect: str = "postgresql"
) -> Executable:
    """The statement :func:`load_products` runs for the child tables of the products ``ids``
    (as if they were all the loaded rows: their images and classes are not read)."""
    params = {
        "ids": list(ids),
        "image_ids": [],
        "class_ids": [],
        "variation_ids": list(ids),
        "related_for": list(ids),
    }
    return _children(hide_out_of_stock, dialect).statement.params(**params)


def _listed_terms(product_ids: Ids) -> Select[Any]:
    """The categories and tags of these products: their ``product_terms`` rows, each term then
    checked by its primary key (``taxonomy`` :func:`unindexed`: SQLite otherwise walked every
    category and tag of the store by ``uq_terms_sibling_name`` and looked each up among the
    products' terms, 22 µs for 31 terms against 10 µs, and growing with the store's tags)."""
    return (
        select(product_terms.c.term_id)
        .select_from(product_terms.join(terms, terms.c.id == product_terms.c.term_id))
        .where(
            ids_in(product_terms.c.product_id, product_ids),
            unindexed(terms.c.taxonomy).in_((CATEGORY, TAG)),
        )
    )


def _link(nodes: dict[int, ProductData], loaded_children: set[int]) -> None:
    by_parent: dict[int, list[ProductData]] = defaultdict(list)
    for node in nodes.values():
        parent_id = node.row["parent_id"]
        if parent_id and parent_id in nodes:
            node.parent = nodes[parent_id]
            by_parent[parent_id].append(node)
    for parent_id in loaded_children:
        if parent_id not in nodes:
            continue
        kids = sorted(by_parent.get(parent_id, []), key=lambda n: (n.row["menu_order"], n.id))
        nodes[parent_id].children = kids
        nodes[parent_id].children_loaded = True


def unlink(nodes: dict[int, ProductData]) -> None:
    """Undo :func:`_link` once the records are built: a parent and its children refer to each
    other, so without this the nodes of a page (a thousand products: 36 000 objects) would wait
    for the cyclic garbage collector, which walks every young object, instead of going as soon
    as the last reference to them does."""
    for node in nodes.values():
        node.parent = None
        node.children = []


def gallery_query(ids: Ids) -> Select[Any]:
    """The gallery (media ids, in order) of these products."""
    return (
        select(product_gallery.c.product_id, product_gallery.c.media_id)
        .where(ids_in(product_gallery.c.product_id, ids))
        .order_by(product_gallery.c.product_id, product_gallery.c.position)
    )


def media_query(media_ids: Ids, gallery_of: Ids | None = None) -> Select[Any]:
    """The media rows ``media_ids`` (the products' featured images) and those of the galleries
    of the products ``gallery_of``."""
    if gallery_of is None:
        return select(media).where(ids_in(media.c.id, media_ids))
    # one ``IN`` of a union: an OR of the two conditions had PostgreSQL read every media row
    wanted = union(
        select(product_gallery.c.media_id).where(ids_in(product_gallery.c.product_id, gallery_of)),
        select(media.c.id).where(ids_in(media.c.id, media_ids)),
    )
    return select(media).where(media.c.id.in_(wanted))


def _load_images(nodes: dict[int, ProductData], loaded: Loaded) -> None:
    found = {row["id"]: row for row in loaded["media"]}
    if not found:
        return
    lists: dict[int, list[int]] = defaultdict(list)
    for row in loaded["gallery"]:
        lists[row["product_id"]].append(row["media_id"])
    for node in nodes.values():
        image_id = node.row["image_id"]
        gallery = lists.get(node.id)
        if gallery is None:  # most nodes (variations): their own image at most
            media_row = found.get(image_id) if image_id else None
            node.images = [ProductImage(0, media_row)] if media_row is not None else []
            continue
        id_list = [image_id, *gallery] if image_id else gallery
        node.images = [
            ProductImage(position, found[media_id])
            for position, media_id in enumerate(id_list)
            if media_id in found
        ]


def terms_query(ids: Ids) -> Select[Any]:
    """The terms (categories, tags) of these products."""
    return (
        select(product_terms.c.product_id, terms.c.id, terms.c.taxonomy, terms.c.name)
        .select_from(product_terms.join(terms, terms.c.id == product_terms.c.term_id))
        .where(ids_in(product_terms.c.product_id, ids))
    )


def shipping_classes_query(class_ids: Ids) -> Select[Any]:
    """The shipping classes the products name."""
    return select(terms.c.id, terms.c.name, terms.c.slug).where(ids_in(terms.c.id, class_ids))


def _load_terms(nodes: dict[int, ProductData], loaded: Loaded) -> None:
    for row in loaded["terms"]:
        term_id, taxonomy, name = row["id"], row["taxonomy"], row["name"]
        node = nodes[row["product_id"]]
        if taxonomy in (CATEGORY, TAG):
            node.term_ids.append(term_id)
        if taxonomy == CATEGORY:
            node.categories.append(name)
        elif taxonomy == TAG:
            node.tags.append(name)
    class_ids = _chunks(
        n.row["shipping_class_id"] for n in nodes.values() if n.row["shipping_class_id"]
    )
    if not class_ids:
        return
    classes = {row["id"]: row for row in loaded["shipping_classes"]}
    for node in nodes.values():
        node.shipping_class = classes.get(node.row["shipping_class_id"])


def attributes_query(ids: Ids) -> Select[Any]:
    """The attributes (global and custom) of these products."""
    return (
        select(
            product_attributes,
            attributes.c.name.label("global_name"),
            attributes.c.slug.label("global_slug"),
            attributes.c.order_by.label("global_order_by"),
        )
        .select_from(
            product_attributes.outerjoin(
                attributes, attributes.c.id == product_attributes.c.attribute_id
            )
        )
        .where(ids_in(product_attributes.c.product_id, ids))
        .order_by(
            product_attributes.c.product_id,
            product_attributes.c.position,
            product_attributes.c.id,
        )
    )


def attribute_terms_query(ids: Ids) -> Select[Any]:
    """The chosen terms of these products' global attributes."""
    return (
        select(
            product_attribute_terms.c.product_id,
            attribute_terms.c.attribute_id,
            attribute_terms.c.id,
            attribute_terms.c.name,
            attribute_terms.c.slug,
            attribute_terms.c.menu_order,
        )
        .select_from(
            product_attribute_terms.join(
                attribute_terms,
                attribute_terms.c.id == product_attribute_terms.c.attribute_term_id,
            )
        )
        .where(ids_in(product_attribute_terms.c.product_id, ids))
    )


def _load_attributes(nodes: dict[int, ProductData], loaded: Loaded) -> None:
    rows = loaded["attributes"]
    if not rows:
        return
    chosen: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    if any(row["attribute_id"] is not None for row in rows):
        for term in loaded["attribute_terms"]:
            chosen[(term["product_id"], term["attribute_id"])].append(term)
    for row in rows:
        node = nodes[row["product_id"]]
        if row["attribute_id"] is not None:
            order_by = row["global_order_by"] or "menu_order"
            attribute = ProductAttribute(
                id=row["id"],
                attribute_id=row["attribute_id"],
                name=row["global_name"] or row["name"],
                slug=row["global_slug"] or "",
                position=row["position"],
                visible=bool(row["visible"]),
                variation=bool(row["is_variation"]),
                order_by=order_by,
                options=chosen.get((node.id, row["attribute_id"]), []),
            )
        else:
            attribute = ProductAttribute(
                id=row["id"],
                attribute_id=None,
                name=row["name"],
                slug="",
                position=row["position"],
                visible=bool(row["visible"]),
                variation=bool(row["is_variation"]),
                order_by="",
                options=_options(row["options"]),
            )
        node.attributes.append(attribute)


def variation_values_query(variation_ids: Ids) -> Select[Any]:
    """The attribute values of these variations."""
    return (
        select(
            variation_attributes.c.variation_id,
            variation_attributes.c.attribute_key,
            variation_attributes.c.value,
        )
        .where(ids_in(variation_attributes.c.variation_id, variation_ids))
        .order_by(variation_attributes.c.variation_id, variation_attributes.c.attribute_key)
    )


def _load_variation_values(nodes: dict[int, ProductData], loaded: Loaded) -> None:
    for row in loaded["variation_values"]:
        nodes[row["variation_id"]].variation_values[row["attribute_key"]] = row["value"]


def downloads_query(ids: Ids) -> Select[Any]:
    """The downloadable files of these products."""
    return (
        select(downloads.c.product_id, downloads.c.download_key, downloads.c.name, downloads.c.file)
        .where(ids_in(downloads.c.product_id, ids))
        .order_by(downloads.c.product_id, downloads.c.position, downloads.c.id)
    )


def _load_downloads(nodes: dict[int, ProductData], loaded: Loaded) -> None:
    for row in loaded["downloads"]:
        nodes[row["product_id"]].downloads.append(
            {"id": row["download_key"], "name": row["name"], "file": row["file"]}
        )


def ratings_query(ids: Ids) -> Select[Any]:
    """The number and sum of the approved ratings of these products."""
    return (
        select(
            reviews.c.product_id,
            func.count().label("number"),
            func.sum(reviews.c.rating).label("total"),
        )
        .where(
            ids_in(reviews.c.product_id, ids),
            reviews.c.approved.is_(True),
            reviews.c.rating > 0,
        )
        .group_by(reviews.c.product_id)
    )


def _load_ratings(nodes: dict[int, ProductData], loaded: Loaded) -> None:
    for row in loaded["ratings"]:
        nodes[row["product_id"]].rating_count = int(row["number"])
        nodes[row["product_id"]].rating_total = int(row["total"] or 0)


def _load_related(nodes: dict[int, ProductData], ids: list[int], loaded: Loaded) -> None:
    """Up to ``RELATED_LIMIT`` other published, catalog-visible products sharing a category or
    tag with each of ``ids``, ascending id (decisions.md §5: deterministic).

    One statement fetches, for each category and tag of these products, its ``RELATED_LIMIT + 1``
    smallest member ids: the smallest ``RELATED_LIMIT`` ids of a union of terms other than the
    product itself are always among them. The work grows with the size of the terms involved,
    not with the number of product pairs sharing them."""
    wanted = [i for i in ids if nodes[i].term_ids]
    if not wanted:
        return
    members: dict[int, list[int]] = defaultdict(list)
    for row in loaded["related"]:
        members[row["term_id"]].append(int(row["product_id"]))
    for product_id in wanted:
        node = nodes[product_id]
        found = {other for t in node.term_ids for other in members.get(t, ())}
        found.discard(product_id)
        node.related_ids = sorted(found)[:RELATED_LIMIT]


def related_query(
    term_ids: Sequence[int] | Select[Any], hide_out_of_stock: bool, dialect: str = "postgresql"
) -> Select[Any]:
    """``(term_id, product_id)``: the ``RELATED_LIMIT + 1`` smallest ids of the published,
    catalog-visible products of each of these categories and tags (``related_ids``).

    Per term, a sub-query walks the term's members in id order (``ix_product_terms_term``, each
    checked by its primary key) and stops after ``RELATED_LIMIT + 1`` that qualify: a few index
    entries per term, however many products the term has (a window over every member of the
    terms read each of them: hundreds of milliseconds on a large catalogue), and one sub-plan
    to plan (one per rank cost 4 ms of planning on every single-product GET). The check is a
    scalar sub-query, which PostgreSQL's planner cannot turn into a join: as a join it
    merge-joined the members with ``products`` read in id order from the first product
    (0.23 ms against 0.08 ms for a product's three terms on the bench catalogue, and growing
    with the ids before a term's first member).

    PostgreSQL runs the walk as a ``LATERAL`` sub-query. SQLite (``dialect``), which has no
    ``LATERAL`` and correlates a table function's argument but not a ``FROM`` sub-query, hands
    each term's ids over as one JSON array, which ``json_each`` turns back into rows (a
    recursive query taking one next member per step, as it did before, took half as long again:
    29 µs against 20 µs for a product's three terms)."""
    listed = terms.alias("listed")
    member = product_terms.alias("member")
    conditions = _related_conditions(hide_out_of_stock)
    shown = select(and_(*conditions)).where(products.c.id == member.c.product_id).scalar_subquery()
    firsts = (
        select(member.c.product_id)
        .where(member.c.term_id == listed.c.id, shown)
        .order_by(member.c.product_id)
        .limit(RELATED_LIMIT + 1)
    )
    if dialect == "sqlite":
        walk = firsts.correlate(listed).subquery("firsts")
        found = select(func.json_group_array(walk.c.product_id)).scalar_subquery()
        members = func.json_each(found).table_valued("value").alias("walked")
        product_id = type_coerce(members.c.value, Integer)
    else:
        members = firsts.lateral("firsts")
        product_id = members.c.product_id
    return (
        select(listed.c.id.label("term_id"), product_id.label("product_id"))
        .select_from(listed.join(members, true()))
        .where(listed.c.id.in_(term_ids))
    )


def _related_conditions(hide_out_of_stock: bool) -> list[ColumnElement[bool]]:
    """What makes a product one of a term's related ids."""
    conditions = [
        products.c.status == "publish",
        LISTED_PRODUCT,
        products.c.catalog_visibility.in_(CATALOG_VISIBLE),
    ]
    if hide_out_of_stock:
        conditions.append(products.c.stock_status != "outofstock")
    return conditions


# --- listing


@dataclass(frozen=True)
class ProductFilters:
    """The product-specific list filters (the common ones are in ``ListParams``).

    ``statuses`` None means every status but ``trash`` (``filter[post_status]=any``). Slugs
    within one taxonomy are ORed, different taxonomies ANDed. ``sku`` (exact, case-insensitive)
    widens the list to variations.
    """

    statuses: tuple[str, ...] | None = ("publish",)
    types: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    shipping_classes: tuple[str, ...] = ()
    attributes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    sku: str | None = None


def _in_taxonomy(taxonomy: str, slugs: Sequence[str]) -> ColumnElement[bool]:
    lowered = [slug.lower() for slug in slugs]
    linked = (
        select(product_terms.c.product_id)
        .select_from(product_terms.join(terms, terms.c.id == product_terms.c.term_id))
        .where(terms.c.taxonomy == taxonomy, func.lower(terms.c.slug).in_(lowered))
    )
    return products.c.id.in_(linked)


def _with_attribute(slug: str, term_slugs: Sequence[str]) -> ColumnElement[bool]:
    lowered = [term.lower() for term in term_slugs]
    linked = (
        select(product_attribute_terms.c.product_id)
        .select_from(
            product_attribute_terms.join(
                attribute_terms,
                attribute_terms.c.id == product_attribute_terms.c.attribute_term_id,
            ).join(attributes, attributes.c.id == attribute_terms.c.attribute_id)
        )
        .where(
            func.lower(attributes.c.slug) == slug.lower(),
            func.lower(attribute_terms.c.slug).in_(lowered),
        )
    )
    return products.c.id.in_(linked)


def filter_terms(filters: ProductFilters) -> list[ColumnElement[bool]]:
    """The WHERE terms of the product-specific filters."""
    found: list[ColumnElement[bool]] = []
    if filters.statuses is None:
        found.append(products.c.status != "trash")
    else:
        found.append(products.c.status.in_(filters.statuses))
    if filters.sku is not None:
        found.append(func.lower(products.c.sku) == filters.sku.lower())
    else:
        found.append(LISTED_PRODUCT)
    if filters.types:
        found.append(products.c.type.in_(filters.types))
    if filters.categories:
        found.append(_in_taxonomy(CATEGORY, filters.categories))
    if filters.tags:
        found.append(_in_taxonomy(TAG, filters.tags))
    if filters.shipping_classes:
        lowered = [slug.lower() for slug in filters.shipping_classes]
        classes = select(terms.c.id).where(
            terms.c.taxonomy == SHIPPING_CLASS, func.lower(terms.c.slug).in_(lowered)
        )
        found.append(products.c.shipping_class_id.in_(classes))
    for slug, term_slugs in filters.attributes:
        found.append(_with_attribute(slug, term_slugs))
    return found


def search_terms(q: str) -> list[ColumnElement[bool]]:
    """``filter[q]`` as the original's search does it: every space-separated word must occur
    (case-insensitively) in the title, the description or the short description -- in their
    concatenation, which a word (no space) never matches across: one ``LIKE`` per word, which
    ``ix_products_search`` serves on PostgreSQL."""
    return [
        PRODUCT_SEARCH_TEXT.like(f"%{escape_like(word.lower())}%", escape="\\")
        for word in q.split()
    ]


def _all_terms(params: ListFilters, filters: ProductFilters) -> list[ColumnElement[bool]]:
    return [*filter_terms(filters), *search_terms(params.q)]


def page_query(params: ListFilters, filters: ProductFilters) -> Select[Any]:
    """The ids of one page of products matching the filters, in the list order."""
    return paging.page_query(select(products.c.id), LISTABLE, params, _all_terms(params, filters))


def count_query(params: ListFilters, filters: ProductFilters) -> Select[Any]:
    """The number of products matching the filters (the list's total, ``/products/count``)."""
    return paging.total_query(select(products.c.id), LISTABLE, params, _all_terms(params, filters))


def page_product_ids(
    conn: Connection, params: ListFilters, filters: ProductFilters
) -> tuple[list[int], int]:
    """One page of product ids matching the filters, in the list order, and the total."""
    query, total = page_query(params, filters), count_query(params, filters)
    rows, found = paging.run_page(conn, query, total, params)
    return [int(row["id"]) for row in rows], found


def count_products(conn: Connection, params: ListFilters, filters: ProductFilters) -> int:
    """The number of products matching the filters (the list's total)."""
    return int(conn.execute(count_query(params, filters)).scalar_one())


# --- single rows


def kind_query(product_id: int) -> Select[Any]:
    """``id, type, status, parent_id`` of one product or variation."""
    return select(products.c.id, products.c.type, products.c.status, products.c.parent_id).where(
        products.c.id == product_id
    )


def product_kind(conn: Connection, product_id: int) -> dict[str, Any] | None:
    """``{id, type, status, parent_id}`` of a product or variation, for validation."""
    row = conn.execute(kind_query(product_id)).mappings().first()
    return dict(row) if row else None


def update_to_trash(conn: Connection, product_id: int, now: dt.datetime) -> bool:
    """Move a product (and, for a variable product, its variations) to the trash, keeping each
    one's status in ``status_before_trash``; True when the product was moved."""
    moved = conn.execute(
        update(products)
        .where(products.c.id == product_id, products.c.status != "trash")
        .values(status_before_trash=products.c.status, status="trash", updated_at=now)
    ).rowcount
    if moved:
        conn.execute(
            update(products)
            .where(
                products.c.parent_id == product_id,
                products.c.type == "variation",
                products.c.status != "trash",
            )
            .values(status_before_trash=products.c.status, status="trash", updated_at=now)
        )
    return moved > 0


def get_variation_stock(conn: Connection, parent_id: int) -> list[dict[str, Any]]:
    """``{manage_stock, stock_quantity, backorders, stock_status}`` of a product's variations
    that are published or private (the ones its stock status derives from)."""
    query = select(
        products.c.manage_stock,
        products.c.stock_quantity,
        products.c.backorders,
        products.c.stock_status,
    ).where(
        products.c.parent_id == parent_id,
        products.c.type == "variation",
        products.c.status.in_(("publish", "private")),
    )
    return [dict(row) for row in conn.execute(query).mappings()]


def get_stock_row(
    conn: Connection, product_id: int, *, lock: bool = False
) -> dict[str, Any] | None:
    """The stock columns (and type) of one product; ``lock`` holds the row until the
    transaction ends (``FOR UPDATE`` on PostgreSQL; SQLite serialises writers already), so a
    quantity read to be moved cannot be moved by another transaction meanwhile."""
    query = select(
        products.c.id,
        products.c.type,
        products.c.parent_id,
        products.c.manage_stock,
        products.c.stock_quantity,
        products.c.backorders,
        products.c.stock_status,
    ).where(products.c.id == product_id)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).mappings().first()
    return dict(row) if row else None


def update_stock(conn: Connection, product_id: int, quantity: int, status: str) -> None:
    """Store a stock-managed product's new quantity and the status it gives."""
    conn.execute(
        update(products)
        .where(products.c.id == product_id)
        .values(stock_quantity=quantity, stock_status=status)
    )


def update_total_sales(conn: Connection, product_id: int, delta: int) -> None:
    """Add ``delta`` to a product's ``total_sales`` (an order's lines, once)."""
    conn.execute(
        update(products)
        .where(products.c.id == product_id)
        .values(total_sales=products.c.total_sales + delta)
    )


def update_stock_status(conn: Connection, product_id: int, status: str) -> None:
    conn.execute(update(products).where(products.c.id == product_id).values(stock_status=status))


def delete_product(conn: Connection, product_id: int) -> bool:
    """Delete a product for good: its variations are deleted, other children detached (their
    ``parent_id`` cleared); child rows (gallery, terms, attributes, downloads, reviews) go by
    cascade. True when the product existed."""
    conn.execute(
        delete(products).where(products.c.parent_id == product_id, products.c.type == "variation")
    )
    conn.execute(update(products).where(products.c.parent_id == product_id).values(parent_id=None))
    return conn.execute(delete(products).where(products.c.id == product_id)).rowcount > 0
