"""Regenerate the report pictures of docs/tutorial-custom-score-plugin.md.

Needs headless Chromium (Debian's chromium package) and Pillow (`pip install pillow`,
only for this script). Run from the repository root, after the tutorial's compare
command kept its results in tutorial-results/ (see the tutorial):

    python docs/images/make_screenshots.py tutorial-results

Each picture is one element of a report page, shown alone, captured, trimmed to its
content and reduced to a 256-colour palette so that the PNGs stay small.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageChops

HERE = Path(__file__).parent
# (picture, report, element id)
SHOTS = (
    ("report-summary-spread.png", "a", "s0-summary"),
    ("report-pending-spread.png", "a", "s0-pending"),
    ("report-reasons-spread.png", "a", "s0-reasons"),
    ("report-heatmap-spread.png", "a", "s0-heatmap"),
    ("report-heatmap-binpack.png", "b", "s0-heatmap"),
    ("report-allocation-binpack.png", "b", "s0-allocation"),
)
WIDTH, HEIGHT, MARGIN = 900, 700, 8


def kubesim_report(results: Path, side: str, out: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(Path("examples/compare/binpack").resolve()),
               KUBESIM_PLUGINS="kubesim_cpu_binpack")
    kubesim = Path(sys.executable).parent / "kubesim"
    subprocess.run([str(kubesim), "report", str(results / f"result-{side}.json"), "-o", str(out)],
                   check=True, env=env)


def shot(page: Path, element: str, target: Path, workdir: Path) -> None:
    html = page.read_text()
    # hide everything else, but not plotly's text-measuring element (a child of body too)
    only = (f"<style>body > *:not(#{element}):not([id^=js-plotly]) {{ display: none !important; }}"
            f" body {{ padding-top: 8px; }}</style></head>")
    single = workdir / f"{target.stem}.html"
    single.write_text(html.replace("</head>", only, 1))
    raw = workdir / f"{target.stem}.raw.png"
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={workdir / 'profile'}", f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars",
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
    results = Path(sys.argv[1] if len(sys.argv) > 1 else "tutorial-results")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pages = {}
        for side in ("a", "b"):
            pages[side] = work / f"report-{side}.html"
            kubesim_report(results, side, pages[side])
        for name, side, element in SHOTS:
            shot(pages[side], element, HERE / name, work)


if __name__ == "__main__":
    main()
