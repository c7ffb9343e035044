"""Every file goes through one writer: atomic, umask-respecting, never through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import bayescm as bcm
from bayescm.cli import main
from bayescm.core.files import atomic_write, inside
from bayescm.io.spec import parse_spec

COCAINE = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_writer_respects_the_umask(tmp_path, umask022):
    path = atomic_write(tmp_path / "a.txt", lambda p: p.write_text("x"))
    assert (path.stat().st_mode & 0o777) == 0o644
    os.umask(0o077)
    path = atomic_write(tmp_path / "b.txt", lambda p: p.write_text("x"))
    assert (path.stat().st_mode & 0o777) == 0o600


def test_save_respects_the_umask_and_replaces_a_link(tmp_path, umask022):
    victim = tmp_path / "victim.txt"
    victim.write_text("do not touch")
    link = tmp_path / "fit.nc"
    link.symlink_to(victim)
    bcm.save(bcm.fit(COCAINE, draws=50, random_seed=0), link)
    assert victim.read_text() == "do not touch"
    assert not link.is_symlink() and (link.stat().st_mode & 0o777) == 0o644
    assert bcm.load(link)["posterior"]["tpr"].shape == (4, 50)


def test_spec_run_never_writes_through_links(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    victims = {}
    for name in ("summary.csv", "forest.png", "toy.nc"):
        target = tmp_path / f"victim-{name}"
        target.write_text("keep")
        (out / name).symlink_to(target)
        victims[name] = target
    spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2},
                       "outputs": {"figures": ["forest"]}}, name="toy")
    spec.run(out, draws=50, random_seed=1)
    for name, target in victims.items():
        assert target.read_text() == "keep", name
        assert not (out / name).is_symlink(), name


def test_nothing_is_written_outside_the_output_folder(tmp_path):
    with pytest.raises(ValueError, match="outside the output folder"):
        inside(tmp_path, "../x.nc")
    with pytest.raises(ValueError, match="absolute path"):
        inside(tmp_path, str((tmp_path / "x.nc").resolve()))  # any absolute name
    (tmp_path / "sub").symlink_to(tmp_path.parent)
    with pytest.raises(ValueError, match="outside the output folder"):
        inside(tmp_path, "sub/x.nc")
    with pytest.raises(ValueError, match="no slashes"):
        parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="../../escape")


def test_save_refuses_what_is_not_a_result(tmp_path):
    with pytest.raises(TypeError, match="result tree"):
        bcm.save({"posterior": 1}, tmp_path / "x.nc")
    assert not (tmp_path / "x.nc").exists()


def test_cli_plot_goes_through_the_writer(tmp_path, umask022):
    victim = tmp_path / "victim.png"
    victim.write_text("keep")
    plot = tmp_path / "plot.png"
    plot.symlink_to(victim)
    code = main(["analyze", "--tp", "26", "--fn", "0", "--tn", "6", "--fp", "2", "--draws",
                 "200", "--seed", "1", "--format", "csv", "--plot", str(plot)])
    assert code == 0
    assert victim.read_text() == "keep"
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_matrix_csv_counts_are_exact(tmp_path):
    from bayescm.io.readers import read_matrix_csv

    path = Path(tmp_path) / "m.csv"
    path.write_text(f"t\\p,a,b\na,{2**63 - 1},1\nb,0,5\n")
    with pytest.raises(OverflowError, match="2\\*\\*63 - 1"):
        read_matrix_csv(path)


# slow: saves and reloads large trees; the slow run (CI) checks it
@pytest.mark.slow
def test_saved_results_are_compact_and_summaries_survive(tmp_path):
    from bayescm.io.datasets import literature_matrices

    mats = dict(list(literature_matrices().items())[:6])
    tree = bcm.fit(mats, random_seed=1)
    path = bcm.save(tree, tmp_path / "fit.nc")
    again = bcm.load(path)
    raw = tree["posterior"].to_dataset().nbytes + tree["prior"].to_dataset().nbytes
    assert path.stat().st_size < 0.6 * raw  # float32 draws, gzip
    assert again["observed_data"]["counts"].dtype.kind == "i"
    assert (again["observed_data"]["counts"].values == tree["observed_data"]["counts"].values
            ).all()
    a, b = bcm.summary(tree), bcm.summary(again)
    assert (a["observed"].fillna(-1) == b["observed"].fillna(-1)).all()
    bounded = [i for i in a.index if not i.startswith(("lr_", "dor"))]
    diff = (a.loc[bounded, ["mean", "sd", "hdi_lower", "hdi_upper"]]
            - b.loc[bounded, ["mean", "sd", "hdi_lower", "hdi_upper"]]).abs()
    assert float(diff.max().max()) < 1e-4  # Monte Carlo error here is ~1e-3
