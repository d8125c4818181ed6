"""The `tilecheck` command line: build the parser, dispatch to a module of `tilecheck.cli`.

Exit codes (ruff's): 0 clean, 1 diagnostics (optimization-grade findings never count),
2 usage, configuration or plugin errors, failed writes, or an internal failure.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn

from tilecheck import __version__
from tilecheck.core.errors import TilecheckError, UsageError

# Subcommand -> the module that adds its parser and runs it (imported only when needed).
COMMANDS = {
    "check": "tilecheck.cli.check",
    "rule": "tilecheck.cli.rule",
    "rules": "tilecheck.cli.rule",
    "debug-config": "tilecheck.cli.debug_config",
    "lower": "tilecheck.cli.lower",
    "inventory": "tilecheck.cli.inventory",
    "explain": "tilecheck.cli.explain",
    "backends": "tilecheck.cli.backends",
    "clean": "tilecheck.cli.clean",
    "server": "tilecheck.cli.server",
}


class _Parser(argparse.ArgumentParser):
    # The subcommand being run: its usage, not `tilecheck [-h] [--version] {check} ...`, is what
    # an unrecognized argument (which the top-level parser reports) should show.
    command_parser: argparse.ArgumentParser | None = None

    def error(self, message: str) -> NoReturn:  # exit code 2 with a one-line message, as argparse does
        print(short_usage(self.command_parser or self), file=sys.stderr)
        raise UsageError(_with_suggestions(message, _option_strings(self)))


def short_usage(parser: argparse.ArgumentParser) -> str:
    """`usage: tilecheck check [options] [PATH ...]`, as ruff says it: the full usage of `check`
    is a screenful of flags that buries the error (`--help` shows them)."""
    formatter = parser._get_formatter()
    words = [parser.prog]
    if any(action.option_strings for action in parser._actions):
        words.append("[options]")
    for action in parser._actions:
        if not action.option_strings and not isinstance(action, argparse._SubParsersAction):
            words.append(formatter._format_args(action, action.dest.upper()))
    words += [
        "{" + ",".join(action.choices) + "} ..."
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction) and action.choices
    ]
    return f"usage: {' '.join(words)}"


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Every `--flag` of `parser` and of its subcommands' parsers."""
    found: list[str] = []
    for action in parser._actions:
        found += [option for option in action.option_strings if option.startswith("--")]
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found += _option_strings(child)
    return list(dict.fromkeys(found))


def _with_suggestions(message: str, options: list[str]) -> str:
    """`unrecognized arguments: --selct` gets `(a similar argument exists: '--select')`, as ruff
    and newer argparse say it."""
    prefix = "unrecognized arguments: "
    if not message.startswith(prefix):
        return message
    import difflib  # only for a mistyped flag

    hints = []
    for word in message[len(prefix) :].split():
        flag = word.split("=", 1)[0]
        if flag.startswith("--"):
            close = difflib.get_close_matches(flag, options, n=1, cutoff=0.7)
            if close:
                hints.append(f"a similar argument exists: '{close[0]}'")
    return message + (f" ({'; '.join(dict.fromkeys(hints))})" if hints else "")


def _module(command: str) -> ModuleType:
    return importlib.import_module(COMMANDS[command])


def _add_parser(module: ModuleType, subparsers: argparse._SubParsersAction[_Parser]) -> None:
    module.add_parser(subparsers)


def _runner(module: ModuleType) -> Callable[[argparse.Namespace], int]:
    run: Callable[[argparse.Namespace], int] = module.run
    return run


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `command`, only that subcommand's module is imported."""
    parser = _Parser(prog="tilecheck", description="Static semantic checks for TileLang kernel loops.")
    parser.add_argument("--version", action="version", version=f"tilecheck {__version__}")
    subparsers = parser.add_subparsers(dest="command", parser_class=_Parser)
    modules = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        _add_parser(importlib.import_module(name), subparsers)
    if command in COMMANDS:
        parser.command_parser = subparsers.choices[command]
    return parser


def _typo_of_command(word: str) -> str | None:
    """The subcommand `word` was probably meant to be (`rulez` -> `rule`), unless it is a path."""
    if os.path.lexists(word) or word.startswith("-") or any(c in word for c in "/\\.:"):
        return None
    import difflib  # only for a word that is neither a path nor a command

    close = difflib.get_close_matches(word, list(COMMANDS), n=1, cutoff=0.75)
    return close[0] if close else None


def main(argv: Sequence[str] | None = None) -> int:
    from tilecheck.source.recursion import RECURSION_LIMIT

    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] not in COMMANDS:
            typo = _typo_of_command(args_list[0])
            if typo is not None:
                raise UsageError(f"unrecognized subcommand '{args_list[0]}' (did you mean '{typo}'?)")
        if not args_list or (
            args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")
        ):
            args_list.insert(0, "check")
        # `--add-ignore[=REASON]`: a reason needs `=`, so a bare flag never swallows a path.
        args_list = ["--add-ignore=" if arg == "--add-ignore" else arg for arg in args_list]
        parser = build_parser(args_list[0])
        args = parser.parse_args(args_list)
        if args.command is None:
            parser.print_help()
            return 2
        run = _runner(_module(args.command))
        return run(args)
    except TilecheckError as error:  # usage, configuration, plugin and profile errors
        print(f"tilecheck: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tilecheck ... | head`
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:  # a bug in tilecheck: one clear line, the traceback only on request
        if os.environ.get("TILECHECK_TRACEBACK"):
            raise
        where = f" ({type(error).__name__} at {_origin(error)})"
        print(
            f"tilecheck: internal error: {error}{where}; set TILECHECK_TRACEBACK=1 for details",
            file=sys.stderr,
        )
        return 2


def _origin(error: BaseException) -> str:
    import traceback  # only for an internal error

    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "?"
    frame = frames[-1]
    return f"{os.path.basename(frame.filename)}:{frame.lineno}"
