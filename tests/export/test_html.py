"""The HTML page: self-contained and offline; drawn in headless Chromium (skipped without it)."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from collections import Counter
from pathlib import Path

import pytest

from sgkr import KnowledgeGraph, RetrievalResult
from sgkr.export import View, render_view, subgraph, to_html

CHROMIUM = shutil.which("chromium")
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--no-first-run",
          "--virtual-time-budget=5000"]
RETRIEVED_FILL = (0xD8, 0xE7, 0xFF)
INPUT_FILL = (0xFF, 0xE3, 0xB0)


@pytest.fixture(scope="module")
def view(payments_graph: KnowledgeGraph, case_result: RetrievalResult) -> View:
    return subgraph(payments_graph, case_result, focus=True, depth=1)


def _embedded(page: str) -> dict[str, object]:
    match = re.search(r'<script type="application/json" id="sgkr-data">(.*?)</script>', page,
                      re.S)
    assert match is not None
    data: dict[str, object] = json.loads(match.group(1))
    return data


def test_page_is_self_contained(view: View) -> None:
    page = render_view(view, "html")
    assert not re.search(r'\b(src|href)\s*=', page)  # no external script, style or link
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")
    data = _embedded(page)
    assert len(data["nodes"]) == len(view.nodes)  # type: ignore[arg-type]
    assert len(data["edges"]) == len(view.edges)  # type: ignore[arg-type]


def test_code_cannot_break_out_of_the_script_element() -> None:
    from sgkr.export.view import ViewNode
    evil = View((ViewNode("f", "function", "f", code="x = '</script><script>alert(1)'"),), ())
    page = to_html(evil)
    assert page.count("</script>") == 2
    nodes = _embedded(page)["nodes"]
    assert nodes[0]["code"] == "x = '</script><script>alert(1)'"  # type: ignore[index]


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB(A) pixels of an 8-bit PNG (enough for screenshots)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev, strict=False))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    if bpp == 4:  # drop alpha
        rows = [b"".join(r[i:i + 3] for i in range(0, stride, 4)) for r in rows]
    return width, height, rows


@pytest.mark.subprocess
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package "
                    "`chromium`; .ci/run installs it)")
def test_chromium_draws_every_node_and_a_non_blank_picture(view: View, tmp_path: Path) -> None:
    page = tmp_path / "graph.html"
    page.write_text(render_view(view, "html"), encoding="utf-8")
    shot = tmp_path / "graph.png"
    with tempfile.TemporaryDirectory() as profile:
        # One run both screenshots and dumps the DOM after the script ran.
        html = subprocess.run(
            [str(CHROMIUM), *_FLAGS, f"--user-data-dir={profile}", "--window-size=640,400",
             f"--screenshot={shot}", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=90, check=False).stdout
    assert len(re.findall(r'<g class="node ', html)) == len(view.nodes)
    assert len(re.findall(r'<path class="edge ', html)) == len(view.edges)
    retrieved = sum(1 for n in view.nodes if n.role == "retrieved")
    assert len(re.findall(r'<g class="node [^"]*role-retrieved', html)) == retrieved
    assert f'data-drawn-nodes="{len(view.nodes)}"' in html
    width, height, rows = _png_pixels(shot.read_bytes())
    assert (width, height) == (640, 400)
    colours = Counter(row[i:i + 3] for row in rows[::2] for i in range(0, len(row), 6))
    _, most = colours.most_common(1)[0]
    assert most < 0.97 * sum(colours.values()), "the screenshot is blank"
    assert len(colours) > 50
    assert colours[bytes(RETRIEVED_FILL)] > 20, "no retrieved node is visible"
    assert colours[bytes(INPUT_FILL)] > 5, "no input tag is visible"
