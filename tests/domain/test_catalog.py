"""Unit tests of the pure product rules (reference products.md §2, §3, §5, §16, §17;
decisions.md §5, §7).

Every expected value below was worked out by hand from those rules, not by running the code.
"""

from decimal import Decimal

import pytest

from shopsvc.domain.catalog import (
    ATTRIBUTE_ORDER_BY,
    ATTRIBUTE_TYPES,
    CATALOG_VISIBILITIES,
    INVALID_PRODUCT_TYPE_MESSAGE,
    PRODUCT_TYPES,
    RESERVED_SLUGS,
    TAX_STATUSES,
    WRITABLE_STATUSES,
    check_attribute_order_by,
    check_attribute_slug,
    check_attribute_type,
    check_catalog_visibility,
    check_product_type,
    check_status,
    check_tax_status,
    clean_attribute_slug,
    name_num_key,
    plain_text,
    purchaseable,
    render_description,
    slugify_name,
    sort_terms,
    unique_slug,
    variation_visible,
    visible,
)
from shopsvc.errors import ApiError

D = Decimal

# --------------------------------------------------------------------------------------------
# Types, statuses, enumerations
# --------------------------------------------------------------------------------------------


def test_enumerations() -> None:
    assert PRODUCT_TYPES == ("simple", "grouped", "external", "variable")
    assert WRITABLE_STATUSES == ("draft", "pending", "private", "publish")
    assert CATALOG_VISIBILITIES == ("visible", "catalog", "search", "hidden")
    assert TAX_STATUSES == ("taxable", "shipping", "none")
    assert ATTRIBUTE_TYPES == ("select", "text")
    assert ATTRIBUTE_ORDER_BY == ("menu_order", "name", "name_num", "id")


def test_invalid_product_type_message() -> None:
    assert INVALID_PRODUCT_TYPE_MESSAGE == (
        "Invalid product type - the product type must be any of these: "
        "simple, grouped, external, variable"
    )


@pytest.mark.parametrize("value", ["simple", "grouped", "external", "variable"])
def test_check_product_type_accepts(value: str) -> None:
    assert check_product_type(value) is None


@pytest.mark.parametrize("value", ["variation", "Simple", "", "bundle", " simple"])
def test_check_product_type_refuses(value: str) -> None:
    error = check_product_type(value)
    assert error is not None
    assert (error.code, error.status) == ("shop_api_invalid_product_type", 400)
    assert error.message == INVALID_PRODUCT_TYPE_MESSAGE


@pytest.mark.parametrize("value", ["draft", "pending", "private", "publish"])
def test_check_status_accepts(value: str) -> None:
    assert check_status(value) is None


@pytest.mark.parametrize("value", ["trash", "future", "Publish", "", "auto-draft"])
def test_check_status_refuses(value: str) -> None:
    error = check_status(value)
    assert error is not None
    assert (error.code, error.status) == ("shop_api_invalid_param", 400)
    assert error.message == (
        "Invalid parameter product.status: must be one of draft, pending, private, publish."
    )


def test_check_status_names_the_field() -> None:
    error = check_status("nope", "products[2].status")
    assert error is not None
    assert error.message.startswith("Invalid parameter products[2].status:")


def _check_refusal(result: ApiError | None, error: str | None, message: str) -> None:
    """``result`` is no error when ``error`` is None, else a 400 of code ``error`` and
    ``message``."""
    if error is None:
        assert result is None
    else:
        assert result is not None
        assert (result.code, result.message, result.status) == (error, message, 400)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("visible", None),
        ("catalog", None),
        ("search", None),
        ("hidden", None),
        ("Visible", "product_invalid_catalog_visibility"),
        ("", "product_invalid_catalog_visibility"),
        ("shop", "product_invalid_catalog_visibility"),
    ],
)
def test_check_catalog_visibility(value: str, error: str | None) -> None:
    _check_refusal(check_catalog_visibility(value), error, "Invalid catalog visibility option.")


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("taxable", None),
        ("shipping", None),
        ("none", None),
        ("", None),  # stored as taxable
        ("Taxable", "product_invalid_tax_status"),
        ("vat", "product_invalid_tax_status"),
    ],
)
def test_check_tax_status(value: str, error: str | None) -> None:
    _check_refusal(check_tax_status(value), error, "Invalid product tax status.")


# --------------------------------------------------------------------------------------------
# Visibility and purchasability
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("catalog", "status", "parent", "hide", "stocked", "can_edit", "expected"),
    [
        ("visible", "publish", None, False, True, False, True),
        ("catalog", "publish", None, False, True, False, True),
        ("search", "publish", None, False, True, False, False),
        ("hidden", "publish", None, False, True, False, False),
        ("unknown", "publish", None, False, True, False, False),
        # status
        ("visible", "trash", None, False, True, False, False),
        ("visible", "trash", None, False, True, True, False),  # trash even for editors
        ("visible", "draft", None, False, True, False, False),
        ("visible", "draft", None, False, True, True, True),  # an editor sees drafts
        ("visible", "private", None, False, True, False, False),
        ("visible", "pending", None, False, True, True, True),
        # parent
        ("visible", "publish", "publish", False, True, False, True),
        ("visible", "publish", "draft", False, True, False, False),
        ("visible", "publish", "private", False, True, True, False),
        ("visible", "publish", "trash", False, True, False, False),
        # hide out of stock
        ("visible", "publish", None, True, True, False, True),
        ("visible", "publish", None, True, False, False, False),
        ("visible", "publish", None, False, False, False, True),
        ("catalog", "publish", "publish", True, False, False, False),
    ],
)
def test_visible(
    catalog: str,
    status: str,
    parent: str | None,
    hide: bool,
    stocked: bool,
    can_edit: bool,
    expected: bool,
) -> None:
    assert visible(catalog, status, parent, hide, stocked, can_edit=can_edit) is expected


@pytest.mark.parametrize(
    ("status", "price", "expected"),
    [
        ("publish", D("10"), True),
        ("publish", D("0"), True),  # 0 is a price
        ("publish", None, False),
        ("private", D("10"), False),
        ("draft", D("10"), False),
        ("trash", D("10"), False),
    ],
)
def test_variation_visible(status: str, price: Decimal | None, expected: bool) -> None:
    assert variation_visible(status, price) is expected


@pytest.mark.parametrize(
    ("product_type", "status", "price", "shown", "can_edit", "expected"),
    [
        ("simple", "publish", D("10"), None, False, True),
        ("simple", "publish", D("0"), None, False, True),
        ("simple", "publish", None, None, False, False),
        ("simple", "draft", D("10"), None, False, False),
        ("simple", "draft", D("10"), None, True, True),  # an editor may buy a draft
        ("simple", "trash", D("10"), None, True, False),
        ("variable", "publish", D("5"), None, False, True),
        ("variable", "publish", None, None, False, False),
        # external and grouped never are
        ("external", "publish", D("10"), None, True, False),
        ("grouped", "publish", D("10"), None, True, False),
        # variations must also be visible
        ("variation", "publish", D("10"), None, False, True),
        ("variation", "publish", D("10"), True, False, True),
        ("variation", "publish", D("10"), False, False, False),
        ("variation", "private", D("10"), None, False, False),
        ("variation", "private", D("10"), None, True, False),  # not visible although editable
        ("variation", "publish", None, True, False, False),
    ],
)
def test_purchaseable(
    product_type: str,
    status: str,
    price: Decimal | None,
    shown: bool | None,
    can_edit: bool,
    expected: bool,
) -> None:
    assert purchaseable(product_type, status, price, shown, can_edit=can_edit) is expected


# --------------------------------------------------------------------------------------------
# Descriptions and titles
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("   \n\n  \n", ""),
        ("Hello", "<p>Hello</p>"),
        ("  Hello  ", "<p>Hello</p>"),
        ("One\n\nTwo", "<p>One</p>\n<p>Two</p>"),
        ("One\n\n\n\nTwo\n\nThree", "<p>One</p>\n<p>Two</p>\n<p>Three</p>"),
        ("One\r\n\r\nTwo", "<p>One</p>\n<p>Two</p>"),
        ("One\r\rTwo", "<p>One</p>\n<p>Two</p>"),
        ("One\n \t \nTwo", "<p>One</p>\n<p>Two</p>"),  # a whitespace-only line is blank
        ("Line 1\nLine 2", "<p>Line 1<br />\nLine 2</p>"),
        ("Line 1   \nLine 2\n\nNext", "<p>Line 1<br />\nLine 2</p>\n<p>Next</p>"),
        (
            "5 < 6 & 7 > 3",
            "<p>5 &lt; 6 &amp; 7 &gt; 3</p>",
        ),
        # tags are stripped first (the original's text cleaning), then the rest is escaped
        ("<b>Bold</b> move", "<p>Bold move</p>"),
        ("<script>alert('x')</script>", ""),  # script and style go with their content
        ("<style>p{}</style>Styled", "<p>Styled</p>"),
        ("<p>One</p>\n\n<p>Two <em>2</em></p>", "<p>One</p>\n<p>Two 2</p>"),
        ("Line <br>1\n<i>Line</i> 2", "<p>Line 1<br />\nLine 2</p>"),
        ("a <!-- note --> b", "<p>a  b</p>"),
        ("&lt;b&gt;kept&lt;/b&gt;", "<p>&lt;b&gt;kept&lt;/b&gt;</p>"),  # escaped tags are text
        ('Say "hi"', '<p>Say "hi"</p>'),
        ("&amp;", "<p>&amp;</p>"),  # entities are decoded once, then escaped again
        ("Fish &amp; chips &nbsp;", "<p>Fish &amp; chips</p>"),
        ("Ünïcödé — ok", "<p>Ünïcödé — ok</p>"),
    ],
)
def test_render_description_plain(text: str, expected: str) -> None:
    assert render_description(text, html=False) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("<p>Hello <b>world</b></p>", "<p>Hello <b>world</b></p>"),
        ("<p>Hi</p><script>alert(1)</script>", "<p>Hi</p>"),
        ('<a href="javascript:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
        ('<p onclick="steal()">x</p>', "<p>x</p>"),
        ("<style>p{}</style><em>e</em>", "<em>e</em>"),
        ("<unknown>kept text</unknown>", "kept text"),
        ("Fish & chips", "Fish &amp; chips"),
        ("plain\n\ntext", "plain\n\ntext"),  # HTML is not auto-paragraphed
    ],
)
def test_render_description_html(text: str, expected: str) -> None:
    assert render_description(text, html=True) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", ""),
        ("Plain title", "Plain title"),
        ("  Padded \t title \n", "Padded title"),
        ("Multi\nline\r\n\r\ntitle", "Multi line title"),
        ("<b>Bold</b> name", "Bold name"),
        ("<h1>Tom &amp; <i>Jerry</i></h1>", "Tom & Jerry"),
        ("Hat<script>alert(1)</script>", "Hat"),
        ("Cap<style>x{}</style> ", "Cap"),
        ("a <!-- note --> b", "a b"),
        ("5 < 6", "5 < 6"),
        ("Fish & chips", "Fish & chips"),
        ("Café &eacute;", "Café é"),
        ("<p>   </p>", ""),
    ],
)
def test_plain_text(value: str, expected: str) -> None:
    assert plain_text(value) == expected


# --------------------------------------------------------------------------------------------
# Slugs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello World", "hello-world"),
        ("  Premium   T-Shirt!! ", "premium-t-shirt"),
        ("Café Crème", "cafe-creme"),
        ("Größe", "grosse"),
        ("my_product", "my_product"),
        ("a.b/c", "a-b-c"),
        ("--Edge--", "edge"),
        ("100% Cotton", "100-cotton"),
        ("!!!", ""),
        ("", ""),
    ],
)
def test_slugify_name(text: str, expected: str) -> None:
    assert slugify_name(text) == expected


@pytest.mark.parametrize(
    ("base", "taken", "expected"),
    [
        ("shirt", set(), "shirt"),
        ("shirt", {"hat"}, "shirt"),
        ("shirt", {"shirt"}, "shirt-2"),
        ("shirt", {"shirt", "shirt-2"}, "shirt-3"),
        ("shirt", {"shirt", "shirt-2", "shirt-3", "shirt-5"}, "shirt-4"),
        ("shirt", {"shirt-2"}, "shirt"),
        ("shirt-2", {"shirt-2"}, "shirt-2-2"),
    ],
)
def test_unique_slug(base: str, taken: set[str], expected: str) -> None:
    assert unique_slug(base, taken) == expected


# --------------------------------------------------------------------------------------------
# Attribute slugs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("color", "color"),
        ("Color", "color"),
        ("pa_color", "color"),
        ("PA_Color", "color"),  # sanitised first, then the prefix goes
        ("pa_pa_color", "pa_color"),  # only one prefix is stripped
        ("Shoe Size", "shoe-size"),
        ("post_type", "post_type"),  # underscores kept
        ("Größe", "größe"),  # UTF-8 kept
        ("Colour!  (main)", "colour-main"),
        ("pa_", ""),
        ("", ""),
        ("spa_color", "spa_color"),
    ],
)
def test_clean_attribute_slug(value: str, expected: str) -> None:
    assert clean_attribute_slug(value) == expected


REFERENCE_RESERVED = """
attachment, attachment_id, author, author_name, calendar, cat, category, category__and,
category__in, category__not_in, category_name, comments_per_page, comments_popup, cpage, day,
debug, error, exact, feed, hour, link_category, m, minute, monthnum, more, name, nav_menu,
nopaging, offset, order, orderby, p, page, page_id, paged, pagename, pb, perm, post, post__in,
post__not_in, post_format, post_mime_type, post_status, post_tag, post_type, posts,
posts_per_archive_page, posts_per_page, preview, robots, s, search, second, sentence,
showposts, static, subpost, subpost_id, tag, tag__and, tag__in, tag__not_in, tag_id,
tag_slug__and, tag_slug__in, taxonomy, tb, term, type, w, withcomments, withoutcomments, year
"""


def test_reserved_slugs_are_exactly_the_reference_list() -> None:
    names = [name.strip() for name in REFERENCE_RESERVED.split(",")]
    assert len(names) == 74
    assert frozenset(names) == RESERVED_SLUGS


@pytest.mark.parametrize("slug", sorted(RESERVED_SLUGS))
def test_check_attribute_slug_reserved(slug: str) -> None:
    error = check_attribute_slug(slug)
    assert error is not None
    assert (error.code, error.status) == (
        "shop_api_invalid_product_attribute_slug_reserved_name",
        400,
    )
    assert error.message == (
        f'Slug "{slug}" is not allowed because it is a reserved term. Change it, please.'
    )


@pytest.mark.parametrize(
    "slug", ["color", "Name", "TYPE", "names", "post-type", "type_", "ss", "year2"]
)
def test_check_attribute_slug_not_reserved(slug: str) -> None:
    assert check_attribute_slug(slug) is None


LONG_27 = "abcdefghijklmnopqrstuvwxyz1"
LONG_28 = "abcdefghijklmnopqrstuvwxyz12"


def test_check_attribute_slug_length_edges() -> None:
    assert len(LONG_27) == 27
    assert len(LONG_28) == 28
    assert check_attribute_slug(LONG_27) is None
    error = check_attribute_slug(LONG_28)
    assert error is not None
    assert (error.code, error.status) == ("shop_api_invalid_product_attribute_slug_too_long", 400)
    assert error.message == (
        f'Slug "{LONG_28}" is too long (28 characters max). Shorten it, please.'
    )
    longer = check_attribute_slug(LONG_28 + "x" * 10)
    assert longer is not None
    assert longer.code == "shop_api_invalid_product_attribute_slug_too_long"


def test_check_attribute_slug_length_counts_characters() -> None:
    assert check_attribute_slug("ü" * 27) is None  # 54 UTF-8 bytes, 27 characters
    error = check_attribute_slug("ü" * 28)
    assert error is not None
    assert error.code == "shop_api_invalid_product_attribute_slug_too_long"


@pytest.mark.parametrize(
    ("slug", "taken", "code"),
    [
        ("color", None, None),
        ("color", set(), None),
        ("color", {"size"}, None),
        ("color", {"color"}, "shop_api_invalid_product_attribute_slug_already_exists"),
        # only the first failing check is reported
        ("type", {"type"}, "shop_api_invalid_product_attribute_slug_reserved_name"),
        (LONG_28, {LONG_28}, "shop_api_invalid_product_attribute_slug_too_long"),
        ("type" * 7, None, "shop_api_invalid_product_attribute_slug_too_long"),
    ],
)
def test_check_attribute_slug_order(slug: str, taken: set[str] | None, code: str | None) -> None:
    error = check_attribute_slug(slug, taken)
    assert (error.code if error else None) == code


def test_check_attribute_slug_already_exists_message() -> None:
    error = check_attribute_slug("color", {"color"})
    assert error is not None
    assert error.message == 'Slug "color" is already in use. Change it, please.'
    assert error.status == 400


@pytest.mark.parametrize(
    ("value", "ok"),
    [("select", True), ("text", True), ("Select", False), ("", False), ("wc-visual", False)],
)
def test_check_attribute_type(value: str, ok: bool) -> None:
    error = check_attribute_type(value)
    if ok:
        assert error is None
    else:
        assert error is not None
        assert (error.code, error.status) == ("shop_api_invalid_product_attribute_type", 400)
        assert error.message == (
            "Invalid product attribute type - the product attribute type must be any of these: "
            "select, text"
        )


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("menu_order", True),
        ("name", True),
        ("name_num", True),
        ("id", True),
        ("ID", False),
        ("count", False),
        ("", False),
    ],
)
def test_check_attribute_order_by(value: str, ok: bool) -> None:
    error = check_attribute_order_by(value)
    if ok:
        assert error is None
    else:
        assert error is not None
        assert (error.code, error.status) == ("shop_api_invalid_product_attribute_order_by", 400)
        assert error.message == (
            "Invalid product attribute order_by type - the product attribute order_by type "
            "must be any of these: menu_order, name, name_num, id"
        )


# --------------------------------------------------------------------------------------------
# name_num order
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["10", "9", "100", "1"], ["1", "9", "10", "100"]),
        (["Size 10", "Size 2", "Size 1"], ["Size 1", "Size 2", "Size 10"]),
        (["10.5", "10", "9.75", "1.10", "1.5"], ["1.10", "1.5", "9.75", "10", "10.5"]),
        (["b", "A", "c"], ["A", "b", "c"]),  # case-insensitive
        (["S", "10", "M"], ["10", "M", "S"]),  # numbers before text
        (["2 L", "0.5 L", "1 L"], ["0.5 L", "1 L", "2 L"]),
        (["item", "item 2", "item 1"], ["item", "item 1", "item 2"]),
        (["x", "X"], ["X", "x"]),  # a tie falls back to the name itself
        (["", "a", "1"], ["", "1", "a"]),
    ],
)
def test_name_num_key(names: list[str], expected: list[str]) -> None:
    assert sorted(names, key=name_num_key) == expected


TERMS = [
    {"id": 1, "name": "size 10", "menu_order": 2},
    {"id": 2, "name": "Size 9", "menu_order": 1},
    {"id": 3, "name": "Size 9", "menu_order": 1},
    {"id": 4, "name": "size 1", "menu_order": 3},
]


@pytest.mark.parametrize(
    ("order_by", "ids"),
    [
        ("menu_order", [2, 3, 1, 4]),
        ("name", [4, 1, 2, 3]),  # "size 1" < "size 10" < "Size 9" (case-insensitive text)
        ("name_num", [4, 2, 3, 1]),  # 1 < 9 < 10 by value
        ("id", [1, 2, 3, 4]),
        ("unknown", [2, 3, 1, 4]),  # falls back to menu_order
    ],
)
def test_sort_terms(order_by: str, ids: list[int]) -> None:
    assert [term["id"] for term in sort_terms(TERMS, order_by)] == ids
