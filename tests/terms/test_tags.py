"""What only product tags do: they have no parent, display or image (those fields are ignored).
Everything else tags share with the other term families is in ``test_common.py``."""

from __future__ import annotations

from webtest import TestApp

from tests.helpers.terms import TAGS


def test_create_with_every_field_and_fields_of_other_families(api: TestApp) -> None:
    TAGS.create(api, name="Summer Sale")
    body = TAGS.create(
        api, name="Red", slug="Rouge!", description="<i>red</i>", parent=1, image="x"
    )
    assert body == TAGS.record(2, "Red", "rouge", description="<i>red</i>")
