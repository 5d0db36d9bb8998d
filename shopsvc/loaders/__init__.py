"""Each family's loader (``base.Loader``): one record by id in the spec's order of checks, and a
capability required with the family's own codes; one module per family."""
