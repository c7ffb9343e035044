"""Collection rules for the whole repository (the tests, the package's doctests, README.md).

The web app's modules import Panel, an optional dependency (``pip install 'bayescm[app]'``):
without it their doctests are not collected (``tests/test_app.py`` skips itself).
"""

from importlib import util

collect_ignore_glob = [] if util.find_spec("panel") else ["bayescm/app/*.py"]


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """Make a prior-strength warning in a doctest an error (issue 18, point 4).

    A reader copies a docstring's example, so it should show a matrix large enough for the
    model's default prior: the doctests turn
    :class:`~bayescm.models.checks.PriorStrengthWarning` into an error; use a bigger matrix
    where one fires.
    """
    import pytest
    from _pytest.doctest import DoctestItem

    mark = pytest.mark.filterwarnings("error::bayescm.models.checks.PriorStrengthWarning")
    for item in items:
        if isinstance(item, DoctestItem):
            item.add_marker(mark)
