"""The properties parser reads worker and connector files exactly as Java's Properties.load would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connect.api.errors import ConfigError
from connect.runtime.domain.states import TargetState
from workers.common.properties import ConnectorFile, load_connector_file, parse_properties, read_properties


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("key=value", {"key": "value"}),
        ("key:value", {"key": "value"}),
        ("key value", {"key": "value"}),
        ("key = value", {"key": "value"}),
        ("key : value", {"key": "value"}),
        ("key\t\tvalue", {"key": "value"}),
        ("key \f= value", {"key": "value"}),
        ("   key=value", {"key": "value"}),
        ("key", {"key": ""}),
        ("key=", {"key": ""}),
        ("key = = value", {"key": "= value"}),
        ("key  value = x", {"key": "value = x"}),
        ("key=value  ", {"key": "value  "}),
        ("a=b=c", {"a": "b=c"}),
        ("a:b:c", {"a": "b:c"}),
        ("url=http://host:8083/path?x=1", {"url": "http://host:8083/path?x=1"}),
    ],
)
def test_separators(line: str, expected: dict[str, str]) -> None:
    assert parse_properties(line) == expected


def test_comments_and_blank_lines_are_skipped() -> None:
    text = "# a comment\n! another\n   # indented comment\n\n   \t\nkey=value # not a comment\n"
    assert parse_properties(text) == {"key": "value # not a comment"}


def test_a_comment_line_ending_in_backslash_does_not_continue() -> None:
    assert parse_properties("# comment \\\nkey=value") == {"key": "value"}


def test_line_continuation_drops_leading_whitespace_of_the_next_line() -> None:
    text = "fruits = apple, banana, \\\n         pear, \\\n   cantaloupe\nnext=1"
    assert parse_properties(text) == {"fruits": "apple, banana, pear, cantaloupe", "next": "1"}


def test_continuation_line_starting_with_hash_is_not_a_comment() -> None:
    assert parse_properties("key=a\\\n  #b") == {"key": "a#b"}


def test_even_backslashes_do_not_continue() -> None:
    assert parse_properties("path=c:\\\\\nnext=1") == {"path": "c:\\", "next": "1"}


def test_blank_continuation_line_ends_the_logical_line() -> None:
    assert parse_properties("key=a\\\n\nother=b") == {"key": "a", "other": "b"}


def test_trailing_backslash_at_end_of_file_is_dropped() -> None:
    assert parse_properties("key=value\\") == {"key": "value"}


def test_crlf_and_cr_line_endings() -> None:
    assert parse_properties("a=1\r\nb=2\rc=3\\\r\n  4") == {"a": "1", "b": "2", "c": "34"}


def test_escapes() -> None:
    text = r"tab=a\tb" + "\n" + r"nl=a\nb" + "\n" + r"cr=a\rb" + "\n" + r"ff=a\fb" + "\n" + r"other=\q\#\!\\"
    assert parse_properties(text) == {"tab": "a\tb", "nl": "a\nb", "cr": "a\rb", "ff": "a\fb", "other": "q#!\\"}


def test_unicode_escapes() -> None:
    assert parse_properties(r"greeting=gr\u00FC\u00dfe \u20ac") == {"greeting": "grüße €"}


def test_escaped_separators_and_spaces_in_keys() -> None:
    text = r"a\=b=1" + "\n" + r"c\:d:2" + "\n" + r"e\ f g" + "\n" + r"\ lead=3"
    assert parse_properties(text) == {"a=b": "1", "c:d": "2", "e f": "g", " lead": "3"}


@pytest.mark.parametrize("text", [r"k=\u12", r"k=\u12G4", "k=\\u"])
def test_malformed_unicode_escape_is_an_error(text: str) -> None:
    with pytest.raises(ValueError, match="Malformed"):
        parse_properties(text)


def test_later_duplicates_win() -> None:
    assert parse_properties("k=1\nk=2") == {"k": "2"}


def test_non_ascii_and_non_bmp_values_survive() -> None:
    assert parse_properties("name=Zoë 🚀") == {"name": "Zoë 🚀"}


def test_read_properties_decodes_utf8_and_falls_back_to_latin1(tmp_path: Path) -> None:
    utf8 = tmp_path / "utf8.properties"
    utf8.write_bytes("k=Zoë\n".encode())
    latin1 = tmp_path / "latin1.properties"
    latin1.write_bytes("k=Zoë\n".encode("iso-8859-1"))
    assert read_properties(utf8) == {"k": "Zoë"}
    assert read_properties(latin1) == {"k": "Zoë"}


def test_read_properties_reports_the_file_on_a_malformed_escape(tmp_path: Path) -> None:
    bad = tmp_path / "bad.properties"
    bad.write_text("k=\\uZZZZ\n")
    with pytest.raises(ConfigError, match=r"bad\.properties.*Malformed"):
        read_properties(bad)


# Connector files: the three forms connect-standalone accepts.


def test_connector_properties_file(tmp_path: Path) -> None:
    path = tmp_path / "sink.properties"
    path.write_text("name=local-file-sink\nconnector.class=FileStreamSink\ntasks.max=1\ntopics=connect-test\n")
    assert load_connector_file(path) == ConnectorFile(
        "local-file-sink",
        {"name": "local-file-sink", "connector.class": "FileStreamSink", "tasks.max": "1", "topics": "connect-test"},
    )


def test_connector_flat_json_file_turns_scalars_into_strings(tmp_path: Path) -> None:
    path = tmp_path / "source.json"
    path.write_text(json.dumps({"name": "src", "connector.class": "FileStreamSource", "tasks.max": 1, "x": True}))
    loaded = load_connector_file(path)
    assert loaded.name == "src"
    assert loaded.config == {"name": "src", "connector.class": "FileStreamSource", "tasks.max": "1", "x": "true"}
    assert loaded.initial_state is None


def test_connector_create_request_json_file(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    body = {
        "name": "c1",
        "config": {"connector.class": "FileStreamSource", "tasks.max": "2"},
        "initial_state": "paused",
    }
    path.write_text(json.dumps(body))
    assert load_connector_file(path) == ConnectorFile(
        "c1", {"connector.class": "FileStreamSource", "tasks.max": "2", "name": "c1"}, TargetState.PAUSED
    )


def test_create_request_json_with_running_initial_state_means_started(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"name": "c1", "config": {"name": "c1"}, "initial_state": "RUNNING"}))
    assert load_connector_file(path).initial_state is TargetState.STARTED


def test_create_request_json_name_mismatch_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"name": "c1", "config": {"name": "other"}}))
    with pytest.raises(ConfigError, match="doesn't match the one specified in 'name'"):
        load_connector_file(path)


def test_create_request_json_unknown_initial_state_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"name": "c1", "config": {}, "initial_state": "SLEEPING"}))
    with pytest.raises(ConfigError, match="initial_state 'SLEEPING'"):
        load_connector_file(path)


@pytest.mark.parametrize(
    ("filename", "content"),
    [("c.properties", "connector.class=FileStreamSink\n"), ("c.json", '{"connector.class": "FileStreamSink"}')],
)
def test_connector_file_without_name_is_rejected(tmp_path: Path, filename: str, content: str) -> None:
    path = tmp_path / filename
    path.write_text(content)
    with pytest.raises(ConfigError, match="missing the mandatory 'name' configuration"):
        load_connector_file(path)


def test_missing_connector_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Could not read connector configuration"):
        load_connector_file(tmp_path / "nope.properties")
