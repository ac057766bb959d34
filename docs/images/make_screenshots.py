"""Regenerate the report pictures of docs/tutorial-custom-score-plugin.md.

Needs the repository installed (README), headless Chromium (Debian's chromium package)
and Pillow (`pip install pillow`, only for this script). From the repository root:

    python docs/images/make_screenshots.py

It runs the tutorial's two comparisons, writes the reports, and captures single
elements of them: each shown alone, captured, trimmed to its content and reduced to a
256-colour palette so that the PNGs stay small.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageChops

HERE = Path(__file__).parent
KUBESIM = Path(sys.executable).parent / "kubesim"
ENV = dict(os.environ, PYTHONPATH=str(Path("examples/compare/node_cost_table").resolve()),
           KUBESIM_PLUGINS="kubesim_node_cost_table")
COMPARISONS = {
    "cost": ("contrib/custom-score-example/examples/scenario.yaml", "",
             "contrib/custom-score-example/examples/scheduler-config.yaml"),
    "pack": ("examples/compare/scenario.yaml", "examples/compare/least-allocated.yaml",
             "examples/compare/most-allocated.yaml"),
}
# (picture, comparison, run, element id, window width)
SHOTS = (
    ("report-heatmap-default.png", "cost", "a", "s0-heatmap", 900),
    ("report-heatmap-nodecost.png", "cost", "b", "s0-heatmap", 900),
    ("report-plugins-nodecost.png", "cost", "b", "s0-plugins", 1800),
    ("report-node-cost-table.png", "cost", "b", "s0-table-0", 900),
    ("report-pending-spread.png", "pack", "a", "s0-pending", 900),
    ("report-reasons-spread.png", "pack", "a", "s0-reasons", 900),
)
HEIGHT, MARGIN = 700, 8


def reports(work: Path) -> dict[tuple[str, str], Path]:
    pages = {}
    for name, (scenario, config_a, config_b) in COMPARISONS.items():
        kept = work / name
        subprocess.run([str(KUBESIM), "compare", scenario, f"--scheduler-config={config_a}",
                        f"--scheduler-config={config_b}", "--keep-results", str(kept), "--json"],
                       check=True, env=ENV, stdout=subprocess.DEVNULL)
        for side in ("a", "b"):
            page = work / f"{name}-{side}.html"
            subprocess.run([str(KUBESIM), "report", str(kept / f"result-{side}.json"), "-o", str(page)],
                           check=True, env=ENV, capture_output=True)
            pages[(name, side)] = page
    return pages


def shot(page: Path, element: str, width: int, target: Path, work: Path) -> None:
    # hide everything else, but not plotly's text-measuring element (a child of body too)
    only = (f"<style>body > *:not(#{element}):not([id^=js-plotly]) {{ display: none !important; }}"
            f" body {{ padding-top: 8px; max-width: none; }}</style></head>")
    single = work / f"{target.stem}.html"
    single.write_text(page.read_text().replace("</head>", only, 1))
    raw = work / f"{target.stem}.raw.png"
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={work / 'profile'}", f"--window-size={width},{HEIGHT}", "--hide-scrollbars",
         "--virtual-time-budget=10000", f"--screenshot={raw}", single.as_uri()],
        check=True, capture_output=True,
    )
    image = Image.open(raw).convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    if box is not None:
        left, top, right, bottom = box
        image = image.crop((max(0, left - MARGIN), max(0, top - MARGIN),
                            min(image.width, right + MARGIN), min(image.height, bottom + MARGIN)))
    image.quantize(colors=256).save(target, optimize=True)
    print(f"{target} {target.stat().st_size // 1024} KiB")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pages = reports(work)
        for name, comparison, side, element, width in SHOTS:
            shot(pages[(comparison, side)], element, width, HERE / name, work)


if __name__ == "__main__":
    main()
