"""Interactive views: page sizes, opening times and slider steps in headless Chromium.

The pages of issue 23, each written as one self-contained HTML file:

* the front axle's parallel travel (``examples/front_axle.toml``, 161 positions, -80 to +80 mm),
* the front axle against the MacPherson (``examples/macpherson.toml``), 161 positions each,
* the four-bar's sweep (``examples/four_bar.toml``, A from 0 to 360 deg in 1 deg steps),
* the spring pendulum's simulation (``examples/spring_pendulum.toml``, 10 s, 501 samples),
* a design study's bands with the nominal design (``examples/double_wishbone_vary.toml``,
  200 variants, 41 positions).

For each it prints the file's size, the median over ``--repeats`` openings of the time to the
first drawing (``performance.now()`` when the player marks the page drawn: milliseconds since
the navigation began, in a fresh tab, the network off) and of one slider step (the pose and
every marker moved, averaged over 20 steps), and the ratio of the opening time to that of a
bare page of the full plotly.js (plotly's own bundle) with an empty plot, opened the same way in
the same run (what parsing the full plotly.js alone costs; the machine's speed cancels in the
ratio). A second bare page holds the partial bundle the pages inline
(``loops.views.page.PLOTLY_BUNDLE``). Targets (issue 23): the front axle's page under 6 MB,
opening in under 2 s.

Run: ``python benchmarks/views.py [--repeats 3] [--keep DIR]`` (needs the ``test`` extra's
Playwright and Debian's ``chromium``).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import sys
import tempfile

import numpy as np

# benchmarks/dynamics.py is named like the package: keep this script's folder off the import path.
_HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TRAVEL = np.linspace(-0.08, 0.08, 161)


def pages(folder):
    """Write the pages into ``folder``; returns ``{label: path}``."""
    from dynamics import simulate
    from dynamics.views import simulation_view
    from loops.study.designs import read_vary
    from loops.study.study import Plan, run_study
    from loops.study.views import study_view
    from loops.suspension import load_suspension, parallel_travel
    from loops.suspension.views import suspension_view
    from loops.views import sweep_view
    from mechanism import load_model

    axle = parallel_travel(load_suspension(str(EXAMPLES / "front_axle.toml")), TRAVEL)
    strut = parallel_travel(load_suspension(str(EXAMPLES / "macpherson.toml")), TRAVEL)
    four_bar = load_model(str(EXAMPLES / "four_bar.toml")).sweep({"A": np.radians(np.arange(0.0, 361.0, 1.0))})
    pendulum = simulate(load_model(str(EXAMPLES / "spring_pendulum.toml")), t_end=10.0, q0={"theta": 0.4, "r": 0.2},
                        qd0={"theta": 0.3, "r": 0.0}, t_eval=np.linspace(0.0, 10.0, 501))
    corner = load_suspension(str(EXAMPLES / "double_wishbone.toml"))
    names, offsets = read_vary(str(EXAMPLES / "double_wishbone_vary.toml"), corner)
    travel = np.linspace(-0.08, 0.08, 41)
    study = run_study(corner, names, offsets[:200], Plan("parallel", travel=travel))
    views = {"front axle, parallel travel (161 positions)": suspension_view(axle),
             "front axle vs MacPherson (161 positions)": suspension_view([axle, strut]),
             "four-bar sweep (361 positions)": sweep_view(four_bar),
             "spring pendulum simulation (501 samples)": simulation_view(pendulum),
             "design study bands, 200 variants (41 positions)": study_view(study, parallel_travel(corner, travel))}
    out = {}
    for k, (label, view) in enumerate(views.items()):
        out[label] = view.write_html(pathlib.Path(folder) / f"page{k}.html")
    return out


def bare_page(folder, plotly_js, name="bare.html"):
    """``plotly_js`` (the text of a plotly.js bundle) and an empty plot: a baseline of the opening times."""
    path = pathlib.Path(folder) / name
    path.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><div class="kx-view">'
                    f'<div id="plot"></div></div><script>{plotly_js}</script><script>Plotly.newPlot("plot", '
                    '[], {}).then(() => requestAnimationFrame(() => { document.querySelector(".kx-view")'
                    '.dataset.rendered = String(performance.now()); }));</script></body></html>', encoding="utf-8")
    return path


def measure(context, path, repeats, steps=20):
    """Median opening time (ms) and slider step (ms) of ``path`` over ``repeats`` fresh tabs."""
    opened, stepped = [], []
    for _ in range(repeats):
        page = context.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        page.goto(path.as_uri())
        page.wait_for_selector(".kx-view[data-rendered]", state="attached", timeout=120000)
        opened.append(float(page.evaluate("document.querySelector('.kx-view').dataset.rendered")))
        if page.locator(".kx-slider").count():
            stepped.append(page.evaluate("""async (steps) => {
                const s = document.querySelector('.kx-slider'), root = document.querySelector('.kx-view');
                const start = performance.now(), top = Number(s.max);
                for (let k = 1; k <= steps; k++) {
                    const want = String(Math.round(k * top / steps));
                    s.value = want; s.dispatchEvent(new Event('input'));
                    while (root.dataset.position !== want) await new Promise((r) => requestAnimationFrame(r));
                }
                return (performance.now() - start) / steps; }""", steps))
        page.close()
    return statistics.median(opened), (statistics.median(stepped) if stepped else float("nan"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="write the pages there (default: a temporary folder)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    from plotly.offline import get_plotlyjs

    from loops.views.page import PLOTLY_BUNDLE, plotly_js

    folder = args.keep or tempfile.mkdtemp(prefix="kinematrix-views-")
    os.makedirs(folder, exist_ok=True)
    written = pages(folder)
    bare = bare_page(folder, get_plotlyjs())
    partial = bare_page(folder, plotly_js(), "bare-partial.html")
    chromium = os.environ.get("KINEMATRIX_CHROMIUM") or shutil.which("chromium")
    profile = tempfile.mkdtemp(prefix="kinematrix-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(profile, executable_path=chromium, args=ARGS,
                                                                headless=True,
                                                                viewport={"width": 1600, "height": 1000})
        baseline, _ = measure(context, bare, args.repeats)
        print(f"{'page':52s} {'size MB':>8s} {'opens ms':>9s} {'/ bare':>7s} {'step ms':>8s}")
        print(f"{'plotly.js (full) and an empty plot (baseline)':52s} {bare.stat().st_size / 1e6:8.2f} {baseline:9.0f} "
              f"{1.0:7.2f} {'':>8s}")
        opened, _ = measure(context, partial, args.repeats)
        print(f"{PLOTLY_BUNDLE + ' and an empty plot':52s} {partial.stat().st_size / 1e6:8.2f} {opened:9.0f} "
              f"{opened / baseline:7.2f} {'':>8s}")
        for label, path in written.items():
            opened, step = measure(context, path, args.repeats)
            print(f"{label:52s} {path.stat().st_size / 1e6:8.2f} {opened:9.0f} {opened / baseline:7.2f} {step:8.0f}")
        context.close()
    shutil.rmtree(profile, ignore_errors=True)
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
