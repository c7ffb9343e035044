"""A new pooled kind, registered from outside the package, runs through summary, figures and a spec.

Issue 29: kinds declare what callers need (``pooled_groups``, ``analyses``, ``figures``,
``standard_pipeline``) and callers ask. The toy kind below is the "two-extremes" analysis of
several sites' binary matrices: each site's rates from its own counts alone (no pooling), and
the population rows (``tpr_mean``, ``tnr_mean``, ``tpr_new``, ``tnr_new``) from all counts put
together (complete pooling, where a new site is assumed to be like the pooled one). It is exact
(conjugate Beta posteriors), so the test needs no NUTS. Nothing below the class names the kind's
key except the user's own ``model=`` and spec option: if the summary, the figures or the spec
runner branched on ``"hierarchical"``, the kind would fail here.
"""

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest
import xarray as xr

import bayescm as bcm
from bayescm.core.confusion import as_batch
from bayescm.metrics import BINARY_METRICS
from bayescm.models import ModelKind, Parameter, register, registry
from bayescm.models.pooled import POPULATION_ROWS, check_group_name, pooled_result

SITES = {"a": (45, 5, 8, 92), "b": (30, 6, 12, 70), "c": (60, 4, 9, 120), "d": (18, 5, 3, 40)}


def _sites() -> dict[str, bcm.ConfusionMatrix]:
    return {k: bcm.ConfusionMatrix.from_counts(tp=tp, fn=fn, fp=fp, tn=tn)
            for k, (tp, fn, fp, tn) in SITES.items()}


class ExtremesModel(ModelKind):
    """No pooling for the groups, complete pooling for the population rows (exact)."""

    key = "extremes"
    description = "a no-pooling / complete-pooling fit of several groups"
    standard_pipeline = False
    pooled_groups = True
    default_draws = 2000
    parameters = (Parameter("tpr", (), "true positive rate of each group", None),
                  Parameter("tnr", (), "true negative rate of each group", None),
                  Parameter("prevalence", (), "prevalence of each group", None))
    analyses = frozenset({"summary", "informedness", "prob_superior", "group_gaps"})
    figures = ("group_forest",)
    catalogue = BINARY_METRICS

    def __init__(self, labels: Any, group: str | None = None) -> None:
        super().__init__(labels)
        self.group = group

    @classmethod
    def from_data(cls, data: Any) -> "ExtremesModel":
        _, mats = as_batch(data)
        return cls(mats[0].coords)

    @property
    def batch_dims(self) -> tuple[str, ...]:
        return (self.group or "classifier",)

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Any) -> "ExtremesModel":
        return cls(labels, group=attrs.get("group"))

    def root_attrs(self) -> dict[str, Any]:
        return {"positive": self.labels[0], **({"group": self.group} if self.group else {})}

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        return {p: bcm.Beta(1, 1) for p in self.prior_arguments}

    def build_pymc(self, names, counts, priors):  # pragma: no cover - exact only
        raise NotImplementedError

    def observed(self, counts, priors):  # pragma: no cover - its own fit
        raise NotImplementedError

    def derive(self, params, priors, selected, theta=None, skip=None):  # pragma: no cover
        raise NotImplementedError

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> xr.DataTree:
        self.group = check_group_name(options.get("group"), self.key)
        counts = np.asarray(ctx.counts, dtype=float)  # (G, 2, 2)
        tp, fn, fp, tn = counts[:, 0, 0], counts[:, 0, 1], counts[:, 1, 0], counts[:, 1, 1]
        rng = np.random.default_rng(ctx.seed)
        shape = (ctx.chains, ctx.draws, len(tp))
        params = {"tpr": rng.beta(1 + tp, 1 + fn, shape), "tnr": rng.beta(1 + tn, 1 + fp, shape),
                  "prevalence": rng.beta(1 + tp + fn, 1 + fp + tn, shape)}
        pooled = {"tpr": rng.beta(1 + tp.sum(), 1 + fn.sum(), shape[:2]),
                  "tnr": rng.beta(1 + tn.sum(), 1 + fp.sum(), shape[:2])}
        population = {}
        for rate, (centre, new) in POPULATION_ROWS.items():
            population[centre] = ((), pooled[rate], f"{rate} of all groups together")
            population[new] = ((), pooled[rate].copy(), f"{rate} of a new group (no spread)")
        return pooled_result(ctx, self.group, params, population, method="exact")


@pytest.fixture(autouse=True, scope="module")
def _registered():
    register(ExtremesModel)
    yield
    registry.unregister("extremes")


@pytest.fixture(scope="module")
def fitted() -> xr.DataTree:
    return bcm.fit(_sites(), model="extremes", group="site", draws=2000, random_seed=3)


def test_the_pooled_kind_fits_and_summarises(fitted) -> None:
    assert fitted.attrs["model"] == "extremes" and fitted.attrs["group"] == "site"
    table = bcm.summary(fitted, var_names=["tpr", "ppv"])
    assert len(table) == 2 * len(SITES)  # a row per site and metric
    means = fitted["posterior"]["tpr"].mean(("chain", "draw")).values
    exact = [(1 + tp) / (2 + tp + fn) for tp, fn, _, _ in SITES.values()]
    np.testing.assert_allclose(means, exact, atol=0.01)
    assert float(fitted["observed_metrics"]["tpr"].sel(site="d")) == pytest.approx(18 / 23)


def test_the_pooled_kind_compares_its_groups(fitted) -> None:
    # prob_superior and the gaps treat the groups as exchangeable rows of one fit
    p = bcm.compare.prob_superior(fitted, "c", "d", metric="tpr")
    draws = fitted["posterior"]["tpr"]
    assert p == pytest.approx(float((draws.sel(site="c") > draws.sel(site="d")).mean()))
    assert p > 0.9  # 60/64 against 18/23
    gaps = bcm.compare.group_gaps(fitted, "c", "tpr_gap", epsilon=0.05)
    assert {"a", "b", "d"} <= {str(v) for v in gaps["site"].values}


def test_the_pooled_kind_draws_its_declared_figures(fitted) -> None:
    fig = bcm.plots.plot_group_forest(fitted, var=["tpr", "tnr"])
    labels = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
    assert {"a", "b", "c", "d", "pooled", "new site"} <= set(labels)
    plt.close(fig)
    with pytest.raises(ValueError, match=r"sroc|summary ROC"):
        bcm.plots.plot_sroc(fitted)  # not declared: refused by name, not a KeyError later


# slow: runs a whole spec; the slow run (CI) checks it
@pytest.mark.slow
def test_a_spec_runs_the_pooled_kind(tmp_path) -> None:
    spec = bcm.spec.parse_spec({
        "data": {"classifiers": {k: dict(zip(("tp", "fn", "fp", "tn"), v, strict=True))
                                 for k, v in SITES.items()}},
        "options": {"model": "extremes", "group": "site", "seed": 5},
        "outputs": {"figures": ["group_forest"]}}, name="sites")
    assert spec.figures == ("group_forest",)  # the kind's declaration, not hierarchical's
    idata = spec.run(tmp_path, draws=500)
    assert idata.attrs["model"] == "extremes"
    written = {p.name for p in tmp_path.rglob("*")}
    assert {"group_forest.png", "summary.csv", "sites.nc"} <= written, written


def test_a_spec_checks_the_pooled_kind_by_its_declarations() -> None:
    data = {"classifiers": {k: dict(zip(("tp", "fn", "fp", "tn"), v, strict=True))
                            for k, v in SITES.items()}}
    default = bcm.spec.parse_spec({"data": data, "options": {"model": "extremes",
                                                             "group": "site"}}, name="s")
    assert default.figures == ExtremesModel.figures
    with pytest.raises(bcm.errors.SpecError, match=r"options\.model = 'extremes' needs group"):
        bcm.spec.parse_spec({"data": data, "options": {"model": "extremes"}}, name="s")
    with pytest.raises(bcm.errors.SpecError, match=r"'sroc' is not a figure of this model; a "
                                                   r"fit of model = 'extremes' has group_forest"):
        bcm.spec.parse_spec({"data": data, "options": {"model": "extremes", "group": "site"},
                             "outputs": {"figures": ["sroc"]}}, name="s")
    with pytest.raises(bcm.errors.SpecError, match=r"unknown key 'mu_logit_tpr' in \[priors\]"):
        bcm.spec.parse_spec({"data": data, "options": {"model": "extremes", "group": "site"},
                             "priors": {"mu_logit_tpr": {"dist": "Normal", "mu": 0,
                                                         "sigma": 1}}}, name="s")
