"""loops/cli/matplotlib_import.py: a command's own process imports matplotlib without writing the
Artist classes' ``set`` docstrings (a third of the import), and draws the same pictures; a Python
session that calls the command line keeps them."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DRAW = """
import sys
from loops import plotting
plotting.plot_curves([0.0, 1.0, 2.0], {'C': [0.0, 1.0, 0.5], 'D': [1.0, 0.0, 0.2]}, x_label='A [deg]',
                     y_label='C, D [deg]', title='res.csv', path=sys.argv[1])
"""


def python(code, *args):
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_pictures_are_the_same_to_the_byte(tmp_path):
    python("from loops.cli.matplotlib_import import import_matplotlib, in_a_command_process\n"
           "in_a_command_process(); import_matplotlib()\n" + DRAW, tmp_path / "a.png")
    python(DRAW, tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_the_docstrings_are_left_out_and_later_classes_get_theirs():
    said = python("""
from loops.cli.matplotlib_import import import_matplotlib, in_a_command_process
in_a_command_process()
import_matplotlib()
from matplotlib.lines import Line2D
class Marked(Line2D):
    pass
line = Line2D([0, 1], [0, 1])
line.set(color='red', linewidth=2)
print(Line2D.set.__doc__ is None, 'Properties' in Marked.set.__doc__, line.get_color(), line.get_linewidth())
""")
    assert said == ["True", "True", "red", "2.0"]


def test_a_matplotlib_imported_already_or_of_another_make_is_left_as_it_is():
    said = python("""
import matplotlib.figure
from loops.cli.matplotlib_import import import_matplotlib, in_a_command_process
in_a_command_process()
import_matplotlib()
from matplotlib.lines import Line2D
print('Properties' in Line2D.set.__doc__)
""")
    assert said == ["True"]
    said = python("""
import sys
from matplotlib import artist
del artist.Artist._update_set_signature_and_docstring  # a matplotlib that builds its docstrings otherwise
from loops.cli.matplotlib_import import import_matplotlib, in_a_command_process
in_a_command_process()
import_matplotlib()
print('matplotlib.figure' in sys.modules, hasattr(artist.Artist, '_update_set_signature_and_docstring'))
""")
    assert said == ["False", "False"]


CSV = "# units: length=mm angle=deg time=s\nA,C\n0.0,1.0\n1.0,2.0\n"


def test_only_the_commands_own_process_leaves_the_help_out(tmp_path):
    """``kinematrix plot`` as its process's command (``main()``, as the entry point calls it)
    leaves the docstrings out; ``main([...])`` called from a Python session keeps them."""
    (tmp_path / "r.csv").write_text(CSV)
    argv = ["plot", str(tmp_path / "r.csv"), "--x", "A", "--y", "C", "--out", str(tmp_path / "r.png")]
    ask = "from matplotlib.lines import Line2D\nprint(status, Line2D.set.__doc__ is None)\n"
    said = python(f"import sys\nfrom dynamics.cli import main\nsys.argv = ['kinematrix', *{argv!r}]\n"
                  f"status = main()\n" + ask)
    assert said[-2:] == ["0", "True"]  # after the line that says where the picture went
    said = python(f"from dynamics.cli import main\nstatus = main({argv!r})\n" + ask)
    assert said[-2:] == ["0", "False"]
