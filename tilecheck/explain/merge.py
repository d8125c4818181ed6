"""One tree for a kernel its factory builds several times (with different arguments): the
builds' nodes merged, and those only some builds have marked as uncertain."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilecheck.explain.node import Node


def walk_nodes(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from walk_nodes(child)


def _key(node: Node) -> tuple[object, ...]:
    return (node.kind, node.line, node.column, node.title, node.source_line)


def merge(into: Node, other: Node, present: dict[int, int]) -> None:
    """Add `other`'s nodes to `into`'s (another build of the same kernel), counting matches."""
    keys = {_key(child): child for child in into.children}
    position = 0
    inserted = False
    for child in other.children:
        match = keys.get(_key(child))
        if match is None:  # only in this build: after the last node both builds have
            into.children.insert(position, child)
            inserted = True
            keys[_key(child)] = child
            present.update((id(node), 1) for node in walk_nodes(child))
            position += 1
            continue
        present[id(match)] += 1
        match.copies = max(match.copies, child.copies)
        match.details += [detail for detail in child.details if detail not in match.details]  # `M` = 32, 64
        merge(match, child, present)
        position = into.children.index(match) + 1
    if inserted:  # in source order again (stable: siblings inlined at one call site keep theirs)
        into.children.sort(key=lambda node: (node.line, node.column))


def _details_by_path(node: Node, path: tuple[object, ...] = ()) -> dict[tuple[object, ...], list[str]]:
    key = (*path, _key(node))
    found = {key: list(node.details)}
    for child in node.children:
        found.update(_details_by_path(child, key))
    return found


class BuildLabels:
    """Which build each detail of a merged tree came from: taken before merging, applied after,
    so that `extent `block_M` = 128` says it is `make(block_M=128)`'s."""

    def __init__(self, trees: list[Node], labels: list[str]) -> None:
        self.labels = labels
        self.per_build = [_details_by_path(tree) for tree in trees]

    def apply(self, root: Node) -> None:
        if len(self.labels) < 2:
            return
        root.details.append(f"built by {len(self.labels)} factory calls: {'; '.join(self.labels)}")
        self._visit(root, ())

    def _visit(self, node: Node, path: tuple[object, ...]) -> None:
        key = (*path, _key(node))
        labelled = []
        for detail in node.details:
            having = [
                self.labels[i] for i, found in enumerate(self.per_build) if detail in found.get(key, ())
            ]
            labelled.append(
                f"{detail}  [{', '.join(having)}]" if having and len(having) < len(self.labels) else detail
            )
        node.details = labelled
        for child in node.children:
            self._visit(child, key)


def mark_partial(root: Node, present: dict[int, int], builds: int) -> None:
    """Nodes that not every build has exist under a Python-level condition that differs between
    the factory's calls: uncertain, and said so on the outermost such node."""

    def visit(node: Node, inside: bool) -> None:
        partial = present.get(id(node), builds) < builds
        if partial:
            node.certain = False
            if not inside:
                node.details.append(
                    f"only in some of the kernel's {builds} builds: under a Python-level condition "
                    "whose value differs between the factory's calls"
                )
        for child in node.children:
            visit(child, inside or partial)

    for child in root.children:
        visit(child, False)
