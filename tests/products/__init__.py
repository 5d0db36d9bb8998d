"""Products through HTTP: create, read, edit, delete, bulk, images, variations, reviews, and the
real legacy client on them."""
