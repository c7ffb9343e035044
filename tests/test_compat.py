"""Old module paths keep working after the 0.3 layout and warn once; public names never moved."""

import importlib
import pickle
import subprocess
import sys
import warnings

import pytest

import bayescm as bcm
from bayescm._compat import MOVED, PUBLIC


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_loads_its_new_home(old: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(f"bayescm.{old}")
    assert module is importlib.import_module(f"bayescm.{MOVED[old]}")


def test_an_old_path_warns_once_and_public_modules_not_at_all() -> None:
    code = ("import warnings; warnings.simplefilter('always')\n"
            "import bayescm.fitting\nimport bayescm.fitting\n"
            "from bayescm.compare import prob_superior\n"
            "import bayescm.stats, bayescm.samplesize\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stderr
    assert out.count("bayescm.fitting moved to bayescm.models.fitting") == 1
    assert "bayescm.compare moved to bayescm.comparisons.superiority" in out
    assert "bayescm.stats moved" not in out and "samplesize moved" not in out
    assert "<string>" in out  # the warning points at the user's import line
    assert {"stats", "samplesize"} <= PUBLIC


def test_every_name_in_all_resolves() -> None:
    for name in bcm.__all__:
        assert getattr(bcm, name) is not None, name


def test_objects_pickled_under_an_old_path_load() -> None:
    cm = bcm.ConfusionMatrix.from_counts(tp=3, fn=1, tn=4, fp=2)
    data = pickle.dumps(cm, protocol=0).replace(b"bayescm.core.confusion", b"bayescm.confusion")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert pickle.loads(data) == cm


def test_old_paths_named_like_functions_do_not_hide_them() -> None:
    from bayescm.simulate import simulate_counts
    from bayescm.summary import informedness

    assert callable(bcm.summary) and callable(bcm.simulate)
    assert informedness is bcm.informedness and simulate_counts is bcm.simulate_counts


def test_import_bayescm_leaves_the_heavy_parts_for_later() -> None:
    code = ("import sys, bayescm as bcm\n"
            "heavy = ['bayescm.models.hierarchical', 'bayescm.models.scores', "
            "'bayescm.models.paired', 'bayescm.comparisons.paired', 'bayescm.analyses.batch', "
            "'bayescm.io.spec', 'pymc', 'matplotlib', 'scipy']\n"
            "print([m for m in heavy if m in sys.modules])\n"
            "bcm.compare_paired, bcm.summarize_batch\n"
            "import bayescm.models.registry as r\n"
            "print(r.get('hierarchical').key, 'bayescm.models.hierarchical' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[]", "hierarchical True"]
