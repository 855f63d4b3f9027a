"""Design studies from files and the command line: the designs of loops/study/designs.py, the
vary file that states them, the band sheet (loops/study/sheets.py) and ``kinematrix study``
(loops/study/cli.py) on the shipped double wishbone: values in the file's units, exit status 0
with stopped variants listed, 1 when the nominal design stops, 2 for user errors."""

import csv
import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal
import pytest

from dynamics.cli import main
try:
    from tests.command_line import run_kinematrix
except ImportError:  # tests/ itself on sys.path
    from command_line import run_kinematrix
from loops.study.designs import MAX_VARIANTS, full_factorial, latin_hypercube, monte_carlo, offsets, read_vary
from loops.study.sheets import plot_bands
from loops.study.study import run_study
from loops.suspension import load_suspension, parallel_travel
from mechanism import ModelError

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
WISHBONE = EXAMPLES / "double_wishbone.toml"
#: 21 positions of wheel travel, mm (the model file's unit).
TRAVEL = "-80:80:8"

SMALL_VARY = """\
design = "latin-hypercube"
variants = 20
seed = 4
[[vary]]
hardpoint = "lower_ball"
range = [-3, 3]
[[vary]]
hardpoint = "upper_ball.y"
range = [-2, 2]
"""


@pytest.fixture(scope="module")
def corner():
    return load_suspension(WISHBONE)


def write(tmp_path, text, name="vary.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def read_csv(path):
    """(comment line, header, (rows, columns) floats) of a kinematrix CSV file (its comment line
    ends naming each column's unit, left out here)."""
    lines = Path(path).read_text().splitlines()
    assert "; columns: " in lines[0]
    rows = list(csv.reader(lines[1:]))
    return lines[0].partition("; columns: ")[0], rows[0], np.array([[float(v) for v in row] for row in rows[1:]])


# -------------------------------------------------------------------------- designs
def test_latin_hypercube_stays_in_bounds_with_one_variant_per_stratum():
    bounds = np.array([[-0.005, 0.005], [0.0, 0.002], [-1.0, 3.0]])
    count = 50
    table = latin_hypercube(bounds, count, seed=7)
    assert table.shape == (count, 3)
    assert np.all(table >= bounds[:, 0]) and np.all(table < bounds[:, 1])
    strata = np.floor((table - bounds[:, 0]) / (bounds[:, 1] - bounds[:, 0]) * count).astype(int)
    for column in strata.T:  # each of the count equal strata of each coordinate holds exactly one variant
        assert_array_equal(np.sort(column), np.arange(count))
    assert_array_equal(latin_hypercube(bounds, count, seed=7), table)  # the seed fixes the design
    assert not np.array_equal(latin_hypercube(bounds, count, seed=8), table)


@pytest.mark.parametrize("k, count, seed", [(1, 1, 0), (2, 5, 1), (3, 50, 7), (4, 24, 3), (7, 1000, 2**40)])
def test_latin_hypercube_is_scipys_design_to_the_bit(k, count, seed):
    """The design is :class:`scipy.stats.qmc.LatinHypercube`'s (scrambled) for ``default_rng(seed)``."""
    from scipy.stats import qmc

    bounds = np.column_stack([np.linspace(-3.0, 0.0, k), np.linspace(0.5, 4.0, k)])
    unit = qmc.LatinHypercube(d=k, seed=np.random.default_rng(seed)).random(count)
    assert_array_equal(latin_hypercube(bounds, count, seed), bounds[:, 0] + unit * (bounds[:, 1] - bounds[:, 0]))


def test_a_latin_hypercube_imports_no_scipy_stats():
    """A study command's start: :mod:`scipy.stats` alone took longer to import than the command's
    other work on a small study."""
    code = ("import sys; from loops.study.designs import latin_hypercube; latin_hypercube([[0.0, 1.0]], 3); "
            "print('scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "False\n", done.stderr


def test_full_factorial_is_every_combination_of_the_levels():
    table = full_factorial([[-0.002, 0.002], [0.0, 1.0]], levels=3)
    expected = list(itertools.product([-0.002, 0.0, 0.002], [0.0, 0.5, 1.0]))  # first coordinate slowest
    assert_allclose(table, expected, rtol=0, atol=1e-18)
    corners = full_factorial([[-1.0, 1.0]] * 3, levels=2)
    assert corners.shape == (8, 3) and len({tuple(row) for row in corners.tolist()}) == 8
    assert set(corners.ravel().tolist()) == {-1.0, 1.0}


def test_monte_carlo_is_reproducible_and_spread_is_three_sigma_or_the_half_width():
    spread = [0.003, 0.003]
    normal = monte_carlo(spread, 20000, "normal", seed=11)
    assert_array_equal(monte_carlo(spread, 20000, "normal", seed=11), normal)
    assert not np.array_equal(monte_carlo(spread, 20000, "normal", seed=12), normal)
    # sigma = spread / 3: the standard error of a standard deviation over 20000 draws is 0.5 %
    assert_allclose(normal.std(axis=0), 0.001, rtol=0.03)
    outside = np.mean(np.abs(normal) > 0.003)
    assert 0.0010 < outside < 0.0050  # 0.27 % beyond 3 sigma: the normal is not truncated
    uniform = monte_carlo(spread, 20000, "uniform", seed=11)
    assert np.all(np.abs(uniform) <= 0.003)
    assert_allclose(uniform.std(axis=0), 0.003 / np.sqrt(3.0), rtol=0.03)
    # a column depends on the seed and its own distribution only
    mixed = monte_carlo(spread, 20000, ["normal", "uniform"], seed=11)
    assert_array_equal(mixed[:, 0], normal[:, 0])
    assert_array_equal(mixed[:, 1], uniform[:, 1])


DESIGN_MISTAKES = [
    (lambda: full_factorial([[-1, 1]], 1), "levels", "expected a whole number at least 2, got 1"),
    (lambda: full_factorial([[-1, 1]] * 21, 2), "levels", "a full factorial of 2 levels in 21 coordinates is "
     "2,097,152 variants, more than the 1,000,000 a design may hold"),
    (lambda: full_factorial([[-1, 1], [2, 2]], 3), "bounds[1]", "the lower bound must be below the upper one"),
    (lambda: latin_hypercube([[-1, 1]], 0), "variants", "expected a whole number from 1 to 1,000,000, got 0"),
    (lambda: latin_hypercube([[-1, 1]], MAX_VARIANTS + 1), "variants", "from 1 to 1,000,000, got 1,000,001"),
    (lambda: latin_hypercube([[-1, 1]], 2.5), "variants", "expected a whole number, got 2.5"),
    (lambda: latin_hypercube([[-1, 1]], True), "variants", "expected a whole number, got True"),
    (lambda: latin_hypercube([[-1, 1]], 5, seed=-1), "seed", "expected a whole number at least 0, got -1"),
    (lambda: latin_hypercube([-1, 1], 5), "bounds", "expected a table of shape (coordinates, 2)"),
    (lambda: monte_carlo([0.001, 0.0], 5), "spread[1]", "expected a positive finite spread"),
    (lambda: monte_carlo([0.001], 5, "gauss"), "distribution", "expected one of normal, uniform, got 'gauss'"),
    (lambda: offsets([[0.0, np.nan]]), "offsets[0]", "non-finite value"),
]


@pytest.mark.parametrize("call, where, problem", DESIGN_MISTAKES,
                         ids=[f"{where}: {problem[:30]}" for _, where, problem in DESIGN_MISTAKES])
def test_design_mistakes_are_located(call, where, problem):
    with pytest.raises(ModelError) as info:
        call()
    assert info.value.where == where and problem in info.value.problem, str(info.value)


# ------------------------------------------------------------------------ vary files
def test_shipped_vary_file_is_a_latin_hypercube_of_every_linkage_hardpoint(corner):
    names, table = read_vary(EXAMPLES / "double_wishbone_vary.toml", corner)
    hardpoints = ["lower_inner", "upper_inner", "lower_ball", "upper_ball", "rack_end", "steer_ball"]
    assert names == [f"{h}.{axis}" for h in hardpoints for axis in "xyz"]
    assert table.shape == (1000, 18)
    assert np.all(np.abs(table) < 0.005)  # +-5 mm in the file, m in memory
    strata = np.floor((table + 0.005) / 0.010 * 1000).astype(int)
    assert all(np.array_equal(np.sort(column), np.arange(1000)) for column in strata.T)


def test_vary_file_designs_in_the_model_files_units(tmp_path, corner):
    factorial = write(tmp_path, 'design = "factorial"\nlevels = 3\n[[vary]]\nhardpoint = "lower_ball.z"\n'
                      'range = [-5, 5]\n[[vary]]\nhardpoint = "upper_inner.axis.z"\nrange = [-0.02, 0.02]\n')
    names, table = read_vary(factorial, corner)
    assert names == ["lower_ball.z", "upper_inner.axis.z"]
    # mm -> m for a location; an axis component has no unit
    assert_allclose(table, list(itertools.product([-0.005, 0.0, 0.005], [-0.02, 0.0, 0.02])), rtol=0, atol=1e-18)
    explicit = write(tmp_path, 'design = "offsets"\n[[offsets]]\n"lower_ball.z" = 2.0\n[[offsets]]\n'
                     'upper_ball = [1, -2, 3]\n')
    names, table = read_vary(explicit, corner)
    assert names == ["lower_ball.z", "upper_ball.x", "upper_ball.y", "upper_ball.z"]
    assert_allclose(table, [[0.002, 0, 0, 0], [0, 0.001, -0.002, 0.003]], rtol=0, atol=1e-18)
    carlo = write(tmp_path, 'design = "monte-carlo"\nvariants = 500\nseed = 3\n[[vary]]\nhardpoint = "rack_end"\n'
                  'spread = 0.5\ndistribution = "uniform"\n[[vary]]\nhardpoint = "steer_ball.z"\nspread = 0.3\n')
    names, table = read_vary(carlo, corner)
    assert len(names) == 4 and table.shape == (500, 4)
    assert_array_equal(table, monte_carlo([0.0005] * 3 + [0.0003], 500, ["uniform"] * 3 + ["normal"], seed=3))


def test_vary_file_of_an_axle_mirrored_from_a_corner_file_is_in_that_files_units(tmp_path):
    """front_axle.toml (mm) mirrors its corner into an axle built in SI: the vary file still
    reads in the file's mm, and names the axle's hardpoints."""
    axle = load_suspension(EXAMPLES / "front_axle.toml")
    vary = write(tmp_path, 'design = "latin-hypercube"\nvariants = 30\n[[vary]]\nhardpoint = "lower_ball_left"\n'
                 'range = [-1, 1]\n')
    names, table = read_vary(vary, axle)
    assert names == ["lower_ball_left.x", "lower_ball_left.y", "lower_ball_left.z"]
    assert np.all(np.abs(table) < 0.001) and np.ptp(table) > 0.0015


LHS = 'design = "latin-hypercube"\nvariants = 10\n'
BALL = '[[vary]]\nhardpoint = "lower_ball"\n'


VARY_MISTAKES = [
    ('variant = 3\n' + LHS + BALL + 'range = [-1, 1]\n',
     "vary.toml: variant: unknown key (did you mean 'variants'?) (expected design, variants, levels, seed, vary, "
     "offsets)"),
    ('variants = 3\n', "vary.toml: design: missing required key (one of factorial, latin-hypercube, monte-carlo, "
     "offsets)"),
    ('design = "lhs"\n', "vary.toml: design: unknown design 'lhs' (expected factorial, latin-hypercube, "
     "monte-carlo, offsets)"),
    (LHS + 'levels = 3\n' + BALL + 'range = [-1, 1]\n',
     "vary.toml: levels: not used by design = 'latin-hypercube' (it takes variants, seed, vary)"),
    ('design = "monte-carlo"\n' + BALL + 'spread = 1\n',
     "vary.toml: variants: missing required key (design = 'monte-carlo' takes variants, seed, vary)"),
    ('design = "latin-hypercube"\nvariants = 0\n' + BALL + 'range = [-1, 1]\n',
     "vary.toml: variants: expected a whole number from 1 to 1,000,000, got 0"),
    (LHS + 'seed = "one"\n' + BALL + 'range = [-1, 1]\n', "vary.toml: seed: expected a whole number, got 'one'"),
    (LHS + '[vary]\nhardpoint = "lower_ball"\nrange = [-1, 1]\n',
     "vary.toml: vary: expected one or more [[vary]] tables (hardpoint = NAME and range = [LOWER, UPPER])"),
    (LHS + '[[vary]]\nhardpoint = "lower_bal"\nrange = [-1, 1]\n',
     "vary.toml: vary[0] ('lower_bal'): hardpoint: not a hardpoint of 'double-wishbone'"),
    (LHS + BALL + 'range = [1, -1]\n',
     "vary.toml: vary[0] ('lower_ball'): range: the lower bound must be below the upper one, got [1, -1]"),
    (LHS + BALL + 'range = [-1]\n', "vary.toml: vary[0] ('lower_ball'): range: expected [lower, upper] offsets "
     "(mm), got [-1]"),
    (LHS + BALL + 'range = ["a", 1]\n', "vary.toml: vary[0] ('lower_ball'): range: expected a number, got 'a'"),
    (LHS + BALL + 'spread = 1\n', "vary.toml: vary[0] ('lower_ball'): spread: used by design = 'monte-carlo', "
     "not 'latin-hypercube' (expected hardpoint, range)"),
    (LHS + BALL, "vary.toml: vary[0] ('lower_ball'): range: missing required key"),
    ('design = "monte-carlo"\nvariants = 5\n' + BALL + 'spread = 0\n',
     "vary.toml: vary[0] ('lower_ball'): spread: must be positive, got 0.0"),
    ('design = "monte-carlo"\nvariants = 5\n' + BALL + 'spread = 1\ndistribution = "gauss"\n',
     "vary.toml: vary[0] ('lower_ball'): distribution: expected one of normal, uniform, got 'gauss'"),
    (LHS + BALL + 'range = [-5000, 5000]\n', "vary.toml: vary[0] ('lower_ball'): range: an offset of 5000 mm is "
     "larger than the model (512.64 mm between its farthest hardpoints): is it in the wrong unit?"),
    (LHS + BALL + 'range = [-1, 1]\n[[vary]]\nhardpoint = "lower_ball.y"\nrange = [-1, 1]\n',
     "vary.toml: vary[1] ('lower_ball.y'): hardpoint: coordinate 'lower_ball.y' is already varied by vary[0] "
     "('lower_ball')"),
    ('design = "factorial"\nlevels = 4\n' + "".join(f'[[vary]]\nhardpoint = "{h}"\nrange = [-1, 1]\n' for h in
                                                    ("lower_ball", "upper_ball", "rack_end", "steer_ball")),
     "vary.toml: levels: a full factorial of 4 levels in 12 coordinates is 16,777,216 variants, more than the "
     "1,000,000 a design may hold"),
    ('design = "offsets"\n[[offsets]]\nlower_ball = 2.0\n',
     "vary.toml: offsets[0]: lower_ball: expected 3 numbers (x, y, z), got 2.0"),
    ('design = "offsets"\n[[offsets]]\n"lower_ball.z" = 1\n[[offsets]]\nlower_ball = [1, 2, 3]\n',
     "vary.toml: offsets[1]: lower_ball: 'lower_ball' includes 'lower_ball.z', which is also given as "
     "'lower_ball.z': name each coordinate one way"),
    ('design = "latin-hypercube"\nvariants = \n', "vary.toml: line 2, column 12: TOML syntax error"),
]


@pytest.mark.parametrize("text, expected", VARY_MISTAKES, ids=[e[len("vary.toml: "):][:48] for _, e in VARY_MISTAKES])
def test_vary_file_mistakes_name_the_file_table_and_key(tmp_path, corner, text, expected):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as info:
        read_vary(path, corner)
    message = str(info.value)
    assert message.startswith(expected) and "\n" not in message, message


def test_a_factorial_of_exactly_the_limit_is_read(tmp_path, corner):
    """10 levels in 6 coordinates: 1,000,000 variants, the most a design may hold."""
    text = 'design = "factorial"\nlevels = 10\n' + "".join(f'[[vary]]\nhardpoint = "{h}"\nrange = [-1, 1]\n'
                                                          for h in ("lower_ball", "upper_ball"))
    names, table = read_vary(write(tmp_path, text), corner)
    assert len(names) == 6 and table.shape == (MAX_VARIANTS, 6)
    assert_allclose(table[:10, 5], np.linspace(-0.001, 0.001, 10), rtol=0, atol=1e-18)  # the last one fastest


# ------------------------------------------------------------------------ band sheet
def test_band_sheet_checks_its_percentiles_and_metrics(tmp_path, corner):
    result = run_study(corner, ["lower_ball.z"], [[-0.002], [0.0], [0.002]], analysis="parallel",
                       travel=np.linspace(-0.04, 0.04, 5))
    with pytest.raises(ModelError, match=r"^lower: the band's lower percentile must be below the upper one"):
        plot_bands(result, None, lower=95, upper=5)
    with pytest.raises(ModelError, match=r"^upper: expected a percentile from 0 to 100, got 101"):
        plot_bands(result, None, upper=101)
    with pytest.raises(ModelError, match=r"^metric 'tow': not a metric of this study"):
        plot_bands(result, None, metrics=["tow"])
    figure = plot_bands(result, tmp_path / "b.svg", metrics=["camber", "toe", "castor", "track_change"])
    assert len(figure.axes) == 4
    assert figure.axes[0].get_xlabel() == "wheel travel [mm]" and figure.axes[0].get_ylabel() == "camber [deg]"
    # four panels two by two: none left empty (issue 24: three columns left two empty)
    assert {ax.get_subplotspec().get_geometry()[:2] for ax in figure.axes} == {(2, 2)}
    assert (tmp_path / "b.svg").read_text().startswith("<?xml")


# ----------------------------------------------------------------------- command line
def test_study_command_end_to_end(tmp_path, corner):
    """``kinematrix study`` as a program: the tidy table (one row per variant and position, in
    mm and deg), the summary per position and the band sheet; the variants' numbers are the
    Python API's and the nominal's are a single analysis of the model file."""
    vary = write(tmp_path, SMALL_VARY)
    proc = run_kinematrix("study", WISHBONE, "--vary", vary, "--analysis", "parallel", "--travel", TRAVEL,
                          "--out", "study.csv", "--summary", "summary.csv", "--plot", "bands.png", "--metrics",
                          "camber,toe", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "variants stopped" not in proc.stderr and "Traceback" not in proc.stderr
    comment, header, table = read_csv(tmp_path / "study.csv")
    assert comment == "# units: length=mm angle=deg time=s; design study: parallel, 20 variants, 0 stopped"
    assert header[:7] == ["variant", "position", "lower_ball.x", "lower_ball.y", "lower_ball.z", "upper_ball.y",
                          "wheel_travel"]
    assert table.shape == (20 * 21, len(header))
    column = {name: table[:, i] for i, name in enumerate(header)}
    assert_array_equal(column["variant"], np.repeat(np.arange(20), 21))
    assert_array_equal(column["wheel_travel"], np.tile(np.arange(-80.0, 81.0, 8.0), 20))
    # the varied coordinates: nominal (file: lower_ball at [0, 720, 100] mm) plus offsets within +-3 mm
    assert np.all(np.abs(column["lower_ball.y"] - 720.0) < 3.0) and np.all(np.abs(column["lower_ball.z"] - 100) < 3)
    assert np.all(np.isfinite(table))
    names, design = read_vary(vary, corner)
    api = run_study(corner, names, design, analysis="parallel", travel=np.arange(-80, 81, 8) / 1000.0)
    # the same computation written in deg: equal to round-off of the unit conversion
    assert_allclose(column["camber"].reshape(20, 21), np.degrees(api.values("camber")), rtol=1e-12, atol=1e-12)
    assert_allclose(column["lower_ball.x"][::21], design[:, 0] * 1000.0, rtol=0, atol=1e-9)

    comment, header, summary = read_csv(tmp_path / "summary.csv")
    assert comment.startswith("# units: length=mm angle=deg time=s; design study summary")
    stats = {name: summary[:, i] for i, name in enumerate(header)}
    single = parallel_travel(corner, np.arange(-80, 81, 8) / 1000.0)  # the nominal design, by the workbench
    assert_allclose(stats["camber_nominal"], np.degrees(single.metric("camber")), rtol=1e-9, atol=1e-9)
    assert np.all(stats["camber_min"] <= stats["camber_p5"]) and np.all(stats["camber_p5"] <= stats["camber_p50"])
    assert np.all(stats["camber_p95"] <= stats["camber_max"])
    png = (tmp_path / "bands.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # written atomically


def test_roll_and_combined_studies_of_an_axle_file(tmp_path):
    """``--analysis roll --roll`` (deg) and ``--analysis combined --travel --rack`` (mm) of the
    shipped axle: the Python API's numbers in the file's units."""
    axle = load_suspension(EXAMPLES / "front_axle.toml")
    vary = write(tmp_path, 'design = "latin-hypercube"\nvariants = 4\nseed = 2\n[[vary]]\nhardpoint = '
                 '"lower_ball_left"\nrange = [-2, 2]\n[[vary]]\nhardpoint = "upper_ball_right.z"\nrange = [-2, 2]\n')
    names, design = read_vary(vary, axle)
    runs = {"roll": (["--roll", "-3:3:1.5"], {"roll": np.radians(np.arange(-3.0, 3.1, 1.5))}),
            "combined": (["--travel", "-20:20:20", "--rack", "-10:10:10"],
                         {"travel": np.array([-0.02, 0.0, 0.02]), "rack": np.array([-0.01, 0.0, 0.01])})}
    for kind, (options, plan) in runs.items():
        out = tmp_path / f"{kind}.csv"
        assert main(["study", str(EXAMPLES / "front_axle.toml"), "--vary", str(vary), "--analysis", kind, *options,
                     "--out", str(out)]) == 0
        comment, header, table = read_csv(out)
        assert comment.endswith(f"design study: {kind}, 4 variants, 0 stopped")
        api = run_study(axle, names, design, analysis=kind, **plan)
        positions = api.positions
        assert table.shape[0] == 4 * positions
        column = {name: table[:, i] for i, name in enumerate(header)}
        if kind == "roll":
            assert_allclose(column["roll_angle"][:positions], np.degrees(plan["roll"]), rtol=0, atol=1e-12)
        else:
            assert_allclose(column["rack_travel"][:positions], np.tile([-10.0, 0.0, 10.0], 3), rtol=0, atol=1e-12)
        # the same computation written in deg and mm: equal to round-off of the unit conversion
        assert_allclose(column["camber_left"].reshape(4, positions), np.degrees(api.values("camber_left")),
                        rtol=1e-12, atol=1e-12)
        assert_allclose(column["half_track_right"].reshape(4, positions), api.values("half_track_right") * 1e3,
                        rtol=1e-12, atol=1e-9)


def test_stopped_variants_are_listed_and_keep_their_rows(tmp_path, capsys):
    """Variants with the lower ball up to 250 mm inboard meet a dead point before 330 mm of
    travel: their later rows are NaN, stderr counts and lists them, the status is 0."""
    vary = write(tmp_path, 'design = "monte-carlo"\nvariants = 40\nseed = 3\n[[vary]]\nhardpoint = "lower_ball.y"\n'
                 'spread = 250\ndistribution = "uniform"\n')
    out = tmp_path / "study.csv"
    assert main(["study", str(WISHBONE), "--vary", str(vary), "--travel", "0:330:30", "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    count = int(err[0].split()[1])
    assert err[0] == f"kinematrix: {count} of 40 variants of {vary.name} stopped; their rows past the stop are " \
        "empty (NaN):"
    assert 0 < count < 40
    listed = err[1:1 + min(count, 5)]
    assert all(line.startswith("  variant ") and "dead point at travel = " in line for line in listed)
    comment, header, table = read_csv(out)
    assert comment.endswith(f"40 variants, {count} stopped")
    camber = table[:, header.index("camber")].reshape(40, 12)
    stopped = np.isnan(camber).any(axis=1)
    assert stopped.sum() == count
    assert np.all(np.isfinite(camber[:, 0]))  # every variant starts at its design pose
    assert listed[0].startswith(f"  variant {np.flatnonzero(stopped)[0]}: ")


def test_nominal_design_that_stops_exits_1_and_writes_nothing(tmp_path, capsys):
    vary = write(tmp_path, SMALL_VARY)
    out = tmp_path / "study.csv"
    assert main(["study", str(WISHBONE), "--vary", str(vary), "--travel", "0:600:100", "--out", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("kinematrix: the nominal design of double_wishbone.toml does not "
                                               "complete the parallel analysis: dead point at travel = ")
    assert err[0].endswith("; nothing written") and not out.exists()


@pytest.mark.parametrize("args, expected", [
    (["--travel", TRAVEL], "the following arguments are required: --vary (see 'kinematrix study --help')"),
    (["--vary", "{vary}"], "--travel: required by --analysis parallel"),
    (["--vary", "{vary}", "--analysis", "steering"], "--rack: required by --analysis steering"),
    (["--vary", "{vary}", "--travel", "0", "--rack", "0"],
     "--rack: only with --analysis steering or combined, not parallel"),
    (["--vary", "{vary}", "--travel", "0", "--roll", "0"], "--roll: only with --analysis roll, not parallel"),
    (["--vary", "{vary}", "--analysis", "roll", "--roll", "0", "--travel", "0"],
     "--travel: not with --analysis roll (the wheel travels follow the roll angle, --roll)"),
    (["--vary", "{vary}", "--travel", "0", "--analysis", "opposite"],
     "--analysis opposite: double_wishbone.toml is a corner; study an axle file ([axle] mirror = true, or left "
     "and right), whose hardpoints the vary file names (lower_ball_left, ...)"),
    (["--vary", "{vary}", "--roll", "0", "--analysis", "roll"], "--analysis roll: double_wishbone.toml is a corner"),
    (["--vary", "{vary}", "--travel", "0", "--analysis", "combined"], "--rack: required by --analysis combined"),
    (["--vary", "{vary}", "--travel", "0:10:-1"], "--travel: STEP -1 does not lead from 0 to 10"),
    (["--vary", "{vary}", "--travel", "0", "--chunk-size", "0"],
     "--chunk-size: expected a positive number of variants, got 0"),
    (["--vary", "{vary}", "--travel", "0", "--metrics", "camber"],
     "--metrics: the panels of --plot; name the sheet with --plot FILE.png"),
    (["--vary", "{vary}", "--travel", TRAVEL, "--plot", "b.png", "--metrics", "camber,tow"],
     "--metrics: 'tow' is not a metric of the parallel analysis (metrics: camber, camber_front_view, toe,"),
    (["--vary", "{vary}", "--travel", "0", "--plot", "b.xyz"], "--plot b.xyz: cannot write a 'xyz' image"),
    (["--vary", "{vary}", "--travel", "0", "--out", "{tmp}/absent/study.csv"], "--out {tmp}/absent/study.csv: no "
     "directory"),
    (["--vary", "{tmp}/absent.toml", "--travel", "0"], "absent.toml: cannot read the vary file"),
    (["--vary", "{bad}", "--travel", "0"], "bad.toml: vary[0] ('lower_ball'): range: the lower bound must be below "
     "the upper one, got [3, -3]"),
])
def test_study_user_errors_exit_2_with_one_line(tmp_path, capsys, args, expected):
    vary = write(tmp_path, SMALL_VARY)
    bad = write(tmp_path, SMALL_VARY.replace("[-3, 3]", "[3, -3]"), "bad.toml")
    args = [a.format(vary=vary, bad=bad, tmp=tmp_path) for a in args]
    assert main(["study", str(WISHBONE), *args]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("kinematrix: error: "), err
    assert err[0][len("kinematrix: error: "):].startswith(expected.format(tmp=tmp_path)), err[0]
    assert not list(tmp_path.glob("*.csv")) and not list(tmp_path.glob("*.png"))


def test_a_variant_that_is_no_design_is_named_with_its_vary_file(tmp_path, capsys):
    """A variant whose kingpin lies flat stops alone: stderr names the vary file, the variant
    and what is wrong, the others are written, the status is 0 (issue 24: the whole study
    aborted, naming neither)."""
    vary = write(tmp_path, 'design = "offsets"\n[[offsets]]\n"upper_ball.y" = 0\n[[offsets]]\n"upper_ball.y" = 400\n'
                 '"upper_ball.z" = -330\n[[offsets]]\n"upper_ball.y" = 1\n')
    out = tmp_path / "study.csv"
    assert main(["study", str(WISHBONE), "--vary", str(vary), "--travel", "-20:20:20", "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"kinematrix: 1 of 3 variants of {vary.name} stopped; their rows past the stop are empty (NaN):"
    assert err[1].startswith("  variant 1: its hardpoints give no design to analyse: corner.kingpin: the kingpin")
    _, header, table = read_csv(out)
    camber = table[:, header.index("camber")].reshape(3, 3)
    assert np.all(np.isnan(camber[1])) and np.all(np.isfinite(camber[[0, 2]]))
