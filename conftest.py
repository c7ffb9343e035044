"""Collection rules for the whole repository (the tests, the package's doctests, README.md).

The web app's modules import Panel, an optional dependency (``pip install 'bayescm[app]'``):
without it their doctests are not collected (``tests/test_app.py`` skips itself).
"""

import re
from importlib import util

import pytest

collect_ignore_glob = [] if util.find_spec("panel") else ["bayescm/app/*.py"]


NUTS = re.compile(r"model=\"hierarchical\"|HierarchicalModel\.example\(|"
                  r"method=\"(?:nuts|binormal|bibeta)\"|\bPrior\(|ItemsModel\.example\(|ItemsJob\(|"
                  r"fit\((?:bcm\.)?(?:Items\(|datasets\.eval_log\(|eval_log\(|log\b|items\b)")
"""What a doctest calls when it samples with NUTS (seconds each): such examples run with the
slow checks, so the default test run stays free of NUTS fits."""


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
            if NUTS.search(source):
                item.add_marker(pytest.mark.slow)
