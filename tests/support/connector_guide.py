"""The example connectors of docs/connectors.md, written out as the package `my_connectors` they say they are,
so tests run and type-check the guide's code exactly as a reader copies it."""

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "connectors.md"
PACKAGE = "my_connectors"
# Each example opens with its path as a docstring: """my_connectors/http_source.py"""
_BLOCK = re.compile(r'```python\n"""' + PACKAGE + r'/(\w+\.py)"""\n(.*?)```', re.S)


def write_guide_package(directory: Path) -> Path:
    """`directory/my_connectors/` with the guide's modules; the folder to put on the import path."""
    package = directory / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    blocks = _BLOCK.findall(GUIDE.read_text())
    assert blocks, f"no example modules found in {GUIDE}"
    for name, code in blocks:
        (package / name).write_text(f'"""{PACKAGE}/{name}"""\n{code}')
    return directory
