"""The lessons' quick mode for live teaching (issue 27): slow fits read stored draws.

``notebooks/lesson.py``'s ``fit_or_read`` samples a slow fit and stores its draws, or with
``QUICK = True`` reads them back (sampling once when nothing is stored). These fast tests check
the round trip and the first quick run; ``tests/test_notebooks.py`` (slow) runs every lesson
that uses it a second time in quick mode and checks that no cell samples and that the outputs
are those of the full run.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

import bayescm as bcm

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"


def _lesson():
    spec = importlib.util.spec_from_file_location("lesson", FOLDER / "lesson.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_tree_and_an_array_come_back_exactly_as_they_were_stored(tmp_path) -> None:
    lesson = _lesson()
    cm = bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2)
    tree = lesson.fit_or_read("t", lambda: bcm.fit(cm, random_seed=0), quick=False,
                              folder=tmp_path)
    back = lesson.fit_or_read("t", lambda: 1 / 0, quick=True, folder=tmp_path)
    np.testing.assert_array_equal(back["posterior"]["tpr"].values, tree["posterior"]["tpr"].values)
    draws = np.random.default_rng(0).normal(size=7)
    lesson.fit_or_read("a", lambda: draws, quick=False, folder=tmp_path)
    np.testing.assert_array_equal(lesson.fit_or_read("a", lambda: 1 / 0, quick=True,
                                                     folder=tmp_path), draws)


def test_quick_mode_samples_once_when_nothing_is_stored(tmp_path, capsys) -> None:
    lesson = _lesson()
    calls = []

    def fit() -> np.ndarray:
        calls.append(1)
        return np.arange(3.0)

    first = lesson.fit_or_read("new", fit, quick=True, folder=tmp_path)
    assert "sampling them once" in capsys.readouterr().out
    again = lesson.fit_or_read("new", fit, quick=True, folder=tmp_path)
    assert len(calls) == 1
    np.testing.assert_array_equal(first, again)


def test_a_full_run_samples_again_and_replaces_the_stored_draws(tmp_path) -> None:
    lesson = _lesson()
    lesson.fit_or_read("x", lambda: np.zeros(2), quick=False, folder=tmp_path)
    lesson.fit_or_read("x", lambda: np.ones(2), quick=False, folder=tmp_path)
    assert lesson.fit_or_read("x", lambda: 1 / 0, quick=True, folder=tmp_path).tolist() == [1, 1]


def test_the_folder_can_be_moved_by_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BAYESCM_LESSON_FITS", str(tmp_path))
    assert tmp_path == _lesson().FITS
