"""A product's featured image and gallery, a variation's image (reference §2.2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shopsvc.errors import invalid_param
from shopsvc.sql import media as media_sql
from shopsvc.sql import media_writes as media_writes_sql
from shopsvc.sql import product_writes as sql
from shopsvc.validation.products import ImageInput, ImagesInput
from shopsvc.writers.context import WriteContext

#: The error of an image that cannot be downloaded (also when prefetched by the view).
IMAGE_ERROR = "shop_api_product_image_upload_error"


def image_id(ctx: WriteContext, item: ImageInput) -> int:
    """The media id an image element names: ``id`` (must exist), else a download of ``src``,
    else 0 (none); ``alt``/``title`` written to the media row when given."""
    if item.id:
        if not media_sql.exists(ctx.conn, item.id):
            raise invalid_param(f"{item.field}.id", f"no image with ID {item.id}")
        media_id = item.id
    elif item.src:
        media_id = ctx.download(item.src, IMAGE_ERROR)
    else:
        return 0
    if item.alt or item.title:
        media_writes_sql.update_text(
            ctx.conn, media_id, title=item.title or None, alt=item.alt or None
        )
    return media_id


def write_images(ctx: WriteContext, product_id: int, images: ImagesInput) -> dict[str, Any]:
    """Position 0 replaces the featured image (the returned ``image_id`` column), the other
    elements the gallery (only when there are any); a non-array ``images`` clears both."""
    if images.clear:
        sql.update_gallery(ctx.conn, product_id, [])
        return {"image_id": None}
    changes, gallery = arrange_images(images.items, [image_id(ctx, item) for item in images.items])
    if gallery is not None:
        sql.update_gallery(ctx.conn, product_id, gallery)
    return changes


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
