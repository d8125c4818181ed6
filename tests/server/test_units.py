"""The server's pure parts: position conversion, minimal edits, settings, documentation links."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tilecheck.core.types import Diagnostic, Edit, Fix, Grade, Related, Severity, Span
from tilecheck.server.convert import documentation_url, to_lsp
from tilecheck.server.positions import UTF8, UTF16, UTF32, PositionMap, code_points, minimal_edit, units
from tilecheck.server.settings import CHECKED_GRADES, ClientSettings

LINE = 's = "😀中"; loc[i] = 0'  # `loc` at code point 10


@pytest.mark.parametrize(("encoding", "column"), [(UTF16, 11), (UTF8, 15), (UTF32, 10)])
def test_columns_in_each_encoding(encoding, column):
    positions = PositionMap(f"x = 1\n{LINE}\n", encoding)
    assert positions.position(2, 10) == types.Position(1, column)
    assert positions.point(types.Position(1, column)) == (2, 10)
    assert units(LINE[:10], encoding) == column
    assert code_points(LINE, column, encoding) == 10


def test_a_client_column_inside_a_character_and_past_the_end_are_clamped():
    assert code_points(LINE, 6, UTF16) == 5  # the second UTF-16 unit of the emoji
    assert code_points(LINE, 999, UTF16) == len(LINE)
    positions = PositionMap("a\nbc", UTF16)
    assert positions.position(9, 0) == types.Position(1, 2)
    assert positions.point(types.Position(7, 3)) == (2, 2)


def test_lines_split_like_libcst_not_like_splitlines():
    positions = PositionMap("a = '\x0c'\r\nb\rc\u2028d", UTF16)
    assert positions.lines == ["a = '\x0c'", "b", "c\u2028d"]


@pytest.mark.parametrize(
    ("old", "new", "edit"),
    [
        ("abc\n", "abc\n", None),
        ("a = 1\nb = 2\n", "a = 1\nb = 22\n", ((1, 5), (1, 5), "2")),
        ("x\r\ny\r\n", "x\r\n\r\ny\r\n", ((1, 0), (1, 0), "\r\n")),
        ("x  # tilecheck: ignore[TL1]\n", "x\n", ((0, 1), (0, 27), "")),
    ],
)
def test_minimal_edit(old, new, edit):
    result = minimal_edit(old, new, PositionMap(old, UTF16))
    if edit is None:
        assert result is None
        return
    (sl, sc), (el, ec), text = edit
    assert result == types.TextEdit(types.Range(types.Position(sl, sc), types.Position(el, ec)), text)


def test_settings_read_types_and_report_problems():
    settings = ClientSettings.from_client(
        {
            "tilecheck": {
                "select": "TL1, TL2",
                "ignore": ["TL105"],
                "fixAll": "yes",
                "showOptimization": False,
                "x": 1,
            }
        }
    )
    assert settings.select == ("TL1", "TL2") and settings.ignore == ("TL105",)
    assert settings.fix_all is True and settings.show_optimization is False
    assert settings.problems == (
        "unknown setting `tilecheck.x` (ignored)",
        "`tilecheck.fixAll` must be true or false, got 'yes'; using the default",
    )
    options = settings.options("/work/folder")
    assert options.grades == CHECKED_GRADES and options.select == ("TL1", "TL2")
    assert (
        ClientSettings(configuration="cfg/t.toml").options("/work/folder").config_path
        == "/work/folder/cfg/t.toml"
    )
    assert ClientSettings.from_client(None) == ClientSettings()
    assert ClientSettings.from_client([1]).problems == ("settings must be an object, got list",)


def test_budget_settings_default_to_the_clis_and_zero_means_unlimited():
    assert (ClientSettings().per_file_timeout, ClientSettings().per_file_memory) == (60.0, 2048)
    given = ClientSettings.from_client({"perFileTimeout": 2.5, "perFileMemory": 0})
    assert (given.per_file_timeout, given.per_file_memory, given.problems) == (2.5, None, ())
    wrong = ClientSettings.from_client({"perFileTimeout": -1, "perFileMemory": True})
    assert (wrong.per_file_timeout, wrong.per_file_memory) == (60.0, 2048)
    assert wrong.problems == (
        "`tilecheck.perFileTimeout` must be a number of seconds from 0 to 1000000 (0: unlimited), got -1; using the default",
        "`tilecheck.perFileMemory` must be a number of MiB from 0 to 1073741824 (0: unlimited), got True; using the default",
    )
    hostile = ClientSettings.from_client({"perFileTimeout": float("nan"), "perFileMemory": 10**20})
    assert (hostile.per_file_timeout, hostile.per_file_memory) == (60.0, 2048)
    assert hostile.problems == (
        "`tilecheck.perFileTimeout` must be a number of seconds from 0 to 1000000 (0: unlimited), got nan; using the default",
        "`tilecheck.perFileMemory` must be a number of MiB from 0 to 1073741824 (0: unlimited), got 100000000000000000000; using the default",
    )
    assert ClientSettings.from_client({"perFileTimeout": float("inf")}).per_file_timeout == 60.0
    assert ClientSettings.from_client({"perFileMemory": 512.5}).per_file_memory == 512


def test_documentation_links_only_with_a_repository_url():
    assert documentation_url("TL104", None) is None
    assert (
        documentation_url("TL104", "https://github.com/o/tilecheck")
        == "https://github.com/o/tilecheck/blob/main/docs/rules.md#parallel-indexed-local-tl104"
    )
    assert documentation_url("XK901", "https://github.com/o/tilecheck") is None  # not in docs/rules.md


def test_diagnostic_conversion_severity_tags_related_and_data():
    positions = PositionMap("a\nbb\n", UTF16)
    diagnostic = Diagnostic(
        "k.py",
        Span(2, 0, 2, 2),
        "TL302",
        "positional-num-stages",
        Grade.OPTIMIZATION,
        Severity.INFO,
        "message",
        help="do this",
        fix=Fix("Write num_stages", (Edit(Span(2, 1, 2, 2), "x"),)),
        related=(Related(Span(1, 0, 1, 1), "here"),),
    )
    located = []
    lsp = to_lsp(
        diagnostic, positions, "https://example.org/r", lambda related: located.append(related) or "loc"
    )
    assert lsp.severity == types.DiagnosticSeverity.Information and lsp.message == "message\nhelp: do this"
    assert (
        lsp.code_description.href
        == "https://example.org/r/blob/main/docs/rules.md#positional-num-stages-tl302"
    )
    assert lsp.tags is None and lsp.related_information == ["loc"] and located == list(diagnostic.related)
    assert lsp.data["fix"] == {
        "title": "Write num_stages",
        "safe": True,
        "edits": [
            {
                "range": {"start": {"line": 1, "character": 1}, "end": {"line": 1, "character": 2}},
                "newText": "x",
            }
        ],
    }


def test_tilelang_version_setting_reaches_the_options():
    settings = ClientSettings.from_client({"tilecheck": {"tilelangVersion": " >=0.1.9,<0.2 "}})
    assert settings.problems == () and settings.options(None).tilelang_version == ">=0.1.9,<0.2"
    assert settings.options(None).names.tilelang_version == "setting `tilecheck.tilelangVersion`"
    assert ClientSettings.from_client({"tilelangVersion": ""}).problems == (
        "`tilecheck.tilelangVersion` must be a non-empty string, got ''; using the default",
    )
