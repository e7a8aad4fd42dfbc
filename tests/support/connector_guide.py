'''The example code of docs/connectors.md written out as the files it says it is (each block opens with its
path as a docstring: `"""my_connectors/http_source.py"""`), so that tests run and type-check the guide's code
exactly as a reader copies it.'''

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "connectors.md"
PACKAGE = "my_connectors"
GUIDE_TESTS = "tests/test_connectors.py"
_BLOCK = re.compile(r'```python\n"""([\w/]+\.py)"""\n(.*?)```', re.S)


def write_guide_files(directory: Path) -> Path:
    """The guide's files under `directory` (the package `my_connectors` and its tests); `directory`, the folder
    to put on the import path."""
    blocks = _BLOCK.findall(GUIDE.read_text())
    assert {f"{PACKAGE}/http_source.py", f"{PACKAGE}/jsonl_sink.py", GUIDE_TESTS} <= {path for path, _ in blocks}
    for path, code in blocks:
        target = directory / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f'"""{path}"""\n{code}')
    (directory / PACKAGE / "__init__.py").write_text("")
    return directory
