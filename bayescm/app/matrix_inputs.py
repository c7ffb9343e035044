"""The matrix of the first tab: four cells of a binary matrix, or a pasted or uploaded table.

Css classes: ``bcm-mode`` (cells or table), ``bcm-cell-tp``, ``bcm-cell-fn``, ``bcm-cell-tn``,
``bcm-cell-fp``, ``bcm-label-positive``, ``bcm-label-negative``; for a table
``bcm-matrix-csv`` (the text), ``bcm-matrix-file`` (upload), ``bcm-positive`` (the positive
class of a two-class table) and ``bcm-ordered``.
"""

from __future__ import annotations

from typing import Any

import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import labelled, text_input
from bayescm.app.matrixjob import capture_warnings
from bayescm.app.parse import InputError, decode_upload, matrix_from_csv, parse_count

__all__ = ["CELLS", "MatrixInputs"]

CELLS = {"tp": ("TP", "true positives: positives the classifier called positive"),
         "fn": ("FN", "false negatives: positives it called negative"),
         "fp": ("FP", "false positives: negatives it called positive"),
         "tn": ("TN", "true negatives: negatives it called negative")}
"""The binary cells: short name and what they count."""

EXAMPLE_TABLE = "true \\ predicted,cat,dog,fox\ncat,9,1,0\ndog,2,7,1\nfox,0,1,5\n"
"""The table shown before anything is pasted (rows true class, columns predicted)."""


class MatrixInputs:
    """The widgets of the matrix and how to read them.

    Examples
    --------
    >>> from bayescm.app.matrix_inputs import MatrixInputs
    >>> inputs = MatrixInputs()
    >>> inputs.cells["fn"].value = "3"
    >>> inputs.read()[0].cells
    {'tp': 26, 'fn': 3, 'fp': 2, 'tn': 6}
    >>> inputs.mode.value = "table"
    >>> inputs.read()[0].labels, inputs.binary()
    (('cat', 'dog', 'fox'), False)
    """

    def __init__(self) -> None:
        self.mode = pn.widgets.RadioButtonGroup(
            options={"Two classes: four cells": "cells", "Any classes: a table": "table"},
            value="cells", css_classes=["bcm-mode"])
        defaults = {"tp": "26", "fn": "0", "fp": "2", "tn": "6"}  # the paper's cocaine data
        self.cells = {k: text_input(f"{short}", defaults[k], f"bcm-cell-{k}", width=90,
                                    description=tip) for k, (short, tip) in CELLS.items()}
        self.positive_label = text_input("positive class", "positive", "bcm-label-positive",
                                         width=140)
        self.negative_label = text_input("negative class", "negative", "bcm-label-negative",
                                         width=140)
        grid = pn.GridBox(
            pn.pane.Markdown(""), pn.pane.Markdown("**predicted positive**"),
            pn.pane.Markdown("**predicted negative**"),
            pn.pane.Markdown("**actually positive**"), self.cells["tp"], self.cells["fn"],
            pn.pane.Markdown("**actually negative**"), self.cells["fp"], self.cells["tn"],
            ncols=3)
        self.cells_view = pn.Column(grid, pn.Row(self.positive_label, self.negative_label))
        self.table = labelled(
            pn.widgets.TextAreaInput, "table (rows: true class, columns: predicted class)",
            value=EXAMPLE_TABLE, height=130, width=340, css_classes=["bcm-matrix-csv"])
        self.upload = pn.widgets.FileInput(accept=".csv,.tsv,.txt", css_classes=[
            "bcm-matrix-file"], width=340)
        self.positive = text_input("positive class (two classes only; optional)", "",
                                   "bcm-positive", width=250)
        self.ordered = labelled(pn.widgets.Checkbox, "the classes are ordered",
                                css_classes=["bcm-ordered"])
        self.table_view = pn.Column(
            pn.pane.Markdown("Paste a table (commas, tabs or semicolons; the first row names "
                             "the predicted classes, the first column the true ones) or a bare "
                             "grid of counts, or upload a CSV file:", width=340),
            self.table, self.upload, self.positive, self.ordered, visible=False)
        self.view = pn.Column(self.mode, self.cells_view, self.table_view)
        self.mode.param.watch(lambda _: self._refresh(), "value")
        self.upload_error: str | None = None
        self.upload.param.watch(lambda event: self._uploaded(event.new), "value")

    def _refresh(self) -> None:
        table = self.mode.value == "table"
        self.cells_view.visible, self.table_view.visible = not table, table

    def _uploaded(self, data: Any) -> None:
        try:
            self.table.value = decode_upload(data, "the uploaded file", field="matrix")
            self.upload_error = None
        except InputError as err:
            self.upload_error = str(err)

    def binary(self) -> bool:
        """Whether the fields describe a binary analysis (four cells, or a positive class)."""
        return self.mode.value == "cells" or bool(str(self.positive.value).strip())

    def read(self) -> tuple[Any, bool, list[str]]:
        """The matrix, whether it came from the four cells, and warnings raised building it.

        Returns ``(matrix, from_cells, notes)``; the notes hold e.g. the all-zero warning.
        """
        if self.mode.value == "table":
            if self.upload_error:
                raise InputError(self.upload_error, "matrix")
            cm, notes = capture_warnings(matrix_from_csv, self.table.value,
                                         self.positive.value or None, bool(self.ordered.value))
            return cm, False, notes
        counts = {k: parse_count(w.value, CELLS[k][0]) for k, w in self.cells.items()}
        pos = str(self.positive_label.value).strip() or "positive"
        neg = str(self.negative_label.value).strip() or "negative"
        if pos == neg:
            raise InputError(f"the two classes need different names, got {pos!r} twice.",
                             "matrix")
        from bayescm.core.confusion import ConfusionMatrix

        try:
            cm, notes = capture_warnings(ConfusionMatrix.from_counts, labels=(pos, neg),
                                         **counts)
        except (ValueError, TypeError, OverflowError) as err:
            raise InputError(str(err), "matrix") from None
        return cm, True, notes
