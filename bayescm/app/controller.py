"""What every tab shares: inline error messages, a busy state, and runs off the event loop.

A tab is a :class:`Controller`: :meth:`~Controller.prepare` reads and checks its fields on the
event loop (raising :class:`~bayescm.app.parse.InputError` for bad input),
:meth:`~Controller.compute` does the slow work in a worker thread, and
:meth:`~Controller.show` puts the result on the page. :meth:`~Controller.run` does the three
in a row (tests and notebooks call it); the buttons call :meth:`~Controller.run_async`, which
awaits the work in :data:`EXECUTOR` so the page (and every other session) stays responsive,
shows a spinner meanwhile, and drops a result if a newer run was started in between. Every
failure becomes a message in an alert with the css class ``bcm-error`` next to the fields it
concerns; an unexpected one is logged with its traceback and shown in one line.
"""

from __future__ import annotations

import asyncio
import html
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.parse import InputError, decode_upload

__all__ = ["EXECUTOR", "LABEL", "Controller", "download", "error_alert", "labelled", "note_alert",
           "option_card", "run_button", "set_message", "text_input"]

LOG = logging.getLogger("bayescm.app")

EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bayescm-app")
"""The worker every session's fits run in, one at a time (fits take about a second; one
worker keeps a shared server's memory bounded and warning capture per fit exact)."""

EXPECTED = (ValueError, TypeError, KeyError, OverflowError, ZeroDivisionError, MemoryError,
            FileNotFoundError)
"""Exceptions whose message is meant for the user (bayescm raises these for bad input)."""


LABEL = "label" if "label" in pn.widgets.TextInput.param else "name"
"""The parameter holding a widget's label (``label`` from Panel 1.9, ``name`` before)."""


def labelled(widget: Any, label: str, **kwargs: Any) -> Any:
    """``widget(label=label, **kwargs)`` in any supported Panel version.

    Examples
    --------
    >>> import panel as pn
    >>> from bayescm.app.controller import LABEL, labelled
    >>> getattr(labelled(pn.widgets.Button, "Analyse"), LABEL)
    'Analyse'
    """
    return widget(**{LABEL: label}, **kwargs)


def run_button(label: str, css: str) -> Any:
    """The blue button that starts a tab's work."""
    style = "color" if "color" in pn.widgets.Button.param else "button_type"
    return labelled(pn.widgets.Button, label, css_classes=[css], width=160,
                    **{style: "primary"})


def option_card(title: str, css: str, *items: Any) -> Any:
    """Optional settings in a card that opens on a click (css class ``css``).

    Closed, they keep a tab's first screen short: its button and status line stay in view at
    a 1280 x 800 window. A message for a field inside opens the card
    (:meth:`Controller.report`).

    Examples
    --------
    >>> import panel as pn
    >>> from bayescm.app.controller import option_card
    >>> card = option_card("Priors", "bcm-card-priors", pn.pane.Markdown("..."))
    >>> card.collapsed, card.css_classes
    (True, ['bcm-card-priors'])
    """
    return pn.Card(*items, title=title, collapsed=True, css_classes=[css], width=370,
                   margin=(4, 10))


def error_alert(name: str = "") -> Any:
    """A hidden red alert (css class ``bcm-error`` and ``bcm-error-<name>``) for messages."""
    classes = ["bcm-error"] + ([f"bcm-error-{name}"] if name else [])
    return pn.pane.Alert("", alert_type="danger", css_classes=classes, visible=False,
                         margin=(4, 10))


def note_alert(css: str = "bcm-warning", kind: str = "warning") -> Any:
    """A hidden alert for notes and warnings (css class ``css``)."""
    return pn.pane.Alert("", alert_type=kind, css_classes=[css], visible=False, margin=(4, 10))


def set_message(alert: Any, message: str | None) -> None:
    """Show ``message`` (as text: markup is escaped) in ``alert``; hide it when empty.

    Examples
    --------
    >>> from bayescm.app.controller import error_alert, set_message
    >>> alert = error_alert()
    >>> set_message(alert, "got '<img src=x>'")
    >>> alert.object, alert.visible
    ("got '&lt;img src=x&gt;'", True)
    """
    alert.object = html.escape(message or "", quote=False)
    alert.visible = bool(message)


def text_input(label: str, value: str = "", css: str | None = None, *, width: int = 110,
               placeholder: str = "", description: str | None = None) -> Any:
    """A text field whose value takes effect on Enter or when it loses focus."""
    return labelled(pn.widgets.TextInput, label, value=value, placeholder=placeholder,
                    width=width, css_classes=[css] if css else [], description=description)


def download(label: str, filename: str, callback: Any, css: str) -> Any:
    """A download button (disabled until there is something to download)."""
    return pn.widgets.FileDownload(callback=callback, filename=filename, label=label,
                                   css_classes=[css], disabled=True, embed=False, width=200)


class Controller:
    """Base of the tabs: fields, errors by field, a run button and a busy state.

    Subclasses create their widgets, call :meth:`setup` with the button and the alerts by field,
    set :attr:`busy` to the part of the page that shows the spinner, and implement
    :meth:`prepare`, :meth:`compute` and :meth:`show`.
    """

    action = "Analysing"
    """What the status line says while the work runs."""
    css = "bcm"
    """Prefix of the tab's css classes: ``<css>-status`` (the status line), ``<css>-warning``."""

    busy: Any = None
    """The part of the page that shows the spinner while the work runs (the results)."""
    cards: dict[str, Any] = {}  # noqa: RUF012 (read only; each tab sets its own)
    """The tab's :func:`option_card` by the field whose message they hold (opened for one)."""
    table: Any = None
    """The tab's text box for a pasted or uploaded table, if it has one (:meth:`load_upload`)."""

    def setup(self, button: Any, errors: dict[str, Any]) -> None:
        """Wire the run button; ``errors`` maps a field (and ``"run"``) to its alert."""
        self.button = button
        self.errors = errors
        self.status = pn.pane.Markdown("Ready.", css_classes=[f"{self.css}-status"],
                                       margin=(0, 10))
        self.notes = note_alert(f"{self.css}-warning")
        self.warnings: list[str] = []
        self._requested = 0
        self._running = 0
        self.last_error: str | None = None
        button.on_click(self.run_async)

    # ----------------------------------------------------------------- to implement
    def prepare(self) -> Any:
        """Read and check the fields; return the job (raise InputError on bad input)."""
        raise NotImplementedError

    def compute(self, job: Any) -> Any:
        """Do the slow work (in a worker thread: touch no widget here)."""
        raise NotImplementedError

    def show(self, result: Any) -> None:
        """Put the result on the page (on the event loop)."""
        raise NotImplementedError

    def field_of(self, err: BaseException) -> str:
        """Where a refusal of bayescm itself (not of the fields) is shown: ``"run"``."""
        return "run"

    def load_upload(self, data: Any) -> None:
        """Put an uploaded file's text into the tab's ``table`` box, or say why it cannot."""
        try:
            self.table.value = decode_upload(data, "the uploaded file", field="input")
        except InputError as err:
            self.report(err)

    # ----------------------------------------------------------------- mechanics
    def _clear(self) -> None:
        for alert in (*self.errors.values(), self.notes):
            set_message(alert, None)
        self.last_error = None

    def report(self, err: BaseException) -> None:
        """Show ``err`` next to its field (InputError) or under the run button."""
        if isinstance(err, InputError):
            field, text = err.field, str(err)
        elif isinstance(err, EXPECTED):
            field = self.field_of(err)
            text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
        else:
            LOG.error("unexpected error in the bayescm app", exc_info=err)
            field = "run"
            text = (f"Unexpected error ({type(err).__name__}: {err}). The page still works; "
                    "please report this with the input that caused it.")
        text = text[:1].upper() + text[1:] if text else type(err).__name__
        set_message(self.errors.get(field, self.errors["run"]), text)
        if field in self.cards:  # the message is in a closed card: open it
            self.cards[field].collapsed = False
        self.last_error = text
        self.status.object = "Not done: see the message in red."

    def _start(self) -> Any:
        self._clear()
        try:
            return self.prepare()
        except Exception as err:  # bad input never escapes to the server
            self.report(err)
            return None

    def _compute(self, job: Any) -> tuple[Any, BaseException | None, list[str]]:
        from bayescm.app.matrixjob import capture_warnings

        try:
            result, messages = capture_warnings(self.compute, job)
            return result, None, messages
        except Exception as err:
            return None, err, []

    def _finish(self, ticket: int, result: Any, err: BaseException | None,
                messages: list[str]) -> bool:
        if ticket != self._requested:  # a newer run was started meanwhile
            return False
        if err is not None:
            self.report(err)
            return False
        self.warnings = messages
        set_message(self.notes, "\n\n".join(f"Note: {m}" for m in messages) or None)
        try:
            self.show(result)
        except Exception as failure:  # a result that cannot be shown is reported, not raised
            self.report(failure)
            return False
        return True

    def run(self, event: Any = None) -> bool:
        """Check the fields, do the work and show it, all at once; True when it worked."""
        self._requested += 1
        ticket = self._requested
        job = self._start()
        if job is None:
            return False
        return self._finish(ticket, *self._compute(job))

    def _busy(self, on: bool) -> None:
        self._running += 1 if on else -1
        busy = self._running > 0
        if self.busy is not None:
            self.busy.loading = busy
        self.button.disabled = busy
        if on:
            self.status.object = f"{self.action} ..."

    async def run_async(self, event: Any = None) -> bool:
        """As :meth:`run`, with the work awaited in :data:`EXECUTOR` and a busy indicator."""
        self._requested += 1
        ticket = self._requested
        job = self._start()
        if job is None:
            return False
        self._busy(True)
        try:
            outcome = await asyncio.get_running_loop().run_in_executor(
                EXECUTOR, self._compute, job)
        finally:
            self._busy(False)
        return self._finish(ticket, *outcome)


class TableAndFigure(Controller):
    """A controller whose result is a table and one figure, beside its fields.

    After :meth:`Controller.setup`, :meth:`result_panes` creates :attr:`summary` (css class
    ``<css>-summary``) and :attr:`figure` (``<css>-figure``, hidden until there is one) and
    returns the column that shows them with the notes and the spinner; :meth:`put` shows a
    table with its caption and a PNG; a failure clears both before its message is shown.
    """

    summary: Any = None
    """The result table (an HTML pane)."""
    figure: Any = None
    """The result figure (a PNG pane)."""

    def result_panes(self, max_width: int = 720) -> Any:
        """Create the summary and figure panes; return the results column (also :attr:`busy`)."""
        self.summary = pn.pane.HTML("", css_classes=[f"{self.css}-summary"],
                                    sizing_mode="stretch_width")
        self.figure = pn.pane.PNG(None, css_classes=[f"{self.css}-figure"], visible=False,
                                  sizing_mode="scale_width", max_width=max_width)
        self.busy = pn.Column(self.notes, self.summary, self.figure, sizing_mode="stretch_width",
                              styles={"flex": "1 1 520px"}, min_width=420)
        return self.busy

    def put(self, table: Any, figure: bytes, caption: str) -> None:
        """Show ``table`` (a DataFrame) under ``caption`` and the PNG ``figure``; say done."""
        from bayescm.app.tables import table_html

        self.summary.object = table_html(table, caption=caption)
        self.figure.object, self.figure.visible = figure, True
        self.status.object = "Done."

    def report(self, err: BaseException) -> None:
        """Clear the last result, then show ``err`` as :meth:`Controller.report` does."""
        if self.summary is not None:
            self.summary.object = ""
            self.figure.object, self.figure.visible = None, False
        super().report(err)
