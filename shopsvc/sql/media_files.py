"""Which stored files the ``media`` rows use: the images of a product and its variations (removed
with it when it is deleted for good, ``sql.media_file_writes``), and the files some row names
(``media prune`` keeps those)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import Connection, select, union

from shopsvc.sql.tables import media, product_gallery, products


def product_media_ids(conn: Connection, product_id: int) -> set[int]:
    """The media ids a product and its variations show (featured images and galleries)."""
    family = select(products.c.id).where(
        (products.c.id == product_id)
        | ((products.c.parent_id == product_id) & (products.c.type == "variation"))
    )
    featured = select(products.c.image_id).where(
        products.c.id.in_(family), products.c.image_id.is_not(None)
    )
    gallery = select(product_gallery.c.media_id).where(product_gallery.c.product_id.in_(family))
    return {int(media_id) for media_id in conn.execute(union(featured, gallery)).scalars()}


def named_files(conn: Connection, files: Collection[str]) -> set[str]:
    """Those of ``files`` that some ``media`` row names."""
    if not files:
        return set()
    statement = select(media.c.file).where(media.c.file.in_(sorted(files))).distinct()
    return set(conn.execute(statement).scalars())
