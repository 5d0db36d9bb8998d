"""The rules between the wings and layers (docs/architecture.md), checked on the code itself: the
package's top level holds only the app factory, settings, errors and logs; each wing imports only
the wings its row allows (so no wing imports one above it, and nothing imports the views); no
module imports itself back through others; what works without a request imports no Pyramid; no
module grows past 700 lines; the benchmarks import nothing of the tests."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "shopsvc"
BENCH = Path(__file__).parent.parent / "bench"

#: The modules at the top of the package; everything else lives in a wing (a folder).
TOP_LEVEL = {"__init__.py", "app.py", "settings.py", "errors.py", "logs.py"}

#: What each wing (or top-level module) may import of the project, besides itself. Read from the
#: bottom up: ``errors``, ``settings``, ``logs``, ``domain`` and ``sql`` need nothing above them;
#: the layers that work without a request (``validation``, ``loaders``, ``records``, ``writers``)
#: sit on those; ``web`` (Pyramid) is above them all but ``views``, ``openapi`` and ``app``.
WINGS_MAY_IMPORT: dict[str, set[str]] = {
    "errors": set(),
    "settings": set(),
    "logs": set(),
    "domain": {"errors"},
    "sql": {"errors"},
    "outbound": {"domain"},
    "db": {"sql"},
    "validation": {"domain", "errors", "sql"},
    "loaders": {"errors", "sql", "validation"},
    "records": {"domain", "errors", "loaders", "settings", "sql"},
    "writers": {"domain", "errors", "loaders", "settings", "sql", "validation"},
    "media": {"errors", "outbound", "sql"},
    "auth": {"db", "domain", "errors", "sql"},
    "metrics": {"sql"},
    "delivery": {"db", "domain", "metrics", "outbound", "records", "settings", "sql"},
    "web": {
        *("db", "domain", "errors", "logs", "media", "metrics", "records", "settings", "sql"),
        *("validation", "writers"),
    },
    "openapi": {
        *("domain", "errors", "loaders", "media", "records", "settings", "sql"),
        *("validation", "web", "writers"),
    },
    "views": {
        *("db", "delivery", "domain", "errors", "loaders", "media", "openapi", "records"),
        *("settings", "sql", "validation", "web", "writers"),
    },
    "cli": {
        *("app", "auth", "db", "delivery", "domain", "errors", "media", "records", "settings"),
        *("metrics", "sql", "writers"),
    },
    "testing": {"auth", "sql"},
    "app": {"auth", "db", "delivery", "settings", "sql", "views", "web"},
    "migrations": {"sql"},
}
#: The names ``shopsvc/__init__.py`` hands out lazily (from ``app``).
PACKAGE_NAMES = {"main": "app"}
#: The one module allowed past :data:`MAX_LINES`: every table and index in one place.
MAX_LINES = 700
LONG_ALLOWED = {"sql/tables.py"}


def _imports(path: Path) -> set[str]:
    """Every module a source file imports (``from a import b`` counts as ``a`` and ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).glob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> Iterator[Path]:
    yield from sorted(PACKAGE.rglob("*.py"))


def _wing(module: str) -> str | None:
    """The wing of ``shopsvc.<wing>[.…]`` (a folder or a top-level module), None for the
    package itself."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    return PACKAGE_NAMES.get(parts[1], parts[1])


def _project_imports(path: Path) -> set[str]:
    """The project modules ``path`` imports: ``from a import b`` counts as ``a.b`` when that is a
    module, else as ``a`` (a name of ``a``)."""
    modules = {_module_name(source) for source in _sources()}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module in modules:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in modules else node.module)
    return found


def test_the_top_level_holds_the_app_factory_settings_errors_and_logs() -> None:
    loose = {path.name for path in PACKAGE.glob("*.py")} - TOP_LEVEL
    assert loose == set()
    wings = {path.name for path in PACKAGE.iterdir() if path.is_dir() and any(path.glob("*.py"))}
    assert wings - set(WINGS_MAY_IMPORT) == set()  # a new wing says what it may import


def test_each_wing_imports_only_what_its_row_allows() -> None:
    offenders: dict[str, list[str]] = {}
    for path in _sources():
        own = _wing(_module_name(path))
        if own is None:
            continue
        allowed = WINGS_MAY_IMPORT[own] | {own}
        wrong = sorted(
            name for name in _project_imports(path) if (_wing(name) or "app") not in allowed
        )
        if wrong:
            offenders[str(path.relative_to(PACKAGE))] = wrong
    assert offenders == {}


def test_no_module_imports_itself_back() -> None:
    """No circle through imports (module-level or deferred alike): one strongly connected
    component per module."""
    graph = {_module_name(path): _project_imports(path) for path in _sources()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.get(module, ()):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert circles == []


def test_no_module_is_longer_than_700_lines_but_the_tables() -> None:
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in _sources()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
        and str(path.relative_to(PACKAGE)) not in LONG_ALLOWED
    }
    assert long == {}


def test_the_benchmarks_import_nothing_of_the_tests() -> None:
    offenders = {
        path.name: sorted(name for name in _imports(path) if name.split(".")[0] == "tests")
        for path in sorted(BENCH.glob("*.py"))
    }
    assert {name: found for name, found in offenders.items() if found} == {}


#: The wings that work without a request: the CLI and the delivery worker use them.
WITHOUT_PYRAMID = (
    "records",
    "writers",
    "domain",
    "loaders",
    "validation",
    "sql",
    "outbound",
    "metrics",
    "delivery",
)


def test_the_wings_below_the_web_load_without_pyramid() -> None:
    """Imported in a fresh interpreter, not one module of Pyramid or WebOb comes along (the CLI
    and the delivery worker build records and write without a request)."""
    script = (
        "import importlib, pkgutil, sys\n"
        f"for name in {WITHOUT_PYRAMID!r}:\n"
        "    pkg = importlib.import_module(f'shopsvc.{name}')\n"
        "    for info in pkgutil.iter_modules(pkg.__path__):\n"
        "        importlib.import_module(f'{pkg.__name__}.{info.name}')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyramid', 'webob')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_nothing_imports_the_views() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "views" not in path.relative_to(PACKAGE).parts
        and any(name.startswith("shopsvc.views") for name in _imports(path))
    ]
    assert offenders == []


def test_sql_imports_only_sqlalchemy_tables_and_errors() -> None:
    allowed = ("shopsvc.sql", "shopsvc.errors")
    offenders = {
        path.name: sorted(
            name
            for name in _imports(path)
            if name.startswith("shopsvc") and not name.startswith(allowed)
        )
        for path in _modules("sql")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_domain_imports_nothing_of_the_project_but_errors_and_domain() -> None:
    allowed = ("shopsvc.domain", "shopsvc.errors")
    offenders = {
        path.name: sorted(
            name
            for name in _imports(path)
            if name.startswith("shopsvc") and not name.startswith(allowed)
        )
        for path in _modules("domain")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_view_modules_stay_short() -> None:
    long = {p.name: n for p in _modules("views") if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


#: The modules of ``shopsvc/sql`` that belong to no family (``shopsvc/sql/__init__.py`` says why
#: none of them is split into reads and writes).
SQL_MACHINERY = {
    *("__init__", "tables", "common", "paging", "bundle", "prepared", "json_rows"),
    *("deliveries", "named_queries", "demo"),
}
#: The endings of the modules that write (one record at a time; a set-based bulk).
SQL_WRITES = ("_writes", "_batch")
#: What builds a statement that changes rows: SQLAlchemy's, and the shared ones of ``sql.common``.
ROW_CHANGES = {"insert", "update", "delete", "Insert", "Update", "Delete"}
SHARED_WRITES = {"insert_all", "bulk_insert", "arrays_insert", "in_savepoint"}
#: The verbs of the functions that read.
READ_VERBS = ("get_", "page_", "count_", "find_", "list_", "load_")


def _called(node: ast.AST) -> set[str]:
    """The names a function (or module) calls: ``f(…)`` and ``x.f(…)`` both count as ``f``."""
    found: set[str] = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            if isinstance(call.func, ast.Name):
                found.add(call.func.id)
            elif isinstance(call.func, ast.Attribute):
                found.add(call.func.attr)
    return found


def _row_changes(tree: ast.Module) -> list[str]:
    """What in a module changes rows: SQLAlchemy's ``insert``, ``update``, ``delete`` (imported,
    or as ``sa.…``), a table's ``.insert()``, ``.update()``, ``.delete()``, the shared writes of
    ``sql.common``, and ``text()`` statements that start with ``INSERT``, ``UPDATE`` or
    ``DELETE``."""
    found: list[str] = []
    sa_aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] == "sqlalchemy":
                found += [alias.name for alias in node.names if alias.name in ROW_CHANGES]
            elif node.module == "shopsvc.sql.common":
                found += [alias.name for alias in node.names if alias.name in SHARED_WRITES]
        elif isinstance(node, ast.Import):
            sa_aliases |= {
                alias.asname or alias.name
                for alias in node.names
                if alias.name.split(".")[0] == "sqlalchemy"
            }
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in sa_aliases and node.attr in ROW_CHANGES:
                found.append(f"{node.value.id}.{node.attr}")
            elif node.value.id == "common" and node.attr in SHARED_WRITES:
                found.append(f"common.{node.attr}")
        if not isinstance(node, ast.Call):
            continue
        func, first = node.func, node.args[0] if node.args else None
        if isinstance(func, ast.Attribute) and func.attr in ROW_CHANGES and first is None:
            found.append(ast.unparse(func))  # table.insert()
        elif (
            isinstance(func, ast.Name)
            and func.id == "text"
            and isinstance(first, ast.Constant)
            and str(first.value).lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
        ):
            found.append(f"text({str(first.value)[:20]!r}…)")
    return found


def test_sql_reads_and_writes_are_split_the_same_way_for_every_family() -> None:
    """``sql/<family>.py`` (and a large family's other read modules, ``product_data``,
    ``order_lookups``…) only reads: nothing in it changes a row. ``sql/<family>_writes.py`` and
    ``sql/<family>_batch.py`` write: no function of theirs is named for a read (``get_…``,
    ``page_…``, ``count_…``, ``find_…``, ``list_…``, ``load_…``) or runs a ``select`` without
    changing a row (directly or through a function of its module), and each belongs to a family
    with a reads module (``tax_writes`` to ``taxes``, ``order_note_writes`` to
    ``order_notes``…). The modules of :data:`SQL_MACHINERY` belong to no family."""
    modules = {path.stem: ast.parse(path.read_text(encoding="utf-8")) for path in _modules("sql")}
    assert set(modules) >= SQL_MACHINERY  # a machinery module renamed or gone: say so here
    offenders: dict[str, list[str]] = {}
    for name, tree in sorted(modules.items()):
        if name in SQL_MACHINERY:
            continue
        if not name.endswith(SQL_WRITES):
            if changes := _row_changes(tree):
                offenders[f"{name} (reads) changes rows"] = changes
            continue
        family = name.rsplit("_", 1)[0]
        if not {family, f"{family}s", f"{family}es"} & set(modules):
            offenders[f"{name} (writes) has no reads module"] = [family]
        if not _row_changes(tree):
            offenders[f"{name} (writes) changes no row"] = []
        functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        writing = {
            f for f, node in functions.items() if _called(node) & (ROW_CHANGES | SHARED_WRITES)
        }
        while more := {
            f for f, node in functions.items() if f not in writing and _called(node) & writing
        }:
            writing |= more
        reads = sorted(
            f
            for f, node in functions.items()
            if not f.startswith("_")
            and (f.startswith(READ_VERBS) or ("select" in _called(node) and f not in writing))
        )
        if reads:
            offenders[f"{name} (writes) reads"] = reads
    assert offenders == {}
