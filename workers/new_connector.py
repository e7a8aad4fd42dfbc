"""`kconnect new connector NAME`: a plug-in package to start from, as docs/connectors.md builds one.

It writes a source or sink connector and its task, the `kconnect.connectors` entry point, unit tests on
`connect.testing`'s fakes and a `pyproject.toml` whose mypy settings are strict: the package passes its own
tests and `mypy --strict` as written, and a worker lists it once it is installed beside kconnect.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from pathlib import Path

from workers.new_connector_templates import TEMPLATES

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    new = subparsers.add_parser("new", help="write a new plug-in package to start from")
    kinds = new.add_subparsers(dest="kind", required=True, metavar="connector")
    connector = kinds.add_parser(
        "connector",
        help="a source or sink connector package with its entry point, tests and strict mypy settings",
        description="Write the package NAME (a folder of that name): a connector, its task, its entry point, "
        "tests on connect.testing and a pyproject.toml. `pip install -e NAME` makes a worker list it.",
    )
    connector.add_argument("name", metavar="NAME", help="the package's name, lower case words joined by '-'")
    connector.add_argument("--type", choices=("source", "sink"), default="source", help="default: source")
    connector.add_argument("--dir", type=Path, default=Path("."), help="where to write the folder (default: .)")
    connector.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name: str = args.name
    if not _NAME.match(name):
        print(
            f"Error: {name!r} is not a package name: lower case words joined by '-', e.g. weather-source",
            file=sys.stderr,
        )
        return 2
    target = Path(args.dir) / name
    if target.exists():
        print(f"Error: {target} exists already; choose another NAME or --dir", file=sys.stderr)
        return 2
    files = package_files(name, args.type)
    for path, text in files.items():
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        (target / path).write_text(text)
    print(f"Wrote {target}/ ({len(files)} files): a {args.type} connector, {class_names(name, args.type)[0]}.")
    print(f"Next: pip install -e '{target}[test]' && (cd {target} && pytest && mypy)")
    return 0


def class_names(name: str, kind: str) -> tuple[str, str]:
    """The connector's and the task's class names: `weather-feed`, source -> WeatherFeedSourceConnector."""
    stem = "".join(word.capitalize() for word in name.split("-"))
    suffix = kind.capitalize()
    stem = stem if stem.endswith(suffix) else stem + suffix
    return f"{stem}Connector", f"{stem}Task"


def module_name(name: str) -> str:
    module = name.replace("-", "_")
    return f"{module}_connector" if keyword.iskeyword(module) else module


def package_files(name: str, kind: str) -> dict[str, str]:
    """The package's files, relative path -> text."""
    connector, task = class_names(name, kind)
    module = module_name(name)
    values = {"name": name, "module": module, "connector": connector, "task": task}
    return {path.format(**values): text.format(**values) for path, text in TEMPLATES[kind].items()}
