r"""The kinds ``"true_prevalence"`` and ``"judged_accuracy"``: rates seen through an imperfect test.

A screening test with sensitivity ``tpr`` and specificity ``tnr`` reports an apparent rate
``a = p tpr + (1 - p) (1 - tnr)`` of positives among ``n`` subjects whose true prevalence is
``p``; an automated judge (an LLM grading answers) reports a judged pass rate of a system
whose true accuracy is ``p`` in the same way, its ``tpr`` the share of correct answers it passes
and ``tnr`` the share of wrong answers it fails. :func:`bayescm.true_prevalence` and
:func:`bayescm.judged_accuracy` (:mod:`bayescm.models.corrected_fit`) give the posterior of
``p`` with the test's rates as priors, updated by a labelled validation (calibration) matrix
fitted jointly; :mod:`bayescm.models.corrected_draws` draws it exactly on grids.

The model is identified only where ``tpr + tnr > 1`` (a test better than chance; with the sum
below 1 the labels are swapped, and ``p`` and ``1 - p`` fit the data equally well): the priors
are truncated there, and the result's ``excluded_share`` attribute says how much prior mass
that removed. Where the apparent rate lies outside ``[1 - tnr, tpr]`` no true rate reproduces
it: the posterior piles up at 0 or 1 (a warning explains), never NaN.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from bayescm.metrics.corrected import CORRECTED_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import register
from bayescm.priors.protocol import Family

__all__ = ["JudgedAccuracyModel", "TruePrevalenceModel"]


@register
class TruePrevalenceModel(ModelKind):
    """A true prevalence from an apparent count of an imperfect test (exact draws; no NUTS).

    The posterior holds ``prevalence`` (true), ``apparent`` and the test's ``tpr`` and ``tnr``;
    ``observed_metrics`` the Rogan-Gladen estimate at the rates' point values.

    Parameters
    ----------
    labels : sequence of str, optional
        The validation matrix's class labels (none without one).
    systems : sequence of str, optional
        Names of several apparent counts sharing the test (a ``system`` dim).

    Examples
    --------
    >>> from bayescm.models.corrected import TruePrevalenceModel
    >>> kind = TruePrevalenceModel()
    >>> kind.has_exact, kind.prior_arguments
    (True, ('prevalence', 'tpr', 'tnr'))
    """

    key = "true_prevalence"
    description = "a prevalence corrected for an imperfect test"
    standard_pipeline = False
    accepts_matrices = False
    has_exact = True
    default_draws = 1000
    metric_family = "corrected"
    catalogue = CORRECTED_METRICS
    figures = ("corrected",)
    analyses = frozenset({"summary", "prob_superior", "rank_probabilities", "corrected"})
    true_name: ClassVar[str] = "prevalence"
    """The posterior's name of the true rate."""
    apparent_name: ClassVar[str] = "apparent"
    """The posterior's name of the rate the test reports."""
    parameters = (Parameter("prevalence", (), "true prevalence", Family.BETA),
                  Parameter("tpr", (), "the test's true positive rate", Family.BETA),
                  Parameter("tnr", (), "the test's true negative rate", Family.BETA))

    def __init__(self, labels: Sequence[Any] = (), systems: Sequence[Any] | None = None
                 ) -> None:
        super().__init__(labels)
        self.systems = None if systems is None else [str(s) for s in systems]

    @property
    def batch_dims(self) -> tuple[str, ...]:
        """The ``system`` dim of several apparent counts sharing the test."""
        return ("system",)

    def coords(self) -> dict[str, Any]:
        """The validation matrix's class dims, if there is one."""
        return {"true_class": self.labels, "pred_class": self.labels} if self.labels else {}

    def root_attrs(self) -> dict[str, Any]:
        """The systems' names, when there are several counts."""
        import json

        return {} if self.systems is None else {"systems": json.dumps(self.systems)}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> TruePrevalenceModel:
        """The labels and the systems (if any)."""
        import json

        systems = json.loads(attrs["systems"]) if "systems" in attrs else None
        return cls(labels, systems)

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """None: the posterior holds the four rates only."""
        return []

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """The three priors (:func:`~bayescm.models.corrected_fit.resolve_corrected_priors`)."""
        from bayescm.models.corrected_fit import resolve_corrected_priors

        if prior is not None:
            raise TypeError(f"The {self.key} model takes its priors by name (prevalence=, "
                            "tpr=, tnr=), not prior=.")
        return resolve_corrected_priors(overrides, bool(self.labels), self.true_name)

    def build_pymc(self, names: Any, counts: Any, priors: Mapping[str, Any]) -> Any:
        """No PyMC model: the posterior is drawn exactly."""
        raise TypeError(f"The {self.key} model is drawn exactly; it has no PyMC model.")

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]) -> Any:
        """Not fitted from a confusion matrix: its observed values are written by its fit."""
        raise TypeError(f"The {self.key} model is not fitted from confusion matrices.")

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Any], theta: np.ndarray | None = None,
               skip: Any = None) -> Any:
        """Nothing to derive: the fit stores the rates themselves."""
        raise TypeError(f"The {self.key} model derives no metrics from cells.")

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """142 positives of 742 from a test whose TPR and TNR lie in U(0.6, 1)."""
        from bayescm.models.corrected_fit import true_prevalence
        from bayescm.priors.uniform import Uniform

        return true_prevalence(142, 742, tpr=Uniform(0.6, 1.0), tnr=Uniform(0.6, 1.0),
                               draws=500, random_seed=random_seed)


@register
class JudgedAccuracyModel(TruePrevalenceModel):
    """Systems' true accuracies from their judged pass counts and the judge's calibration.

    The posterior holds ``accuracy`` (true), ``judged`` and the judge's ``tpr`` (correct
    answers passed) and ``tnr`` (wrong answers failed), shared by the systems draw by draw, so
    :func:`~bayescm.prob_superior` compares two systems with the judge's uncertainty counted
    once.

    Examples
    --------
    >>> from bayescm.models.corrected import JudgedAccuracyModel
    >>> JudgedAccuracyModel().prior_arguments
    ('accuracy', 'tpr', 'tnr')
    """

    key = "judged_accuracy"
    description = "an accuracy corrected for an imperfect judge"
    true_name = "accuracy"
    apparent_name = "judged"
    parameters = (Parameter("accuracy", (), "true accuracy", Family.BETA),
                  Parameter("tpr", (), "the judge's true positive rate", Family.BETA),
                  Parameter("tnr", (), "the judge's true negative rate", Family.BETA))

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Two systems judged on 500 answers; the judge checked on 200 labelled answers."""
        from bayescm.core.confusion import ConfusionMatrix
        from bayescm.models.corrected_fit import judged_accuracy

        calibration = ConfusionMatrix([[110, 10], [12, 68]], labels=["correct", "incorrect"])
        return judged_accuracy({"A": 340, "B": 310}, 500, calibration=calibration, draws=500,
                               random_seed=random_seed)
