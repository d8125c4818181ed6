"""`tilecheck inventory PATH...`: which loops nest in which, target-agnostically (issue 4).

Like TileLang's own `scan_loop_nesting.py` (reference §1.5) it counts direct parent -> child
loop pairs, with bare and pipeline-requested pipelines kept apart, and lists every lexical
path with nested pipeline requests. Unlike it, it reads the kernel model: macros are
inlined at their call sites, `T.Pipelined(0, n, 2)` (positional num_stages) is a request,
Python-level `if`s and list loops are resolved, and a multi-dimensional `T.Parallel(M, N)`
is one loop. `if`, `with` and other statements between two loops are transparent. It is an
inventory, never a verdict: the exit status is 0 (2 only for a path that does not exist).

Each file is scanned into its own `Inventory` in a crash-isolated worker process within the
per-file time and memory budget (`tilecheck.app.supervisor`, as `tilecheck check` does), and the
per-file inventories are merged here in the order of the files. A file whose worker crashes
or overruns its budget is listed among the files that could not be read, with the reason,
and every other file is still counted (issue 12). A notebook is read as `check` reads it (its
code cells, IPython lines masked), its locations named in their cells (`k.ipynb:cell 3:6:22`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TextIO

from tilecheck.app.discover import discover
from tilecheck.app.scheduling import file_size, largest_first, worker_count
from tilecheck.app.supervisor import Budget, run_isolated
from tilecheck.core.codec import cell_record
from tilecheck.core.types import NotebookCell, Span
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.context import Context
from tilecheck.report import data_path, display_path, where
from tilecheck.source.notebook import Notebook, read_notebook
from tilecheck.source.notebook_path import is_notebook
from tilecheck.source.parsing import parse
from tilecheck.source.reading import read_source
from tilecheck.tilelang.model import Item, Kernel, Loop, LoopKind, Request, Stmt, StmtKind

_KIND_LABELS = {
    LoopKind.PARALLEL: "Parallel",
    LoopKind.SERIAL: "Serial",
    LoopKind.RANGE: "Serial",
    LoopKind.GRID: "Grid",
    LoopKind.UNROLLED: "Unroll",
    LoopKind.VECTORIZED: "Vectorized",
    LoopKind.PIPELINED: "Pipelined",
    LoopKind.PERSISTENT: "Persistent",
    LoopKind.THREAD_BINDING: "ThreadBinding",
}


def label(item: Item) -> str:
    """`Pipelined[requested]`, `Parallel`, `While`, ... (the scanner's names)."""
    if isinstance(item, Stmt):
        return "While"
    assert isinstance(item, Loop)
    name = _KIND_LABELS[item.kind]
    request = item.pipeline
    if item.kind in (LoopKind.PIPELINED, LoopKind.PERSISTENT):
        return f"{name}[{request.state.value if request is not None else 'bare'}]"
    if request is not None and request.state is not Request.BARE:
        return f"{name}[{request.state.value}]"
    return name


@dataclass
class Location:
    path: str
    line: int
    column: int  # 1-based
    via: tuple[str, ...] = ()  # macro names the item was inlined through, outermost first
    cell: NotebookCell | None = None  # in a notebook: the code cell `line` (of its Python text) is in

    def __str__(self) -> str:
        macro = f" (via macro {', '.join(f'`{m}`' for m in self.via)})" if self.via else ""
        span = Span.point(self.line, self.column - 1)
        return f"{where(self.path, span, self.cell)}{macro}"

    def as_json(self) -> dict[str, object]:
        return {
            "path": data_path(self.path),
            "line": self.line,
            "column": self.column,
            "via": list(self.via),
            **cell_record(self.cell, Span.point(self.line, 0)),
        }


@dataclass
class Pair:
    parent: str
    child: str
    count: int = 0
    examples: list[Location] = field(default_factory=list)


@dataclass
class Step:
    location: Location
    header: str
    request: str
    certain: bool = True  # False: the loop exists only for some Python-level values


@dataclass
class Inventory:
    files: int = 0
    kernels: int = 0
    unreadable: list[str] = field(default_factory=list)
    pairs: dict[tuple[str, str], Pair] = field(default_factory=dict)
    nested_requested: list[list[Step]] = field(default_factory=list)
    examples: int = 3

    def add_pair(self, parent: str, child: str, location: Location) -> None:
        pair = self.pairs.setdefault((parent, child), Pair(parent, child))
        pair.count += 1
        if len(pair.examples) < self.examples:
            pair.examples.append(location)

    def merge(self, other: Inventory) -> None:
        """Add a later file's inventory (as if its files had been scanned into this one)."""
        self.files += other.files
        self.kernels += other.kernels
        self.unreadable.extend(other.unreadable)
        for key, pair in other.pairs.items():
            mine = self.pairs.setdefault(key, Pair(pair.parent, pair.child))
            mine.count += pair.count
            mine.examples.extend(pair.examples[: max(self.examples - len(mine.examples), 0)])
        self.nested_requested.extend(other.nested_requested)

    def sorted_pairs(self) -> list[Pair]:
        return sorted(self.pairs.values(), key=lambda p: (-p.count, p.parent, p.child))

    def as_json(self) -> dict[str, object]:
        return {
            "files": self.files,
            "kernels": self.kernels,
            "unreadable": self.unreadable,
            "pairs": [
                {
                    "parent": p.parent,
                    "child": p.child,
                    "count": p.count,
                    "examples": [e.as_json() for e in p.examples],
                }
                for p in self.sorted_pairs()
            ],
            "nested_requested": [
                [
                    {**s.location.as_json(), "loop": s.header, "request": s.request, "certain": s.certain}
                    for s in path
                ]
                for path in self.nested_requested
            ],
        }


def _is_loop_node(item: Item) -> bool:
    """A node of the inventory: a loop (the first dimension of a multi-dimensional one) or a while."""
    if isinstance(item, Loop):
        return item.dim == 0
    return isinstance(item, Stmt) and item.kind is StmtKind.WHILE


def _key(item: Item) -> tuple[int, ...]:
    """Identity of a source construct at one macro call chain (unrolled copies coincide)."""
    return (id(item.site.node), *(id(call.call) for call in item.site.origin))


def _nodes(items: list[Item], parent: Item | None) -> Iterator[tuple[Item, Item | None]]:
    """(node, nearest enclosing node) for every loop node; other items are transparent."""
    for item in items:
        inner = parent
        if _is_loop_node(item):
            yield item, parent
            inner = item
        if isinstance(item, Loop):
            yield from _nodes(item.body, inner)
        elif isinstance(item, Stmt):
            yield from _nodes(item.body, inner)
            yield from _nodes(item.orelse, inner)


def _requested_chains(items: list[Item], chain: tuple[Loop, ...]) -> Iterator[tuple[Loop, ...]]:
    for item in items:
        inner = chain
        if isinstance(item, Loop) and item.pipeline is not None and item.pipeline.state is Request.REQUESTED:
            inner = (*chain, item)
            if len(inner) > 1:
                yield inner
        if isinstance(item, Loop):
            yield from _requested_chains(item.body, inner)
        elif isinstance(item, Stmt):
            yield from _requested_chains(item.body, inner)
            yield from _requested_chains(item.orelse, inner)


def scan_kernel(
    ctx: Context,
    kernel: Kernel,
    inventory: Inventory,
    seen: set[tuple[object, ...]],
    notebook: Notebook | None = None,
) -> None:
    def location(item: Item) -> Location:
        span = ctx.span(item.site.report_node, item.site.report_top)
        via = tuple(call.name for call in item.site.origin)
        cell = notebook.cell_at(span.line) if notebook is not None else None
        return Location(ctx.path, span.line, span.column + 1, via, cell)

    for node, parent in _nodes(kernel.body, None):
        if parent is None:
            continue
        key = ("pair", _key(parent), _key(node))
        if key in seen:
            continue
        seen.add(key)
        inventory.add_pair(label(parent), label(node), location(node))
    chains = list(_requested_chains(kernel.body, ()))
    for chain in chains:
        if any(len(other) > len(chain) and other[: len(chain)] == chain for other in chains):
            continue  # keep only maximal paths
        chain_key = ("chain", *(_key(loop) for loop in chain))
        if chain_key in seen:
            continue
        seen.add(chain_key)
        from tilecheck.backends import describe_request

        steps = []
        for loop in chain:
            assert loop.pipeline is not None
            header = ctx.text(loop.call if loop.call is not None else loop.site.node, 60)
            steps.append(Step(location(loop), header, describe_request(loop.pipeline), loop.certain))
        inventory.nested_requested.append(steps)


def scan_file(path: str, inventory: Inventory) -> None:
    data, failure = read_source(path)
    if failure is not None or data is None:
        inventory.unreadable.append(f"{display_path(path)}: {failure.message if failure else 'unreadable'}")
        return
    notebook = read_notebook(data, path) if is_notebook(path) else None
    if notebook is not None and not isinstance(notebook, Notebook):  # its TL001/TL002 says why
        inventory.unreadable.append(f"{display_path(path)}: {notebook.message}")
        return
    module, text, failure = parse(path, data if notebook is None else notebook.text)
    if failure is not None or module is None or text is None:
        inventory.unreadable.append(f"{display_path(path)}: {failure.message if failure else 'unparseable'}")
        return
    inventory.files += 1
    ctx = Context(path, text, module)
    try:
        kernels = ctx.model.kernels
    except RecursionError:
        inventory.unreadable.append(f"{display_path(path)}: too deeply nested to analyze")
        return
    seen: set[tuple[object, ...]] = set()
    names: set[int] = set()
    for kernel in kernels:
        if id(kernel.node) not in names:  # a factory built twice is one kernel
            names.add(id(kernel.node))
            inventory.kernels += 1
        scan_kernel(ctx, kernel, inventory, seen, notebook)


def scan_one(task: tuple[str, int]) -> Inventory:
    """One file's inventory, in a worker process (`tilecheck.app.supervisor`)."""
    path, examples = task
    inventory = Inventory(examples=examples)
    scan_file(path, inventory)
    return inventory


def _task_path(task: tuple[str, int]) -> str:
    return task[0]


def build(
    paths: list[str], examples: int = 3, *, budget: Budget | None = None, jobs: int | None = None
) -> Inventory:
    """The inventory of the Python files under `paths`, each file scanned in a crash-isolated
    worker within `budget` (default: `Budget()`), in up to `jobs` processes (default: cores)."""
    files = [path for path in discover(paths) if path.endswith((".py", ".pyi", ".ipynb")) or path in paths]
    sizes = [file_size(path) for path in files]
    order = largest_first(sizes)
    done = run_isolated(
        [(files[index], examples) for index in order],
        scan_one,
        _task_path,
        jobs=max(worker_count(jobs, sizes), 1),
        budget=budget or Budget(),
    )
    results = dict(zip(order, done, strict=True))
    inventory = Inventory(examples=examples)
    for index, path in enumerate(files):
        merge_result(inventory, path, results[index])
    return inventory


def merge_result(inventory: Inventory, path: str, result: Inventory | FileAnalysis) -> None:
    """Merge a file's inventory, or list the file as unreadable if its worker crashed or overran
    its budget (the runner's TL004/TL005 result, whose message is the reason)."""
    if isinstance(result, Inventory):
        inventory.merge(result)
        return
    reason = "; ".join(d.message for d in result.diagnostics) or "could not be scanned"
    inventory.unreadable.append(f"{display_path(path)}: {reason}")


def render_text(inventory: Inventory, out: TextIO) -> None:
    out.write(
        f"Loop nesting inventory: {inventory.files} file{'s' if inventory.files != 1 else ''}, "
        f"{inventory.kernels} kernel{'s' if inventory.kernels != 1 else ''}\n"
    )
    pairs = inventory.sorted_pairs()
    if pairs:
        width = max(len(f"{p.parent} -> {p.child}") for p in pairs)
        count_width = max(len(str(p.count)) for p in pairs)
        out.write("\nParent -> child loop pairs (direct nesting):\n")
        for pair in pairs:
            name = f"{pair.parent} -> {pair.child}"
            examples = ", ".join(str(e) for e in pair.examples)
            out.write(f"  {name:<{width}}  {pair.count:>{count_width}}  e.g. {examples}\n")
    else:
        out.write("\nNo nested loops.\n")
    nested = inventory.nested_requested
    out.write(f"\nPaths with nested pipeline-requested loops: {len(nested)}\n")
    for path in nested:
        for depth, step in enumerate(path):
            arrow = "  " + "   " * depth + ("-> " if depth else "")
            maybe = "" if step.certain else "  (only for some Python-level values)"
            out.write(f"{arrow}{step.location}  {step.header}  [{step.request}]{maybe}\n")
    if nested:
        out.write(
            "\nNested pipelines are a backend capability, not an error: check them against a backend "
            "with `tilecheck --backend NAME` (see `tilecheck backends`).\n"
        )
    for problem in inventory.unreadable:
        out.write(f"skipped {problem}\n")
