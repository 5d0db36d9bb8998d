"""The rules between the layers (docs/architecture.md), checked on the code itself: what works
without a request imports no Pyramid, nothing imports the views, and sql imports no layer above."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "shopsvc"


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


def test_records_writers_and_domain_load_without_pyramid() -> None:
    """Imported in a fresh interpreter, not one module of Pyramid or WebOb comes along (the CLI
    and the delivery worker build records and write without a request)."""
    script = (
        "import importlib, pkgutil, sys\n"
        "import shopsvc.records, shopsvc.writers, shopsvc.domain\n"
        "for pkg in (shopsvc.records, shopsvc.writers, shopsvc.domain):\n"
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
