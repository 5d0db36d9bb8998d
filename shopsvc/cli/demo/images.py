"""The demo products' pictures: tiny one-colour PNGs written below ``media_dir/seed`` for a
demo-sized run, else the packaged placeholder."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from shopsvc.cli.demo.vocabulary import IMAGE_COLORS
from shopsvc.settings import Settings


def tiny_png(color: str, size: int = 32) -> bytes:
    """A tiny PNG of one colour, with a darker band across the middle."""
    light = bytes.fromhex(color)
    dark = bytes(c // 2 for c in light)
    rows = b"".join(
        b"\x00" + (dark if size // 3 <= y < 2 * size // 3 else light) * size for y in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    return png + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def image_files(settings: Settings, demo: bool) -> list[str]:
    """The files the media rows point at: for a demo-sized run a palette of tiny PNGs below
    ``media_dir/seed`` (written when missing), else the packaged placeholder."""
    if demo:
        try:
            names = []
            for index, color in enumerate(IMAGE_COLORS):
                name = f"seed/product-{index + 1}.png"
                path = Path(settings.media_dir, name)
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(tiny_png(color))
                names.append(name)
            return names
        except OSError:
            pass
    return ["placeholder.png"]
