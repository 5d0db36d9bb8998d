"""The ``media`` rows a product deleted for good leaves unused: deleted with it (their files are
removed once the delete has committed, ``shopsvc.media.removal``)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, delete, exists

from shopsvc.sql.media_files import named_files
from shopsvc.sql.tables import media, product_gallery, products, terms


def delete_unused(conn: Connection, media_ids: Iterable[int]) -> list[str]:
    """Delete those of ``media_ids`` no product, variation, gallery or category uses; the files
    of the deleted rows that no other row names (one file may back several rows)."""
    wanted = sorted({int(media_id) for media_id in media_ids})
    if not wanted:
        return []
    unused = media.c.id.in_(wanted) & ~exists().where(products.c.image_id == media.c.id)
    unused &= ~exists().where(product_gallery.c.media_id == media.c.id)
    unused &= ~exists().where(terms.c.image_id == media.c.id)
    files = set(conn.execute(delete(media).where(unused).returning(media.c.file)).scalars())
    return sorted(files - named_files(conn, files))
