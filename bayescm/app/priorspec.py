"""Priors chosen on the page, read into bayescm prior objects.

A parameter's prior is a preset, a Beta by mean and concentration, by an interval or by its two
parameters, or a fixed value.

A :class:`PriorChoice` holds the text of the fields exactly as typed; :meth:`PriorChoice.build`
turns it into a prior with :func:`bayescm.priors.from_dict` (the reader of specification
tables, so the page and a TOML specification accept the same forms) and raises
:class:`~bayescm.app.parse.InputError` naming the parameter when the numbers make no prior.
:func:`prior_code` writes a prior back as Python for the page's "reproduce in Python" snippet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bayescm.app.parse import InputError, parse_real

__all__ = ["FORMS", "PRESETS", "PriorChoice", "prior_code"]

PRESETS = {
    "default": "default (Laplace; weak for 3+ classes)",
    "laplace": "Laplace: uniform, Beta(1, 1)",
    "jeffreys": "Jeffreys: Beta(1/2, 1/2)",
    "haldane": "Haldane: Beta(0, 0), improper (needs non-zero counts)",
    "weak": "weak: Laplace for two classes, light Dirichlet for more",
    "flat": "flat: Dirichlet(1) on every cell",
}
"""Named priors offered on the page (the keys are bayescm's preset names)."""

FORMS = {
    "inherit": "same as the overall prior",
    "preset": "a named prior",
    "mean": "Beta by mean and concentration",
    "interval": "Beta by an interval",
    "beta": "Beta(a, b)",
    "fixed": "fixed (known) value",
}
"""How one parameter's prior is given (``"fixed"`` only for the prevalence)."""


def _prior_error(err: Exception, parameter: str) -> InputError:
    message = str(err)
    return InputError(f"prior of {parameter}: {message[:1].lower()}{message[1:]}", "priors")


@dataclass(frozen=True)
class PriorChoice:
    """One parameter's prior as typed: the form and the text of its fields.

    Parameters
    ----------
    form : str
        A key of :data:`FORMS`.
    preset : str
        A key of :data:`PRESETS` (form ``"preset"``).
    mean, concentration : str
        Form ``"mean"``: the Beta's mean in (0, 1) and its concentration ``a + b`` > 0.
    lower, upper, mass : str
        Form ``"interval"``: the Beta holding ``mass`` (default 0.95) between the bounds.
    a, b : str
        Form ``"beta"``: the Beta's two parameters (> 0).
    value : str
        Form ``"fixed"``: the known value, in (0, 1).

    Examples
    --------
    >>> from bayescm.app.priorspec import PriorChoice
    >>> PriorChoice("mean", mean="0.9", concentration="20").build("tpr")
    Beta(alpha=18.0, beta=2.0)
    >>> PriorChoice("inherit").build("tnr") is None
    True
    >>> PriorChoice("interval", lower="0.9", upper="0.8").build("tpr")
    Traceback (most recent call last):
    ...
    bayescm.app.parse.InputError: prior of tpr: lower (0.9) must be smaller than upper (0.8).
    """

    form: str = "inherit"
    preset: str = "laplace"
    mean: str = ""
    concentration: str = ""
    lower: str = ""
    upper: str = ""
    mass: str = "0.95"
    a: str = ""
    b: str = ""
    value: str = ""

    def table(self, parameter: str) -> dict[str, Any] | str | None:
        """The prior as a specification table (or a preset name); None to inherit.

        Examples
        --------
        >>> from bayescm.app.priorspec import PriorChoice
        >>> PriorChoice("interval", lower="0.8", upper="0.95").table("tpr")
        {'lower': 0.8, 'upper': 0.95, 'mass': 0.95}
        """
        if self.form not in FORMS:
            raise InputError(f"prior of {parameter}: unknown form {self.form!r}; choose one of "
                             f"{', '.join(FORMS.values())}.", "priors")

        def number(text: str, name: str, low: float = 0.0, high: float = 1.0) -> float:
            return parse_real(text, f"{name} of the {parameter} prior", low, high,
                              open_low=True, open_high=True, field="priors")

        inf = float("inf")
        if self.form == "inherit":
            return None
        if self.form == "preset":
            if self.preset not in PRESETS or self.preset == "default":
                raise InputError(f"prior of {parameter}: choose one of the named priors "
                                 f"({', '.join(k for k in PRESETS if k != 'default')}).",
                                 "priors")
            return self.preset
        if self.form == "mean":
            return {"mean": number(self.mean, "the mean"),
                    "concentration": number(self.concentration, "the concentration", 0, inf)}
        if self.form == "interval":
            return {"lower": number(self.lower, "the lower bound"),
                    "upper": number(self.upper, "the upper bound"),
                    "mass": number(self.mass, "the mass")}
        if self.form == "beta":
            return {"dist": "Beta", "alpha": number(self.a, "the first parameter (a)", 0, inf),
                    "beta": number(self.b, "the second parameter (b)", 0, inf)}
        if parameter != "prevalence":
            raise InputError(f"prior of {parameter}: only the prevalence can be fixed (a "
                             "curated test set); give the other parameters a Beta.", "priors")
        return {"fixed": number(self.value, "the value")}

    def build(self, parameter: str) -> Any:
        """The prior object for ``parameter``, or None to inherit the overall prior."""
        from bayescm.priors import from_dict

        table = self.table(parameter)
        if table is None:
            return None
        try:
            return from_dict(table, parameter=parameter)
        except (ValueError, TypeError, OverflowError) as err:
            raise _prior_error(err, parameter) from None


def prior_code(prior: Any) -> str:
    """Python that rebuilds ``prior`` exactly (bayescm priors print as their constructor).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.app.priorspec import prior_code
    >>> prior_code(bcm.Beta.from_mean(0.9, concentration=20))
    'bcm.Beta(alpha=18.0, beta=2.0)'
    >>> prior_code(bcm.priors.Jeffreys()), prior_code("weak")
    ('bcm.priors.Jeffreys()', "'weak'")
    """
    if isinstance(prior, str):
        return repr(prior)
    import bayescm

    top = type(prior).__name__ in bayescm.__all__  # Beta, Dirichlet, Fixed; others in priors
    return f"bcm.{prior!r}" if top else f"bcm.priors.{prior!r}"
