"""The dispatcher imports only the module of the command it runs (:mod:`dynamics.cli`): the others
are listed by name, and imported for ``kinematrix --help`` and a mistake, whose messages list
them all."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Every subcommand's module but the one a command names.
OTHERS = ("'loops.cli.check', 'loops.cli.view', 'loops.cli.sweep', 'dynamics.cli.simulate', 'loops.cli.plot', "
          "'loops.suspension.cli', 'loops.study.cli'")

PROGRAM = f"""
import sys
from dynamics.cli import main
try:
    main({{argv!r}})
except SystemExit as exit:
    print('exit', exit.code)
print(sorted(m for m in ({OTHERS}) if m in sys.modules))
"""


def run(argv):
    done = subprocess.run([sys.executable, "-c", PROGRAM.format(argv=argv)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_command_imports_its_own_module_alone():
    lines = run(["plot", "no-such.csv", "--x", "a", "--y", ","])  # a user error, before any file is read
    assert lines[-1] == "['loops.cli.plot']"
    lines = run(["suspension", "--help"])
    assert lines[-2:] == ["exit 0", "['loops.suspension.cli']"]
    assert "--analysis" in "\n".join(lines)


def test_help_and_a_mistake_name_every_command():
    from dynamics.cli import COMMAND_MODULES

    for argv in (["--help"], ["bogus"]):
        done = subprocess.run([sys.executable, "-m", "dynamics", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == (0 if argv == ["--help"] else 2), done.stderr
        said = done.stdout + done.stderr
        assert all(word in said for word in COMMAND_MODULES), said
