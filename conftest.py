"""Collection rules for the whole repository (the tests, the package's doctests, README.md).

The web app's modules import Panel, an optional dependency (``pip install 'bayescm[app]'``):
without it their doctests are not collected (``tests/test_app.py`` skips itself).
"""

from importlib import util

collect_ignore_glob = [] if util.find_spec("panel") else ["bayescm/app/*.py"]
