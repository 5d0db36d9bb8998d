"""Unit tests for shopsvc.auth.oauth: the legacy OAuth 1.0a one-legged signature rules."""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import urlencode

import pytest
import requests
import woocommerce.api
from oauthlib import oauth1
from webob import Request
from woocommerce import API
from woocommerce.oauth import OAuth

from shopsvc.auth import oauth
from shopsvc.auth.oauth import (
    MSG_BAD_METHOD,
    MSG_BAD_SIGNATURE,
    MSG_BAD_TIMESTAMP,
    REQUIRED_PARAMS,
    OAuthError,
    base_string,
    check_timestamp,
    collapse_query,
    missing_param,
    sign,
    verify_signature,
)

SHOP = "http://shop.test"
ORDERS_URI = "http://shop.test/wc-api/v3/orders"
KEY = "ck_0123456789abcdef0123456789abcdef01234567"
SECRET = "cs_89abcdef0123456789abcdef0123456789abcdef"


def php_sign(base: str, secret: str, algo: str = "sha256") -> str:
    """What PHP does: base64_encode(hash_hmac($algo, $base, $secret . '&', true))."""
    mac = hmac.new((secret + "&").encode(), base.encode(), getattr(hashlib, algo)).digest()
    return base64.b64encode(mac).decode()


def server_view(url: str, method: str = "GET") -> tuple[str, dict[str, str]]:
    """What the server sees: base URI (scheme://host + path) and the collapsed decoded query."""
    req = Request.blank(url, method=method)
    return req.application_url + req.path_info, collapse_query(req.GET.items())


def oauth_params(**extra: str) -> dict[str, str]:
    params = {
        "oauth_consumer_key": KEY,
        "oauth_timestamp": "1700000000",
        "oauth_nonce": "nonce123",
        "oauth_signature_method": "HMAC-SHA256",
    }
    params.update(extra)
    return params


def assert_mismatch(method: str, uri: str, params: dict[str, str], secret: str = SECRET) -> None:
    with pytest.raises(OAuthError) as info:
        verify_signature(method, uri, params, secret)
    assert info.value.message == MSG_BAD_SIGNATURE


# --------------------------------------------------------------------------- 1. base string


def test_hand_worked_base_string_get_with_filters() -> None:
    # Query order as sent: page, filter[offset], filter[limit], then the oauth parameters.
    params = collapse_query(
        [
            ("page", "2"),
            ("filter[offset]", "10"),
            ("filter[limit]", "5"),
            ("oauth_consumer_key", "ck_abc"),
            ("oauth_timestamp", "1700000000"),
            ("oauth_nonce", "n1"),
            ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_signature", "ignored="),
        ]
    )
    expected = (
        "GET&http%3A%2F%2Fshop.test%2Fwc-api%2Fv3%2Forders&"
        # top-level keys sorted; the filter sub-keys keep query order (offset before limit)
        "filter%255Boffset%255D%3D10%26"
        "filter%255Blimit%255D%3D5%26"
        "oauth_consumer_key%3Dck_abc%26"
        "oauth_nonce%3Dn1%26"
        "oauth_signature_method%3DHMAC-SHA1%26"
        "oauth_timestamp%3D1700000000%26"
        "page%3D2"
    )
    assert base_string("get", ORDERS_URI, params) == expected
    signature = php_sign(expected, SECRET, "sha1")
    assert sign(expected, SECRET, "HMAC-SHA1") == signature
    verify_signature("GET", ORDERS_URI, {**params, "oauth_signature": signature}, SECRET)
    # The same request with the wrong secret, the wrong method or another path fails.
    assert_mismatch("GET", ORDERS_URI, {**params, "oauth_signature": signature}, "cs_wrong")
    assert_mismatch("POST", ORDERS_URI, {**params, "oauth_signature": signature})
    assert_mismatch("GET", ORDERS_URI + "/1", {**params, "oauth_signature": signature})


def test_top_level_keys_sorted_bytewise_before_encoding() -> None:
    params = {"filter_b": "1", "filter[x]": "2", "filterA": "3", "Zeta": "4", "_method": "PUT"}
    # strcmp on the decoded top-level names: "Zeta" < "_method" < "filter" < "filterA" < "filter_b"
    assert base_string("PUT", "http://h/x", params) == (
        "PUT&http%3A%2F%2Fh%2Fx&"
        "Zeta%3D4%26_method%3DPUT%26filter%255Bx%255D%3D2%26filterA%3D3%26filter_b%3D1"
    )


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("a b", "a%2520b"),  # space (a raw "+" on the wire) -> %20, double-encoded
        ("a+b", "a%252Bb"),  # a decoded "+" stays "+" in rawurldecode, then %2B
        ("a/b", "a%252Fb"),  # "/" is escaped by rawurlencode
        ("-_.~", "-_.~"),  # RFC 3986 unreserved kept
        ("%41%62", "Ab"),  # already-escaped text is decoded once more
        ("100%", "100%2525"),  # invalid escape kept verbatim, then encoded
        ("%zz", "%2525zz"),
        ("é", "%25C3%25A9"),  # UTF-8 bytes
        ("O'Reilly*", "O%2527Reilly%252A"),
        ("", ""),
    ],
)
def test_value_normalisation(value: str, encoded: str) -> None:
    assert base_string("GET", "http://h/", {"q": value}) == f"GET&http%3A%2F%2Fh%2F&q%3D{encoded}"


def test_nested_keys_not_encoded_but_top_key_and_values_are() -> None:
    params = {"fil ter[a b]": "c d", "x[é]": "/"}
    assert base_string("GET", "http://h/", params) == (
        "GET&http%3A%2F%2Fh%2F&fil%2520ter%255Ba b%255D%3Dc%2520d%26x%255Bé%255D%3D%252F"
    )


def test_php_key_folding_edge_cases() -> None:
    # a[] gets PHP's auto-index; deeper nesting is signed as PHP's "Array"; text after "]" is
    # dropped; a "[" without "]" stays part of a plain name; a later scalar replaces the array.
    params = {"a[]": "1", "b[c][d]": "2", "e[f]g": "3", "h[i": "4", "k[x]": "5", "k": "6"}
    assert base_string("GET", "http://h/", params) == (
        "GET&http%3A%2F%2Fh%2F&"
        "a%255B0%255D%3D1%26b%255Bc%255D%3DArray%26e%255Bf%255D%3D3%26h%255Bi%3D4%26k%3D6"
    )


def test_oauth_signature_is_never_signed() -> None:
    with_sig = base_string("GET", ORDERS_URI, oauth_params(oauth_signature="abc"))
    assert with_sig == base_string("GET", ORDERS_URI, oauth_params())
    assert "oauth_signature%3D" not in with_sig
    assert "oauth_signature_method%3DHMAC-SHA256" in with_sig


def test_base_uri_is_rawurlencoded() -> None:
    base = base_string("GET", "http://shop.test:8080/wc-api/v3/products/12/", {})
    assert base == "GET&http%3A%2F%2Fshop.test%3A8080%2Fwc-api%2Fv3%2Fproducts%2F12%2F&"


def test_collapse_query_last_value_wins_first_position_kept() -> None:
    pairs = [("page", "1"), ("a", "x"), ("filter[limit]", "5"), ("page", "2"), ("a", "y")]
    collapsed = collapse_query(pairs)
    assert collapsed == {"page": "2", "a": "y", "filter[limit]": "5"}
    assert list(collapsed) == ["page", "a", "filter[limit]"]
    # Straight from WebOb's MultiDict, as the security policy will call it.
    req = Request.blank("/x?b=1&filter%5Bq%5D=a+b&b=2&c=%2B")
    assert list(collapse_query(req.GET.items()).items()) == [
        ("b", "2"),
        ("filter[q]", "a b"),
        ("c", "+"),
    ]


def test_collapse_keeps_nested_order_of_first_appearance() -> None:
    pairs = [("filter[b]", "1"), ("filter[a]", "2"), ("filter[b]", "3")]
    base = base_string("GET", "http://h/", collapse_query(pairs))
    assert base.endswith("&filter%255Bb%255D%3D3%26filter%255Ba%255D%3D2")


# --------------------------------------------------------------- 2. the real woocommerce client


def wc_oauth_url(url: str, method: str = "GET", secret: str = SECRET) -> str:
    client = OAuth(url=url, consumer_key=KEY, consumer_secret=secret, version="v3", method=method)
    return client.get_oauth_url()


def test_real_client_no_query_params() -> None:
    url = wc_oauth_url(ORDERS_URI)
    uri, params = server_view(url)
    assert uri == ORDERS_URI
    assert list(params) == [
        "oauth_consumer_key",
        "oauth_timestamp",
        "oauth_nonce",
        "oauth_signature_method",
        "oauth_signature",
    ]
    assert params["oauth_signature_method"] == "HMAC-SHA256"
    assert missing_param(params) is None
    verify_signature("GET", uri, params, SECRET)
    assert_mismatch("GET", uri, params, "cs_other")


def test_real_client_with_filters_and_duplicated_params() -> None:
    user_params = {"page": "2", "filter[limit]": "5", "filter[created_at_min]": "2016-01-01"}
    url = wc_oauth_url(f"{ORDERS_URI}?{urlencode(user_params)}")
    # The 3.0.0 API class also hands the same dict to requests, which appends it again.
    wire = f"{url}&{urlencode(user_params)}"
    uri, params = server_view(wire)
    assert list(params)[:3] == ["page", "filter[limit]", "filter[created_at_min]"]
    verify_signature("GET", uri, params, SECRET)

    for key, bad in [("filter[limit]", "6"), ("page", "3"), ("oauth_nonce", "x")]:
        assert_mismatch("GET", uri, {**params, key: bad})
    assert_mismatch("GET", uri, {**params, "extra": "1"})
    # Last wins: a different value in the duplicated tail is what gets signed (and used).
    uri2, params2 = server_view(url + "&page=3")
    assert params2["page"] == "3"
    assert_mismatch("GET", uri2, params2)


def test_real_client_post() -> None:
    url = wc_oauth_url(ORDERS_URI + "?page=1", method="POST")
    uri, params = server_view(url + "&page=1", method="POST")
    verify_signature("POST", uri, params, SECRET)
    assert_mismatch("GET", uri, params)
    assert_mismatch("PUT", uri, params)


@pytest.fixture
def captured_wire_url(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Replace the client's transport; record the exact URL requests would put on the wire."""
    seen: dict[str, str] = {}

    def fake_request(**kwargs: object) -> None:
        prepared = requests.Request(
            str(kwargs["method"]), str(kwargs["url"]), params=kwargs["params"]
        ).prepare()
        seen["method"] = str(prepared.method)
        seen["url"] = str(prepared.url)

    monkeypatch.setattr(woocommerce.api, "request", fake_request)
    return seen


def real_api() -> API:
    return API(url=SHOP, consumer_key=KEY, consumer_secret=SECRET, wp_api=False, version="v3")


def test_real_api_class_end_to_end(captured_wire_url: dict[str, str]) -> None:
    real_api().get("orders", params={"page": 2, "filter[limit]": 5, "filter[q]": "a b+c~é"})
    url = captured_wire_url["url"]
    assert url.count("page=2") == 2  # the duplicated-parameter quirk
    uri, params = server_view(url)
    assert params["filter[q]"] == "a b+c~é"
    verify_signature("GET", uri, params, SECRET)

    real_api().put("orders/7", {"order": {"status": "completed"}})
    uri, params = server_view(captured_wire_url["url"], method="PUT")
    assert uri == ORDERS_URI + "/7"
    verify_signature("PUT", uri, params, SECRET)


def test_real_client_slash_in_value_quirk(captured_wire_url: dict[str, str]) -> None:
    # Python's quote() keeps "/" raw while PHP escapes it: WooCommerce rejects such requests.
    real_api().get("orders", params={"filter[q]": "a/b"})
    uri, params = server_view(captured_wire_url["url"])
    assert params["filter[q]"] == "a/b"
    assert_mismatch("GET", uri, params)
    verify_signature("GET", uri, params, SECRET, allow_raw_slash=True)
    # The leniency does not accept a wrong secret.
    with pytest.raises(OAuthError):
        verify_signature("GET", uri, params, "cs_other", allow_raw_slash=True)


def test_real_client_endpoint_with_question_mark_quirk(captured_wire_url: dict[str, str]) -> None:
    # wcapi.get("products?filter[limit]=100") signs and sends "100?" - it still authenticates.
    real_api().get("products?filter[limit]=100")
    uri, params = server_view(captured_wire_url["url"])
    assert params["filter[limit]"] == "100?"
    verify_signature("GET", uri, params, SECRET)


def test_real_client_empty_value_quirk(captured_wire_url: dict[str, str]) -> None:
    # parse_qsl() in the client drops blank values from what it signs, but requests still sends
    # the duplicated "filter[q]=" - the server signs it, so the signature cannot match (same as
    # genuine WooCommerce).
    real_api().get("orders", params={"page": 2, "filter[q]": ""})
    uri, params = server_view(captured_wire_url["url"])
    assert params["filter[q]"] == ""
    assert_mismatch("GET", uri, params)


def test_real_client_against_other_base_uri_fails() -> None:
    url = wc_oauth_url("http://127.0.0.1:6543/wc-api/v3/orders")
    _, params = server_view(url)
    assert_mismatch("GET", ORDERS_URI, params)  # canonical URL differs from what the client used
    verify_signature("GET", "http://127.0.0.1:6543/wc-api/v3/orders", params, SECRET)


# ------------------------------------------------------------------------------ 3. oauthlib


@pytest.mark.parametrize("method", [oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_HMAC_SHA256])
@pytest.mark.parametrize(
    "query",
    ["", "?page=2&status=any", "?filter%5Blimit%5D=5&filter%5Boffset%5D=3&page=2&fields=id,total"],
)
def test_oauthlib_signed_request(method: str, query: str) -> None:
    client = oauth1.Client(
        KEY,
        client_secret=SECRET,
        signature_method=method,
        signature_type=oauth1.SIGNATURE_TYPE_QUERY,
    )
    url, _, _ = client.sign(ORDERS_URI + query, http_method="GET")
    uri, params = server_view(url)
    assert params["oauth_signature_method"] == method
    assert params["oauth_version"] == "1.0"  # not required, but signed
    verify_signature("GET", uri, params, SECRET)
    assert_mismatch("GET", uri, params, "cs_wrong")
    assert_mismatch("GET", uri, {k: v for k, v in params.items() if k != "oauth_version"})


def test_oauthlib_unsorted_filter_subkeys_fail_like_woocommerce() -> None:
    # Standard OAuth sorts every encoded key; PHP keeps the query order of filter[...] sub-keys.
    client = oauth1.Client(KEY, client_secret=SECRET, signature_type=oauth1.SIGNATURE_TYPE_QUERY)
    url, _, _ = client.sign(ORDERS_URI + "?filter%5Boffset%5D=3&filter%5Blimit%5D=5")
    uri, params = server_view(url)
    assert_mismatch("GET", uri, params)


# ------------------------------------------------------------------- 4. checks and edge cases


@pytest.mark.parametrize("index", range(len(REQUIRED_PARAMS)))
@pytest.mark.parametrize("empty", [None, "", "0"])
def test_missing_param_order(index: int, empty: str | None) -> None:
    params = {name: "x1" for name in REQUIRED_PARAMS}
    for name in REQUIRED_PARAMS[index:]:
        if empty is None:
            del params[name]
        else:
            params[name] = empty
    assert missing_param(params) == REQUIRED_PARAMS[index]


def test_missing_param_none_and_message() -> None:
    assert REQUIRED_PARAMS == (
        "oauth_consumer_key",
        "oauth_timestamp",
        "oauth_nonce",
        "oauth_signature",
        "oauth_signature_method",
    )
    assert missing_param({name: "v" for name in REQUIRED_PARAMS}) is None
    assert missing_param({}) == "oauth_consumer_key"
    # Only the nonce and signature are present: the timestamp is reported first.
    assert missing_param({"oauth_consumer_key": "ck", "oauth_nonce": "n"}) == "oauth_timestamp"
    assert oauth.missing_param_message("oauth_nonce") == "oauth_nonce parameter is missing."


@pytest.mark.parametrize("bad", ["PLAINTEXT", "RSA-SHA1", "hmac-sha1", "HMAC-SHA512", "HMAC_SHA1"])
def test_bad_signature_method(bad: str) -> None:
    params = oauth_params(oauth_signature_method=bad, oauth_signature="garbage")
    with pytest.raises(OAuthError) as info:
        verify_signature("GET", ORDERS_URI, params, SECRET)
    assert info.value.message == MSG_BAD_METHOD
    with pytest.raises(OAuthError) as info:
        sign("x", SECRET, bad)
    assert info.value.message == MSG_BAD_METHOD


def test_double_encoded_signature_method_accepted_like_php() -> None:
    # The server checks the normalised value, so "HMAC%2DSHA1" (sent as HMAC%252DSHA1) passes.
    params = oauth_params(oauth_signature_method="HMAC%2DSHA1")
    params["oauth_signature"] = php_sign(base_string("GET", ORDERS_URI, params), SECRET, "sha1")
    verify_signature("GET", ORDERS_URI, params, SECRET)


def test_sha1_and_sha256_signatures() -> None:
    base = "GET&http%3A%2F%2Fh%2F&a%3D1"
    assert sign(base, SECRET, "HMAC-SHA1") == php_sign(base, SECRET, "sha1")
    assert sign(base, SECRET, "HMAC-SHA256") == php_sign(base, SECRET, "sha256")
    assert len(base64.b64decode(sign(base, SECRET, "HMAC-SHA1"))) == 20
    assert len(base64.b64decode(sign(base, SECRET, "HMAC-SHA256"))) == 32
    assert sign(base, SECRET, "HMAC-SHA256") != sign(base, SECRET + "x", "HMAC-SHA256")


NOW = 1_700_000_000


@pytest.mark.parametrize("delta", [-900, -1, 0, 1, 900])
def test_timestamp_inside_window(delta: int) -> None:
    assert check_timestamp(str(NOW + delta), NOW) == NOW + delta
    assert check_timestamp(str(NOW + delta), NOW + 0.999) == NOW + delta  # time() truncates


@pytest.mark.parametrize("delta", [-901, 901, -100_000, 100_000])
def test_timestamp_outside_window(delta: int) -> None:
    with pytest.raises(OAuthError) as info:
        check_timestamp(str(NOW + delta), NOW)
    assert info.value.message == MSG_BAD_TIMESTAMP


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "abc",
        "1700000000abc",
        "1700000000.0",
        "-1700000000",
        " 1700000000",
        "\uff11\uff17",
        "1_7",
    ],
)
def test_timestamp_not_an_integer(bad: str) -> None:
    with pytest.raises(OAuthError) as info:
        check_timestamp(bad, NOW)
    assert info.value.message == "Invalid timestamp."


def test_timestamp_custom_window() -> None:
    assert check_timestamp(str(NOW + 60), NOW, window=60) == NOW + 60
    with pytest.raises(OAuthError):
        check_timestamp(str(NOW + 61), NOW, window=60)


def signed_params_with_plus() -> tuple[dict[str, str], str]:
    """PHP-signed params whose base64 signature contains a "+" (search the nonce for one)."""
    for i in range(1000):
        params = oauth_params(oauth_nonce=f"nonce{i}")
        signature = php_sign(base_string("GET", ORDERS_URI, params), SECRET)
        if "+" in signature:
            return params, signature
    raise AssertionError("no signature with '+' found")


def test_signature_plus_space_repair() -> None:
    params, signature = signed_params_with_plus()
    query = urlencode(params)
    # A client that did not escape "+" (WebOb turns it into a space), one that did, and one
    # that escaped twice: all are repaired to the same signature.
    for wire in [signature, signature.replace("+", "%2B"), signature.replace("+", "%252B")]:
        uri, received = server_view(f"{ORDERS_URI}?{query}&oauth_signature={wire}")
        verify_signature("GET", uri, received, SECRET)
    uri, received = server_view(f"{ORDERS_URI}?{query}&oauth_signature={signature}")
    assert " " in received["oauth_signature"]
    # A genuinely different signature still fails.
    assert_mismatch("GET", uri, {**received, "oauth_signature": signature.replace("+", "-")})


def test_slash_inside_value_php_style() -> None:
    params = oauth_params(**{"filter[created_at_min]": "2016/01/01", "page": "1"})
    expected_base = (
        "GET&http%3A%2F%2Fshop.test%2Fwc-api%2Fv3%2Forders&"
        "filter%255Bcreated_at_min%255D%3D2016%252F01%252F01%26"
        "oauth_consumer_key%3D" + KEY + "%26"
        "oauth_nonce%3Dnonce123%26"
        "oauth_signature_method%3DHMAC-SHA256%26"
        "oauth_timestamp%3D1700000000%26"
        "page%3D1"
    )
    assert base_string("GET", ORDERS_URI, params) == expected_base
    php_signature = php_sign(expected_base, SECRET)
    query = urlencode({**params, "oauth_signature": php_signature})
    uri, received = server_view(f"{ORDERS_URI}?{query}")
    assert received["filter[created_at_min]"] == "2016/01/01"
    verify_signature("GET", uri, received, SECRET)
    verify_signature("GET", uri, received, SECRET, allow_raw_slash=True)

    # Signed with "/" left raw (Python quote()): refused by default, accepted when lenient.
    raw_slash_base = expected_base.replace("%252F", "/")
    assert base_string("GET", ORDERS_URI, params, keep_slash=True) == raw_slash_base
    lenient = {**received, "oauth_signature": php_sign(raw_slash_base, SECRET)}
    assert_mismatch("GET", uri, lenient)
    verify_signature("GET", uri, lenient, SECRET, allow_raw_slash=True)


def test_missing_signature_in_verify_is_a_mismatch() -> None:
    assert_mismatch("GET", ORDERS_URI, oauth_params())
    assert_mismatch("GET", ORDERS_URI, oauth_params(oauth_signature="é%zz"))


def test_oauth_error_carries_message() -> None:
    err = OAuthError("Invalid timestamp.")
    assert err.message == "Invalid timestamp."
    assert str(err) == "Invalid timestamp."
    assert oauth.MSG_NONCE_USED == "Invalid nonce - nonce has already been used."
