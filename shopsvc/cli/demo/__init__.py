"""``shopsvc CONFIG seed``: realistic demo data, generated in batches."""
