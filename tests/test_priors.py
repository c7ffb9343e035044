"""Prior objects: validation, parameterisations (checked against scipy), serialisation."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.priors import prior_to_dict, resolve_prior


def test_presets():
    assert (bcm.priors.Laplace().alpha, bcm.priors.Laplace().beta) == (1.0, 1.0)
    assert (bcm.priors.Jeffreys().alpha, bcm.priors.Jeffreys().beta) == (0.5, 0.5)
    assert (bcm.priors.Haldane().alpha, bcm.priors.Haldane().beta) == (0.0, 0.0)
    assert not bcm.priors.Haldane().proper
    assert bcm.priors.Jeffreys().proper


@pytest.mark.parametrize("name", ["laplace", "Jeffreys", " HALDANE ", "uniform"])
def test_string_names(name):
    assert isinstance(resolve_prior(name, "tpr"), bcm.Beta)


def test_unknown_name_lists_choices():
    with pytest.raises(ValueError, match=r"Unknown prior name 'flatish' for tpr; use one of .*jef"):
        resolve_prior("flatish", "tpr")


@pytest.mark.parametrize("text", ["0.9", " 1 ", "0"])
def test_a_rate_where_a_prior_belongs_is_told_how_to_write_it(text):
    number = float(text)
    with pytest.raises(ValueError, match=rf"is a number, not a prior.*bcm\.Fixed\({number:g}\)"
                                          rf".*fixed = {number:g}.*Beta\.from_mean"):
        resolve_prior(text, "tpr")
    # a number outside [0, 1] is no rate: the names only
    with pytest.raises(ValueError, match="Unknown prior name") as info:
        resolve_prior("2.5", "tpr")
    assert "is a number" not in str(info.value)


def test_wrong_type():
    with pytest.raises(TypeError, match="create_variable"):
        resolve_prior(3.0, "tnr")


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((0, 1), ValueError, "alpha must be > 0"),
        ((1, -1), ValueError, "beta must be > 0"),
        ((np.nan, 1), ValueError, "finite"),
        ((np.inf, 1), ValueError, "finite"),
        (("a", 1), TypeError, "real number"),
    ],
)
def test_beta_validation(args, error, message):
    with pytest.raises(error, match=message):
        bcm.Beta(*args)


def test_from_mean():
    prior = bcm.Beta.from_mean(0.9, concentration=20)
    assert (prior.alpha, prior.beta) == pytest.approx((18.0, 2.0))
    assert stats.beta(prior.alpha, prior.beta).mean() == pytest.approx(0.9)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        bcm.Beta.from_mean(1.0, 10)
    with pytest.raises(ValueError, match="concentration must be > 0"):
        bcm.Beta.from_mean(0.5, 0)


def test_from_counts_with_weight():
    assert bcm.Beta.from_counts(26, 0) == bcm.Beta(27, 1)
    half = bcm.Beta.from_counts(10, 4, weight=0.5, base=bcm.priors.Jeffreys())
    assert (half.alpha, half.beta) == (5.5, 2.5)
    with pytest.raises(ValueError, match="successes must be >= 0"):
        bcm.Beta.from_counts(-1, 2)
    with pytest.raises(TypeError, match="base must be a Beta"):
        bcm.Beta.from_counts(1, 2, base="laplace")


@pytest.mark.parametrize(
    ("lo", "hi", "mass"), [(0.7, 0.9, 0.95), (0.05, 0.3, 0.9), (0.4, 0.6, 0.5)]
)
def test_from_interval_matches_scipy_quantiles(lo, hi, mass):
    prior = bcm.Beta.from_interval(lo, hi, mass)
    dist = stats.beta(prior.alpha, prior.beta)
    assert dist.ppf((1 - mass) / 2) == pytest.approx(lo, abs=1e-6)
    assert dist.ppf((1 + mass) / 2) == pytest.approx(hi, abs=1e-6)
    assert dist.cdf(hi) - dist.cdf(lo) == pytest.approx(mass, abs=1e-6)


def test_from_interval_errors():
    with pytest.raises(ValueError, match="must be smaller than upper"):
        bcm.Beta.from_interval(0.9, 0.7)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        bcm.Beta.from_interval(0.0, 0.7)
    with pytest.raises(ValueError, match="mass must lie strictly"):
        bcm.Beta.from_interval(0.2, 0.7, mass=1.0)


@pytest.mark.parametrize(
    ("value", "message"),
    [(0.0, "strictly between 0 and 1"), (1.0, "strictly between"), (1.5, "strictly between"),
     (np.nan, "strictly between"), ([0.5, 0.6], "sum to 1"), ([1.0, 0.0], "> 0"),
     ([[0.5, 0.5]], "1-D"), ("half", "number or a vector")],
)
def test_fixed_validation(value, message):
    with pytest.raises((ValueError, TypeError), match=message):
        bcm.Fixed(value)


def test_dirichlet_validation():
    assert bcm.Dirichlet(2).vector(3).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match="> 0"):
        bcm.Dirichlet([1, 0])
    with pytest.raises(ValueError, match="3 entries but there are 4 classes"):
        bcm.Dirichlet([1, 1, 1]).vector(4)
    with pytest.raises(TypeError, match="numeric"):
        bcm.Dirichlet("flat")


def test_serialisation_is_json():
    for prior in (bcm.priors.Laplace(), bcm.Beta(2, 3), bcm.Fixed(0.3), bcm.Dirichlet([1, 2]),
                  bcm.priors.Haldane()):
        text = json.dumps(prior_to_dict(prior))
        assert json.loads(text)["name"] == prior.name


def test_custom_factory_serialisation():
    from pymc_extras.prior import Prior

    out = prior_to_dict(Prior("TruncatedNormal", mu=0.9, sigma=0.05, lower=0, upper=1))
    assert out["dist"] == "TruncatedNormal"


@pytest.mark.parametrize(("lower", "upper", "mass"), [
    (0.0001, 0.0003, 0.95), (1e-5, 2e-5, 0.9), (1e-6, 3e-6, 0.95), (1 - 3e-6, 1 - 1e-6, 0.95),
    (0.7, 0.9, 0.95), (0.2, 0.99, 0.8), (0.4, 0.6, 0.5)])
def test_interval_elicitation_is_exact_on_the_probability_scale(lower, upper, mass):
    from scipy import stats

    prior = bcm.Beta.from_interval(lower, upper, mass)
    dist = stats.beta(prior.alpha, prior.beta)
    tail = (1 - mass) / 2
    assert dist.cdf(lower) == pytest.approx(tail, rel=1e-5)
    assert dist.sf(upper) == pytest.approx(tail, rel=1e-5)


def test_interval_elicitation_rare_disease_prevalence():
    prior = bcm.Beta.from_interval(0.0001, 0.0003)
    assert prior.alpha == pytest.approx(13.2, abs=0.05)
    assert prior.beta == pytest.approx(70757, rel=1e-3)
