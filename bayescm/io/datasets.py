"""Confusion matrices shipped with the package.

* Table S1 of Tötsch & Hoffmann (2021): 24 published binary classifiers.
* A simulated screening study with two correlated risk scores of 600 people (known truth), for
  the scores model (``bcm.Scores``).
* A simulated item-level LLM evaluation log shaped like a GPQA-Diamond run (198 questions in 16
  subdomains, 3 systems, 5 attempts each), for the items model (``bcm.Items``).
* A simulated screening classifier evaluated on six age groups of very different sizes (known
  truth), for subgroup gaps and fairness (``bcm.compare.group_gaps``).
* Dawid & Skene's (1979) anaesthesia ratings: 45 patients rated on a 4-point scale by five
  anaesthetists, the first three times (315 ratings), for the Dawid-Skene model
  (``bcm.Ratings``).
* Two matrices of Kuhn & Johnson's chapter "Characterizing Classification Models": the naive
  Bayes mushroom classifier (2 classes, 6,107 validation samples) and a Wordle guess-count
  predictor (6 ordered classes, 118 test games). The chapter prints both with rows =
  predictions; here they are transposed to bayescm's rows = true class.
* The simulated cancer-biopsy cohort of the decision-curve tutorials (``dcurves``' ``df_binary``:
  750 men, 105 cancers) with two risks, for decision curves (``bcm.net_benefit``).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.csvtable import CSVTable, parse_csv
from bayescm.core.items import Items
from bayescm.core.ratings import Ratings
from bayescm.core.scores import Scores, scores_from_table

__all__ = ["DATASETS", "anesthesia", "auditc", "dcurves_binary", "eval_log",
           "literature_matrices", "literature_table", "load", "mushrooms", "screening_scores",
           "subgroups", "wordle"]


def _packaged(name: str) -> CSVTable:
    """A CSV file shipped in ``bayescm/data``, read by the package's one CSV reader."""
    text = resources.files("bayescm.data").joinpath(name).read_text(encoding="utf-8")
    return parse_csv(text, f"bayescm/data/{name}").check_header()


def _binary_matrices(table: CSVTable, name_column: str, labels: tuple[str, str]
                     ) -> dict[str, ConfusionMatrix]:
    names = table.texts(name_column)
    tp, fn, tn, fp = (table.counts(c) for c in ("tp", "fn", "tn", "fp"))
    return {name: ConfusionMatrix.from_counts(tp=tp[i], fn=fn[i], tn=tn[i], fp=fp[i],
                                              labels=labels) for i, name in enumerate(names)}


@keyword_checked
def literature_table() -> list[dict[str, Any]]:
    """Rows of Table S1: id, doi, location, tp, fn, tn, fp, n, citations.

    24 binary classifiers from chemistry, biology and medicine with 8 to 350 test samples.

    Returns
    -------
    list of dict
        One dict per classifier, with its counts and its source (DOI, location in the paper,
        citations).

    See Also
    --------
    literature_matrices : The same counts as matrices, ready to fit.

    Examples
    --------
    >>> from bayescm.io.datasets import literature_table
    >>> rows = literature_table()
    >>> len(rows), rows[9]["id"], rows[9]["tp"]
    (24, '7a', 26)
    """
    table = _packaged("literature_table_s1.csv")
    ints = ("tp", "fn", "tn", "fp", "n", "citations")
    columns = {k: (table.counts(k) if k in ints else list(table.texts(k)))
               for k in table.header}
    return [{k: values[i] for k, values in columns.items()} for i in range(len(table.body))]


@keyword_checked
def literature_matrices() -> dict[str, ConfusionMatrix]:
    """Table S1 as ``{id: ConfusionMatrix}``, ready for a batch ``bcm.fit``.

    Returns
    -------
    dict of str -> ConfusionMatrix
        The 24 matrices keyed by their Table S1 id: a batch for one ``bcm.fit``.

    See Also
    --------
    literature_table : The same rows with their sources.
    bayescm.fit : Fits all of them at once.
    bayescm.rank_probabilities : Ranks a batch.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.datasets import literature_matrices
    >>> mats = literature_matrices()
    >>> mats["8"].cells
    {'tp': 28, 'fn': 9, 'fp': 4, 'tn': 3}
    """
    return {
        row["id"]: ConfusionMatrix.from_counts(tp=row["tp"], fn=row["fn"], tn=row["tn"],
                                               fp=row["fp"])
        for row in literature_table()
    }


@keyword_checked
def mushrooms() -> ConfusionMatrix:
    """The mushroom classifier's validation matrix (positive class: poisonous).

    Sensitivity 77.7 %, specificity 79.4 %, accuracy 78.5 % in the chapter.

    Returns
    -------
    ConfusionMatrix
        The 2 x 2 validation matrix.

    See Also
    --------
    bayescm.fit : Its metrics' posteriors.
    wordle : A multiclass example from the same chapter.

    Examples
    --------
    >>> from bayescm.io.datasets import mushrooms
    >>> mushrooms().cells
    {'tp': 2613, 'fn': 750, 'fp': 564, 'tn': 2180}
    """
    return ConfusionMatrix.from_counts(tp=2613, fn=750, tn=2180, fp=564,
                                       labels=("poisonous", "edible"))


@keyword_checked
def wordle() -> ConfusionMatrix:
    """Wordle guess counts (2, 3, 4, 5, 6 guesses or X = failed), ordered; X never occurs.

    Accuracy 0.805, Kappa 0.722, linear-weighted Kappa 0.750, quadratic 0.791 in the chapter.

    Returns
    -------
    ConfusionMatrix
        The 6 x 6 multiclass matrix (true number of guesses as rows).

    See Also
    --------
    bayescm.fit : Its metrics' posteriors, kappa among them.
    mushrooms : A binary example from the same chapter.

    Examples
    --------
    >>> from bayescm.io.datasets import wordle
    >>> cm = wordle()
    >>> cm.labels, cm.n, int(cm.counts[-1].sum())
    (('2', '3', '4', '5', '6', 'X'), 118, 0)
    """
    printed = [  # rows = predictions, as printed in the chapter
        [10, 2, 0, 0, 0, 0],
        [0, 28, 0, 4, 0, 0],
        [0, 7, 43, 2, 0, 0],
        [0, 0, 2, 13, 3, 0],
        [0, 0, 3, 0, 1, 0],
        [0, 0, 0, 0, 0, 0],
    ]
    counts = [list(col) for col in zip(*printed, strict=True)]
    return ConfusionMatrix(counts, labels=["2", "3", "4", "5", "6", "X"], ordered=True)


@keyword_checked
def screening_scores() -> Scores:
    """Two risk scores of 600 people in a simulated screening study (117 with the disease).

    ``score_standard`` is a calibrated probability rounded to 2 decimals (ties);
    ``score_new`` is sharper but over-confident (log-odds 1.6 times too large). Both read one
    latent severity, so they are correlated. The truth is known: AUC 0.796 and 0.833 (the new
    score better by 0.037). Simulated by ``scripts/make_screening_scores.py`` (its docstring
    gives the model); no patient data, released with the package (CC0).

    Returns
    -------
    Scores
        Labels and both scores of the 600 people.

    See Also
    --------
    bayescm.fit : The posterior of both ROC curves (a Dirichlet process by default).
    bayescm.plots.plot_roc : Draws them.
    bayescm.plots.plot_delta_auc : The AUC difference of the two scores.

    Examples
    --------
    >>> from bayescm.io.datasets import screening_scores
    >>> data = screening_scores()
    >>> data.names, data.n, data.n_pos
    (['score_standard', 'score_new'], 600, 117)
    """
    data = scores_from_table(_packaged("screening_scores.csv"), "disease",
                             ["score_standard", "score_new"])
    return Scores(data.y.astype(int), data.scores, positive=1)


@keyword_checked
def dcurves_binary() -> Scores:
    """The decision-curve tutorials' cancer-biopsy cohort: 750 men, 105 cancers, two risks.

    ``df_binary`` of the ``dcurves`` packages (Sjoberg, Vickers et al.; R on CRAN, Python
    ``dcurves`` of MSKCC-Epi-Bio, Apache-2.0), the simulated data of Vickers' decision curve
    analysis tutorial (https://www.mskcc.org/departments/epidemiology-biostatistics/
    biostatistics/decision-curve-analysis; Vickers & Elkin 2006, Medical Decision Making 26,
    565-574). Taken from ``dcurves/data/df_binary.csv`` of github.com/MSKCC-Epi-Bio/dcurves
    (commit 168c8b6, 2025-10-24), keeping ``patientid``, ``cancer`` (1: cancer found at
    biopsy), ``famhistory`` (a family history of cancer, 0/1: a "risk" that is 0 or 1) and
    ``cancerpredmarker`` (the predicted risk of cancer of a model with a marker). R ``dcurves``'
    net benefits of both, at every threshold 0.01-0.99, are stored by the tests
    (``tests/data/dcurves_net_benefit.csv``), and the point net benefit of these items equals
    them: ``tests/test_dcurves_reproduction.py``.

    Returns
    -------
    Scores
        The labels and the two risks ``famhistory`` and ``cancerpredmarker``.

    See Also
    --------
    bayescm.net_benefit : Decision curves of a scores fit of risks.

    Examples
    --------
    >>> from bayescm.io.datasets import dcurves_binary
    >>> data = dcurves_binary()
    >>> data.names, data.n, data.n_pos
    (['famhistory', 'cancerpredmarker'], 750, 105)
    """
    table = _packaged("dcurves_df_binary.csv")
    data = scores_from_table(table, "cancer", ["famhistory", "cancerpredmarker"])
    return Scores(data.y.astype(int), {k: v.astype(float) for k, v in data.scores.items()},
                  positive=1)


@keyword_checked
def auditc() -> dict[str, ConfusionMatrix]:
    """14 studies of the AUDIT-C alcohol screening questionnaire, one matrix per study.

    Positive class: unhealthy alcohol use. The counts of the meta-analysis of Kriston et al.
    (2008), "Meta-analysis: are 3 questions enough to detect unhealthy alcohol use?", Annals of
    Internal Medicine 149, 879-888, as distributed with the R package mada (data set
    ``AuditC``), the running example of mada's bivariate (Reitsma) meta-analysis. Studies 7 and
    8 have no false negatives. Study names are "1" to "14" as in mada.

    Returns
    -------
    dict of str -> ConfusionMatrix
        The 14 studies' matrices keyed ``"1"`` to ``"14"``: a batch for ``bcm.fit``, or the
        groups of a hierarchical fit.

    See Also
    --------
    bayescm.fit : With ``model="hierarchical"`` pools the studies.
    bayescm.sroc_regions : The summary ROC regions of the studies.
    bayescm.plots.plot_sroc : Draws them.

    Examples
    --------
    >>> from bayescm.io.datasets import auditc
    >>> studies = auditc()
    >>> len(studies), studies["8"].cells
    (14, {'tp': 752, 'fn': 0, 'fp': 3226, 'tn': 2977})
    """
    return _binary_matrices(_packaged("auditc.csv"), "study",
                            ("unhealthy use", "no unhealthy use"))


@keyword_checked
def subgroups() -> dict[str, ConfusionMatrix]:
    """One screening classifier evaluated on six age groups, one matrix per group (simulated).

    Positive class: the condition. The groups differ in size from 12 to 1,500 people: "30-44"
    is the largest; "60-74" has a real TPR gap (true TPR 0.70 against 0.85 elsewhere); "75+"
    is tiny (12 people, one with the condition); "under 18" has no positives at all. Simulated
    by ``scripts/make_subgroups.py`` (its docstring gives the model and the true rates); no
    personal data, released with the package (CC0).

    Returns
    -------
    dict of str -> ConfusionMatrix
        One matrix per age group, keyed by the group.

    See Also
    --------
    bayescm.group_gaps : The gaps between the groups.
    bayescm.fairness_table : The same as a table.
    bayescm.plots.plot_group_gaps : Draws them.

    Examples
    --------
    >>> from bayescm.io.datasets import subgroups
    >>> groups = subgroups()
    >>> list(groups)
    ['under 18', '18-29', '30-44', '45-59', '60-74', '75+']
    >>> groups["60-74"].cells
    {'tp': 90, 'fn': 36, 'fp': 43, 'tn': 331}
    """
    return _binary_matrices(_packaged("subgroups.csv"), "group", ("condition", "no condition"))


def eval_log() -> Items:
    """A simulated LLM evaluation log: 3 systems, 198 questions in 16 subdomains, 5 attempts.

    Shaped like a GPQA-Diamond run with 5 epochs (no public item-level log with repeated
    attempts ships in a package this project can install, so this one is simulated; nothing in
    it comes from a real model). Columns ``question``, ``domain``, ``subdomain`` (the
    clusters), ``model`` (the systems ``model_a``, ``model_b``, ``model_c``), ``epoch`` and
    ``correct``. Drawn by ``scripts/make_eval_log.py``, whose docstring gives the model and the
    true values (accuracies on a new question of about 0.44, 0.51 and 0.60; repeated attempts
    of a question agree, a design effect of about 3); released with the package (CC0).

    Returns
    -------
    Items
        The log with clusters, systems and attempts named.

    See Also
    --------
    bayescm.Items : Reads such logs.
    bayescm.fit : Fits the items model.

    Examples
    --------
    >>> from bayescm.io.datasets import eval_log
    >>> log = eval_log()
    >>> log.systems, log.n_items, log.n_clusters, log.n_attempts
    (['model_a', 'model_b', 'model_c'], 198, 16, 2970)
    """
    import pandas as pd

    table = _packaged("eval_log.csv")
    frame = pd.DataFrame({name: table.texts(name) for name in table.header},
                         index=pd.Index(table.lines[1:], name="line"))
    return Items(frame, item="question", cluster="subdomain", system="model", attempt="epoch")


def anesthesia() -> Ratings:
    """Dawid & Skene's (1979) anaesthesia data: 45 patients, 5 anaesthetists, 4 classes.

    Five anaesthetists rated each patient's fitness for an operation on a 4-point scale (1 to
    4) from a standard form; the first rated every form three times, weeks apart, the others
    once: 315 ratings (Table 1 of Dawid, A. P. and Skene, A. M. (1979), "Maximum likelihood
    estimation of observer error-rates using the EM algorithm", Applied Statistics 28(1),
    20-28, doi:10.2307/2346806). Transcribed from the copy of Table 1 in the public EM
    implementation ``dallascard/dawid_skene`` (``generate_sample_data``) on GitHub; the same
    data are R's ``rater::anesthesia`` (315 rows in long format, Pullin et al. 2022).

    Returns
    -------
    Ratings
        Items ``1`` to ``45``, raters ``1`` to ``5``, classes ``1`` to ``4``.

    See Also
    --------
    bayescm.Ratings : Reads such ratings.
    bayescm.fit : Fits the Dawid-Skene model.

    Examples
    --------
    >>> from bayescm.io.datasets import anesthesia
    >>> r = anesthesia()
    >>> len(r.items), r.raters, r.classes, int(r.counts.sum())
    (45, ['1', '2', '3', '4', '5'], ['1', '2', '3', '4'], 315)
    """
    import pandas as pd

    table = _packaged("anesthesia.csv")
    frame = pd.DataFrame({name: table.texts(name) for name in table.header},
                         index=pd.Index(table.lines[1:], name="line"))
    return Ratings(frame, item="item", rater="rater", rating="rating")


DATASETS: dict[str, Callable[[], Any]] = {
    "literature_table_s1": literature_matrices, "mushrooms": mushrooms, "wordle": wordle,
    "screening_scores": screening_scores, "auditc": auditc, "subgroups": subgroups,
    "eval_log": eval_log, "anesthesia": anesthesia, "dcurves_binary": dcurves_binary}
"""Packaged data sets by name (the ``dataset = "..."`` form of an analysis spec)."""


@keyword_checked
def load(name: str) -> ConfusionMatrix | dict[str, ConfusionMatrix] | Scores | Items | Ratings:
    """A packaged data set by name: one matrix, a batch ``{name: matrix}``, or scores.

    Parameters
    ----------
    name : str
        The data set: one of ``"literature_table_s1"``, ``"mushrooms"``, ``"wordle"``,
        ``"screening_scores"``, ``"auditc"``, ``"subgroups"``, ``"eval_log"``,
        ``"dcurves_binary"``.

    Returns
    -------
    ConfusionMatrix, dict of str -> ConfusionMatrix, Scores, Items or Ratings
        What the named loader (:func:`mushrooms`, :func:`wordle`, ...) returns for it.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).

    See Also
    --------
    mushrooms, wordle, auditc, subgroups, screening_scores : The loaders behind the names.
    bayescm.fit : Fit what was loaded.

    Examples
    --------
    >>> from bayescm.io import datasets
    >>> len(datasets.load("literature_table_s1")), datasets.load("wordle").n
    (24, 118)
    """
    if name not in DATASETS:
        raise ValueError(f"Unknown data set {name!r}; packaged data sets: "
                         f"{', '.join(DATASETS)}.")
    return DATASETS[name]()
