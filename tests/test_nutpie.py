"""nutpie as the NUTS implementation: chosen by name, refused clearly when absent (issue 13.6).

PyMC picks nutpie on its own whenever it is installed; bayescm names PyMC's sampler unless the
user asks for nutpie, so the same seed gives the same draws on every machine.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import bayescm as bcm
from bayescm.models import checks

HAVE_NUTPIE = importlib.util.find_spec("nutpie") is not None
needs_nutpie = pytest.mark.skipif(not HAVE_NUTPIE,
                                  reason="nutpie is not installed (pip install 'bayescm[nutpie]')")


def test_default_nuts_sampler_is_pymc_and_exact_has_none():
    assert checks.sampler_options("nuts", None, {})["nuts_sampler"] == "pymc"
    with pytest.warns(DeprecationWarning, match="sampler_kwargs"):
        assert checks.sampler_options("nuts", {"tune": 200}, {}) == {"tune": 200,
                                                                     "nuts_sampler": "pymc"}
    assert checks.sampler_options("exact", None, {}) == {}
    with pytest.raises(ValueError, match="NUTS sampler options"):
        checks.sampler_options("exact", None, {"nuts_sampler": "nutpie"})


def test_unknown_nuts_sampler_is_refused():
    with pytest.raises(ValueError, match=r"nuts_sampler='stan'.*'pymc', 'nutpie'"):
        checks.sampler_options("nuts", None, {"nuts_sampler": "stan"})


def test_missing_nutpie_names_the_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nutpie" else real(name, *a))
    with pytest.raises(ImportError, match=r"nutpie.*not installed.*bayescm\[nutpie\]"):
        checks.sampler_options("nuts", None, {"nuts_sampler": "nutpie"})
    cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    with pytest.raises(ImportError, match=r"bayescm\[nutpie\]"):
        bcm.fit(cm, method="nuts", nuts_sampler="nutpie")


def test_old_nutpie_names_the_version(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.9.0")
    with pytest.raises(ImportError, match=r"needs nutpie >= .*0\.9\.0 is installed"):
        checks.require_nutpie()


@needs_nutpie
def test_nutpie_gets_the_step_options_pymc_would_drop():
    opts = checks.sampler_options("nuts", None, {"nuts_sampler": "nutpie", "max_treedepth": 8})
    assert opts == {"nuts_sampler": "nutpie", "nuts": {"max_treedepth": 8}}
    with pytest.warns(DeprecationWarning, match="sampler_kwargs"):  # the old spelling still
        opts = checks.sampler_options(  # reaches nutpie
            "nuts", {"target_accept": 0.95, "max_treedepth": 8},
            {"nuts_sampler": "nutpie", "nuts": {"adaptation": "low_rank"}})
    assert opts["target_accept"] == 0.95  # PyMC moves it into nuts= itself
    assert opts["nuts"] == {"max_treedepth": 8, "adaptation": "low_rank"}
    with pytest.raises(ValueError, match=r"\['step_scale'\].*nutpie does not take"):
        checks.sampler_options("nuts", None, {"nuts_sampler": "nutpie", "step_scale": 0.1})


def _assert_agree(exact, nuts, names, quantiles=(0.05, 0.25, 0.5, 0.75, 0.95)):
    """Quantiles within 5 Monte-Carlo standard errors of a quantile (ESS and density there)."""
    from scipy import stats

    from bayescm.core.diagnostics import ess

    for name in names:
        a = exact["posterior"][name].values.reshape(-1)
        b = nuts["posterior"][name].values
        n_eff = float(ess(b, "bulk"))
        assert n_eff > 300, (name, n_eff)
        b = b.reshape(-1)
        se = np.sqrt(a.var() / a.size + b.var() / n_eff)
        assert abs(a.mean() - b.mean()) < 4.5 * se, name
        kde = stats.gaussian_kde(a[:5000])
        for q in quantiles:
            qa, qb = np.quantile(a, q), np.quantile(b, q)
            q_se = np.sqrt(q * (1 - q) / n_eff) / max(float(kde(qa)[0]), 0.2)
            assert abs(qa - qb) < 5 * q_se + 0.005, (name, q, qa, qb)


@pytest.mark.slow
@needs_nutpie
def test_nutpie_fit_agrees_with_the_exact_posterior():
    """Quantiles of a nutpie fit within Monte-Carlo error of the exact (conjugate) draws."""
    cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    exact = bcm.fit(cm, method="exact", random_seed=1)
    fast = bcm.fit(cm, method="nuts", nuts_sampler="nutpie", draws=1000, chains=2, cores=1,
                   random_seed=2)
    assert fast.attrs["method"] == "nuts"
    stats = fast["sample_stats"]
    assert "diverging" in stats.data_vars
    assert stats["diverging"].dims == ("chain", "draw")
    assert stats["diverging"].shape == (2, 1000)
    assert int(stats["diverging"].sum()) == 0
    assert stats.attrs.get("inference_library") == "nutpie"
    _assert_agree(exact, fast, ["prevalence", "tpr", "tnr", "bm", "ppv", "mcc"])
    summary = bcm.summary(fast, var_names=["tpr", "tnr", "prevalence"])
    assert np.all(summary["r_hat"] < 1.01)
