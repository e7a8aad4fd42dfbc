"""Java `.properties` text, read the way `java.util.Properties.load` reads it.

Logical lines joined by a trailing odd number of backslashes (the next line's leading whitespace
dropped), `#`/`!` comment lines, keys ended by the first unescaped `=`, `:` or whitespace, the escapes
`\\t \\n \\r \\f \\uXXXX` (any other escaped character stands for itself), later duplicates winning.
Files are read as UTF-8 (Java's Reader form); bytes that are not UTF-8 fall back to ISO-8859-1, the
encoding of Java's InputStream form. Used for worker properties, connector files, the basic-auth
credentials file and `FileConfigProvider`'s files.
"""

from __future__ import annotations

from pathlib import Path

from connect.api.errors import ConfigError

_WHITESPACE = " \t\f"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def parse_properties(text: str) -> dict[str, str]:
    """The key/value pairs of a properties text; ValueError on a malformed `\\uXXXX` escape."""
    result: dict[str, str] = {}
    for line in _logical_lines(text):
        key, value = _split_key_value(line)
        result[_unescape(key)] = _unescape(value)
    return result


def read_properties(path: Path | str) -> dict[str, str]:
    """`parse_properties` of a file; OSError if it cannot be read, ConfigError if it is malformed."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("iso-8859-1")
    try:
        return parse_properties(text)
    except ValueError as exc:
        raise ConfigError(f"Could not parse properties file '{path}': {exc}") from exc


def _natural_lines(text: str) -> list[str]:
    # Java ends lines at \n, \r or \r\n only; str.splitlines would also split at \x0b, \x1c, \u2028, ...
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _logical_lines(text: str) -> list[str]:
    lines: list[str] = []
    pending: str | None = None  # a logical line still being continued
    for natural in _natural_lines(text):
        stripped = natural.lstrip(_WHITESPACE)
        if pending is None:
            # Only the first line of a logical line can be blank or a comment (a comment never continues).
            if not stripped or stripped[0] in "#!":
                continue
            current = stripped
        else:
            current = pending + stripped
            if not stripped:
                # A blank continuation line ends the logical line, as in Java's LineReader.
                if pending:
                    lines.append(pending)
                pending = None
                continue
        if _ends_with_odd_backslashes(current):
            pending = current[:-1]
        else:
            lines.append(current)
            pending = None
    if pending:
        lines.append(pending)
    return lines


def _ends_with_odd_backslashes(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _split_key_value(line: str) -> tuple[str, str]:
    key_end = len(line)
    value_start = len(line)
    has_separator = False
    escaped = False
    for index, char in enumerate(line):
        if not escaped and char in "=:":
            key_end, value_start, has_separator = index, index + 1, True
            break
        if not escaped and char in _WHITESPACE:
            key_end, value_start = index, index + 1
            break
        escaped = not escaped if char == "\\" else False
    # Skip whitespace, and at most one '=' or ':' if the key was ended by whitespace.
    while value_start < len(line):
        char = line[value_start]
        if char not in _WHITESPACE:
            if has_separator or char not in "=:":
                break
            has_separator = True
        value_start += 1
    return line[:key_end], line[value_start:]


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char != "\\" or index >= len(text):
            out.append(char)
            continue
        char = text[index]
        index += 1
        if char == "u":
            digits = text[index : index + 4]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("Malformed \\uxxxx encoding.")
            out.append(chr(int(digits, 16)))
            index += 4
        else:
            out.append(_ESCAPES.get(char, char))
    return "".join(out)
