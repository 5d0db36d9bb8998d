"""The OpenAPI 3.1 document of the API (``GET {api_root}/openapi.json``), generated from the live
configuration: the routed views and their methods (the registry's introspector, ``routes.py``),
the path parameters (the traversal resources), the write bodies (the Colander schemas of
``shopsvc.validation``, ``requests.py``), and, for what no schema says, the per-view tables
(``table.py``, ``table_orders.py``, ``table_catalog.py``) and the record declarations
(``records.py``); ``document.py`` puts them together, ``page.py`` serves Swagger UI."""
