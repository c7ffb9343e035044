"""Every public plot function refuses bad arguments with an error that names them (one check).

The classes of bad argument: an ``ax`` (or ``axes``) that is not an Axes, an empty selection
(``var_names=[]``, ``classifier=[]``, ...), a result of the wrong kind, an unknown keyword and a
``figsize`` that is not two positive numbers. Each was a raw or misleading message somewhere
(``'str' object has no attribute 'plot'``, ``Number of rows must be a positive integer``,
``metrics compared: .``); the checks live once in :func:`bayescm.plots._checks.plot_function`,
and the last test makes sure every public plot function goes through it.
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import bayescm as bcm
from bayescm import plots
from bayescm.models import registry
from bayescm.plots._checks import SELECTIONS
from bayescm.plots._grid import plot_forests
from conftest import synthetic_items_fit, synthetic_pooled_fit


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@cache
def binary() -> Any:
    return bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=200,
                   random_seed=1)


@cache
def scores() -> Any:
    from bayescm.models.scores import ScoresModel

    return ScoresModel.example()


@cache
def decision() -> Any:
    return bcm.net_benefit(scores(), thresholds=[0.1, 0.2, 0.3])


@cache
def costs() -> Any:
    return bcm.cost_curve(binary(), points=11)


@cache
def calibration() -> Any:
    rng = np.random.default_rng(0)
    risk = rng.beta(2, 5, 200)
    data = bcm.Scores(rng.random(200) < risk, {"A": risk, "B": risk ** 0.8})
    with warnings.catch_warnings():  # few draws: the figure, not the estimate, is checked
        warnings.simplefilter("ignore")
        return bcm.fit(data, method="calibration", draws=100, chains=2, tune=200,
                       random_seed=1)


@cache
def paired() -> Any:
    return bcm.compare.compare_paired_counts(700, 60, 20, 220, rope=0.01, random_seed=0)


@cache
def sites() -> Any:
    return synthetic_pooled_fit()  # the layout of a hierarchical fit, without NUTS


@cache
def items() -> Any:
    return synthetic_items_fit(bcm.datasets.eval_log())


@cache
def raters() -> Any:
    from bayescm.models.latent_examples import example_tree

    return example_tree()  # the layout of a Dawid-Skene fit, without NUTS


@cache
def hui_walter_fit() -> Any:
    from bayescm.models.hui_walter import HuiWalterModel
    from bayescm.models.latent_examples import tree_near_em

    return tree_near_em(HuiWalterModel.example_data())  # a Hui-Walter fit's layout, no NUTS


def _ranks() -> Any:
    return bcm.leaderboard({"a": 0.91, "b": 0.90, "c": 0.89}, n=1000, random_seed=0)


def _assurance() -> Any:
    return bcm.samplesize.assurance(claim="tpr > 0.8", n=[20, 50, 100],
                                    design={"tpr": bcm.Beta(45, 5)})


def _stopping() -> Any:
    return bcm.samplesize.sequential([85, 8, 12, 15], "b > a", look_every=40, max_more=200,
                                     n_streams=100, random_seed=0)


def _corrected() -> Any:
    return bcm.true_prevalence(142, 742, tpr=bcm.Beta(90, 10), tnr=bcm.Beta(95, 5), draws=100,
                               random_seed=0)


def _curve() -> dict[str, Any]:
    return {"n": np.array([10, 100, 1000]), "mu": np.array([0.5, 0.2, 0.06])}


CALLS: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
    "plot_metric": (plots.plot_metric, lambda: (binary(), "tpr")),
    "plot_metrics": (plots.plot_metrics, lambda: (binary(), ["tpr", "tnr"])),
    "plot_forest": (plots.plot_forest, lambda: (binary(), ["tpr", "tnr"])),
    "plot_forests": (plot_forests, lambda: (binary(), ["tpr", "bm"])),
    "plot_theta": (plots.plot_theta, lambda: (binary(),)),
    "plot_priors": (plots.plot_priors, lambda: (binary(), ["tpr"])),
    "plot_paired": (plots.plot_paired, lambda: (paired(), "acc")),
    "plot_rank_probabilities": (plots.plot_rank_probabilities, lambda: (_ranks(),)),
    "plot_sample_size": (plots.plot_sample_size, lambda: (_curve(),)),
    "plot_roc": (plots.plot_roc, lambda: (scores(),)),
    "plot_pr": (plots.plot_pr, lambda: (scores(),)),
    "plot_reliability": (plots.plot_reliability, lambda: (scores(),)),
    "plot_delta_auc": (plots.plot_delta_auc, lambda: (scores(), "B", "A")),
    "plot_decision_curve": (plots.plot_decision_curve, lambda: (decision(),)),
    "plot_delta_net_benefit": (plots.plot_delta_net_benefit, lambda: (decision(),)),
    "plot_evpi": (plots.plot_evpi, lambda: (decision(),)),
    "plot_cost_curve": (plots.plot_cost_curve, lambda: (costs(),)),
    "plot_calibration_curve": (plots.plot_calibration_curve, lambda: (calibration(),)),
    "plot_sroc": (plots.plot_sroc, lambda: (sites(),)),
    "plot_group_forest": (plots.plot_group_forest, lambda: (sites(), "tpr")),
    "plot_group_gaps": (plots.plot_group_gaps, lambda: (sites(), "tpr_gap")),
    "plot_assurance": (plots.plot_assurance, lambda: (_assurance(),)),
    "plot_stopping": (plots.plot_stopping, lambda: (_stopping(),)),
    "plot_items_accuracy": (plots.plot_items_accuracy, lambda: (items(),)),
    "plot_items_differences": (plots.plot_items_differences, lambda: (items(),)),
    "plot_items_ranks": (plots.plot_items_ranks, lambda: (items(),)),
    "plot_pass_at_k": (plots.plot_pass_at_k, lambda: (items(),)),
    "plot_corrected": (plots.plot_corrected, lambda: (_corrected(),)),
    "plot_rater_rates": (plots.plot_rater_rates, lambda: (raters(),)),
    "plot_item_classes": (plots.plot_item_classes, lambda: (raters(),)),
    "plot_test_rates": (plots.plot_test_rates, lambda: (hui_walter_fit(),)),
}
"""A call of each public plot function that draws (the cases below spoil one argument)."""

WRONG_KIND = {"plot_paired": binary, "plot_roc": binary, "plot_pr": paired,
              "plot_reliability": paired, "plot_delta_auc": binary, "plot_sroc": binary,
              "plot_group_forest": scores, "plot_theta": scores, "plot_items_accuracy": binary,
              "plot_items_differences": scores, "plot_items_ranks": sites,
              "plot_pass_at_k": binary, "plot_corrected": binary, "plot_rater_rates": items,
              "plot_item_classes": binary, "plot_test_rates": raters}
"""Plots of one kind of result, and a result of another kind."""


NUTS_BUILT = {"plot_calibration_curve"}
"""Plots whose example result is a NUTS fit: checked with the slow run (the fast suite fits
nothing with NUTS)."""


def _slow(names: Any) -> list[Any]:
    """``names`` as parameters, those whose example needs NUTS marked slow."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in NUTS_BUILT else n for n in names]


def _params(name: str) -> set[str]:
    return set(inspect.signature(CALLS[name][0]).parameters)


def test_every_public_plot_is_covered_and_goes_through_the_shared_check():
    figures = {name for name in plots.__all__ if name.startswith("plot_")}
    assert set(CALLS) == figures
    for name, (func, _) in CALLS.items():
        assert getattr(func, "__bcm_checked__", False), f"{name} skips plot_function"


@pytest.mark.parametrize("name", _slow(sorted(CALLS)))
def test_the_good_call_draws(name):
    func, args = CALLS[name]
    assert func(*args()) is not None


@pytest.mark.parametrize("name", _slow(sorted(n for n in CALLS if "ax" in _params(n))))
@pytest.mark.parametrize("bad", ["x", 3, [1, 2]])
def test_an_ax_that_is_not_axes_is_named(name, bad):
    func, args = CALLS[name]
    with pytest.raises(TypeError, match=rf"^{name}: ax= takes the matplotlib Axes .* got "
                                        rf"{type(bad).__name__} "):
        func(*args(), ax=bad)


@pytest.mark.parametrize("name", _slow(sorted(n for n in CALLS if "axes" in _params(n))))
def test_axes_that_are_not_axes_are_named(name):
    func, args = CALLS[name]
    with pytest.raises(TypeError, match=rf"^{name}: axes= takes matplotlib Axes"):
        func(*args(), axes="x")
    with pytest.raises(TypeError, match=r"got list \[1\]"):
        func(*args(), axes=[1])


@pytest.mark.parametrize(("name", "arg"), [
    pytest.param(n, a, marks=pytest.mark.slow) if n in NUTS_BUILT else (n, a)
    for n, a in sorted((n, a) for n in CALLS for a in SELECTIONS if a in _params(n))])
def test_an_empty_selection_says_what_to_name(name, arg):
    func, args = CALLS[name]
    given = list(args())
    names = list(inspect.signature(func).parameters)
    kwargs = {}
    if arg in names[:len(given)]:  # the selection is one of the positional arguments
        given[names.index(arg)] = []
    else:
        kwargs[arg] = []
    with pytest.raises(ValueError, match=rf"^{name}: {arg}=\[\] selects no .* leave {arg} out"):
        func(*given, **kwargs)


@pytest.mark.parametrize("name", _slow(sorted(WRONG_KIND)))
def test_a_result_of_the_wrong_kind_is_named_with_the_remedy(name):
    func, args = CALLS[name]
    given = list(args())
    other = WRONG_KIND[name]()
    kind = registry.kind_of(other).description
    with pytest.raises(ValueError, match=rf"^{name} draws .*; this is {re.escape(kind)}\. "):
        func(other, *given[1:])


def test_the_examples_of_the_issue():
    with pytest.raises(TypeError, match=r"plot_roc: ax= takes .* got str 'x'"):
        plots.plot_roc(scores(), ax="x")
    with pytest.raises(ValueError, match=r"plot_metrics: var_names=\[\] selects no metric"):
        plots.plot_metrics(binary(), [])
    with pytest.raises(ValueError, match=r"plot_paired draws a paired comparison .* this is a "
                                         r"binary fit\. Make one with bcm\.compare_paired"):
        plots.plot_paired(binary())
    with pytest.raises(TypeError, match="not str 'x'"):
        bcm.rc_context("x")


@pytest.mark.parametrize("name", _slow(sorted(CALLS)))
def test_unknown_keywords_list_the_valid_ones(name):
    func, args = CALLS[name]
    with pytest.raises(TypeError, match=rf"{name}\(\) got an unknown keyword argument 'colour'"
                                        r"; valid keywords: "):
        func(*args(), colour="red")


@pytest.mark.parametrize("name", _slow(sorted(n for n in CALLS if "figsize" in _params(n))))
def test_a_bad_figsize_is_named(name):
    func, args = CALLS[name]
    with pytest.raises(ValueError, match="figsize must be"):
        func(*args(), figsize=(3.5, -1))


def test_a_list_of_axes_where_the_function_takes_one():
    fig, axes = plt.subplots(1, 2)
    with pytest.raises(TypeError, match=r"plot_metric: ax= takes the matplotlib Axes"):
        plots.plot_metric(binary(), "tpr", ax=axes)
    # the group forest of several variables takes one Axes per variable
    drawn = plots.plot_group_forest(sites(), ["tpr", "tnr"], ax=list(axes))
    assert drawn is fig
    with pytest.raises(TypeError, match=r"or a list of Axes, one per variable"):
        plots.plot_group_forest(sites(), ["tpr", "tnr"], ax=["a", "b"])


def test_a_planning_curve_is_not_a_fit():
    with pytest.raises(TypeError, match="draws a planning curve, not a fit"):
        plots.plot_sample_size(binary())
