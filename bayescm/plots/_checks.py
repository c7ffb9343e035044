"""The checks every public plot function shares, made once: :func:`plot_function`.

A plot function is called with the wrong things in a few recurring ways: an ``ax`` that is
not an Axes (``ax="x"`` used to fail deep inside with ``'str' object has no attribute
'plot'``), an empty selection (``var_names=[]`` used to reach matplotlib as "Number of rows
must be a positive integer"), a result of the wrong kind (a binary fit given to
``plot_paired`` used to say "metrics compared: ." ), an unknown keyword, or a ``figsize`` that
is not two positive numbers. :func:`plot_function` checks the arguments of those names before
the plot draws, and raises an error that names the argument and what to pass instead; it also
draws with the text sizes of ``rcParams["plot.preset"]`` (:func:`~._style.preset_style`) and
finishes the figure once, after the outermost plot: panels of one quantity on one range,
labels wrapped to their room.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescm.core.arguments import keyword_checked
from bayescm.plots._layout import check_figsize, fit_labels, join_panels
from bayescm.plots._style import preset_style

__all__ = ["Needs", "check_ax", "check_axes", "check_kind", "check_selection", "plot_function"]

_DRAWING = threading.local()
"""Per thread, how many plot functions are drawing (a grid's panels are drawn by plot functions
too): the figure is finished once, by the outermost."""

SELECTIONS = {"var_names": "metric", "var": "metric", "classifier": "classifier",
              "class_": "class"}
"""Arguments that select what to draw (None: the default), and what each names."""


@dataclass(frozen=True)
class Needs:
    """The kind of result a plot draws.

    Attributes
    ----------
    capability : str or None
        What a kind must declare in its ``analyses`` for the plot to draw its results
        (``"curve_bands"``, ``"sroc_regions"``, ``"paired_comparison"``, ``"theta"``): the
        kinds say what they hold, the plots ask. None: see ``pooled``.
    what : str
        What it draws, for the message: ``"a paired comparison"``.
    remedy : str
        How to make such a result.
    argument : str
        The argument that holds the result.
    variable : str or None
        A posterior variable that also qualifies a result of another kind (a kind registered
        by a user), unless the kind pools groups.
    pooled : bool
        Any kind that declares ``pooled_groups`` qualifies (per-group rows with the
        population's pooled and new-group rows, :mod:`bayescm.models.pooled`).
    """

    capability: str | None
    what: str
    remedy: str
    argument: str = "idata"
    variable: str | None = None
    pooled: bool = False


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_ax(func: str, ax: Any, many: bool = False) -> None:
    """``ax`` is None or a matplotlib Axes (``many``: or a sequence of Axes), else TypeError.

    Examples
    --------
    >>> from bayescm.plots._checks import check_ax
    >>> check_ax("plot_roc", "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: plot_roc: ax= takes the matplotlib Axes to draw on ...; got str 'x'.
    """
    from matplotlib.axes import Axes

    if ax is None or isinstance(ax, Axes):
        return
    if (many and isinstance(ax, (Sequence, np.ndarray)) and not isinstance(ax, str)
            and all(isinstance(a, Axes) for a in np.ravel(np.asarray(ax, dtype=object)))):
        return
    takes = "the matplotlib Axes" + (" (or a list of Axes, one per variable)" if many else "")
    raise TypeError(f"{func}: ax= takes {takes} to draw on (fig, ax = plt.subplots()), or None "
                    f"for a new figure; got {type(ax).__name__} {_shown(ax)}.")


def check_axes(func: str, axes: Any) -> None:
    """``axes`` is None or Axes (an array, a list or one), else TypeError.

    Examples
    --------
    >>> from bayescm.plots._checks import check_axes
    >>> check_axes("plot_metrics", [1, 2])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: plot_metrics: axes= takes matplotlib Axes to draw on, ...; got list [1, 2].
    """
    from matplotlib.axes import Axes

    if axes is None:
        return
    flat = [] if isinstance(axes, str) else list(np.ravel(np.asarray(axes, dtype=object)))
    if flat and all(isinstance(a, Axes) for a in flat):
        return
    raise TypeError(f"{func}: axes= takes matplotlib Axes to draw on, one per panel (fig, axes = "
                    f"plt.subplots(1, 3)), or None for a new figure; got "
                    f"{type(axes).__name__} {_shown(axes)}.")


def check_selection(func: str, name: str, value: Any) -> None:
    """A selection that selects nothing (``[]``, ``""``) is a ValueError that says what to pass.

    Examples
    --------
    >>> from bayescm.plots._checks import check_selection
    >>> check_selection("plot_metrics", "var_names", [])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: plot_metrics: var_names=[] selects no metric; name at least one (e.g. ...
    """
    empty = (isinstance(value, str) and not value.strip()) or (
        isinstance(value, (list, tuple, set, frozenset, np.ndarray)) and len(value) == 0)
    if not empty:
        return
    what = SELECTIONS[name]
    example = {"metric": "['tpr', 'tnr']", "classifier": "['A', 'B']",
               "class": "['cat', 'dog']"}[what]
    raise ValueError(f"{func}: {name}={value!r} selects no {what}; name at least one (e.g. "
                     f"{example}), or leave {name} out for the default.")


def check_kind(func: str, tree: Any, needs: Needs) -> None:
    """A result of a kind the plot does not draw is a ValueError naming both and the remedy.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots._checks import Needs, check_kind
    >>> fit = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
    >>> check_kind("plot_paired", fit, Needs("paired_comparison", "a paired comparison",
    ...                                       "Make one with compare_paired.", "result"))
    Traceback (most recent call last):
    ...
    ValueError: plot_paired draws a paired comparison; this is a binary fit. Make one with ...
    """
    from bayescm.core import container as box
    from bayescm.models import registry

    box.check_tree(tree)
    try:
        kind = registry.kind_of(tree)
    except Exception:  # a tree of a foreign or older layout: the plot says what it misses
        return
    if needs.capability in kind.analyses or (needs.pooled and kind.pooled_groups):
        return
    if needs.variable is not None and not kind.pooled_groups and box.has_group(
            tree, "posterior") and needs.variable in box.get_group(tree, "posterior"):
        return
    raise ValueError(f"{func} draws {needs.what}; this is {kind.description}. {needs.remedy}")


def plot_function[F: Callable[..., Any]](needs: Needs | None = None, *, many_ax: bool = False
                                         ) -> Callable[[F], F]:
    """Decorator of the public plot functions: check the shared arguments, draw in the preset.

    Before the plot draws: unknown keywords (listing the valid ones), ``ax`` (an Axes, or with
    ``many_ax`` a list of them), ``axes``, ``figsize``, empty selections (``var_names``,
    ``var``, ``classifier``, ``class_``) and, given ``needs``, the kind of the result. The plot
    then draws with the text sizes of ``rcParams["plot.preset"]``; afterwards the panels of its
    figure that show the same quantity are put on one x-range
    (:func:`~bayescm.plots._layout.join_panels`) and labels longer than their room wrap
    (:func:`~bayescm.plots._layout.fit_labels`).

    Examples
    --------
    >>> from bayescm.plots._checks import plot_function
    >>> @plot_function()
    ... def plot_nothing(ax=None, var_names=None):
    ...     return ax
    >>> plot_nothing(ax=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: plot_nothing: ax= takes the matplotlib Axes to draw on ...; got int 3.
    >>> plot_nothing(axes=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: plot_nothing() got an unknown keyword argument 'axes'; valid keywords: ax, ...
    """
    def decorate(func: F) -> F:
        checked = keyword_checked(func)
        sig = inspect.signature(func)
        name = func.__name__

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:  # an unknown keyword (listed) or a missing argument (Python's)
                return checked(*args, **kwargs)
            given = bound.arguments
            if needs is not None and needs.argument in given:
                check_kind(name, given[needs.argument], needs)
            if "ax" in given:
                check_ax(name, given["ax"], many_ax)
            if "axes" in given:
                check_axes(name, given["axes"])
            if "figsize" in given:
                check_figsize(given["figsize"])
            for arg in SELECTIONS:
                if arg in given:
                    check_selection(name, arg, given[arg])
            depth = getattr(_DRAWING, "depth", 0)
            _DRAWING.depth = depth + 1
            try:
                with preset_style():
                    drawn = func(*args, **kwargs)
            finally:
                _DRAWING.depth = depth
            from matplotlib.artist import Artist

            if depth == 0 and isinstance(drawn, Artist):  # the outermost plot: its figure
                figure = drawn.get_figure(root=True)
                join_panels(figure)  # panels of the same quantity, this one too: one range
                fit_labels(figure)  # a label longer than its panel wraps
            return drawn

        wrapper.__bcm_checked__ = True  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


SCORES = Needs("curve_bands", "the curves and AUCs of a scores fit",
               "Fit labels and scores first: bcm.fit(bcm.Scores(y_true, scores)), or "
               "bcm.Scores.from_csv(path, label=..., score=[...]) for a file.")
HIERARCHICAL = Needs("sroc_regions", "a hierarchical fit of several groups",
                     "Fit the groups' matrices together: bcm.fit(matrices, "
                     "model='hierarchical', group='study'); a fit of separate matrices is "
                     "drawn with plot_forest.")
POOLED_GROUPS = Needs(None, "a fit that pools several groups",
                      "Fit the groups' matrices together: bcm.fit(matrices, "
                      "model='hierarchical', group='study'); a fit of separate matrices is "
                      "drawn with plot_forest.", pooled=True)
PAIRED = Needs("paired_comparison", "a paired comparison of two classifiers on one test set",
               "Make one with bcm.compare_paired(y_true, pred_a, pred_b) (or "
               "bcm.compare.compare_paired_counts); fits on separate test sets are compared with "
               "bcm.prob_superior, or drawn together with plot_metrics(fit, "
               "classifier=['A', 'B']).", argument="result")
ITEMS = Needs("item_level", "an item-level evaluation fit",
              "Fit an evaluation log: bcm.fit(bcm.Items(frame, outcome=..., item=..., "
              "system=...)), or bcm.Items.from_csv(path, ...) for a file.")
RATERS = Needs("rater_rates", "a Dawid-Skene fit of raters",
               "Fit ratings without a gold standard: bcm.fit(bcm.Ratings(frame, item=..., "
               "rater=..., rating=...)).")
TESTS = Needs("test_rates", "a Hui-Walter fit of tests without a gold standard",
              "Fit test results without a gold standard: bcm.fit(bcm.TestResults(frame, "
              "tests=[...], population=...)).")
THETA = Needs("theta", "the confusion probability matrix of a binary or "
              "multiclass fit", "Fit a confusion matrix: bcm.fit(bcm.ConfusionMatrix(...)).",
              variable="theta")
"""What the plots of one kind of result need (:func:`check_kind`)."""
