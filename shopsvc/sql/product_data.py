"""The data of a page of product records: N products (or variations) loaded with **all**
their children in a fixed number of statements (``shopsvc.records.products`` builds the records
from it).

``load_products`` never runs a statement per product: it fetches the requested rows, then their
parents, then the children of both (variations, grouped children), then the children of those
children that need them for a price (a variable product inside a group), and then each child
table once with ``WHERE product_id IN (...)``. The number of statements therefore depends on the
shape of the data (empty stages are skipped), never on how many products are asked for.
"""

from __future__ import annotations

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
    Select,
    func,
    select,
    union,
    union_all,
)

from shopsvc.sql import json_rows
from shopsvc.sql.bundle import Bundle, Ids, ids_in, row_builder
from shopsvc.sql.common import stored_json, unindexed
from shopsvc.sql.prepared import Prepared, column_key
from shopsvc.sql.products import CATEGORY, RELATED_LIMIT, TAG, related_query
from shopsvc.sql.tables import (
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

#: Types whose children matter for their own record (variations, grouped children).
PARENT_TYPES = ("variable", "grouped")


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
