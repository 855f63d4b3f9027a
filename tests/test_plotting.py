"""Plots (loops/plotting.py): headless figures, trajectories with a 2D view for planar
points, sweep curves, mechanism snapshots with a marker per pair type, GIF animations."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from loops import plotting
from mechanism import Mechanism

REPO = Path(__file__).resolve().parents[1]


def four_bar():
    """Planar crank-rocker in the xy-plane (m), with a coupler point."""
    m = Mechanism("four-bar")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    x = (0.12**2 - 0.08**2 - 0.04**2 + 0.1**2) / (2 * (0.1 - 0.04))
    y = float(np.sqrt(0.12**2 - (x - 0.04) ** 2))
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("B", "revolute", "crank", "coupler", at=(0.04, 0, 0), axis=(0, 0, 1))
    m.add_pair("C", "revolute", "coupler", "rocker", at=(x, y, 0), axis=(0, 0, 1))
    m.add_pair("D", "revolute", "ground", "rocker", at=(0.1, 0, 0), axis=(0, 0, 1))
    m.add_point("P", "coupler", at=(0.06, 0.05, 0))
    m.add_point("R", "rocker", at=(0.1, 0.04, 0))
    return m


def slider_crank():
    """Offset slider-crank: revolute, revolute, revolute, prismatic."""
    m = Mechanism("slider-crank")
    for link in ("crank", "rod", "slider"):
        m.add_link(link)
    m.add_pair("O", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("B", "revolute", "crank", "rod", at=(0.03, 0, 0), axis=(0, 0, 1))
    m.add_pair("C", "revolute", "rod", "slider", at=(0.13, 0.01, 0), axis=(0, 0, 1))
    m.add_pair("S", "prismatic", "slider", "ground", at=(0.13, 0.01, 0), axis=(1, 0, 0))
    m.add_point("piston", "slider", at=(0.13, 0.01, 0))
    return m


@pytest.fixture(scope="module")
def sweep():
    return four_bar().sweep({"A": np.linspace(0, 2 * np.pi, 73)})


def colours_in(png_path):
    from matplotlib import image

    pixels = image.imread(png_path)
    return len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0))


def test_curves_headless_png(tmp_path):
    x = np.linspace(0, 360, 73)
    path = tmp_path / "curves.png"
    fig = plotting.plot_curves(x, {"C": np.sin(np.radians(x)), "D": np.cos(np.radians(x))}, path=path,
                               x_label="A [deg]", y_label="angle [deg]")
    assert len(fig.axes[0].lines) == 2
    assert [line.get_label() for line in fig.axes[0].lines] == ["C", "D"]
    assert path.stat().st_size > 5_000 and colours_in(path) > 10


def test_planar_points_get_a_2d_view_in_their_coordinate_plane():
    t = np.linspace(0, 2 * np.pi, 50)
    circle = np.column_stack([np.cos(t), np.sin(t), np.full_like(t, 0.3)])
    fig = plotting.plot_trajectories({"P": circle, "Q": circle * [0.5, 0.5, 1.0]})
    assert len(fig.axes) == 2
    flat = fig.axes[1]
    assert flat.get_xlabel() == "x [m]" and flat.get_ylabel() == "y [m]"
    np.testing.assert_allclose(flat.lines[0].get_xydata(), circle[:, :2], rtol=0, atol=1e-15)


def test_points_in_a_tilted_plane_are_projected_into_it():
    t = np.linspace(0, 2 * np.pi, 50)
    u, v = np.array([1.0, 1.0, 0.0]) / np.sqrt(2), np.array([0.0, 0.0, 1.0])
    tilted = np.cos(t)[:, None] * u + np.sin(t)[:, None] * v + [0.1, 0.2, 0.3]
    fig = plotting.plot_trajectories({"P": tilted})
    assert len(fig.axes) == 2 and fig.axes[1].get_xlabel() == "u [m]"
    projected = fig.axes[1].lines[0].get_xydata()
    # Projection into the points' own plane keeps every distance (round-off only).
    np.testing.assert_allclose(np.linalg.norm(projected - projected[0], axis=1),
                               np.linalg.norm(tilted - tilted[0], axis=1), rtol=0, atol=1e-12)


def test_spatial_points_get_only_the_3d_view():
    t = np.linspace(0, 4 * np.pi, 80)
    helix = np.column_stack([np.cos(t), np.sin(t), t])
    fig = plotting.plot_trajectories({"H": helix})
    assert len(fig.axes) == 1 and fig.axes[0].name == "3d"


def test_trajectories_of_a_sweep_in_file_units(sweep, tmp_path):
    path = tmp_path / "traj.png"
    fig = plotting.plot_trajectories(sweep, ["P", "R"], path=path, length_scale=1000.0, length_unit="mm")
    ax3d, ax2d = fig.axes
    assert ax3d.get_xlabel() == "x [mm]"
    np.testing.assert_allclose(ax2d.lines[0].get_xydata(), sweep.point("P")[:, :2] * 1000.0, rtol=1e-15, atol=0)
    assert path.stat().st_size > 10_000 and colours_in(path) > 10


def test_snapshot_marks_each_pair_type_with_its_marker(tmp_path):
    result = slider_crank().sweep({"O": np.linspace(0, np.pi, 7)})
    path = tmp_path / "snap.png"
    fig = plotting.plot_snapshot(result, 3, path=path)
    ax = fig.axes[0]
    legend = {text.get_text() for text in ax.get_legend().get_texts()}
    assert legend == {"revolute", "prismatic"}
    markers = {line.get_marker() for line in ax.lines if line.get_linestyle() == "None"}
    assert {plotting.PAIR_MARKERS["revolute"], plotting.PAIR_MARKERS["prismatic"]} <= markers
    assert len(set(plotting.PAIR_MARKERS.values())) == len(plotting.PAIR_MARKERS)
    # The crank is drawn from O to the crank pin B at the swept angle (pi/2 here).
    crank_line = [line for line in ax.lines if line.get_linestyle() == "-"][0]
    xs, ys, zs = crank_line.get_data_3d()
    np.testing.assert_allclose(np.column_stack([xs, ys, zs]), [[0, 0, 0], [0, 0.03, 0]], rtol=0, atol=1e-12)
    assert path.stat().st_size > 10_000


def test_snapshot_index_out_of_range(sweep):
    with pytest.raises(IndexError, match="out of range"):
        plotting.plot_snapshot(sweep, len(sweep))


def test_animation_is_a_gif_with_one_frame_per_drawn_position(sweep, tmp_path):
    from PIL import Image

    path = tmp_path / "sweep.gif"
    plotting.animate_sweep(sweep, path, every=10, length_scale=1000.0, length_unit="mm")
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == len(range(0, 73, 10)) + 1  # 0, 10, ..., 70, and the last position, 72


def test_animation_without_pillow_says_so(sweep, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # "import PIL" now raises ImportError
    with pytest.raises(RuntimeError, match="needs the pillow package"):
        plotting.animate_sweep(sweep, tmp_path / "sweep.gif")


def test_csv_columns(tmp_path):
    csv_path = tmp_path / "res.csv"
    csv_path.write_text("A,C\n0.0,1.0\n1.0,3.0\n2.0,2.0\n")
    fig = plotting.plot_csv(csv_path, "A", ["C"], path=tmp_path / "c.png")
    np.testing.assert_array_equal(fig.axes[0].lines[0].get_xydata(), [[0, 1], [1, 3], [2, 2]])
    with pytest.raises(KeyError, match="no column 'E'"):
        plotting.plot_csv(csv_path, "A", "E")
    csv_path.write_text("A,C\n0.0,1.0\n1.0\n")
    with pytest.raises(ValueError, match="line 3: 1 values for 2 columns"):
        plotting.read_csv(csv_path)
    # The units line a kinematrix CSV opens with is skipped; line numbers still count it.
    csv_path.write_text("# units: length=mm angle=deg time=s\nA,C\n0.0,1.0\n1.0,x\n")
    with pytest.raises(ValueError, match="line 4: not a number"):
        plotting.read_csv(csv_path)
    csv_path.write_text("# units: length=mm angle=deg time=s\nA,C\n0.0,1.0\n")
    assert plotting.read_csv(csv_path)[0] == ["A", "C"]


def test_matplotlib_is_imported_only_when_plotting():
    code = ("import sys, loops, loops.plotting; assert 'matplotlib' not in sys.modules; "
            "loops.plotting.plot_curves([0, 1], {'y': [0, 1]}); "
            "assert 'matplotlib' in sys.modules and 'matplotlib.pyplot' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_planar_snapshot_is_seen_face_on_and_fits_the_whole_motion(sweep):
    """A planar mechanism (the xy-plane) is viewed along its normal (elevation +-90 deg), and
    the box holds every position of the sweep, not only the one drawn."""
    from matplotlib.figure import Figure

    ax = Figure().add_subplot(1, 1, 1, projection="3d")
    plotting.plot_snapshot(sweep, 0, ax=ax)
    assert abs(abs(ax.elev) - 90.0) < 1e-9
    scene = plotting._Scene(sweep, None, 1.0)
    everything = scene.extent(slice(None))
    low, high = ax.get_xlim()
    assert low <= everything[:, 0].min() and everything[:, 0].max() <= high


def test_explicit_view_and_colour_offset(sweep):
    """``view=(elev, azim)`` is applied as given; ``first_color`` moves along the colour cycle."""
    from matplotlib.figure import Figure

    ax = Figure().add_subplot(1, 1, 1, projection="3d")
    plotting.plot_snapshot(sweep, 0, ax=ax, view=(20.0, -60.0))
    assert (ax.elev, ax.azim) == (20.0, -60.0)
    first = Figure().add_subplot(1, 1, 1)
    second = Figure().add_subplot(1, 1, 1)
    x = np.linspace(0, 1, 5)
    plotting.plot_curves(x, {"a": x}, ax=first)
    plotting.plot_curves(x, {"b": x}, ax=second, first_color=1)
    assert first.lines[0].get_color() != second.lines[0].get_color()


def test_figure_path_reads_out_as_a_folder_or_a_file_name(tmp_path, monkeypatch):
    """The example scripts' ``--out``: a folder (made when missing; a name without a suffix is
    one) gets the script's own file name, a file name is used as given (its folder made), and
    no ``--out`` is the current folder."""
    from loops.plotting import figure_path

    assert figure_path(tmp_path, "four_bar.png") == tmp_path / "four_bar.png"
    assert figure_path(tmp_path / "pictures", "four_bar.png") == tmp_path / "pictures" / "four_bar.png"
    assert (tmp_path / "pictures").is_dir()
    assert figure_path(tmp_path / "new" / "mine.png", "four_bar.png") == tmp_path / "new" / "mine.png"
    assert (tmp_path / "new").is_dir() and not (tmp_path / "new" / "mine.png").exists()
    monkeypatch.chdir(tmp_path)
    assert figure_path(None, "four_bar.png") == tmp_path / "four_bar.png"
