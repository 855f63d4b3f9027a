"""Tests of the command line's first run (issue 25; :mod:`dynamics.cli.kernel_mode`): a small job
on a cold kernel cache runs its kernels as plain Python and says so on one line, a large one
compiles, ``KINEMATRIX_KERNELS`` forces either, a warm cache says nothing.

The commands run through the installed ``kinematrix`` with ``NUMBA_CACHE_DIR`` an empty
directory (a cold cache). A run that compiles is stopped as soon as it says so: what it
compiles is tests/test_kernel_cache.py's. The choice's guards are tested in this process.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import types

import pytest

numba = pytest.importorskip("numba")

from dynamics.cli import kernel_mode, main, simulate  # noqa: E402
from installed import ROOT, entry_point, kinematrix, user_environment  # noqa: E402
from loops.cli import check, sweep  # noqa: E402
from loops.cli.arguments import SMALL_JOB_POSITIONS, UserError  # noqa: E402
from loops.kernels.cache_stamp import INLINED_DIRECTORIES, STAMP, cache_directory, numba_version, \
    package_digest  # noqa: E402
from loops.suspension import cli as suspension  # noqa: E402

jit_off = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"),
                             reason="no compiling without the JIT")
README = ("suspension", "examples/front_axle.toml", "--analysis", "parallel", "--travel", "-80:80:5")
PROGRESS = "compiling kernels"


def cold(tmp_path, mode="auto"):
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    return {"NUMBA_CACHE_DIR": str(cache), kernel_mode.ENVIRONMENT: mode}


def until_compiling(args, env):
    """Run ``kinematrix ARGS`` until it says it compiles (then stop it) or ends; its stderr."""
    process = subprocess.Popen([entry_point(), *args], cwd=ROOT, env=user_environment(env), text=True,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    said = []
    try:
        for line in process.stderr:
            said.append(line)
            if PROGRESS in line:
                break
    finally:
        process.kill()
        process.wait()
    return "".join(said)


@jit_off
def test_the_readme_command_on_a_cold_cache_runs_interpreted_and_writes_the_same_bytes(tmp_path):
    done = kinematrix(*README, "--out", tmp_path / "first.csv", cwd=ROOT, env=cold(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(kernel_mode.NOTICE) == 1 and PROGRESS not in done.stderr, done.stderr
    assert not list((tmp_path / "cache").rglob("*.nb[ic]"))  # nothing compiled, the cache as it was
    compiled = kinematrix(*README, "--out", tmp_path / "compiled.csv", cwd=ROOT,
                          env={kernel_mode.ENVIRONMENT: "compiled"}, timeout=900)
    assert compiled.returncode == 0, compiled.stderr
    assert kernel_mode.NOTICE not in compiled.stderr
    assert (tmp_path / "first.csv").read_bytes() == (tmp_path / "compiled.csv").read_bytes()


@jit_off
def test_a_large_job_on_a_cold_cache_compiles(tmp_path):
    said = until_compiling(["sweep", "examples/four_bar.toml", "--drive", "A=0:360:0.5"], cold(tmp_path))
    assert PROGRESS in said and kernel_mode.NOTICE not in said, said


@jit_off
def test_the_override_compiles_a_small_job(tmp_path):
    said = until_compiling(list(README), cold(tmp_path, "compiled"))
    assert PROGRESS in said and kernel_mode.NOTICE not in said, said


@jit_off
def test_the_override_runs_a_large_job_interpreted(tmp_path):
    done = kinematrix("sweep", "examples/four_bar.toml", "--drive", "A=0:360:0.5", "--out", tmp_path / "s.csv",
                      cwd=ROOT, env=cold(tmp_path, "interpreted"))
    assert done.returncode == 0, done.stderr
    assert PROGRESS not in done.stderr and kernel_mode.NOTICE not in done.stderr, done.stderr
    assert not list((tmp_path / "cache").rglob("*.nb[ic]"))


def test_a_bad_override_is_one_line_and_status_2(tmp_path):
    done = kinematrix("check", "examples/four_bar.toml", cwd=ROOT, env=cold(tmp_path, "fast"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "kinematrix: error: KINEMATRIX_KERNELS='fast': expected one of auto, compiled, interpreted\n"


@jit_off
def test_a_warm_cache_never_says_the_line():
    """The suite's own cache, stamped (as the kernels' first import leaves it) before the command."""
    env = user_environment({kernel_mode.ENVIRONMENT: "auto"})
    stamping = subprocess.run([sys.executable, "-c", "import dynamics.kernels._compile"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    assert stamping.returncode == 0, stamping.stderr
    done = kinematrix("check", "examples/four_bar.toml", cwd=ROOT, env={kernel_mode.ENVIRONMENT: "auto"}, timeout=900)
    assert done.returncode == 0, done.stderr
    assert kernel_mode.NOTICE not in done.stderr


# The choice, in this process: each guard of choose_kernels, and what each command calls small.

SMALL = types.SimpleNamespace(small_job=lambda args: True)
LARGE = types.SimpleNamespace(small_job=lambda args: False)
SIMULATION = types.SimpleNamespace(small_job=lambda args: True, USES_DYNAMICS_KERNELS=True)


@pytest.fixture
def choice(tmp_path, monkeypatch):
    """A cold cache, no kernel module loaded, numba's JIT on (restored afterwards)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(kernel_mode.ENVIRONMENT, "auto")
    monkeypatch.setattr(numba.config, "DISABLE_JIT", False)
    monkeypatch.delitem(sys.modules, kernel_mode.DECORATORS, raising=False)
    return monkeypatch


def stamp(directories):
    base = ""
    for directory in directories:
        base = package_digest(directory, base)
        cache_directory(directory).mkdir(parents=True, exist_ok=True)
        (cache_directory(directory) / STAMP).write_text(base)


def test_a_small_job_on_a_cold_cache_switches_and_says_so(choice, capsys):
    assert kernel_mode.choose_kernels(SMALL, None)
    assert numba.config.DISABLE_JIT
    assert capsys.readouterr().err == kernel_mode.NOTICE + "\n"


def test_a_job_that_is_not_small_compiles(choice, capsys):
    assert not kernel_mode.choose_kernels(LARGE, None)
    assert not kernel_mode.choose_kernels(types.SimpleNamespace(), None)  # a command without small_job: a study
    assert not numba.config.DISABLE_JIT and capsys.readouterr().err == ""


def test_a_stamped_cache_compiles(choice, capsys):
    stamp([kernel_mode.KINEMATICS_KERNELS])
    assert not kernel_mode.choose_kernels(SMALL, None)
    assert not numba.config.DISABLE_JIT and capsys.readouterr().err == ""


def test_a_simulation_looks_at_the_dynamics_kernels_cache_too(choice, capsys):
    stamp([kernel_mode.KINEMATICS_KERNELS])
    assert kernel_mode.choose_kernels(SIMULATION, None)
    stamp([kernel_mode.KINEMATICS_KERNELS, kernel_mode.DYNAMICS_KERNELS])
    choice.setattr(numba.config, "DISABLE_JIT", False)
    assert not kernel_mode.choose_kernels(SIMULATION, None)


def test_once_a_kernel_module_loaded_nothing_changes(choice, capsys):
    choice.setitem(sys.modules, kernel_mode.DECORATORS, types.ModuleType(kernel_mode.DECORATORS))
    for mode in ("auto", "interpreted"):
        choice.setenv(kernel_mode.ENVIRONMENT, mode)
        assert not kernel_mode.choose_kernels(SMALL, None)
    assert not numba.config.DISABLE_JIT and capsys.readouterr().err == ""


def test_already_interpreted_says_nothing(choice, capsys):
    choice.setattr(numba.config, "DISABLE_JIT", True)
    assert not kernel_mode.choose_kernels(SMALL, None)
    assert capsys.readouterr().err == ""


def test_the_override(choice, capsys):
    choice.setenv(kernel_mode.ENVIRONMENT, "compiled")
    assert not kernel_mode.choose_kernels(SMALL, None) and not numba.config.DISABLE_JIT
    choice.setenv(kernel_mode.ENVIRONMENT, "interpreted")
    stamp([kernel_mode.KINEMATICS_KERNELS])
    assert kernel_mode.choose_kernels(LARGE, None) and numba.config.DISABLE_JIT
    assert capsys.readouterr().err == ""  # asked for: nothing to say
    choice.setenv(kernel_mode.ENVIRONMENT, "")
    assert kernel_mode.requested_mode() == "auto"
    choice.setenv(kernel_mode.ENVIRONMENT, "jit")
    with pytest.raises(UserError, match="KINEMATRIX_KERNELS='jit': expected one of auto, compiled, interpreted"):
        kernel_mode.requested_mode()


def test_called_from_python_the_command_line_never_switches(choice, capsys):
    choice.setattr(check, "run", lambda args: 0)
    assert main(["check", "m.toml"]) == 0
    assert not numba.config.DISABLE_JIT and capsys.readouterr().err == ""


def parsed(module, *argv):
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return parser.parse_args(argv)


def test_what_each_command_calls_small():
    limit = SMALL_JOB_POSITIONS
    assert check.small_job(parsed(check, "m.toml"))
    assert sweep.small_job(parsed(sweep, "m.toml", "--drive", f"A=1:{limit}:1"))
    assert not sweep.small_job(parsed(sweep, "m.toml", "--drive", f"A=1:{limit + 1}:1"))
    assert not sweep.small_job(parsed(sweep, "m.toml", "--drive", "A=0:1:0"))  # bad: the command says so
    assert sweep.small_job(parsed(sweep, "m.toml", "--drive", "A=0:10:1", "--drive", "B=2"))
    assert suspension.small_job(parsed(suspension, "m.toml", "--analysis", "parallel", "--travel", f"1:{limit}:1"))
    assert not suspension.small_job(parsed(suspension, "m.toml", "n.toml", "--analysis", "parallel",
                                           "--travel", f"1:{limit}:1"))  # two designs: twice the positions
    assert not suspension.small_job(parsed(suspension, "m.toml", "--analysis", "combined", "--travel", "1:40:1",
                                           "--rack", "1:11:1"))  # 440: the ranges' product
    assert not suspension.small_job(parsed(suspension, "m.toml", "--analysis", "compliance", "--travel", "0:10:5"))
    assert not suspension.small_job(parsed(suspension, "m.toml", "--analysis", "parallel", "--travel", "a:b:c"))
    assert not suspension.small_job(parsed(suspension, "m.toml"))
    assert suspension.small_job(parsed(suspension, "m.toml", "--analysis", "pitch", "--pitch", "-2:2:1",
                                       "--rear", "r.toml"))
    assert simulate.small_job(parsed(simulate, "m.toml", "--t-end", str(simulate.SMALL_JOB_SECONDS)))
    assert not simulate.small_job(parsed(simulate, "m.toml", "--t-end", "5.5"))
    assert not simulate.small_job(parsed(simulate, "m.toml", "--t-end", "-1"))  # the command says what is wrong
    assert simulate.USES_DYNAMICS_KERNELS


# numba is imported to switch the kernels, not to read its version for the stamps.

def test_numbas_version_without_numba_is_numbas_own(monkeypatch):
    from importlib import metadata

    assert numba_version() == numba.__version__

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert numba_version() == numba.__version__  # a numba without installed metadata: its own


def test_the_stamps_are_those_of_numbas_own_version():
    """The digest is what it was when numba was imported for ``numba.__version__``: the caches
    stamped then stay valid."""
    base = ""
    for directory in (kernel_mode.KINEMATICS_KERNELS, kernel_mode.DYNAMICS_KERNELS):
        h = hashlib.sha256(numba.__version__.encode())
        h.update(base.encode())
        for source in (directory, *INLINED_DIRECTORIES):
            for path in sorted(source.glob("*.py")):
                h.update(path.name.encode())
                h.update(path.read_bytes())
        assert package_digest(directory, base) == h.hexdigest()
        base = h.hexdigest()


@pytest.mark.parametrize("warm", [True, False])
def test_a_small_job_on_a_stamped_cache_does_not_import_numba(tmp_path, warm):
    """``auto``: a small job whose caches carry their stamps decides without importing numba
    (0.2 s of processor time: a bad model file's ``check`` cost 0.37 s instead of 0.14 s); a
    cold cache imports it to switch."""
    cache = tmp_path / "cache"
    if warm:
        base = ""
        for directory in (kernel_mode.KINEMATICS_KERNELS, kernel_mode.DYNAMICS_KERNELS):
            base = package_digest(directory, base)
            (cache / directory.parent.name).mkdir(parents=True)
            (cache / directory.parent.name / STAMP).write_text(base)
    code = ("import pathlib, sys\n"
            "from loops.kernels import cache_stamp\n"
            f"cache_stamp.cache_directory = lambda directory: pathlib.Path({str(cache)!r}) / directory.parent.name\n"
            "sys.argv = ['kinematrix', 'check', 'missing.toml']\n"
            "from dynamics.cli import main\n"
            "status = main()\n"
            "print(status, 'numba' in sys.modules)")
    env = user_environment({kernel_mode.ENVIRONMENT: "auto"})
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == ("2 False" if warm else "2 True")
