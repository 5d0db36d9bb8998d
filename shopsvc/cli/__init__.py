"""``shopsvc CONFIG COMMAND``: the commands (``main.py``), the DBA's named queries (``dba.py``)
and the demo data (``demo/``)."""
