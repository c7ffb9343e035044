"""Open the built documentation site in headless chromium and check what a reader sees.

Run after the build (``.ci/run`` does):

    .venv/bin/python scripts/check_site.py [docs/_build/html] [--screenshots DIR]

Three pages are opened from the files (no server): the landing page, the API page of
``bcm.fit`` and the rendered tutorial notebook. Each must load without a console error or a
failed request (a missing image, script or style sheet), and show what it is for: the landing
page its figure, the API page the parameters of ``fit``, the notebook its stored figures and
outputs, all with the theme's navigation bar. ``--screenshots DIR`` saves a PNG of each
(``site_landing.png``, ``site_api.png``, ``site_notebook.png``; ``docs/images/`` keeps the
ones the README shows). Exits 1 naming every problem; 2 when the site or chromium is missing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]

# page -> (file, screenshot name, CSS selectors that must be present and visible, texts)
PAGES = {
    "landing": ("index.html", "site_landing.png",
                ["header.bd-header", "img[alt^='Posterior densities']", "div.highlight"],
                ["Honest uncertainty on classifier performance", "Getting started"]),
    "api": ("api/generated/bayescm.fit.html", "site_api.png",
            ["header.bd-header", "dl.py.function", "dl.field-list"],
            ["bayescm.fit", "Parameters", "random_seed", "Returns", "Examples"]),
    "notebook": ("notebooks/01_tutorial.html", "site_notebook.png",
                 ["header.bd-header", "div.cell_output img", "div.cell_input"],
                 ["Who this is for"]),
}


def check(site: Path, shots: Path | None) -> list[str]:
    """Open every page of ``site`` in headless chromium; the problems found, one per line."""
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        try:
            for name, (path, shot, selectors, texts) in PAGES.items():
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                errors: list[str] = []
                page.on("console", lambda m, e=errors: e.append(m.text)
                        if m.type == "error" else None)
                page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
                page.on("requestfailed", lambda r, e=errors: e.append(f"failed: {r.url}"))
                file = site / path
                if not file.is_file():
                    problems.append(f"{name}: {file} is missing")
                    continue
                page.goto(file.as_uri(), wait_until="load")
                page.wait_for_timeout(300)  # the theme's scripts settle
                problems += [f"{name}: console: {e}" for e in errors]
                for sel in selectors:
                    loc = page.locator(sel)
                    if loc.count() == 0 or not loc.first.is_visible():
                        problems.append(f"{name}: nothing visible matches {sel!r}")
                body = page.inner_text("body")
                problems += [f"{name}: the text {t!r} is missing" for t in texts
                             if t not in body]
                broken = page.evaluate(
                    "Array.from(document.images).filter(i => i.complete && i.naturalWidth === 0)"
                    ".map(i => i.getAttribute('src'))")
                problems += [f"{name}: image does not load: {src}" for src in broken]
                if shots is not None:
                    shots.mkdir(parents=True, exist_ok=True)
                    if name == "notebook":  # show a stored figure, not only the title
                        page.locator("div.cell_output img").first.scroll_into_view_if_needed()
                        page.mouse.wheel(0, -120)
                        page.wait_for_timeout(200)
                    page.screenshot(path=str(shots / shot))
                page.close()
        finally:
            browser.close()
    return problems


def main(argv: list[str] | None = None) -> int:
    """Check the built site named on the command line; 1 when any page has a problem."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default=str(ROOT / "docs" / "_build" / "html"))
    parser.add_argument("--screenshots", metavar="DIR", help="save a PNG of each page here")
    args = parser.parse_args(argv)
    site = Path(args.site).resolve()
    if not (site / "index.html").is_file():
        print(f"check_site: no built site in {site}; build it first: .venv/bin/python -m "
              "sphinx -W --keep-going -b html docs docs/_build/html", file=sys.stderr)
        return 2
    if not Path(CHROMIUM).exists():
        print(f"check_site: {CHROMIUM} is missing; install it: bash scripts/setup.sh browser",
              file=sys.stderr)
        return 2
    problems = check(site, Path(args.screenshots) if args.screenshots else None)
    for problem in problems:
        print(f"check_site: {problem}", file=sys.stderr)
    print(f"check_site: {len(PAGES)} pages checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
