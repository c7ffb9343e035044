"""Priors that act: create_variable, to_dict / from_dict, closed-form update, draws, PreliZ."""

from __future__ import annotations

import json

import numpy as np
import pymc as pm
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.io.spec_parse import parse_prior
from bayescm.priors import (
    PresetDirichlet,
    PriorFormError,
    PriorSpec,
    RatesByClass,
    from_dict,
    prior_to_dict,
    resolve_multiclass_priors,
    resolve_prior,
)

COCAINE = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
LABELS3 = ["a", "b", "c"]


def _multiclass_priors():
    out = []
    for k in (2, 3, 5):
        labels = [str(i) for i in range(k)]
        for preset in ("weak", "laplace", "jeffreys", "flat", "haldane"):
            chosen = resolve_multiclass_priors(labels, preset)
            out += [chosen["prevalence"], chosen["rates"]]
    return out


EVERY_PRIOR = [
    bcm.Beta(2, 3), bcm.Beta.from_mean(0.9, 20), bcm.priors.Laplace(), bcm.priors.Jeffreys(),
    bcm.priors.Haldane(),
    bcm.priors.Weak(), bcm.priors.Flat(), bcm.Fixed(0.3), bcm.Fixed([0.2, 0.3, 0.5]),
    bcm.Dirichlet(2.0),
    bcm.Dirichlet([1, 2, 3]), PresetDirichlet("jeffreys", 0.5), PresetDirichlet("weak", 2 / 3),
    PresetDirichlet("haldane", 0.0), RatesByClass([[1, 2], [3, 4]], ["a", "b"]),
    *_multiclass_priors(),
]


# ----------------------------------------------------------------------------- attributes
def test_priors_answer_what_they_are():
    assert all(isinstance(p, PriorSpec) for p in EVERY_PRIOR)
    assert [bcm.Beta(1, 2).family, bcm.Dirichlet(1).family, bcm.Fixed(0.5).family] == [
        "beta", "dirichlet", None]
    assert bcm.Fixed(0.5).fixed and not bcm.priors.Laplace().fixed and not bcm.Dirichlet(1).fixed
    assert not bcm.priors.Haldane().proper and not PresetDirichlet("haldane", 0.0).proper
    assert all(p.conjugate for p in EVERY_PRIOR)


# ----------------------------------------------------------------------------- create_variable
@pytest.mark.parametrize("prior", [bcm.Beta(2, 8), bcm.priors.Jeffreys(), bcm.priors.Laplace(),
                                   bcm.priors.Weak()])
def test_beta_variable_density_is_scipys(prior):
    with pm.Model(coords={"classifier": ["a", "b", "c"]}):
        var = prior.create_variable("tpr", dims="classifier")
    x = np.array([0.1, 0.5, 0.93])
    assert var.eval().shape == (3,)
    np.testing.assert_allclose(pm.logp(var, x).eval(), stats.beta(prior.alpha, prior.beta)
                               .logpdf(x), atol=1e-6)


def test_haldane_variable_is_flat_on_the_log_odds():
    with pm.Model(coords={"classifier": ["a", "b"]}) as model:
        var = bcm.priors.Haldane().create_variable("tpr", dims=("classifier",))
    assert [v.name for v in model.free_RVs] == ["tpr_logodds"]
    assert model.named_vars_to_dims["tpr"] == ("classifier",)
    assert pm.logp(model["tpr_logodds"], np.array([-3.0, 2.0])).eval().tolist() == [0.0, 0.0]
    assert var in model.deterministics


@pytest.mark.parametrize(("prior", "dims", "shape"), [
    (bcm.Fixed(0.3), ("classifier",), (3,)), (bcm.Fixed(0.3), None, ()),
    (bcm.Fixed([0.2, 0.3, 0.5]), ("classifier", "class"), (3, 3)),
])
def test_fixed_variable_is_a_constant(prior, dims, shape):
    with pm.Model(coords={"classifier": ["x", "y", "z"], "class": LABELS3}) as model:
        var = prior.create_variable("prevalence", dims=dims)
    assert not model.free_RVs and "prevalence" in model.named_vars
    np.testing.assert_allclose(var.eval(), np.broadcast_to(np.asarray(prior.value), shape))


@pytest.mark.parametrize("prior", [bcm.Dirichlet([1, 2, 3]), bcm.Dirichlet(0.7),
                                   PresetDirichlet("jeffreys", 0.5)])
def test_dirichlet_variable_broadcasts_over_dims(prior):
    with pm.Model(coords={"classifier": ["x", "y"], "class": LABELS3}):
        var = prior.create_variable("prevalence", dims=("classifier", "class"))
    x = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    alpha = prior.vector(3)
    assert var.eval().shape == (2, 3)
    np.testing.assert_allclose(pm.logp(var, x).eval(),
                               [stats.dirichlet(alpha).logpdf(row) for row in x], atol=1e-6)


def test_rates_by_class_variable_row_densities():
    alpha = np.array([[3.0, 1.0, 0.5], [1.0, 2.0, 1.0], [0.5, 0.5, 4.0]])
    prior = RatesByClass(alpha, ["r0", "r1", "r2"])
    coords = {"classifier": ["x", "y"], "true_class": LABELS3, "pred_class": LABELS3}
    with pm.Model(coords=coords):
        var = prior.create_variable("rates", dims=("classifier", "true_class", "pred_class"))
    x = np.array([[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]])
    assert var.eval().shape == (2, 3, 3)
    np.testing.assert_allclose(pm.logp(var, np.stack([x, x])).eval()[0],
                               [stats.dirichlet(a).logpdf(r) for a, r in zip(alpha, x,
                                                                             strict=True)],
                               atol=1e-6)


def test_haldane_dirichlet_variable_is_flat_on_log_ratios():
    with pm.Model(coords={"class": LABELS3}) as model:
        PresetDirichlet("haldane", 0.0).create_variable("prevalence", dims="class")
    assert [v.name for v in model.free_RVs] == ["prevalence_logratio"]
    assert model.initial_point()["prevalence_logratio"].shape == (2,)


def test_scalar_dirichlet_needs_dims_or_k():
    with pytest.raises(ValueError, match="number of classes"):
        bcm.Dirichlet(1.0).sample(0, size=3)
    with pm.Model(), pytest.raises(ValueError, match="no coords for the dims"):
        bcm.Dirichlet(1.0).create_variable("p", dims="class")


def test_models_delegate_to_the_priors():
    batch = {"a": COCAINE, "b": bcm.ConfusionMatrix.from_counts(tp=5, fn=5, tn=5, fp=5)}
    model = bcm.build_model(batch, priors={"tpr": bcm.Beta(2, 8), "tnr": "haldane",
                                           "prevalence": bcm.Fixed(0.5)})
    assert model.named_vars_to_dims["tpr"] == ("classifier",)
    assert "tnr_logodds" in model.named_vars and "prevalence" not in {
        v.name for v in model.free_RVs}
    np.testing.assert_allclose(pm.logp(model["tpr"], np.array([0.2, 0.4])).eval(),
                               stats.beta(2, 8).logpdf([0.2, 0.4]), atol=1e-6)
    cm3 = bcm.ConfusionMatrix([[5, 1, 0], [2, 6, 1], [0, 1, 4]], labels=LABELS3)
    model = bcm.build_model({"x": cm3, "y": cm3}, priors={"prevalence": bcm.Dirichlet([1, 2, 3])})
    assert model.named_vars_to_dims["prevalence"] == ("classifier", "class")
    assert model.named_vars_to_dims["rates"] == ("classifier", "true_class", "pred_class")
    x = np.array([[0.2, 0.3, 0.5], [0.5, 0.3, 0.2]])
    np.testing.assert_allclose(pm.logp(model["prevalence"], x).eval(),
                               [stats.dirichlet([1, 2, 3]).logpdf(r) for r in x], atol=1e-6)


# ----------------------------------------------------------------------------- to_dict / from_dict
@pytest.mark.parametrize("prior", EVERY_PRIOR, ids=repr)
def test_exact_round_trip_through_json(prior):
    data = json.loads(json.dumps(prior_to_dict(prior)))
    again = from_dict(data)
    assert type(again) is type(prior)
    assert again == prior and repr(again) == repr(prior)


@pytest.mark.parametrize(("stored", "expected"), [
    ({"dist": "Beta", "name": "jeffreys", "alpha": 0.5, "beta": 0.5}, bcm.priors.Jeffreys()),
    ({"dist": "Beta", "name": "beta", "alpha": 18.0, "beta": 2.0}, bcm.Beta(18, 2)),
    ({"dist": "Beta", "name": "weak", "alpha": 1.0, "beta": 1.0}, bcm.priors.Weak()),
    ({"dist": "Beta", "name": "haldane", "alpha": 0.0, "beta": 0.0}, bcm.priors.Haldane()),
    ({"dist": "Fixed", "name": "fixed", "value": 0.5}, bcm.Fixed(0.5)),
    ({"dist": "Fixed", "name": "fixed", "value": [0.25, 0.75]}, bcm.Fixed([0.25, 0.75])),
    ({"dist": "Dirichlet", "name": "laplace", "alpha": 1.0}, PresetDirichlet("laplace", 1.0)),
    ({"dist": "Dirichlet", "name": "dirichlet", "alpha": [1.0, 2.0]}, bcm.Dirichlet([1, 2])),
    ({"dist": "Dirichlet", "name": "weak", "alpha": [[2 / 3, 1 / 3], [1 / 3, 2 / 3]],
      "rows": ["weak", "weak"]},
     RatesByClass([[2 / 3, 1 / 3], [1 / 3, 2 / 3]], ["weak", "weak"], label="weak")),
])
def test_dicts_stored_by_earlier_versions(stored, expected):
    again = from_dict(stored)
    assert type(again) is type(expected) and again == expected


def test_custom_priors_cannot_be_rebuilt_and_say_how():
    stored = {"dist": "MyPrior", "name": "custom", "repr": "MyPrior(3)"}
    with pytest.raises(ValueError, match=r"tpr was a custom prior.*Pass the prior object again"):
        from_dict(stored, parameter="tpr")


def test_unknown_forms_list_keys_and_forms():
    with pytest.raises(PriorFormError, match=r"keys: foo, mu.*Known forms: .*mean = m"):
        from_dict({"mu": 1, "foo": 2})
    with pytest.raises(PriorFormError, match="dist = 'Gumbel'"):
        from_dict({"dist": "Gumbel", "scale": 1})
    with pytest.raises(ValueError, match="jeffreys preset is Beta"):
        from_dict({"dist": "Beta", "name": "jeffreys", "alpha": 2, "beta": 2})
    with pytest.raises(TypeError, match="name or a table"):
        from_dict(3)


def test_pymc_extras_dicts_are_delegated():
    pytest.importorskip("pymc_extras")
    from pymc_extras.prior import Prior

    prior = Prior("TruncatedNormal", mu=0.9, sigma=0.05, lower=0, upper=1, dims="classifier")
    for data in (prior.to_dict(), prior_to_dict(prior), Prior("Normal").to_dict()):
        again = from_dict(json.loads(json.dumps(data)))
        assert type(again) is Prior
    assert from_dict(prior_to_dict(prior)).to_dict() == prior.to_dict()


def test_spec_forms_go_through_from_dict():
    forms = ["jeffreys", {"fixed": 0.5}, {"mean": 0.9, "concentration": 20},
             {"successes": 26, "failures": 0, "weight": 0.5}, {"lower": 0.7, "upper": 0.9},
             {"dist": "Beta", "alpha": 2, "beta": 5}, {"dist": "Dirichlet", "alpha": [1, 2]},
             {"dist": "laplace"}, {"dist": "Fixed", "value": [0.2, 0.8]}]
    for form in forms:
        assert parse_prior(form, "tpr") == from_dict(form)
    with pytest.raises(ValueError, match=r"prior of tpr \(dist = 'Beta'\) needs beta"):
        parse_prior({"dist": "Beta", "alpha": 2}, "tpr")
    with pytest.raises(ValueError, match="Unknown key 'foo' in the prior of tpr"):
        parse_prior({"mean": 0.9, "concentration": 2, "foo": 1}, "tpr")


def test_tree_attributes_decode_to_the_fit_priors():
    from bayescm.models.context import decoded_priors

    tree = bcm.fit(COCAINE, priors={"tpr": bcm.Beta(2, 8), "prevalence": bcm.Fixed(0.5)},
                   prior="jeffreys",
                   draws=50, random_seed=0)
    assert decoded_priors(tree) == {"prevalence": bcm.Fixed(0.5), "tpr": bcm.Beta(2, 8),
                                    "tnr": bcm.priors.Jeffreys()}
    cm3 = bcm.ConfusionMatrix([[30, 4, 1], [3, 25, 5], [0, 4, 28]], labels=LABELS3)
    tree = bcm.fit(cm3, draws=50, random_seed=0)
    assert decoded_priors(tree) == resolve_multiclass_priors(LABELS3, "weak")


# ----------------------------------------------------------------------------- update and draws
def test_beta_update_is_the_textbook_formula():
    assert bcm.Beta(2, 3).update(26, 4) == bcm.Beta(28, 7)
    assert bcm.priors.Haldane().update(3, 1) == bcm.Beta(3, 1)
    with pytest.raises(ValueError, match="haldane prior gives an improper posterior because "
                                         "failures = 0"):
        bcm.priors.Haldane().update(26, 0)
    succ, fail = np.array([[26, 3], [0, 10]]), np.array([[0, 5], [7, 1]])
    a, b = bcm.priors.Jeffreys().posterior_params(succ, fail)
    np.testing.assert_array_equal(a, succ + 0.5)
    np.testing.assert_array_equal(b, fail + 0.5)


def test_dirichlet_updates_are_alpha_plus_counts():
    counts = np.array([[5, 1, 0], [2, 6, 1], [0, 1, 4]])
    assert bcm.Dirichlet([1, 2, 3]).update([4, 0, 1]) == bcm.Dirichlet([5, 2, 4])
    assert PresetDirichlet("laplace", 1.0).update([4, 0, 1]) == bcm.Dirichlet([5, 1, 2])
    rates = resolve_multiclass_priors(LABELS3, "jeffreys")["rates"]
    np.testing.assert_array_equal(rates.update(counts).alpha, rates.alpha + counts)
    batch = np.stack([counts, 2 * counts])
    np.testing.assert_array_equal(rates.posterior_params(batch), rates.alpha + batch)
    np.testing.assert_array_equal(bcm.Dirichlet(0.5).posterior_params(batch), batch + 0.5)
    with pytest.raises(ValueError, match="improper posterior"):
        PresetDirichlet("haldane", 0.0).update([3, 0, 1])


def test_prior_draws_have_the_right_moments():
    rng = np.random.default_rng(1)
    draws = bcm.Beta(2, 8).sample(rng, size=200_000)
    assert draws.mean() == pytest.approx(0.2, abs=3e-3)
    assert draws.var() == pytest.approx(stats.beta(2, 8).var(), rel=0.03)
    assert bcm.priors.Jeffreys().draw(rng, 4, 100).shape == (4, 100)
    alpha = np.array([1.0, 2.0, 3.0])
    dirichlet = bcm.Dirichlet(alpha).draw(rng, 4, 50_000)
    assert dirichlet.shape == (4, 50_000, 3)
    np.testing.assert_allclose(dirichlet.mean(axis=(0, 1)), alpha / alpha.sum(), atol=4e-3)
    rates = resolve_multiclass_priors(LABELS3, "laplace")["rates"].sample(rng, size=50_000)
    assert rates.shape == (50_000, 3, 3)
    np.testing.assert_allclose(np.diagonal(rates.mean(axis=0)), 0.5, atol=5e-3)  # Beta(1, 1)
    assert bcm.Fixed([0.2, 0.8]).draw(rng, 2, 3).shape == (2, 3, 2)


@pytest.mark.parametrize("prior", [bcm.priors.Haldane(), PresetDirichlet("haldane", 0.0),
                                   resolve_multiclass_priors(LABELS3, "haldane")["rates"]])
def test_improper_priors_refuse_to_sample(prior):
    with pytest.raises(ValueError, match="improper"):
        prior.sample(0, size=10, **({"k": 3} if prior.family == "dirichlet" else {}))


# ----------------------------------------------------------------------------- presets, K classes
def _old_preset_tables(name, k, role):
    """The type tables the multiclass model used before the presets knew their Dirichlets."""
    cell = {"weak": 2.0 / k, "laplace": 1.0, "jeffreys": 0.5, "haldane": 0.0, "flat": 1.0}[name]
    rows = {"weak": 2.0 / k, "laplace": 1.0, "jeffreys": 0.5}
    if role == "prevalence" or name not in rows:
        return np.full((k,) if role == "prevalence" else (k, k), cell)
    out = np.empty((k, k))
    for i in range(k):
        out[i] = np.full(k, rows[name] / (k - 1))
        out[i, i] = rows[name]
    return out


@pytest.mark.parametrize("name", ["weak", "laplace", "jeffreys", "flat", "haldane"])
@pytest.mark.parametrize("k", [2, 3, 7])
def test_presets_know_their_dirichlets(name, k):
    preset = resolve_prior(name, "x")
    for role in ("prevalence", "rates"):
        np.testing.assert_array_equal(preset.concentration(k, role),
                                      _old_preset_tables(name, k, role))
    chosen = resolve_multiclass_priors([str(i) for i in range(k)], name)
    from bayescm.priors.multiclass import concentration_of

    np.testing.assert_array_equal(concentration_of(chosen["prevalence"], (k,)),
                                  _old_preset_tables(name, k, "prevalence"))
    np.testing.assert_array_equal(concentration_of(chosen["rates"], (k, k)),
                                  _old_preset_tables(name, k, "rates"))


def test_a_plain_beta_has_no_multiclass_meaning():
    with pytest.raises(TypeError, match="one proportion"):
        bcm.Beta(2, 2).concentration(3)
    with pytest.raises(ValueError, match="Only the prevalence can be fixed"):
        bcm.Fixed([0.2, 0.8]).for_classes(2, "rates")


# ----------------------------------------------------------------------------- PreliZ
def test_preliz_beta_and_dirichlet_map_to_conjugate_priors():
    pz = pytest.importorskip("preliz")
    prior = resolve_prior(pz.Beta(mu=0.9, sigma=0.05), "tpr")
    assert type(prior) is bcm.Beta
    assert prior.mean == pytest.approx(0.9)
    assert stats.beta(prior.alpha, prior.beta).std() == pytest.approx(0.05)
    assert resolve_prior(pz.Beta(2, 3), "tpr") == bcm.Beta(2, 3)
    assert resolve_prior(pz.Uniform(0, 1), "tpr") == bcm.Beta(1, 1)
    assert resolve_prior(pz.Dirichlet([2, 1, 1]), "rates") == bcm.Dirichlet([2, 1, 1])
    tree = bcm.fit(COCAINE, priors={"tpr": pz.Beta(mu=0.9, sigma=0.05)}, draws=100, random_seed=0)
    assert tree.attrs["method"] == "exact" and '"alpha": 31.5' in tree.attrs["priors"]


def test_preliz_other_distributions():
    pz = pytest.importorskip("preliz")
    prior = resolve_prior(pz.TruncatedNormal(0.9, 0.05, lower=0, upper=1), "tpr")
    assert not prior.conjugate and from_dict(prior_to_dict(prior)) == prior
    model = bcm.build_model({"a": COCAINE, "b": COCAINE}, priors={"tpr": prior})
    assert model.named_vars_to_dims["tpr"] == ("classifier",)
    x = np.array([0.85, 0.95])
    np.testing.assert_allclose(pm.logp(model["tpr"], x).eval(),
                               stats.truncnorm((0 - 0.9) / 0.05, (1 - 0.9) / 0.05, 0.9, 0.05)
                               .logpdf(x), rtol=1e-6)
    assert prior.sample(0, size=(2, 5)).shape == (2, 5)
    with pytest.raises(TypeError, match=r"support \[-inf, inf\].*Accepted: preliz.Beta"):
        resolve_prior(pz.Normal(0, 1), "tpr")
    with pytest.raises(TypeError, match="no parameters yet"):
        resolve_prior(pz.Beta(), "tpr")
    with pytest.raises(TypeError, match="one proportion"):
        resolve_multiclass_priors(LABELS3, prior)


def test_the_nuts_models_priors_follow_the_one_protocol():
    """Normal, HalfNormal, LogNormal and LKJ: variable, draws, round trip, no conjugacy."""
    import pymc as pm

    from bayescm.priors import LKJ, HalfNormal, LogNormal, Normal
    from bayescm.priors.protocol import Family, conjugate_to

    for prior, support in ((Normal(1, 2), (-np.inf, np.inf)), (HalfNormal(0.5), (0, np.inf)),
                           (LogNormal(0, 1), (0, np.inf)), (LKJ(2), (-1, 1))):
        assert from_dict(json.loads(json.dumps(prior.to_dict()))) == prior
        draws = prior.sample(random_seed=0, size=2000)
        assert draws.shape == (2000,) and support[0] < draws.min() and draws.max() < support[1]
        assert not conjugate_to(prior, Family.BETA) and not prior.conjugate
        with pm.Model():
            var = prior.create_variable("x")
            logp = pm.logp(var, 0.3).eval() if prior.dist != "LKJ" else None
        if prior.dist == "Normal":
            assert float(logp) == pytest.approx(stats.norm(1, 2).logpdf(0.3))
        if prior.dist == "HalfNormal":
            assert float(logp) == pytest.approx(stats.halfnorm(scale=0.5).logpdf(0.3))
    assert LKJ(1).sample(random_seed=1, size=20000).std() == pytest.approx(
        1 / np.sqrt(3), abs=0.01)  # eta = 1: uniform on (-1, 1)


def test_old_spellings_of_the_nuts_priors_warn_and_still_work():
    import importlib
    import warnings

    from bayescm.priors import HalfNormal

    for module in ("bayescm.models.hierarchical", "bayescm.models.hierarchical_priors",
                   "bayescm.models.roc_parametric_priors", "bayescm.models.roc_parametric"):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            cls = importlib.import_module(module).HalfNormal
        assert cls is HalfNormal
        assert any(issubclass(w.category, DeprecationWarning)
                   and "bayescm.priors.HalfNormal" in str(w.message) for w in seen), module


def test_preliz_and_pymc_extras_priors_are_taken_by_the_nuts_models():
    import preliz as pz
    from pymc_extras.prior import Prior

    from bayescm.models.hierarchical_priors import resolve_priors as hierarchical
    from bayescm.models.roc_parametric_priors import resolve_priors as parametric

    got = hierarchical({"sd_logit_tpr": pz.HalfNormal(0.5), "corr_logit": pz.Uniform(-1, 1),
                        "mu_logit_tpr": Prior("Normal", mu=1, sigma=1)})
    assert got["sd_logit_tpr"] == bcm.priors.HalfNormal(0.5)
    assert type(got["corr_logit"]).__name__ == "PreliZPrior"
    assert type(got["mu_logit_tpr"]) is Prior
    with pytest.raises(TypeError, match="support"):
        hierarchical({"sd_logit_tpr": pz.Normal(0, 1)})  # a scale cannot be negative
    scores = [np.array([0.1, 0.5, 0.9])]
    assert parametric("binormal", {"mu_pos": pz.Normal(0, 3)}, scores)["mu_pos"] == \
        bcm.priors.Normal(0, 3)
