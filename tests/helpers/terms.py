"""The term families as the tests see them: one row per family with its routes, envelope, record
shape and every code and message it answers with, so that one suite (``tests/terms/``) runs the
behaviour they share over all of them.

:data:`TERM_FAMILIES` are the four term-like families (categories, tags, shipping classes,
attribute terms); :data:`FAMILIES` adds the global attributes, which share the routes' order of
checks and their codes but not the term rules; :data:`TREE_FAMILIES` are the ones with a
``parent``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from webtest import TestApp

from shopsvc.sql.tables import product_attribute_terms, product_terms, products
from tests.helpers.api import ROOT
from tests.helpers.sql import add_product, count_rows, insert_many

Refusal = tuple[str, str]  # (code, message)


@dataclass(frozen=True)
class Family:
    id: str
    envelope: str
    plural: str
    #: The collection URL (attribute terms: those of the attribute :meth:`prepare` creates).
    url: str
    #: The collection and item routes as the index lists them.
    routes: tuple[str, str]
    keys: tuple[str, ...]
    read_denied: Refusal
    create_denied: Refusal
    edit_denied: Refusal
    delete_denied: Refusal
    #: Id 0 (400) and an unknown id (404) share the code.
    invalid_id: Refusal
    not_found: str
    missing_create: Refusal
    missing_edit: Refusal
    #: The record's fields besides id, name and slug, as a new record has them.
    defaults: dict[str, Any] = field(default_factory=dict)
    #: The optional fields it writes besides name and slug.
    fields: frozenset[str] = frozenset()
    #: --- term families only
    #: The ``taxonomy`` of its rows in ``terms`` (None: rows of their own table).
    taxonomy: str | None = None
    cannot_create: str = ""
    duplicate_name: str = ""
    name_required: Refusal = ("", "")
    #: An edit the rules refuse: the code, and the message (None: the rule's own message).
    edit_failed: tuple[str, str | None] = ("", None)
    #: A parent that is no term of the family (tree families).
    invalid_parent: Refusal | None = None
    #: A word of the statement that counts the products of its terms.
    count_word: str = ""

    def __str__(self) -> str:
        return self.id

    @property
    def deleted(self) -> dict[str, str]:
        return {"message": f"Deleted {self.envelope}"}

    def item(self, record_id: int | str) -> str:
        return f"{self.url}/{record_id}"

    def prepare(self, api: TestApp) -> None:
        """What the family's routes need first: attribute terms live under attribute 1."""
        if self is ATTRIBUTE_TERMS:
            body = {"product_attribute": {"name": "Color"}}
            api.post_json(ROOT + "/products/attributes", body, status=201)

    def post(self, api: TestApp, fields: Any, status: int | str = 201, **kwargs: Any) -> Any:
        """POST ``{envelope: fields}``; the response."""
        return api.post_json(self.url, {self.envelope: fields}, status=status, **kwargs)

    def put(self, api: TestApp, record_id: int, fields: Any, status: int | str = 200) -> Any:
        return api.put_json(self.item(record_id), {self.envelope: fields}, status=status)

    def create(self, api: TestApp, **fields: Any) -> dict[str, Any]:
        return self.post(api, fields).json[self.envelope]

    def get(self, api: TestApp, record_id: int) -> dict[str, Any]:
        return api.get(self.item(record_id)).json[self.envelope]

    def listed(self, api: TestApp, query: str = "") -> list[dict[str, Any]]:
        return api.get(self.url + query).json[self.plural]

    def record(self, id: int, name: str, slug: str, **fields: Any) -> dict[str, Any]:
        """The record with the defaults, overridden by ``fields``, in the family's key order."""
        values = {"id": id, "name": name, "slug": slug, **self.defaults, **fields}
        assert set(values) == set(self.keys), values
        return {key: values[key] for key in self.keys}

    def edit_refused(self, reason: str) -> tuple[int, str, str]:
        """The 400 of an edit the rules refuse for ``reason`` (the create message)."""
        code, message = self.edit_failed
        return 400, code, reason if message is None else message

    def attach(self, engine: sa.Engine, term_id: int, status: str = "publish") -> int:
        """A new product of ``status`` using the term; its id."""
        if self is SHIPPING_CLASSES:
            return add_product(engine, status, shipping_class_id=term_id)
        product = add_product(engine, status)
        if self is ATTRIBUTE_TERMS:
            insert_many(
                engine,
                product_attribute_terms,
                [{"product_id": product, "attribute_term_id": term_id}],
            )
        else:
            insert_many(engine, product_terms, [{"product_id": product, "term_id": term_id}])
        return product

    def links(self, engine: sa.Engine) -> int:
        """How many products use a term of the family."""
        if self is SHIPPING_CLASSES:
            query = sa.select(products).where(products.c.shipping_class_id > 0)
            return count_rows(engine, query.subquery())
        if self is ATTRIBUTE_TERMS:
            return count_rows(engine, product_attribute_terms)
        return count_rows(engine, product_terms)


CATEGORIES = Family(
    id="category",
    envelope="product_category",
    plural="product_categories",
    url=ROOT + "/products/categories",
    routes=("/products/categories", "/products/categories/<id>"),
    keys=("id", "name", "slug", "parent", "description", "display", "image", "count"),
    defaults={"parent": 0, "description": "", "display": "default", "image": "", "count": 0},
    fields=frozenset({"parent", "description", "display", "image"}),
    read_denied=(
        "shop_api_user_cannot_read_product_categories",
        "You do not have permission to read product categories",
    ),
    create_denied=(
        "shop_api_user_cannot_create_product_category",
        "You do not have permission to create product categories",
    ),
    edit_denied=(
        "shop_api_user_cannot_edit_product_category",
        "You do not have permission to edit product categories",
    ),
    delete_denied=(
        "shop_api_user_cannot_delete_product_category",
        "You do not have permission to delete product category",
    ),
    invalid_id=("shop_api_invalid_product_category_id", "Invalid product category ID"),
    not_found="A product category with the provided ID could not be found",
    missing_create=(
        "shop_api_missing_product_category_data",
        "No product_category data specified to create product_category",
    ),
    missing_edit=(
        "shop_api_missing_product_category",
        "No product_category data specified to edit product_category",
    ),
    taxonomy="product_cat",
    cannot_create="shop_api_cannot_create_product_category",
    duplicate_name="A term with the name provided already exists with this parent.",
    name_required=("shop_api_cannot_create_product_category", "A name is required for this term."),
    # sic: the original's code is misspelled
    edit_failed=("shop_api_cannot_edit_product_catgory", "Could not edit the category"),
    invalid_parent=(
        "shop_api_invalid_product_category_parent",
        "Product category parent is invalid",
    ),
    count_word="product_terms",
)

TAGS = Family(
    id="tag",
    envelope="product_tag",
    plural="product_tags",
    url=ROOT + "/products/tags",
    routes=("/products/tags", "/products/tags/<id>"),
    keys=("id", "name", "slug", "description", "count"),
    defaults={"description": "", "count": 0},
    fields=frozenset({"description"}),
    read_denied=(
        "shop_api_user_cannot_read_product_tags",
        "You do not have permission to read product tags",
    ),
    create_denied=(
        "shop_api_user_cannot_create_product_tag",
        "You do not have permission to create product tags",
    ),
    edit_denied=(
        "shop_api_user_cannot_edit_product_tag",
        "You do not have permission to edit product tags",
    ),
    delete_denied=(
        "shop_api_user_cannot_delete_product_tag",
        "You do not have permission to delete product tag",
    ),
    invalid_id=("shop_api_invalid_product_tag_id", "Invalid product tag ID"),
    not_found="A product tag with the provided ID could not be found",
    missing_create=(
        "shop_api_missing_product_tag_data",
        "No product_tag data specified to create product_tag",
    ),
    missing_edit=(
        "shop_api_missing_product_tag",
        "No product_tag data specified to edit product_tag",
    ),
    taxonomy="product_tag",
    cannot_create="shop_api_cannot_create_product_tag",
    duplicate_name="A term with the name provided already exists in this taxonomy.",
    name_required=("shop_api_cannot_create_product_tag", "A name is required for this term."),
    edit_failed=("shop_api_cannot_edit_product_tag", "Could not edit the tag"),
    count_word="product_terms",
)

SHIPPING_CLASSES = Family(
    id="shipping_class",
    envelope="product_shipping_class",
    plural="product_shipping_classes",
    url=ROOT + "/products/shipping_classes",
    routes=("/products/shipping_classes", "/products/shipping_classes/<id>"),
    keys=("id", "name", "slug", "parent", "description", "count"),
    defaults={"parent": 0, "description": "", "count": 0},
    fields=frozenset({"parent", "description"}),
    read_denied=(
        "shop_api_user_cannot_read_product_shipping_classes",
        "You do not have permission to read product shipping classes",
    ),
    create_denied=(
        "shop_api_user_cannot_create_product_shipping_class",
        "You do not have permission to create product shipping classes",
    ),
    edit_denied=(
        "shop_api_user_cannot_edit_product_shipping_class",
        "You do not have permission to edit product shipping classes",
    ),
    delete_denied=(
        "shop_api_user_cannot_delete_product_shipping_class",
        "You do not have permission to delete product shipping classes",
    ),
    invalid_id=("shop_api_invalid_product_shipping_class_id", "Invalid product shipping class ID"),
    not_found="A product shipping class with the provided ID could not be found",
    missing_create=(
        "shop_api_missing_product_shipping_class_data",
        "No product_shipping_class data specified to create product_shipping_class",
    ),
    missing_edit=(
        "shop_api_missing_product_shipping_class",
        "No product_shipping_class data specified to edit product_shipping_class",
    ),
    taxonomy="product_shipping_class",
    cannot_create="shop_api_cannot_create_product_shipping_class",
    duplicate_name="A term with the name provided already exists with this parent.",
    name_required=(
        "shop_api_cannot_create_product_shipping_class",
        "A name is required for this term.",
    ),
    edit_failed=(
        "shop_api_cannot_edit_product_shipping_class",
        "Could not edit the shipping class",
    ),
    invalid_parent=(
        "shop_api_invalid_product_shipping_class_parent",
        "Product shipping class parent is invalid",
    ),
    count_word="shipping_class_id",
)

ATTRIBUTE_TERMS = Family(
    id="attribute_term",
    envelope="product_attribute_term",
    plural="product_attribute_terms",
    url=ROOT + "/products/attributes/1/terms",
    routes=(
        "/products/attributes/<attribute_id>/terms",
        "/products/attributes/<attribute_id>/terms/<id>",
    ),
    keys=("id", "name", "slug", "count"),
    defaults={"count": 0},
    fields=frozenset({"menu_order"}),
    read_denied=(
        "shop_api_user_cannot_read_product_attribute_terms",
        "You do not have permission to read product attribute terms",
    ),
    create_denied=(
        "shop_api_user_cannot_create_product_attribute_terms",
        "You do not have permission to create product attribute terms",
    ),
    edit_denied=(
        "shop_api_user_cannot_edit_product_attribute_terms",
        "You do not have permission to edit product attribute terms",
    ),
    delete_denied=(
        "shop_api_user_cannot_delete_product_attribute_terms",
        "You do not have permission to delete product attribute terms",
    ),
    invalid_id=(
        "shop_api_invalid_product_attribute_term_id",
        "Invalid product attribute term ID",
    ),
    not_found="A product attribute term with the provided ID could not be found",
    missing_create=(
        "shop_api_missing_product_attribute_term_data",
        "No product_attribute_term data specified to create product_attribute_term",
    ),
    missing_edit=(
        "shop_api_missing_product_attribute_term_data",
        "No product_attribute_term data specified to edit product_attribute_term",
    ),
    cannot_create="shop_api_cannot_create_product_attribute_term",
    duplicate_name="A term with the name provided already exists in this taxonomy.",
    name_required=("shop_api_missing_product_attribute_term_name", "Missing parameter name"),
    edit_failed=("shop_api_cannot_edit_product_attribute_term", None),
    count_word="product_attribute_terms",
)

ATTRIBUTES = Family(
    id="attribute",
    envelope="product_attribute",
    plural="product_attributes",
    url=ROOT + "/products/attributes",
    routes=("/products/attributes", "/products/attributes/<id>"),
    keys=("id", "name", "slug", "type", "order_by", "has_archives"),
    read_denied=(
        "shop_api_user_cannot_read_product_attributes",
        "You do not have permission to read product attributes",
    ),
    create_denied=(
        "shop_api_user_cannot_create_product_attribute",
        "You do not have permission to create product attributes",
    ),
    edit_denied=(
        "shop_api_user_cannot_edit_product_attribute",
        "You do not have permission to edit product attributes",
    ),
    delete_denied=(
        "shop_api_user_cannot_delete_product_attribute",
        "You do not have permission to delete product attributes",
    ),
    invalid_id=("shop_api_invalid_product_attribute_id", "Invalid product attribute ID"),
    not_found="A product attribute with the provided ID could not be found",
    missing_create=(
        "shop_api_missing_product_attribute_data",
        "No product_attribute data specified to create product_attribute",
    ),
    missing_edit=(
        "shop_api_missing_product_attribute_data",
        "No product_attribute data specified to edit product_attribute",
    ),
)

TERM_FAMILIES = [CATEGORIES, TAGS, SHIPPING_CLASSES, ATTRIBUTE_TERMS]
FAMILIES = [*TERM_FAMILIES, ATTRIBUTES]
TREE_FAMILIES = [CATEGORIES, SHIPPING_CLASSES]
