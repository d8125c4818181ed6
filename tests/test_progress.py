"""The progress line: only for people watching a terminal, only after a second, erased at the end."""

from __future__ import annotations

import io

from tilecheck.cli.progress import ProgressLine, wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_wanted_only_on_a_terminal_outside_ci_for_human_formats():
    assert wanted("full", Terminal(), {}) is True
    assert wanted("concise", Terminal(), {}) is True
    assert wanted("full", io.StringIO(), {}) is False  # not a terminal
    assert wanted("full", Terminal(), {"CI": "true"}) is False
    for machine in ("json", "json-lines", "sarif", "github"):
        assert wanted(machine, Terminal(), {}) is False


def test_nothing_is_drawn_during_the_first_second():
    now = [0.0]
    stream = Terminal()
    line = ProgressLine(10, stream, clock=lambda: now[0])
    now[0] = 0.9
    line(5)
    line.close()
    assert stream.getvalue() == ""


def test_the_line_is_redrawn_at_most_every_tenth_of_a_second_and_erased():
    now = [0.0]
    stream = Terminal()
    line = ProgressLine(613, stream, clock=lambda: now[0])
    now[0] = 1.5
    line(100)
    now[0] = 1.55
    line(101)  # too soon: skipped
    now[0] = 1.7
    line(200)
    line(613)  # the last one is always drawn
    line.close()
    assert stream.getvalue() == (
        "\r\x1b[2KChecking files: 100/613"
        "\r\x1b[2KChecking files: 200/613"
        "\r\x1b[2KChecking files: 613/613"
        "\r\x1b[2K"
    )
