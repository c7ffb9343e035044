"""The item weights of a nonparametric scores fit, laid out and drawn as the fit draws them.

A scores fit (:func:`bayescm.models.scores.fit_scores`) stores its curves and metrics, not its
weights (``draws x items`` numbers). Anything else that is a function of the same posterior draws
(the net benefit at every threshold, the expected cost) draws the weights again from the seed the
result records: :class:`WeightLayout` puts the items in the fit's column order and
:meth:`WeightLayout.chunks` yields the very weights of the fit, chunk by chunk (each chunk has its
own stream), so a quantity computed here lines up draw by draw with the stored posterior.

Examples
--------
>>> import numpy as np, bayescm as bcm
>>> from bayescm.models.scores_weights import WeightLayout
>>> data = bcm.Scores([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.7])
>>> layout = WeightLayout(data, novel=True)
>>> layout.y.tolist()   # positives (novel atoms among them), then negatives
[True, True, True, True, False, False, False, False]
>>> [w.shape for w in layout.chunks(np.random.SeedSequence(0), 300)]
[(256, 8), (44, 8)]
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bayescm.core.scores import Scores
from bayescm.core.streams import child
from bayescm.models.roc import CurveDraws, bayesian_bootstrap_weights
from bayescm.models.roc_dp import dirichlet_process_weights, with_novel_items

__all__ = ["CHUNK", "WeightLayout"]

CHUNK = 256
"""Draws per chunk of weights (each chunk ``i`` draws from stream ``child(seq, 2 + i)``)."""


class WeightLayout:
    """The items of a :class:`~bayescm.Scores` in the weight matrix's column order.

    The columns hold the first classifier's positives by score, then its negatives (the
    Dirichlet-process fit's novel atoms among them), so that its curves read two slices.

    Parameters
    ----------
    data : Scores
        The labels and scores.
    novel : bool
        Whether the four novel atoms of the Dirichlet-process fit follow the items.

    Attributes
    ----------
    items : dict
        Per classifier, its labels and scores with the novel atoms (item order).
    columns : ndarray of int
        The column of each item (novel atoms last in item order).
    y : ndarray of bool
        The labels in column order.
    scores : dict
        Per classifier, the scores in column order (``+-inf`` for novel atoms).
    seen : ndarray of bool or None
        In column order, the observed items (None without novel atoms).
    """

    def __init__(self, data: Scores, novel: bool) -> None:
        self.novel = novel
        self.n_items = data.n
        self.items = {k: with_novel_items(data.y, s) if novel else (data.y, s)
                      for k, s in data.scores.items()}
        y_all = self.items[data.names[0]][0]
        lead = CurveDraws(y_all, self.items[data.names[0]][1])
        layout = np.r_[lead.pos_items, lead.neg_items]
        self.layout = layout
        self.columns = np.empty_like(layout)
        self.columns[layout] = np.arange(layout.size)
        self.y_all = y_all
        self.y = y_all[layout]
        self.scores = {name: s[layout] for name, (_, s) in self.items.items()}
        self.seen = layout < data.n if novel else None

    def weights(self, seq: np.random.SeedSequence, index: int, m: int) -> np.ndarray:
        """The ``index``-th chunk's ``m`` rows of unnormalised weights (float32)."""
        rng = np.random.default_rng(child(seq, 2 + index))
        if self.novel:
            return dirichlet_process_weights(rng, m, self.n_items, np.float32,
                                             self.columns[self.n_items:])
        return bayesian_bootstrap_weights(rng, m, self.n_items, np.float32)

    @staticmethod
    def jobs(total: int) -> list[tuple[int, int]]:
        """``(chunk index, rows)`` of ``total`` draws."""
        return [(i, min(CHUNK, total - start)) for i, start in enumerate(range(0, total, CHUNK))]

    def chunks(self, seq: np.random.SeedSequence, total: int) -> Iterator[np.ndarray]:
        """The weights of all ``total`` draws, chunk after chunk, in the fit's order."""
        for index, m in self.jobs(total):
            yield self.weights(seq, index, m)
