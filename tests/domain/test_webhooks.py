"""Webhook rules without HTTP: the default name (decisions.md §3's example) and the secret."""

from __future__ import annotations

import datetime as dt

import pytest

from shopsvc.domain.webhooks import SECRET_ALPHABET, default_name, new_secret


@pytest.mark.parametrize(
    ("moment", "name"),
    [
        (dt.datetime(2015, 1, 17, 11, 45), "Webhook created on Jan 17, 2015 @ 11:45 AM"),
        (dt.datetime(2026, 11, 2, 0, 5), "Webhook created on Nov 02, 2026 @ 12:05 AM"),
        (dt.datetime(2026, 7, 4, 23, 59), "Webhook created on Jul 04, 2026 @ 11:59 PM"),
    ],
)
def test_default_name(moment: dt.datetime, name: str) -> None:
    assert default_name(moment) == name


def test_new_secret_is_50_random_characters_of_the_alphabet() -> None:
    first, second = new_secret(), new_secret()
    assert len(first) == len(second) == 50
    assert set(first) <= set(SECRET_ALPHABET)
    assert first != second
