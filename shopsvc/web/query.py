"""The query string as the protocol reads it: the pairs an OAuth signature covers, the query
parameters (a client's stray ``?`` in the query kept as the original does) and ``filter[...]``."""

from __future__ import annotations

from pyramid.request import Request


def _signed_query(request: Request) -> dict[str, str]:
    """The query string with repeated parameters collapsed: the last value wins, in the position of
    the first (what PHP's ``$_GET`` does, and what the legacy clients rely on). Authentication
    reads (and OAuth signs) exactly this."""
    return dict(request.GET.items())


def _client_question_mark(pairs: list[tuple[str, str]]) -> str | None:
    """The parameter whose value carries the ``?`` the Python ``woocommerce`` client appends.

    Given an endpoint with a query (``get("webhooks?status=paused")``, the form its maintainers
    recommend), the client adds ``?`` to the URL, so the last parameter of the endpoint arrives as
    ``status=paused?``, signed, followed only by the client's ``oauth_*`` parameters. Only that
    shape counts: a request whose ``oauth_*`` block is not the tail (the client sends ``params=``
    a second time after it) or that has no parameter before it carries no such ``?``.
    """
    first_oauth = next((i for i, (k, _) in enumerate(pairs) if k.startswith("oauth_")), None)
    if not first_oauth or not all(k.startswith("oauth_") for k, _ in pairs[first_oauth:]):
        return None
    if "oauth_signature" not in dict(pairs[first_oauth:]):
        return None
    key, value = pairs[first_oauth - 1]
    return key if value.endswith("?") else None


def _query(request: Request) -> dict[str, str]:
    """The query string as the handlers read it: :func:`_signed_query` without the stray ``?``
    that the Python ``woocommerce`` client appends to the last value of an endpoint's query
    (so ``status=paused?`` means ``paused`` and ``force=true?`` means ``true``)."""
    query = dict(request.signed_query)
    stray = _client_question_mark(list(request.GET.items()))
    if stray is not None:
        query[stray] = query[stray][:-1]
    return query


def _filters(request: Request) -> dict[str, str]:
    """``filter[limit]=5&filter[q]=x`` → ``{"limit": "5", "q": "x"}``."""
    found: dict[str, str] = {}
    for key, value in request.query.items():
        if key.startswith("filter[") and key.endswith("]"):
            found[key[7:-1]] = value
    return found
