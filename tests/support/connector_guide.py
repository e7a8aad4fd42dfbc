'''docs/connectors.md's two example connectors live as a package in the repository
(docs/examples/my-connectors); the page shows its files, each code block opening with the file's path as its
docstring (`"""my_connectors/http_source.py"""`).'''

from __future__ import annotations

import re
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
GUIDE = REPOSITORY / "docs" / "connectors.md"
EXAMPLE_PROJECT = REPOSITORY / "docs" / "examples" / "my-connectors"
PACKAGE = "my_connectors"
_BLOCK = re.compile(r'```python\n("""([\w/]+\.py)"""\n.*?)```', re.S)
_TOML = re.compile(r"```toml\n(.*?)```", re.S)


def guide_files() -> dict[str, str]:
    """The files docs/connectors.md shows, by their path in the example project."""
    return {path: text for text, path in _BLOCK.findall(GUIDE.read_text(encoding="utf-8"))}


def guide_packaging() -> str:
    """The pyproject.toml part the guide's Packaging section shows."""
    [block] = _TOML.findall(GUIDE.read_text(encoding="utf-8"))
    return block
