"""The priors section of the matrix tab: an overall named prior and one editor per parameter.

Each :class:`PriorEditor` offers the forms of :data:`bayescm.app.priorspec.FORMS` that apply to
its parameter and shows only the fields of the chosen form. Css classes:
``bcm-prior-<parameter>-<field>`` (e.g. ``bcm-prior-tpr-form``, ``bcm-prior-tpr-mean``).
"""

from __future__ import annotations

from typing import Any

import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import LABEL, labelled, text_input
from bayescm.app.parse import parse_shares
from bayescm.app.priorspec import FORMS, PRESETS, PriorChoice

__all__ = ["PriorEditor", "PriorsSection"]

_FIELDS = {"mean": ("mean", "concentration"), "interval": ("lower", "upper", "mass"),
           "beta": ("a", "b"), "fixed": ("value",), "preset": (), "inherit": ()}
_LABELS = {"mean": "mean (0-1)", "concentration": "concentration (a + b)",
           "lower": "lower bound", "upper": "upper bound", "mass": "mass inside",
           "a": "a", "b": "b", "value": "value (0-1)"}
_TIPS = {"concentration": "how many test samples the prior is worth",
         "mass": "the share of the prior between the bounds, e.g. 0.95"}


class PriorEditor:
    """The prior of one parameter (``prevalence``, ``tpr`` or ``tnr``).

    Examples
    --------
    >>> from bayescm.app.prior_widgets import PriorEditor
    >>> editor = PriorEditor("tpr")
    >>> editor.form.value = "mean"
    >>> editor.inputs["mean"].value, editor.inputs["concentration"].value = "0.9", "20"
    >>> editor.read(2, binary=True)
    Beta(alpha=18.0, beta=2.0)
    """

    def __init__(self, parameter: str) -> None:
        self.parameter = parameter
        css = f"bcm-prior-{parameter}"
        self.form = labelled(pn.widgets.Select, f"prior of {parameter}",
                             options=self._options(True), value="inherit", width=230,
                             css_classes=[f"{css}-form"])
        named = {v: k for k, v in PRESETS.items() if k != "default"}
        self.preset = labelled(
            pn.widgets.Select, "named prior", options=named, value="laplace", width=230,
            css_classes=[f"{css}-preset"])
        self.inputs = {name: text_input(_LABELS[name], "0.95" if name == "mass" else "",
                                        f"{css}-{name}", width=105, description=_TIPS.get(name))
                       for name in ("mean", "concentration", "lower", "upper", "mass", "a", "b",
                                    "value")}
        self.view = pn.Column(self.form, self.preset, pn.FlexBox(*self.inputs.values()),
                              margin=(0, 0, 6, 0))
        self.form.param.watch(lambda _: self._refresh(), "value")
        self._refresh()

    def _options(self, binary: bool) -> dict[str, str]:
        allowed = ["inherit", "preset"]
        if binary:
            allowed += ["mean", "interval", "beta"]
        if self.parameter == "prevalence":
            allowed.append("fixed")
        return {("fixed (known) shares of the classes" if key == "fixed" and not binary else
                 FORMS[key]): key for key in allowed}

    def set_binary(self, binary: bool) -> None:
        """Offer the forms of a binary or a multiclass analysis (Beta forms: binary only)."""
        options = self._options(binary)
        if self.form.value not in options.values():
            self.form.value = "inherit"
        self.form.options = options
        setattr(self.inputs["value"], LABEL,
                _LABELS["value"] if binary else "shares, e.g. 0.2, 0.3, 0.5")
        self.inputs["value"].width = 105 if binary else 230

    def _refresh(self) -> None:
        shown = _FIELDS[self.form.value]
        self.preset.visible = self.form.value == "preset"
        for name, widget in self.inputs.items():
            widget.visible = name in shown

    def choice(self) -> PriorChoice:
        """The fields as typed."""
        return PriorChoice(self.form.value, self.preset.value,
                           **{name: w.value for name, w in self.inputs.items()})

    def read(self, k: int, binary: bool) -> Any:
        """The prior for a ``k``-class matrix, or None to inherit (InputError if impossible)."""
        from bayescm.priors import Fixed

        if self.form.value == "fixed" and not binary:
            return Fixed(parse_shares(self.inputs["value"].value, "the fixed prevalence", k,
                                      field="priors"))
        return self.choice().build(self.parameter)


class PriorsSection:
    """The overall prior and the editors of a binary (or, reduced, a multiclass) matrix.

    Examples
    --------
    >>> from bayescm.app.prior_widgets import PriorsSection
    >>> section = PriorsSection()
    >>> section.overall.value = "jeffreys"
    >>> section.editors["prevalence"].form.value = "fixed"
    >>> section.editors["prevalence"].inputs["value"].value = "0.5"
    >>> section.read(2, binary=True)
    ('jeffreys', {'prevalence': Fixed(value=0.5)})
    """

    def __init__(self) -> None:
        self.overall = labelled(
            pn.widgets.Select, "overall prior", options={v: k for k, v in PRESETS.items()},
            value="default", width=340, css_classes=["bcm-prior"])
        self.editors = {p: PriorEditor(p) for p in ("prevalence", "tpr", "tnr")}
        self.view = pn.Column(
            self.overall,
            pn.pane.Markdown("Override single parameters (optional):", margin=(0, 10)),
            *(e.view for e in self.editors.values()))

    def set_binary(self, binary: bool) -> None:
        """Show the editors of a binary analysis, or the prevalence's alone for multiclass."""
        for name, editor in self.editors.items():
            editor.set_binary(binary)
            editor.view.visible = binary or name == "prevalence"

    def read(self, k: int, binary: bool) -> tuple[str | None, dict[str, Any]]:
        """``(prior, priors)``: the overall name (None for the default) and the overrides."""
        overall = None if self.overall.value == "default" else str(self.overall.value)
        priors = {}
        for name, editor in self.editors.items():
            if not binary and name != "prevalence":
                continue
            prior = editor.read(k, binary)
            if prior is not None:
                priors[name] = prior
        return overall, priors
