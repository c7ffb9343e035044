"""Every warning and error class of bayescm, in one module: ``bcm.errors``.

Each is named for what it says, so one kind can be filtered without silencing the others
(``warnings.simplefilter("ignore", bcm.errors.PriorStrengthWarning)``) and caught by name
(``except bcm.errors.CSVFormatError``). The errors are ``ValueError`` (or ``KeyError``)
subclasses, so code that catches the built-in classes keeps working.

The **warnings** (``*Warning``: a fit or a summary can still be used, but read the message)
come first below, then the **errors** (``*Error``: nothing was computed; the message says how
to mend the input); ``bcm.errors.__all__`` lists them all.
"""

from __future__ import annotations

__all__ = [
    "CSVFormatError", "ConvergenceWarning", "EmptyMatrixWarning", "IdentifiabilityWarning",
    "ItemsFormatError", "LatentClassFormatError", "MisspecificationWarning", "NumberTextError",
    "OutputError", "PrevalenceMismatchWarning", "PriorFormError", "PriorStrengthWarning",
    "RcParamsError", "ResourceLimitError", "SchedulerUnreachableError", "ScoreRangeError",
    "SharedRandomNumbersWarning", "SmallClassWarning", "SpecError", "UnbalancedItemsWarning",
    "UndefinedDrawsWarning",
]


class EmptyMatrixWarning(UserWarning):
    """A confusion matrix holds no observations: its posterior equals the prior.

    See Also
    --------
    ConfusionMatrix : The matrix that warns when it is empty.

    Examples
    --------
    >>> import warnings
    >>> import bayescm as bcm
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=0, fn=0, tn=0, fp=0), draws=10)
    >>> any(issubclass(w.category, bcm.errors.EmptyMatrixWarning) for w in caught)
    True
    """


class PriorStrengthWarning(UserWarning):
    """A prior carries more than a tenth of the information of a row of the confusion matrix.

    See Also
    --------
    bayescm.fit : Warns when a class has few test items for its prior.

    Examples
    --------
    >>> import warnings, bayescm as bcm
    >>> cm = bcm.ConfusionMatrix([[5, 1, 0], [1, 4, 1], [0, 1, 6]])
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = bcm.fit(cm, draws=10)
    >>> any(issubclass(w.category, bcm.errors.PriorStrengthWarning) for w in seen)
    True
    """


class PrevalenceMismatchWarning(UserWarning):
    """The counts are implausible under a fixed prevalence (a sign of a mixed-up question).

    See Also
    --------
    bayescm.with_prevalence : Evaluates a classifier at another population's prevalence.

    Examples
    --------
    >>> import warnings, bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=37, fn=0, tn=7, fp=0)
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = bcm.fit(cm, priors={"prevalence": bcm.Fixed(0.5)}, draws=10)
    >>> any(issubclass(w.category, bcm.errors.PrevalenceMismatchWarning) for w in seen)
    True
    """


class ConvergenceWarning(UserWarning):
    """NUTS draws that may not represent the posterior (divergences, poor mixing).

    See Also
    --------
    bayescm.fit : Every NUTS path runs the one convergence check.

    Examples
    --------
    >>> import bayescm as bcm
    >>> issubclass(bcm.errors.ConvergenceWarning, UserWarning)
    True
    """


class MisspecificationWarning(UserWarning):
    """A model's assumptions do not fit the data (binormal scores that are not normal).

    Its intervals may then exclude the truth; the message names the model-free alternative.

    See Also
    --------
    bayescm.fit : With method="binormal", checks its AUC against the bootstrap's.

    Examples
    --------
    >>> import bayescm as bcm
    >>> issubclass(bcm.errors.MisspecificationWarning, UserWarning)
    True
    """


class UndefinedDrawsWarning(UserWarning):
    """Some draws of a variable are undefined (NaN, e.g. a PPV of 0/0).

    A probability or a summary is then computed over the defined draws only, and says how
    many were left out.

    See Also
    --------
    bayescm.probability : Over the defined draws, saying how many were not.

    Examples
    --------
    >>> import bayescm as bcm
    >>> issubclass(bcm.errors.UndefinedDrawsWarning, UserWarning)
    True
    """


class SmallClassWarning(UserWarning):
    """A class has fewer test items than the averaged metrics' intervals need to keep their promise.

    With fewer than 10 items in a class, the 95 % intervals of macro and weighted averages
    (F1, recall, precision) covered the truth 83-93 % of the time in simulation with 5 items
    per class (``benchmarks/coverage_table.md``, section "small classes").

    See Also
    --------
    bayescm.fit : Warns when a multiclass fit's averages rest on such a class.

    Examples
    --------
    >>> import warnings, bayescm as bcm
    >>> cm = bcm.ConfusionMatrix([[40, 3, 1], [2, 30, 4], [1, 1, 4]])
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = bcm.fit(cm, draws=10)
    >>> any(issubclass(w.category, bcm.errors.SmallClassWarning) for w in seen)
    True
    """


class SharedRandomNumbersWarning(UserWarning):
    """Two results were drawn from the same random numbers, so they are not independent.

    See Also
    --------
    bayescm.prob_superior : Warns when both results share random numbers.

    Examples
    --------
    >>> import warnings, bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=20, fn=5, tn=30, fp=5)
    >>> a, b = bcm.fit(cm, random_seed=3, draws=50), bcm.fit(cm, random_seed=3, draws=50)
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = bcm.prob_superior(a, b, metric="acc")
    >>> any(issubclass(w.category, bcm.errors.SharedRandomNumbersWarning) for w in seen)
    True
    """


class UnbalancedItemsWarning(UserWarning):
    """Some items were not answered by every system (an item-level evaluation log).

    The items are kept: each system's accuracy uses the items it answered, and the systems'
    shared item difficulty still pairs them on the items they share. Read it as "the systems
    were not run on the same benchmark"; the comparison assumes the missing answers are missing
    at random (not the items a system failed to finish).

    See Also
    --------
    bayescm.Items : Warns when it reads such a log.

    Examples
    --------
    >>> import warnings, pandas as pd, bayescm as bcm
    >>> frame = pd.DataFrame({"item_id": [1, 2, 1], "system": ["a", "a", "b"],
    ...                       "correct": [1, 0, 1]})
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = bcm.Items(frame, system="system")
    >>> any(issubclass(w.category, bcm.errors.UnbalancedItemsWarning) for w in seen)
    True
    """


class IdentifiabilityWarning(UserWarning):
    """A latent class model its data and priors leave unidentified; the message names remedies.

    See Also
    --------
    bayescm.TestResults : The Hui-Walter model's input (identifiability is checked at fit).

    Examples
    --------
    >>> import bayescm as bcm
    >>> issubclass(bcm.errors.IdentifiabilityWarning, UserWarning)
    True
    """


class LatentClassFormatError(ValueError):
    """Test results or ratings bayescm cannot read as they stand; the message says the fix.

    See Also
    --------
    bayescm.TestResults, bayescm.Ratings : The readers that raise it.

    Examples
    --------
    >>> import bayescm as bcm
    >>> issubclass(bcm.errors.LatentClassFormatError, ValueError)
    True
    """


class ResourceLimitError(ValueError):
    """A computation would need more memory than the machine has; the message says the way out.

    See Also
    --------
    bayescm.summarize_batch : Summaries of many matrices in bounded memory.

    Examples
    --------
    >>> import bayescm as bcm
    >>> try:
    ...     bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=6, fp=2), draws=10**12)
    ... except bcm.errors.ResourceLimitError as err:
    ...     print("refused")
    refused
    """


class CSVFormatError(ValueError):
    """A CSV table bayescm cannot read as it stands; the message names the place and the fix.

    Parameters
    ----------
    message : str
        What is wrong and how to fix it.
    source : str
        The file's name, or a description such as ``"the pasted table"``.
    line : int, optional
        The line (1 is the first line of the file).
    column : str or int, optional
        The column's name, or its position (1 is the first) when it has no name.

    See Also
    --------
    bayescm.Scores.from_csv : One of the readers that raise it.

    Examples
    --------
    >>> from bayescm.errors import CSVFormatError
    >>> err = CSVFormatError("'x' is not a number.", "scores.csv", line=3, column="p")
    >>> print(err)
    scores.csv, line 3, column 'p': 'x' is not a number.
    >>> err.line, err.column
    (3, 'p')
    """

    def __init__(self, message: str, source: str, line: int | None = None,
                 column: str | int | None = None) -> None:
        place = [source]
        if line is not None:
            place.append(f"line {line}")
        if column is not None:
            place.append(f"column {column!r}" if isinstance(column, str) else f"column {column}")
        super().__init__(f"{', '.join(place)}: {message}")
        self.source, self.line, self.column = source, line, column


class NumberTextError(ValueError):
    """Text that is not a number of the kind asked for; the message says why.

    Parameters
    ----------
    message : str
        What is wrong with the text and how to write it.
    kind : str
        ``"empty"``, ``"syntax"``, ``"not_finite"``, ``"fraction"`` or ``"too_large"``, for
        callers that word the message themselves.

    See Also
    --------
    bayescm.errors.CSVFormatError : The error of a number in a file.

    Examples
    --------
    >>> from bayescm.core.numtext import NumberTextError, real_from_text
    >>> try:
    ...     real_from_text("0,9")
    ... except NumberTextError as err:
    ...     print(err.kind, "|", err)
    syntax | '0,9' is not a number: a decimal comma; write decimals with a point (0.9)
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class OutputError(ValueError):
    """A file or folder bayescm cannot write there; the message names it and says what to do.

    See Also
    --------
    bayescm.save : Writes a result atomically, or raises it.

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.core.files import OutputError, check_file
    >>> try:  # doctest: +ELLIPSIS
    ...     check_file(tempfile.mkdtemp())
    ... except OutputError as err:
    ...     print(str(err).split("; ")[-1])
    give a file name inside it (e.g. .../result.nc).
    """


class SpecError(ValueError):
    """An invalid analysis specification; the message names the file and the key.

    See Also
    --------
    bayescm.spec.load_spec : Reads and checks a specification.

    Examples
    --------
    >>> import bayescm as bcm
    >>> try:
    ...     bcm.spec.parse_spec({"data": {"tp": 1}})
    ... except bcm.errors.SpecError:
    ...     print("refused")
    refused
    """


class PriorFormError(ValueError):
    """No registered prior form matches a dict (the message lists the keys and the forms).

    See Also
    --------
    bayescm.priors.from_dict : Raises it.
    register_prior_form : Adds a form so that a dict is recognised.

    Examples
    --------
    >>> from bayescm.priors import PriorFormError, from_dict
    >>> try:
    ...     from_dict({"dist": "Gamma", "shape": 2})
    ... except PriorFormError as err:
    ...     print(isinstance(err, ValueError))
    True
    """


class RcParamsError(KeyError, ValueError):
    """An unknown settings key or an invalid value; the message lists what is valid.

    A :class:`KeyError` (for mapping code that looks keys up) and a :class:`ValueError`.

    See Also
    --------
    bayescm.rcParams : The settings it guards.

    Examples
    --------
    >>> import bayescm as bcm
    >>> try:
    ...     bcm.rcParams["stats.hdi_prob"] = 95
    ... except bcm.errors.RcParamsError as err:
    ...     print("refused")
    refused
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ScoreRangeError(ValueError):
    """Scores outside [0, 1] given to ``method="bibeta"`` (Beta densities live on [0, 1]).

    See Also
    --------
    bayescm.fit : With method="bibeta", takes scores in [0, 1].

    Examples
    --------
    >>> import bayescm as bcm
    >>> try:
    ...     bcm.fit(bcm.Scores([0, 1, 0, 1], [0.1, 2.0, 0.3, 0.9]), method="bibeta")
    ... except bcm.errors.ScoreRangeError:
    ...     print("refused")
    refused
    """


class SchedulerUnreachableError(ConnectionError, ValueError):
    """No dask scheduler answered at the address given (a ``ConnectionError`` and a ``ValueError``).

    See Also
    --------
    bayescm.summarize_batch : Runs on a dask cluster with client=.

    Examples
    --------
    >>> from bayescm.analyses.batch_dask import SchedulerUnreachableError
    >>> issubclass(SchedulerUnreachableError, ValueError)
    True
    """


class ItemsFormatError(ValueError):
    """An item-level evaluation log bayescm cannot read as it stands; the message says the fix.

    Raised by :class:`bayescm.Items` for a missing column, an empty id, an outcome that is not
    0/1, an item whose cluster changes between rows, or a repeated (item, system, attempt) row.

    See Also
    --------
    bayescm.Items : The reader that raises it.

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> try:
    ...     bcm.Items(pd.DataFrame({"item_id": [1, 2], "correct": [1, 2]}))
    ... except bcm.errors.ItemsFormatError as err:
    ...     print(str(err)[:40])
    column 'correct': 2 is not an outcome (0
    """
