"""The web app in a real browser: Debian's chromium, headless, driven by Playwright.

The test serves the app on a free local port, types the cocaine matrix (TP 26, FN 0, TN 6,
FP 2) into the page, presses Analyse, reads the summary table off the page and checks it
against ``bcm.summary`` of the same ``bcm.fit`` call; then types a bad cell, checks the message
in red, and checks that the server still serves a fresh page. At a 1280 x 800 window, every
tab's main button and status line are in view without scrolling, in each of its input modes,
before and after the button is pressed (the Analyse button used to sit 1,500 pixels down).
Screenshots go to pytest's temporary folder and, when ``BAYESCM_SCREENSHOTS`` names a folder,
there too (the README's are made with ``BAYESCM_SCREENSHOTS=docs/images``).

Bokeh's widgets sit in open shadow roots, which Playwright's CSS locators pierce; a typed value
reaches the server on Enter or blur. Playwright never downloads a browser here: it launches
``/usr/bin/chromium``, which ``bash scripts/setup.sh test`` (or ``browser``) installs.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import urllib.request
from importlib import util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
SETUP = "bash scripts/setup.sh test (or: bash scripts/setup.sh browser)"
VIEWPORT = {"width": 1280, "height": 800}
TIMEOUT_MS = 45_000  # a fit waits for the one worker thread, which other sessions may hold
COCAINE = {"tp": "26", "fn": "0", "tn": "6", "fp": "2"}
SEED, DRAWS = 7, 2000  # not the page's defaults (1, 5000): the table shown must be ours


def _missing() -> str | None:
    if util.find_spec("panel") is None:
        return "Panel (the app extra)"
    if util.find_spec("playwright") is None:
        return "Playwright (the browser extra)"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"Debian's chromium ({CHROMIUM})"
    return None


_MISSING = _missing()
if _MISSING is not None:
    pytest.skip(f"the browser test needs {_MISSING}, which is missing; install it with: {SETUP}",
                allow_module_level=True)

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def server():
    app = bcm.app.serve(port=0)
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture(scope="module")
def browser(server):
    """Chromium, closed before the server stops (so no page is connected then)."""
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                      args=["--no-sandbox", "--disable-gpu",
                                            "--disable-dev-shm-usage"])
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def errors() -> list[str]:
    """The page's uncaught JavaScript errors."""
    return []


@pytest.fixture
def page(browser, errors):
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    tab.on("pageerror", lambda err: errors.append(str(err)))
    try:
        yield tab
    finally:
        context.close()


def _screenshot(page: Page, folder: Path, name: str) -> Path:
    """Save the top of the page as ``name`` in ``folder`` and in $BAYESCM_SCREENSHOTS, if set."""
    path = folder / name
    page.evaluate("window.scrollTo(0, 0)")  # pressing Analyse scrolled to the button
    page.wait_for_function("window.scrollY === 0")
    page.screenshot(path=str(path))
    extra = os.environ.get("BAYESCM_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / name)
    return path


def _open(page: Page, url: str) -> None:
    """Load the page and wait for the example's first analysis (the page runs it on load)."""
    page.goto(url)
    expect(page.locator(".bcm-cell-tp input")).to_be_visible()
    expect(page.locator(".bcm-summary table")).to_be_visible()
    expect(page.locator(".bcm-status")).to_contain_text("Done")


def _type(page: Page, css: str, value: str) -> None:
    """Type into the text field with the css class and press Enter (Bokeh sends it then)."""
    field = page.locator(f".{css} input")
    field.fill(value)
    field.press("Enter")
    expect(field).to_have_value(value)


def _read_table(page: Page) -> pd.DataFrame:
    """The summary table as shown: first column the index, the rest numbers."""
    rows = page.locator(".bcm-summary table").evaluate(
        "t => Array.from(t.rows, r => Array.from(r.cells, c => c.textContent.trim()))")
    header, body = rows[0], rows[1:]
    frame = pd.DataFrame(body, columns=header).set_index(header[0])
    return frame.apply(pd.to_numeric)


def _closed_socket(record: logging.LogRecord) -> bool:
    """A write to a websocket whose browser page had already gone: asyncio logs it, at any time
    later, as a task exception nobody retrieved (seen in CI when the previous test's page was
    closed while the server still sent it updates). It says nothing about the app."""
    from tornado.websocket import WebSocketClosedError

    error = record.exc_info[1] if record.exc_info else None
    return record.name == "asyncio" and isinstance(error, WebSocketClosedError)


def _server_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Errors the server logged (Panel logs an exception raised in a callback), except writes
    to a page that was already closed (:func:`_closed_socket`)."""
    return [r.getMessage() for r in caplog.records
            if r.levelno >= logging.ERROR and not _closed_socket(r)]


def test_a_closed_socket_is_not_a_server_error():
    """The filter drops only asyncio's record of a write to a closed websocket."""
    from tornado.websocket import WebSocketClosedError

    def record(name: str, error: BaseException | None) -> logging.LogRecord:
        info = (type(error), error, None) if error is not None else None
        return logging.LogRecord(name, logging.ERROR, __file__, 1,
                                 "Task exception was never retrieved", None, info)

    assert _closed_socket(record("asyncio", WebSocketClosedError()))
    assert not _closed_socket(record("asyncio", ValueError("a callback failed")))
    assert not _closed_socket(record("panel", WebSocketClosedError()))
    assert not _closed_socket(record("asyncio", None))


def test_cocaine_matrix_in_the_browser(page, server, errors, caplog, tmp_path):
    _open(page, server.url)
    for cell, value in COCAINE.items():
        _type(page, f"bcm-cell-{cell}", value)
    _type(page, "bcm-seed", str(SEED))
    _type(page, "bcm-draws", str(DRAWS))
    page.locator(".bcm-run button").click()
    # the run is ours once the status and the printed call name our draws and seed
    expect(page.locator(".bcm-status")).to_contain_text(f"4 x {DRAWS:,} draws")
    code = page.locator(".bcm-code")
    expect(code).to_contain_text(f"random_seed={SEED}")
    expect(code).to_contain_text("from_counts(tp=26, fn=0, tn=6, fp=2)")
    expect(code).to_contain_text(f"draws={DRAWS}")
    expect(page.locator(".bcm-error:visible")).to_have_count(0)
    shown = _read_table(page)
    _screenshot(page, tmp_path, "app_matrix.png")

    metrics = list(shown.index)
    assert metrics[:3] == ["prevalence", "tpr", "tnr"], metrics
    idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=DRAWS,
                    random_seed=SEED)
    expected = bcm.summary(idata, var_names=metrics)
    assert list(expected.index) == metrics
    for column in ("mean", "hdi_lower", "hdi_upper"):
        assert column in shown.columns, list(shown.columns)
        np.testing.assert_allclose(shown[column].to_numpy(float),
                                   expected[column].to_numpy(float), rtol=0, atol=1e-4,
                                   err_msg=column)
    # four decimals on the page (``1.0000``), so the check above is a real one
    text = page.locator(".bcm-summary table td").nth(2).inner_text()
    assert re.fullmatch(r"-?\d+\.\d{4}", text), text
    assert errors == []
    assert _server_errors(caplog) == []


def test_bad_cell_is_shown_and_the_server_survives(page, server, errors, caplog, tmp_path):
    _open(page, server.url)
    error = page.locator(".bcm-error-matrix")
    _type(page, "bcm-cell-fp", "-3")
    page.locator(".bcm-run button").click()
    expect(error).to_be_visible()
    expect(error).to_contain_text("FP")
    expect(error).to_contain_text("-3")
    expect(page.locator(".bcm-status")).to_contain_text("Not done")
    expect(page.locator(".bcm-summary table")).to_have_count(0)  # no stale results
    _screenshot(page, tmp_path, "app_error.png")

    _type(page, "bcm-cell-fp", "2.5")  # a second bad value replaces the first message
    page.locator(".bcm-run button").click()
    expect(error).to_contain_text("2.5")
    expect(error).not_to_contain_text("-3")
    messages = page.locator(".bcm-error:visible")
    expect(messages).to_have_count(1)
    expect(messages).to_contain_text("FP")  # (the text is in the alert's shadow root)

    # the server still answers: HTTP, and a reloaded page is a fresh session
    with urllib.request.urlopen(server.url, timeout=30) as response:
        assert response.status == 200
    page.reload()
    expect(page.locator(".bcm-cell-fp input")).to_have_value("2")
    expect(page.locator(".bcm-summary table")).to_be_visible()
    expect(page.locator(".bcm-error:visible")).to_have_count(0)
    assert errors == []
    assert _server_errors(caplog) == []


TABS = [("Confusion matrix", "bcm-run", "bcm-status", ".bcm-mode", "Any classes: a table"),
        ("Sample size", "bcm-plan-run", "bcm-plan-status", None, None),
        ("Compare two classifiers", "bcm-cmp-run", "bcm-cmp-status", ".bcm-cmp-mode",
         "One test set (paired)"),
        ("Scores and ROC", "bcm-scores-run", "bcm-scores-status", None, None),
        ("Decision curves", "bcm-dca-run", "bcm-dca-status", None, None),
        ("Evaluation log", "bcm-items-run", "bcm-items-status", None, None),
        ("Imperfect labels", "bcm-correct-run", "bcm-correct-status", None, None)]
"""Each tab: its title, the css classes of its button and status line, and its other input
mode (the mode switch and the option that shows it), if it has one."""


def _in_view(page: Page, css: str) -> list[str]:
    """Why the element with the css class is not fully visible in the window unscrolled."""
    box = page.locator(f".{css}").bounding_box()
    scrolled = page.evaluate("window.scrollY")
    if box is None:
        return [f"{css}: not displayed"]
    problems = [f"{css}: the page is scrolled by {scrolled} px"] if scrolled else []
    if not (box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= VIEWPORT["width"]
            and box["y"] + box["height"] <= VIEWPORT["height"]):
        problems.append(f"{css}: at x {box['x']:.0f}-{box['x'] + box['width']:.0f}, y "
                        f"{box['y']:.0f}-{box['y'] + box['height']:.0f}, outside the "
                        f"{VIEWPORT['width']} x {VIEWPORT['height']} window")
    return problems


def test_every_tab_shows_its_button_and_status_without_scrolling(page, server, errors,
                                                                 caplog):
    _open(page, server.url)
    problems: list[str] = []
    for title, button, status, switch, other in TABS:
        page.locator(".bk-tab", has_text=title).click()
        expect(page.locator(f".{button} button")).to_be_visible()
        problems += [f"{title}: {p}" for p in _in_view(page, button) + _in_view(page, status)]
        page.locator(f".{button} button").click()  # its result: the status says so, in view
        expect(page.locator(f".{status}")).to_contain_text("Done")
        page.evaluate("window.scrollTo(0, 0)")  # pressing a button may scroll to it
        problems += [f"{title}, done: {p}" for p in _in_view(page, status)]
        if switch is not None:  # the other input mode (a pasted table, paired labels)
            page.locator(switch).get_by_text(other, exact=True).click()
            page.wait_for_timeout(500)
            page.evaluate("window.scrollTo(0, 0)")
            problems += [f"{title} ({other}): {p}"
                         for p in _in_view(page, button) + _in_view(page, status)]
    assert problems == [], "\n".join(problems)
    assert errors == []
    assert _server_errors(caplog) == []
