"""`tilecheck backends [NAME]`: the backend capability profiles, shipped and configured."""

from __future__ import annotations

import argparse

from tilecheck.backends.aliases import unknown_backend
from tilecheck.backends.profile import SIZED_BACKENDS, Profile, load_profiles, names
from tilecheck.cli.options import add_trust_options, dump_json, workspace_from
from tilecheck.core.errors import UsageError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("backends", help="list the backend capability profiles")
    parser.add_argument("name", nargs="?", metavar="NAME", help="show one profile in full")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    add_trust_options(parser)


_SHORT = {
    "num_stages": "num_stages",
    "manual_schedule": "order/stage",
    "hierarchical_pipelines": "nested",
    "async_copy": "async copy",
    "warp_specialization": "warp spec.",
}


def _budget(profile: Profile, sources: list[str]) -> str:
    """The shared-memory budget per block with its source's footnote number (`-`: none), and
    `(not sized)` on a backend whose kernels TL501 does not size (Metal, WebGPU)."""
    if not profile.shared_memory_per_block:
        return "-"
    # The publication, without the details after its first colon (`tilecheck backends NAME`).
    source = profile.shared_memory_source.split(":", 1)[0] or "no source given"
    if source not in sources:
        sources.append(source)
    unsized = "" if profile.backend in SIZED_BACKENDS else " (not sized)"
    return f"{profile.shared_memory_per_block:,} [{sources.index(source) + 1}]{unsized}"


def run(args: argparse.Namespace) -> int:
    workspace = workspace_from(args)
    tables = workspace.settings_for(workspace.resolver.cwd).backends_table
    profiles = load_profiles(tables)  # ProfileError: exit 2 with its message
    order = names(tables)
    if args.name is not None:
        if args.name not in profiles:
            raise UsageError(unknown_backend(args.name, order))
        order = (args.name,)
    chosen = [profiles[name] for name in order]
    if args.output_format == "json":
        payload = [{**p.capabilities(), "origin": p.origin} for p in chosen]
        dump_json(payload if args.name is None else payload[0])
        return 0
    if args.name is not None:
        profile = chosen[0]
        print(f"{profile.name}: {profile.description}")
        print(f"  (from {profile.origin})")
        shown_fields = {
            key: value
            for key, value in profile.capabilities().items()
            if key not in ("name", "description")
            and value != ""
            and not (key.startswith("static_") and not value)
        }
        width = max(map(len, profile.capabilities()))  # the same column for every profile
        for key, value in shown_fields.items():
            shown = ("yes" if value else "no") if isinstance(value, bool) else value
            print(f"  {key:<{width}} {shown}")
        return 0
    headers = ["name", "backend", *_SHORT.values(), "smem/block"]
    sources: list[str] = []  # the budgets' sources, as footnotes
    rows = []
    for p in chosen:
        rows.append(
            [
                p.name + ("*" if p.origin != "shipped" else ""),
                p.backend,
                p.num_stages,
                p.manual_schedule,
                "yes" if p.hierarchical_pipelines else "no",
                "yes" if p.async_copy else "no",
                "yes" if p.warp_specialization else "no",
                _budget(p, sources),
            ]
        )
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    for row in [headers, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    for number, source in enumerate(sources, 1):
        print(f"[{number}] {source}")
    if any(p.origin != "shipped" for p in chosen):
        print("* defined or overridden in the configuration")
    print("`tilecheck backends NAME` shows one profile in full; select one with --backend NAME.")
    return 0
