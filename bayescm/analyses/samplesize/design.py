"""Design priors: what the planner believes about the rates before the test set is drawn.

A design prior is one distribution per parameter: a :class:`~bayescm.Beta`, a known value
(a number or :class:`~bayescm.Fixed`), an array of draws, or the posterior of a fit (its
draws). :class:`RateDesign` holds one of them as a Beta or as weighted points, the two forms
the exact assurance sums over, and :func:`read_design` turns the user's ``design=`` (a
mapping, a fit, or a binary :class:`~bayescm.ConfusionMatrix` of a pilot, whose Laplace
posteriors become Betas) into a mapping of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from bayescm.metrics import BINARY_METRICS, resolve_metrics
from bayescm.priors import Beta, Fixed, resolve_prior

__all__ = ["MAX_POINTS", "RateDesign", "analysis_prior", "read_design"]

MAX_POINTS = 2000
"""Draws of a fit kept as a design prior (evenly thinned): the exact sums run over each."""

PARAMETERS = ("prevalence", "tpr", "tnr")
"""The binary model's parameters (a derived metric's design gives these)."""


@dataclass(frozen=True)
class RateDesign:
    """A design prior of one rate: ``Beta(alpha, beta)``, or equally weighted ``points``.

    Attributes
    ----------
    alpha, beta : float or None
        The Beta's parameters (None for points).
    points : ndarray or None
        Values in [0, 1] (a known value is one point; draws of a fit are many).
    """

    alpha: float | None = None
    beta: float | None = None
    points: np.ndarray | None = None

    @property
    def is_beta(self) -> bool:
        """Whether the design is a Beta (else points)."""
        return self.points is None

    def flipped(self) -> RateDesign:
        """The design of ``1 - rate``."""
        if self.points is None:
            return RateDesign(self.beta, self.alpha)
        return RateDesign(points=1.0 - self.points)

    def above(self, t: float) -> float:
        """Design probability that the rate lies above ``t``."""
        if self.points is None:
            return float(special.betaincc(self.alpha, self.beta, t))
        return float(np.mean(self.points > t))

    def moments(self) -> tuple[float, float]:
        """Mean and variance."""
        if self.points is None:
            a, b = float(self.alpha), float(self.beta)  # type: ignore[arg-type]
            return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
        return float(np.mean(self.points)), float(np.var(self.points))

    def as_beta(self) -> RateDesign:
        """A Beta with the same mean and variance (points that are one value stay so)."""
        if self.points is None:
            return self
        mean, var = self.moments()
        if var <= 1e-12 or not 0 < mean < 1:
            return RateDesign(points=np.array([mean]))
        total = max(mean * (1 - mean) / var - 1.0, 1e-3)
        return RateDesign(mean * total, (1 - mean) * total)

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Random rates from the design."""
        if self.points is None:
            return rng.beta(self.alpha, self.beta, size)  # type: ignore[arg-type]
        return self.points[rng.integers(0, self.points.size, size)]


def _name(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"Design priors are keyed by a parameter's name ('tpr', 'prevalence', "
                        f"...), got {key!r}.")
    return resolve_metrics(key.strip(), BINARY_METRICS, "binary")[0].name


def _one(value: Any, name: str) -> RateDesign:
    if isinstance(value, Fixed):
        value = value.value
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"The design prior of {name} is {value!r}; give a bcm.Beta, a number "
                        "in [0, 1] or an array of draws.")
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"The design value of {name} must lie in [0, 1], got {v:g}.")
        return RateDesign(points=np.array([v]))
    if isinstance(value, (np.ndarray, list, tuple)):
        arr = np.asarray(value, dtype=float).reshape(-1)
        if arr.size == 0 or not np.all((arr >= 0) & (arr <= 1)):
            raise ValueError(f"The design draws of {name} must be values in [0, 1] (at least "
                             "one, no NaN).")
        if arr.size > MAX_POINTS:
            arr = arr[np.linspace(0, arr.size - 1, MAX_POINTS).astype(np.int64)]
        return RateDesign(points=arr)
    prior = resolve_prior(value, f"the design prior of {name}") if isinstance(value, str) \
        else value
    if isinstance(prior, Beta):
        if not prior.proper:
            raise ValueError(f"The design prior of {name} must be proper (the Haldane prior "
                             "is not): it is what the true value is drawn from.")
        return RateDesign(float(prior.alpha), float(prior.beta))
    raise TypeError(f"The design prior of {name} must be a bcm.Beta (e.g. bcm.Beta(45, 5) for "
                    "a rate around 0.9), a number in [0, 1] (a known value), an array of "
                    f"draws or a fit; got {value!r}.")


def _from_fit(tree: Any) -> dict[str, RateDesign]:
    from bayescm.core import container as box

    box.check_tree(tree)
    if not box.has_group(tree, "posterior"):
        raise ValueError("The fit given as a design has no posterior group.")
    post = box.get_group(tree, "posterior")
    out: dict[str, RateDesign] = {}
    from bayescm.analyses.samplesize.claims import RATES

    for name in (*PARAMETERS, *(m for m in RATES if m not in PARAMETERS)):
        if name not in post:
            continue
        values = post[name]
        extra = [d for d in values.dims if d not in ("chain", "draw")]
        if extra:
            raise ValueError(
                f"The fit's {name} has the dims {extra}: plan with one classifier's posterior, "
                "e.g. design=fit.sel(classifier='A'), or a design mapping of Beta priors.")
        draws = np.asarray(values.values, dtype=float).reshape(-1)
        out[name] = _one(draws[np.isfinite(draws)], name)  # an undefined PPV draw is no rate
    if not out:
        raise ValueError("The fit given as a design holds none of prevalence, tpr, tnr or a "
                         "rate; give a binary fit or a mapping of design priors.")
    return out


def read_design(design: Any) -> dict[str, RateDesign]:
    """The user's ``design=`` as ``{parameter: RateDesign}``.

    Accepted: a mapping ``{"tpr": bcm.Beta(45, 5), "prevalence": 0.2, ...}`` (any alias as a
    key; values a Beta, a number or Fixed, an array of draws), a fit (its posterior draws, at
    most :data:`MAX_POINTS` of each), or a binary ConfusionMatrix of a pilot (the Laplace
    posterior of its prevalence, TPR and TNR).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.analyses.samplesize.design import read_design
    >>> d = read_design({"sensitivity": bcm.Beta(45, 5), "prevalence": 0.2})
    >>> sorted(d), d["tpr"].alpha
    (['prevalence', 'tpr'], 45.0)
    """
    import xarray as xr

    from bayescm.core.confusion import ConfusionMatrix

    if isinstance(design, xr.DataTree):
        return _from_fit(design)
    if isinstance(design, ConfusionMatrix):
        if design.n_classes != 2 or design.positive is None:
            raise ValueError("A pilot matrix as a design must be binary with a positive class.")
        (tp, fn), (fp, tn) = np.asarray(design.counts, dtype=float)
        return {"prevalence": RateDesign(1 + tp + fn, 1 + fp + tn),
                "tpr": RateDesign(1 + tp, 1 + fn), "tnr": RateDesign(1 + tn, 1 + fp)}
    if not isinstance(design, Mapping) or not design:
        raise TypeError(
            "design is the design prior: a mapping of parameters to priors, e.g. "
            "{'tpr': bcm.Beta(45, 5)} (a TPR around 0.9) or {'tpr': 0.92} (a known value), "
            "with 'prevalence' to count all items; a fit; or a pilot's ConfusionMatrix. "
            f"Got {design!r}.")
    out: dict[str, RateDesign] = {}
    for key, value in design.items():
        name = _name(key)
        if name in out:
            raise ValueError(f"The design gives {name} twice (as {key!r} too).")
        out[name] = _one(value, name)
    return out


def analysis_prior(prior: Any, name: str) -> tuple[float, float]:
    """``(a0, b0)`` of the analysis prior of a rate: a name, a Beta, or a mapping of them."""
    if isinstance(prior, Mapping):
        chosen = {_name(k): v for k, v in prior.items()}
        prior = chosen.get(name, "laplace")
    if prior is None:
        prior = "laplace"
    p = resolve_prior(prior, f"the analysis prior of {name}")
    if not isinstance(p, Beta):
        raise TypeError(f"Planning needs a Beta analysis prior of {name} (a name such as "
                        f"'laplace' or 'jeffreys', or bcm.Beta(a, b)), got {p!r}.")
    if not p.proper:
        raise ValueError("The Haldane prior gives an improper posterior whenever a simulated "
                         "test set has no successes or no failures; plan with prior='laplace' "
                         "or 'jeffreys'.")
    return float(p.alpha), float(p.beta)
