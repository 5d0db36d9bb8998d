"""Benchmark of the ``shopsvc`` command's start (issue 26, item 1): wall-clock time of real
processes, from exec to exit.

* ``python -c pass``: the interpreter alone (its start, ``site`` and the ``.pth`` files of the
  installed packages), the floor of every command;
* ``shopsvc CONFIG --help`` (target: under 0.3 s): the parser only, no SQLAlchemy, Alembic,
  Pyramid nor delivery worker;
* ``shopsvc CONFIG create-key`` (target: under 1 s) against a scratch database whose schema is at
  its latest migration (``shopsvc.auto_migrate = true``, as in development.ini): the ini read,
  one connection, the schema checked, a key written;
* ``shopsvc CONFIG list-keys``: a read.

Each runs ``--repeat`` times (15), interleaved, as ``python -m shopsvc.cli`` with this checkout
first on ``PYTHONPATH`` (the console script does the same import; a pyenv shim in front of it
adds its own start, ~0.05 s of bash). Each line tells the median and the minimum; the last lines
whether the targets hold at the median, and which of Alembic, Pyramid, SQLAlchemy and the
delivery worker each command imported (``-X importtime``).

    python bench/cli_start.py                   # SQLite in a temporary folder
    python bench/cli_start.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/cli_start.py --repeat 31
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.common import ini_logging, load_average, scratch_database  # noqa: E402

#: Seconds, at the median.
TARGETS = {"--help": 0.3, "create-key": 1.0}
#: The heavy packages a command should load only when it uses them.
WATCHED = ("alembic", "pyramid", "sqlalchemy", "shopsvc.delivery.worker")

INI = """\
[app:main]
use = egg:shopsvc
sqlalchemy.url = {url}
shopsvc.auto_migrate = true

""" + ini_logging("%(levelname)s %(name)s %(message)s")


def _environ() -> dict[str, str]:
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT_DIR), *filter(None, [environ.get("PYTHONPATH")])]
    )
    return environ


def _command(ini: pathlib.Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "shopsvc.cli", str(ini), *args]


def _run(argv: list[str], environ: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=environ, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {result.returncode}\n{result.stderr}")
    return elapsed


def _imported(argv: list[str], environ: dict[str, str]) -> list[str]:
    """Which of :data:`WATCHED` the command imports."""
    result = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]], env=environ, capture_output=True, text=True
    )
    modules = {line.rpartition("|")[2].strip() for line in result.stderr.splitlines()}
    return [name for name in WATCHED if name in modules]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="PostgreSQL server for a scratch database")
    parser.add_argument("--repeat", type=int, default=15, help="runs of each command (15)")
    options = parser.parse_args()
    environ = _environ()
    with scratch_database(options.database_url) as url, tempfile.TemporaryDirectory() as folder:
        ini = pathlib.Path(folder, "bench.ini")
        ini.write_text(INI.format(url=url.replace("%", "%%")))
        user = ("--login", "bench", "--email", "bench@example.com", "--role", "administrator")
        for argv in (_command(ini, "migrate"), _command(ini, "create-user", *user)):
            _run(argv, environ)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "--help": _command(ini, "--help"),
            "create-key": _command(ini, "create-key", "--user", "bench", "--permissions", "read"),
            "list-keys": _command(ini, "list-keys", "--user", "bench"),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(options.repeat):
            for name, argv in commands.items():
                times[name].append(_run(argv, environ))
        imported = {name: _imported(argv, environ) for name, argv in list(commands.items())[1:]}
    database = "PostgreSQL" if url.startswith("postgresql") else "SQLite"
    print(f"shopsvc CONFIG COMMAND, {database}, {options.repeat} runs each; {load_average()}")
    for name, runs in times.items():
        median, best = statistics.median(runs), min(runs)
        print(f"  {name:<16} median {median:6.3f} s   min {best:6.3f} s")
    for name, target in TARGETS.items():
        median = statistics.median(times[name])
        verdict = "holds" if median < target else "MISSED"
        print(f"  target {name} < {target} s: {verdict} ({median:.3f} s)")
    for name, found in imported.items():
        print(f"  {name} imports: {', '.join(found) or 'none of ' + ', '.join(WATCHED)}")


if __name__ == "__main__":
    main()
