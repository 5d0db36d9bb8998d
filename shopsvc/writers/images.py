"""A product's featured image and gallery (reference §2.2): what the image elements of a write
make of them (the planner, ``writers.product_batch``, checks and writes them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shopsvc.validation.products import ImageInput

#: The error of an image that cannot be downloaded (also when prefetched by the view).
IMAGE_ERROR = "shop_api_product_image_upload_error"


def arrange_images(
    items: Sequence[ImageInput], media_ids: Sequence[int]
) -> tuple[dict[str, Any], list[int] | None]:
    """The columns (``image_id``) and the gallery (None: left as it is) that the image elements
    ``items``, whose media are ``media_ids`` (0: none), make."""
    changes: dict[str, Any] = {}
    gallery: list[int] = []
    gallery_given = False
    for item, media_id in zip(items, media_ids, strict=True):
        if item.featured:
            changes["image_id"] = media_id or None
        else:
            gallery_given = True
            if media_id and media_id not in gallery:
                gallery.append(media_id)
    return changes, gallery if gallery_given else None
