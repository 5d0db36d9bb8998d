"""Product and category images: download, sniffing, storage and the paths they are served from."""
