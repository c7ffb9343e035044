"""Collection rules for the whole repository (the tests, the package's doctests, README.md).

The web app's modules import Panel, an optional dependency (``pip install 'bayescm[app]'``):
without it their doctests are not collected (``tests/test_app.py`` skips itself).

An example whose output holds digits of posterior draws says so with ``# doctest: +MC``
(Sphinx hides the comment): its numbers then agree when they are within Monte-Carlo error of
the ones written (:data:`MC_ABS` absolute plus :data:`MC_REL` relative), and the rest of the
text must match. A change of seed or of the draws' order then leaves the example true;
``tests/test_doc_examples.py`` runs every doctest with other seeds to show it.
"""

import doctest
import re
from importlib import util

import pytest

MC = doctest.register_optionflag("MC")
MC_ABS, MC_REL = 0.03, 0.05
"""How far a number printed under ``+MC`` may be from the one written: HDI bounds of 20,000
draws move by up to about 0.02 with the seed (the narrowest window drifts as a whole)."""
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_exact_check = doctest.OutputChecker.check_output


def _within_mc(want: str, got: str) -> bool:
    """The same text, and every number within Monte-Carlo error of the one written."""
    texts = [" ".join(part.split()) for part in _NUMBER.split(want)]
    if texts != [" ".join(part.split()) for part in _NUMBER.split(got)]:
        return False
    pairs = zip(_NUMBER.findall(want), _NUMBER.findall(got), strict=True)
    return all(abs(float(a) - float(b)) <= MC_ABS + MC_REL * abs(float(a)) for a, b in pairs)


def _check_output(self, want: str, got: str, optionflags: int) -> bool:  # type: ignore[no-untyped-def]
    if _exact_check(self, want, got, optionflags):
        return True
    return bool(optionflags & MC) and _within_mc(want, got)


doctest.OutputChecker.check_output = _check_output  # type: ignore[method-assign]

collect_ignore_glob = [] if util.find_spec("panel") else ["bayescm/app/*.py"]


NUTS = re.compile(r"model=\"hierarchical\"|HierarchicalModel\.example\(|"
                  r"method=\"(?:nuts|binormal|bibeta)\"|\bPrior\(|ItemsModel\.example\(|ItemsJob\(|"
                  r"fit\((?:bcm\.)?(?:Items\(|datasets\.eval_log\(|eval_log\(|log\b|items\b)|"
                  r"method=\"calibration\"|true_shares\(|TrueSharesModel\.example\(|"
                  r"fit\((?:bcm\.)?(?:Ratings\(|TestResults|datasets\.anesthesia\(|ratings\b|results\b)")
"""What a doctest calls when it samples with NUTS (seconds each): such examples run with the
slow checks, so the default test run stays free of NUTS fits."""


SECONDS = {"bayescm.app.layout.create_page", "bayescm.app.compare_tab.CompareTab",
           "bayescm.app.server.serve", "bayescm.accessor.BayescmAccessor.save",
           "bayescm.app.planning_tab.PlanJob", "bayescm.app.matrix_tab.MatrixTab",
           "bayescm.app.matrixjob.MatrixJob", "bayescm.app.matrixjob.MatrixResult.sentence",
           "bayescm.cli_roc.write_figures"}
"""Doctests without NUTS that still take 1-2 s each (a whole app page, a comparison tab that
fits, netCDF writes): they run with the slow checks too, so the default run stays under two
minutes."""


@pytest.hookimpl(tryfirst=True)  # before -m selects: the slow mark must be there by then
def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """Doctests: a prior-strength warning is an error (issue 18), NUTS examples are slow.

    A reader copies a docstring's example, so it should show a matrix large enough for the
    model's default prior: the doctests turn
    :class:`~bayescm.errors.PriorStrengthWarning` into an error; use a bigger matrix
    where one fires. An example that samples with NUTS (:data:`NUTS`) is marked ``slow``.
    """
    from _pytest.doctest import DoctestItem

    mark = pytest.mark.filterwarnings("error::bayescm.errors.PriorStrengthWarning")
    for item in items:
        if isinstance(item, DoctestItem):
            item.add_marker(mark)
            source = "\n".join(example.source for example in item.dtest.examples)
            if NUTS.search(source) or item.name in SECONDS:
                item.add_marker(pytest.mark.slow)
