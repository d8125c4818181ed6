"""The syntax the lowering writes: rewritten loop calls, index assignments, carried targets."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import libcst as cst

from tilecheck.pypto.clone import Substitute
from tilecheck.pypto.cstutil import literal_int
from tilecheck.pypto.dsl import Aliases, LoopHeader, TrailingYield
from tilecheck.pypto.stage import LoweredStatement, in_tree
from tilecheck.tilelang.syntax import string_value

_SPACE_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
_INDEX_ANNOTATION = "{p}.Scalar[{p}.INDEX]"


def seed(value: cst.BaseExpression) -> Substitute:
    return Substitute(value, literal=literal_int(value) is not None)


def target_tuple(names: list[str]) -> cst.Name | cst.Tuple:
    """`a` for one name, `a, b` for more: an assignment or loop target."""
    if len(names) == 1:
        return cst.Name(names[0])
    return cst.Tuple([cst.Element(cst.Name(name)) for name in names], lpar=[], rpar=[])


def index_assign(
    prefix: str,
    name: str,
    value: cst.BaseExpression,
    leading: tuple[cst.EmptyLine, ...] | list[cst.EmptyLine],
) -> cst.SimpleStatementLine:
    annotation = index_annotation(prefix)
    return cst.SimpleStatementLine(
        [cst.AnnAssign(cst.Name(name), annotation, value)], leading_lines=list(leading)
    )


@functools.lru_cache(maxsize=8)
def index_annotation(prefix: str) -> cst.Annotation:
    """`: pl.Scalar[pl.INDEX]` (nodes are immutable, so one tree serves every use)."""
    return cst.Annotation(cst.parse_expression(_INDEX_ANNOTATION.format(p=prefix)))


def blank_prefix(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """The blank lines before a statement's first comment line."""
    blanks = []
    for line in lines:
        if line.comment is not None:
            break
        blanks.append(line)
    return blanks


def with_body(block: cst.BaseSuite, statements: Sequence[LoweredStatement]) -> cst.BaseSuite:
    """`block` holding `statements`, as an indented block."""
    body = in_tree(statements)
    if isinstance(block, cst.IndentedBlock):
        return block.with_changes(body=body)
    assert isinstance(block, cst.SimpleStatementSuite)  # the one other kind of suite
    return cst.IndentedBlock(body=body, header=block.trailing_whitespace)


def strip_pipeline_stages(arg: cst.Arg) -> cst.Arg | None:
    """`attrs=` without a `"pipeline_stages"` entry; None when nothing is left."""
    value = arg.value
    if not isinstance(value, cst.Dict):
        return arg
    kept = [
        element
        for element in value.elements
        if not (
            isinstance(element, cst.DictElement)
            and isinstance(element.key, cst.SimpleString)
            and string_value(element.key) == "pipeline_stages"
        )
    ]
    if len(kept) == len(value.elements):
        return arg
    if not kept:
        return None
    kept[-1] = kept[-1].with_changes(comma=value.elements[-1].comma)
    return arg.with_changes(value=value.with_changes(elements=kept))


def edit_keywords(args: list[cst.Arg], stage: cst.BaseExpression | None) -> list[cst.Arg]:
    """Set `stage=` (drop it when None) and strip `pipeline_stages` from `attrs=`."""
    out: list[cst.Arg] = []
    for arg in args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        new: cst.Arg | None = arg
        if keyword == "stage":
            new = None if stage is None else arg.with_changes(value=stage)
        elif keyword == "attrs":
            new = strip_pipeline_stages(arg)
        if new is None:
            if out and arg is args[-1]:
                out[-1] = out[-1].with_changes(comma=arg.comma)
            continue
        out.append(new)
    return out


def main_call(
    header: LoopHeader, start: cst.BaseExpression, stop: cst.BaseExpression, step: cst.BaseExpression
) -> cst.Call:
    args = list(header.call.args)
    positions = [index for index, arg in enumerate(args) if arg.keyword is None and not arg.star]
    originals = [args[index] for index in positions[:3]]
    last_comma = originals[-1].comma
    new_positional: list[cst.Arg] = []
    for slot, value in enumerate((start, stop, step)):
        if slot < len(originals):
            arg = originals[slot].with_changes(value=value)
        else:
            arg = cst.Arg(value)
        if slot == 2:
            arg = arg.with_changes(comma=last_comma)
        elif slot >= len(originals) - 1:
            arg = arg.with_changes(comma=_SPACE_COMMA)
        new_positional.append(arg)
    # Positional arguments past the third are ignored by PyPTO's parser; the printer drops them.
    extra = set(positions[3:])
    first = positions[0]
    after = [arg for index, arg in enumerate(args) if index >= first + len(originals) and index not in extra]
    rebuilt = [*args[:first], *new_positional, *after]
    return header.call.with_changes(args=edit_keywords(rebuilt, cst.Integer("1")))


def demoted_call(header: LoopHeader, aliases: Aliases) -> cst.Call:
    """DemoteToSequential: the same loop as `pl.range`, `stage=` and `pipeline_stages` dropped."""
    func = header.call.func
    if isinstance(func, cst.Attribute):
        func = func.with_changes(attr=cst.Name("range"))
    else:
        func = cst.Attribute(cst.Name(aliases.prefix), cst.Name("range"))
    return header.call.with_changes(func=func, args=edit_keywords(list(header.call.args), None))


def yield_statement(
    prefix: str, targets: list[str], values: list[cst.BaseExpression]
) -> cst.SimpleStatementLine:
    """`targets = pl.yield_(values)` with the module's DSL prefix."""
    call = cst.Call(cst.Attribute(cst.Name(prefix), cst.Name("yield_")), [cst.Arg(value) for value in values])
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target_tuple(targets))], call)])


def yield_line(
    yielded: TrailingYield, targets: list[str], values: list[cst.BaseExpression]
) -> cst.SimpleStatementLine:
    """The main loop's closing yield: the original line (comments kept) with new names."""
    small = yielded.line.body[0]
    call = yielded.call
    args = [arg.with_changes(value=value) for arg, value in zip(call.args, values, strict=False)]
    new_call = call.with_changes(args=args)
    if isinstance(small, cst.Assign):
        old_target = small.targets[0].target
        new_small: cst.BaseSmallStatement
        if targets == yielded.targets:
            new_small = small.with_changes(value=new_call)
        else:
            target = target_tuple(targets)
            if isinstance(old_target, (cst.Tuple, cst.List)) and isinstance(target, cst.Tuple):
                target = target.with_changes(lpar=old_target.lpar, rpar=old_target.rpar)
            new_small = small.with_changes(
                targets=[small.targets[0].with_changes(target=target)], value=new_call
            )
    else:
        new_small = small.with_changes(target=cst.Name(targets[0]), value=new_call)
    return yielded.line.with_changes(body=[new_small])
