"""The shared-memory arena of a kernel as a picture: buffers as bars along the byte axis, the
limit of the selected backend as a line (`explain --output-format html` and `svg`).

Drawn from the numbers `explain.shared_memory.records` gives: one row per dynamic buffer that
is used, its bar from its offset for its bytes (all versions), so buffers that reuse space
(an epilogue tile over the pipeline's buffers) share a byte range on different rows; the axis
spans the arena or the limit, whichever is larger, so a limit the arena exceeds is inside it.
"""

from __future__ import annotations

from html import escape

from tilecheck.explain.node import Node

BAR_COLOURS = ("#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2")
LIMIT_COLOUR = "#dc2626"
WIDTH = 440  # px of the byte axis (drawn at its size: a page narrower than it scrolls)
LABEL = 120  # px for the buffer names, left of the axis
ROW = 20  # px per buffer
BAR = 14  # px bar height


def pictures(root: Node) -> str:
    """HTML: one figure per build and target class whose layout is sized and has a used buffer."""
    return "".join(
        f'<figure class="arena"><figcaption>shared memory, {caption}</figcaption>{svg}</figure>'
        for caption, svg, _ in _drawings(root)
    )


def svg_parts(roots: list[Node], x: float, y: float) -> tuple[list[str], float]:
    """SVG: each drawing as a caption and a nested `<svg>` from (x, y) down; the height used."""
    parts: list[str] = []
    top = y
    for root in roots:
        for caption, svg, height in _drawings(root):
            parts.append(
                f'<text class="arena-caption" x="{x}" y="{top + 14}" font-family="system-ui, sans-serif" '
                f'fill="#374151">{escape(root.title)}: shared memory, {caption}</text>'
            )
            parts.append(svg.replace("<svg ", f'<svg x="{x}" y="{top + 20}" ', 1))
            top += 20 + height + 8
    return parts, top - y


def _drawings(root: Node) -> list[tuple[str, str, int]]:
    found = []
    for build, records in root.shared_memory or []:
        for record in records:
            drawing = _figure(record, build)
            if drawing is not None:
                found.append(drawing)
    return found


def _figure(record: dict[str, object], build: str | None) -> tuple[str, str, int] | None:
    """(caption, `<svg>` element, its height) of one layout; None when there is nothing to draw."""
    buffers = record.get("buffers")
    if not record.get("sized") or not isinstance(buffers, list):
        return None
    drawn = [b for b in buffers if isinstance(b, dict) and b["live"] and not b["static"] and b["bytes"]]
    if not drawn:
        return None
    total = _int(record.get("dynamic_bytes"))
    limit = record.get("limit")
    span = max(total, limit if isinstance(limit, int) else 0, 1)
    scale = WIDTH / span
    height = ROW * len(drawn) + 34
    parts = []
    for row, buffer in enumerate(drawn):
        x = LABEL + _int(buffer["offset"]) * scale
        y = 4 + row * ROW
        colour = BAR_COLOURS[row % len(BAR_COLOURS)]
        name = escape(str(buffer["name"]))
        versions = f" x {buffer['versions']} versions" if _int(buffer["versions"]) > 1 else ""
        tip = f"{name}: {_int(buffer['bytes']):,} bytes{versions}, offset {_int(buffer['offset']):,}"
        parts.append(
            f'<text x="{LABEL - 6}" y="{y + BAR - 3}" text-anchor="end" class="arena-name">{name}</text>'
            f'<rect class="arena-bar" data-buffer="{name}" x="{x:.2f}" y="{y}" '
            f'width="{max(_int(buffer["bytes"]) * scale, 1):.2f}" height="{BAR}" fill="{colour}">'
            f"<title>{tip}</title></rect>"
        )
    axis = 4 + ROW * len(drawn) + 2
    parts.append(
        f'<line x1="{LABEL}" y1="{axis}" x2="{LABEL + WIDTH}" y2="{axis}" stroke="#6b7280" stroke-width="1"/>'
        f'<text x="{LABEL}" y="{axis + 14}" class="arena-tick">0</text>'
        f'<text x="{LABEL + total * scale:.2f}" y="{axis + 26}" text-anchor="end" class="arena-tick">'
        f"{total:,}</text>"
    )
    caption = f"{escape(str(record['targets']))}: {total:,} bytes dynamic"
    static = _int(record.get("static_bytes"))
    if static:
        caption += f" + {static:,} static"
    if isinstance(limit, int):
        x = LABEL + limit * scale
        backend = escape(str(record.get("backend", "")))
        parts.append(
            f'<line class="arena-limit" x1="{x:.2f}" y1="0" x2="{x:.2f}" y2="{axis + 4}" '
            f'stroke="{LIMIT_COLOUR}" stroke-width="3"><title>limit on {backend}: {limit:,} bytes</title></line>'
            f'<text x="{x:.2f}" y="{axis + 14}" text-anchor="end" class="arena-tick" style="fill:{LIMIT_COLOUR}">'
            f"limit {limit:,}</text>"
        )
        verdict = "fits" if total + static <= limit else "EXCEEDS it"
        caption += f"; the limit on {backend} is {limit:,}: {verdict}"
    if build is not None:
        caption = f"[{escape(build)}] {caption}"
    svg = (
        f'<svg class="arena-svg" xmlns="http://www.w3.org/2000/svg" width="{LABEL + WIDTH + 10}" '
        f'height="{height}" viewBox="0 0 {LABEL + WIDTH + 10} {height}" role="img">{"".join(parts)}</svg>'
    )
    return caption, svg, height


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


STYLE = """
figure.arena { margin: 6px 0 10px 10px; }
figure.arena figcaption { font-size: 12px; color: #374151; margin-bottom: 2px; }
.arena-svg { display: block; }
.arena-name, .arena-tick { font: 11px ui-monospace, monospace; fill: #374151; }
"""
