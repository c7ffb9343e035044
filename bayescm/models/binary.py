"""The binary model (Tötsch & Hoffmann 2021, Fig. 1): three Beta-Binomials.

::

    prevalence ~ prior_prevalence      n_pos = TP + FN ~ Binomial(N, prevalence)  (dropped if fixed)
    tpr        ~ prior_tpr             TP ~ Binomial(TP + FN, tpr)
    tnr        ~ prior_tnr             TN ~ Binomial(TN + FP, tnr)
    theta      = [[prevalence * tpr,            prevalence * (1 - tpr)],
                  [(1 - prevalence) * (1 - tnr), (1 - prevalence) * tnr]]

With Beta priors the posterior is three independent Betas, ``tpr ~ Beta(a + TP, b + FN)``,
``tnr ~ Beta(a + TN, b + FP)``, ``prevalence ~ Beta(a + TP + FN, b + FP + TN)``, which the exact
path samples with NumPy. The same model is written for PyMC in :meth:`BinaryModel.build_pymc`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.exact import draw_beta
from bayescm.metrics.binary import BINARY_METRICS
from bayescm.metrics.evaluation import evaluate
from bayescm.metrics.metric import Metric
from bayescm.models.base import DEFAULT_ANALYSES, ModelKind, Parameter
from bayescm.models.registry import register
from bayescm.priors import PriorSpec, resolve_prior
from bayescm.priors.protocol import Family, family_of

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["BinaryModel", "binary_cells", "inside_shares", "resolve_binary_priors"]

PARAMETERS = ("prevalence", "tpr", "tnr")
CELL_DIMS = ("true_class", "pred_class")


def resolve_binary_priors(
    prior: Any = None, prevalence: Any = None, tpr: Any = None, tnr: Any = None
) -> dict[str, Any]:
    """Merge the default ``prior`` with per-parameter overrides and validate them.

    Examples
    --------
    >>> from bayescm.models.binary import resolve_binary_priors
    >>> resolve_binary_priors("jeffreys", tpr="laplace")
    {'prevalence': Jeffreys(), 'tpr': Laplace(), 'tnr': Jeffreys()}
    """
    if getattr(prior, "fixed", False):
        raise ValueError(
            "Fixed can only be given for the prevalence: use prevalence=bcm.Fixed(...)."
        )
    base = resolve_prior("laplace" if prior is None else prior, "the default prior")
    chosen = {"prevalence": prevalence, "tpr": tpr, "tnr": tnr}
    out: dict[str, Any] = {}
    for name, value in chosen.items():
        p = base if value is None else resolve_prior(value, name)
        if getattr(p, "fixed", False) and name != "prevalence":
            raise ValueError(
                f"Only the prevalence can be fixed, not {name}; give {name} a Beta prior "
                "(e.g. bcm.Beta.from_mean(0.9, concentration=1000) for a near-certain value)."
            )
        if getattr(p, "fixed", False) and p.shape != ():
            raise ValueError("A binary model's fixed prevalence is a single number in (0, 1).")
        if family_of(p) is Family.DIRICHLET:  # a prior of a vector, not a proportion
            raise TypeError(
                f"{type(p).__name__} is not a prior for the binary model's {name}; use a Beta "
                "prior (bcm.Dirichlet is for multiclass matrices)."
            )
        out[name] = p
    return out


SHARE_FLOOR = 1e-150
"""Where a drawn share that underflowed to exactly 0 is put back (see :func:`inside_shares`)."""


def inside_shares(shares: Any) -> Any:
    """Drawn shares (prevalences) moved off exactly 0 and 1, where floating point put them.

    A Beta or Dirichlet draw is never 0 or 1, but under a very skewed prior
    (``bcm.Beta(0.001, 10)``) the sampler's result underflows to 0.0 or rounds to 1.0; every
    cell of that class is then 0 and metrics that do not depend on the prevalence at all (BM,
    TPR, LR+) would turn 0/0 in those draws. Such draws are moved to ``SHARE_FLOOR`` (1e-150:
    products of two cells stay representable) or to the largest double below 1, which is the
    draw as the model means it: a share too small to print. Other arrays (NumPy draws without
    such values, PyTensor variables) are returned as they are.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.binary import inside_shares
    >>> inside_shares(np.array([0.0, 0.3, 1.0])).tolist()
    [1e-150, 0.3, 0.9999999999999999]
    """
    if not isinstance(shares, np.ndarray) or shares.size == 0 or (
            shares.min() > 0.0 and shares.max() < 1.0):
        return shares
    return np.clip(shares, SHARE_FLOOR, np.nextafter(1.0, 0.0))


def binary_cells(prevalence: Any, tpr: Any, tnr: Any) -> tuple[Any, Any, Any, Any]:
    """Cell probabilities ``(tp, fn, fp, tn)`` from the parameters (NumPy or PyTensor).

    Examples
    --------
    >>> from bayescm.models.binary import binary_cells
    >>> [round(c, 2) for c in binary_cells(0.5, 0.8, 0.6)]
    [0.4, 0.1, 0.2, 0.3]
    """
    neg = 1.0 - prevalence
    return prevalence * tpr, prevalence * (1.0 - tpr), neg * (1.0 - tnr), neg * tnr


def _cells_of(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return counts[..., 0, 0], counts[..., 0, 1], counts[..., 1, 0], counts[..., 1, 1]


def _pymc_rv(name: str, prior: Any, dims: tuple[str, ...], n_batch: int | None) -> Any:
    import pymc as pm

    if isinstance(prior, PriorSpec):  # bayescm's priors make their own variable with the dims
        return prior.create_variable(name, dims=dims)  # (Fixed: pm.Data; Haldane: log-odds)
    var = prior.create_variable(name)
    expected = 1 if n_batch else 0
    made = tuple(pm.modelcontext(None).named_vars_to_dims.get(name) or ())
    if var.ndim != expected or (n_batch and made != ("classifier",)):
        want = (
            "the `classifier` dim (e.g. Prior(..., dims='classifier'))" if n_batch else "a scalar"
        )
        raise ValueError(
            f"The custom prior for {name} created a variable with {var.ndim} dimension(s); "
            f"it must be {want}."
        )
    return var


@register
class BinaryModel(ModelKind):
    """The binary model kind: parameters, priors, exact posterior, PyMC model and metrics.

    :func:`bayescm.fit` drives every model kind through :class:`~bayescm.models.base.ModelKind`;
    this is the registered kind ``"binary"`` (a matrix with a positive class, first).

    Examples
    --------
    >>> from bayescm.models.binary import BinaryModel
    >>> [p.name for p in BinaryModel.parameters]
    ['prevalence', 'tpr', 'tnr']
    """

    analyses = DEFAULT_ANALYSES | {"group_gaps", "net_benefit", "expected_cost",
                                     "cost_curve"}
    elementwise = True
    key = "binary"
    description = "a binary fit"
    metric_family = "binary"
    has_exact = True
    parameters = (
        Parameter("prevalence", (), "prevalence (share of positives in the test set)", Family.BETA,
                  fixable=True),
        Parameter("tpr", (), "true positive rate (sensitivity)", Family.BETA),
        Parameter("tnr", (), "true negative rate (specificity)", Family.BETA),
    )
    catalogue = BINARY_METRICS

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """A binary ConfusionMatrix (or a mapping / sequence of them)."""
        first = _first_matrix(data)
        return first is not None and first.is_binary

    @classmethod
    def from_data(cls, data: Any) -> BinaryModel:
        """The kind bound to the labels of the (first) matrix."""
        first = _first_matrix(data)
        if first is None or not first.is_binary:
            raise ValueError("The binary model needs binary confusion matrices with a positive "
                             "class (bcm.ConfusionMatrix.from_counts or positive=...).")
        return cls(first.coords)

    def root_attrs(self) -> dict[str, Any]:
        """The positive class (the first label)."""
        return {"positive": self.labels[0]}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> BinaryModel:
        """Two labels, the first of them the ``positive`` attribute."""
        if labels and len(labels) != 2:
            raise ValueError(f"a binary model has 2 classes, the attribute 'labels' lists "
                             f"{len(labels)}")
        if labels and "positive" in attrs and str(attrs["positive"]) != str(labels[0]):
            raise ValueError(f"the attribute 'positive' is {attrs['positive']!r}, but the first "
                             f"label is {labels[0]!r}")
        return cls(labels)

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """The paper's cocaine-purity matrix (TP 26, FN 0, TN 6, FP 2), 4 x 500 draws."""
        from bayescm.models.fitting import fit

        cm = ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
        return fit(cm, draws=500, random_seed=random_seed)

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Priors of every parameter (see :func:`resolve_binary_priors`)."""
        return resolve_binary_priors(prior, **{k: overrides.get(k) for k in PARAMETERS})

    def exact_posterior(
        self, counts: np.ndarray, priors: Mapping[str, Any], rng: np.random.Generator,
        chains: int, draws: int, names: list[str] | None,
    ) -> dict[str, np.ndarray]:
        """Independent posterior draws, shape ``(chains, draws, B)``, for ``(B, 2, 2)`` counts.

        Raises a ``ValueError`` naming the parameter (and classifier) when an improper prior
        meets a zero count, so that the posterior would be improper.
        """
        tp, fn, fp, tn = (c.astype(float) for c in _cells_of(counts))
        data = {
            "prevalence": (tp + fn, fp + tn, "TP + FN (the number of positives)",
                           "FP + TN (the number of negatives)"),
            "tpr": (tp, fn, "TP", "FN"),
            "tnr": (tn, fp, "TN", "FP"),
        }
        out = {}
        for name in self.free(priors):
            succ, fail, s_name, f_name = data[name]
            prior = priors[name]
            a, b = prior.posterior_params(succ, fail)  # the prior's closed-form update
            bad = (a <= 0) | (b <= 0)
            if bad.any():
                i = int(np.argmax(bad))
                which = s_name if a[i] <= 0 else f_name
                who = f" of classifier {names[i]!r}" if names is not None else ""
                raise ValueError(
                    f"The {prior.name} prior on {name}{who} gives an improper posterior because "
                    f"{which} = 0. Use a proper prior for {name} (e.g. prior='jeffreys' or "
                    f"{name}='laplace')."
                )
            out[name] = draw_beta(rng, a, b, chains, draws)
        return out

    def exact_prior(self, priors: Mapping[str, Any], rng: np.random.Generator, chains: int,
                    draws: int) -> dict[str, np.ndarray] | None:
        """Prior draws ``(chains, draws)`` with NumPy, or None if they need PyMC or are improper."""
        free = self.free(priors)
        if not all(is_proper_beta(priors[p]) for p in free):
            return None
        return {p: priors[p].draw(rng, chains, draws) for p in free}

    def build_pymc(self, names: list[str] | None, counts: np.ndarray,
                   priors: Mapping[str, Any]) -> pm.Model:
        """The PyMC model for ``(B, 2, 2)`` counts (``names`` None: a single matrix)."""
        import pymc as pm
        import pytensor.tensor as pt

        obs: tuple[Any, ...] = _cells_of(counts)  # (B,) arrays; ints for a single matrix
        coords: dict[str, Any] = self.coords()
        dims: tuple[str, ...] = ()
        n_batch = None
        if names is None:
            obs = tuple(int(v[0]) for v in obs)
        else:
            coords["classifier"] = names
            dims, n_batch = ("classifier",), len(names)
        tp, fn, fp, tn = obs
        with pm.Model(coords=coords) as model:
            prev = _pymc_rv("prevalence", priors["prevalence"], dims, n_batch)
            tpr = _pymc_rv("tpr", priors["tpr"], dims, n_batch)
            tnr = _pymc_rv("tnr", priors["tnr"], dims, n_batch)
            if not is_fixed(priors["prevalence"]):
                pm.Binomial("n_pos", n=np.add(np.add(tp, fn), np.add(fp, tn)), p=prev,
                            observed=np.add(tp, fn), dims=dims)
            pm.Binomial("tp", n=np.add(tp, fn), p=tpr, observed=tp, dims=dims)
            pm.Binomial("tn", n=np.add(tn, fp), p=tnr, observed=tn, dims=dims)
            cells = binary_cells(prev, tpr, tnr)
            theta = pt.stack([pt.stack(cells[:2], axis=-1), pt.stack(cells[2:], axis=-1)],
                             axis=-2)
            pm.Deterministic("theta", theta, dims=dims + CELL_DIMS)
        return model

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Point estimates of the free parameters and ``theta = counts / N``, per classifier."""
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = counts / counts.sum(axis=(-2, -1), keepdims=True)
        cells = _cells_of(theta)
        params = {"prevalence": cells[0] + cells[1], "tpr": BINARY_METRICS["tpr"](*cells),
                  "tnr": BINARY_METRICS["tnr"](*cells)}
        return {p: params[p] for p in self.free(priors)}, theta

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Metric], theta: np.ndarray | None = None,
               skip: Any = None
               ) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
        """Parameters, ``theta`` and metrics as ``{name: (extra_dims, array)}``.

        Arrays keep the leading (sample and batch) shape of ``params``; ``theta`` may be given
        (the observed ``counts / N``) instead of being computed from the parameters.
        """
        if theta is None:
            fixed = priors["prevalence"]
            prev = fixed.value if is_fixed(fixed) else params["prevalence"]
            raw = binary_cells(inside_shares(prev), params["tpr"], params["tnr"])
            shape = np.broadcast_shapes(*(np.shape(c) for c in raw))
            cells = tuple(np.broadcast_to(c, shape) for c in raw)
            theta = np.empty(shape + (2, 2))
            for (i, j), cell in zip(((0, 0), (0, 1), (1, 0), (1, 1)), cells, strict=True):
                theta[..., i, j] = cell
        else:
            cells = _cells_of(theta)
            shape = theta.shape[:-2]
        out: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
            name: ((), arr) for name, arr in params.items()}
        metrics = [m for m in selected if m.name not in PARAMETERS]
        out.update({k: ((), v) for k, v in evaluate(metrics, cells, shape).items()})
        out["theta"] = (CELL_DIMS, theta)
        return out


def is_fixed(prior: Any) -> bool:
    """Whether a prior is a fixed value (it says so itself: ``prior.fixed``)."""
    return bool(getattr(prior, "fixed", False))


def is_proper_beta(prior: Any) -> bool:
    """A proper Beta-family prior that draws itself with NumPy."""
    return family_of(prior) is Family.BETA and bool(getattr(prior, "proper", False))


def _first_matrix(data: Any) -> ConfusionMatrix | None:
    """The matrix, or the first of a mapping or sequence of matrices (None otherwise)."""
    if isinstance(data, ConfusionMatrix):
        return data
    values = list(data.values()) if isinstance(data, Mapping) else (
        list(data) if isinstance(data, (list, tuple)) else [])
    return values[0] if values and isinstance(values[0], ConfusionMatrix) else None

