"""NUTS fits say when they cannot be trusted, keep what custom priors create, check dims first."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import bayescm as bcm
from bayescm.errors import ConvergenceWarning
from bayescm.models.nuts import bfmi, warn_convergence


def _stats(diverging: int = 0, energy: np.ndarray | None = None) -> xr.Dataset:
    rng = np.random.default_rng(0)
    div = np.zeros((2, 500), dtype=bool)
    div.flat[:diverging] = True
    energy = rng.normal(size=(2, 500)) if energy is None else energy
    return xr.Dataset({"diverging": (("chain", "draw"), div),
                       "energy": (("chain", "draw"), energy)})


def test_divergences_warn_with_the_remedy():
    with pytest.warns(ConvergenceWarning, match=r"228 divergent transitions.*target_accept"):
        warn_convergence(_stats(228), {"tpr": (np.array(1.0), np.array(900.0))}, 0.9)


def test_low_bfmi_high_rhat_low_ess_warn():
    walk = np.cumsum(np.random.default_rng(1).normal(size=(2, 500)), axis=1)  # sticky energy
    assert bfmi(walk).min() < 0.3
    rng = np.random.default_rng(2)
    sticky = np.cumsum(rng.normal(size=(2, 500)), axis=1) * 0.05  # poor mixing: low ESS
    sticky[1] += 1.0  # and the chains disagree
    with pytest.warns(ConvergenceWarning) as record:
        problems = warn_convergence(_stats(0, walk), {"tpr": sticky}, 0.9)
    text = " ".join(str(w.message) for w in record)
    assert len(problems) == 4
    assert "E-BFMI" in text and "R-hat" in text and "bulk ESS" in text and "tail ESS" in text


def test_an_r_hat_just_over_the_limit_is_not_printed_as_the_limit(monkeypatch):
    from bayescm.core import diagnostics
    from bayescm.models.nuts import convergence_problems

    good = np.random.default_rng(4).normal(size=(4, 500))
    monkeypatch.setattr(diagnostics, "rhat", lambda x, method: np.array(1.0104))
    (problem,) = [p for p in convergence_problems(_stats(0), {"accuracy": good}, 0.9)
                  if p.startswith("R-hat")]
    assert problem.startswith("R-hat 1.0104 > 1.01 for accuracy")
    monkeypatch.setattr(diagnostics, "rhat", lambda x, method: np.array(1.25))
    assert convergence_problems(_stats(0), {"accuracy": good}, 0.9)[0].startswith(
        "R-hat 1.25 > 1.01")


def test_clean_fit_is_silent():
    good = np.random.default_rng(3).normal(size=(4, 1000))
    assert warn_convergence(_stats(0), {"tpr": good}, 0.9) == []


def test_custom_multiclass_prevalence_needs_the_class_dim_before_sampling():
    from pymc_extras.prior import Prior

    cm = bcm.ConfusionMatrix([[9, 1, 0], [2, 7, 1], [0, 1, 5]], labels=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"must have dims \('class',\).*before sampling"):
        bcm.build_model(cm, priors={"prevalence": Prior("Dirichlet", a=[1.0, 1.0, 1.0])})
    model = bcm.build_model(cm, priors={"prevalence": Prior("Dirichlet", a=[1.0, 1.0, 1.0],
                                                            dims="class")})
    assert model.named_vars_to_dims["prevalence"] == ("class",)


@pytest.mark.slow
def test_custom_prior_variables_are_kept():
    from pymc_extras.prior import Prior

    cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    tree = bcm.fit(cm, priors={"tnr": Prior("Beta", alpha=Prior("HalfNormal", sigma=3), beta=2)},
                   draws=500, chains=2, cores=1, random_seed=1)
    assert "tnr_alpha" in tree["posterior"]
    assert "tnr_alpha" in bcm.summary(tree).index
