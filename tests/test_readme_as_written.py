"""README.md as a user meets it: every fenced command and snippet, run as written, in order.

A user clones the repository, follows README.md from the top and pastes each block. Each test
here does the same with one block, in a temporary copy of the repository (its tracked files,
``git ls-files``, with numba's compiled kernels beside them so that nothing compiles again),
in the README's order, and checks the exit status of each command and every file the block
names. The rules, by the block's language:

* ``sh``: each line is one command, run by ``bash`` in the copy's root with the environment
  that runs these tests (its scripts first on PATH: the installed ``kinematrix``, as the
  set-up leaves it). Two things are not run, by these rules and no others:
  :data:`SETUP_STEPS`, the parts of the set-up line that make and enter the virtual
  environment and install into it (the environment running these tests stands for them;
  the line's ``kinematrix ...`` part runs), and :data:`TEST_COMMAND`, which is this run.
* ``python``: each block alone, pasted into a fresh ``python3`` in the copy's root (executed
  in a new ``__main__`` namespace). A block whose first line is :data:`CONTINUES` is pasted
  after the block before it into the same session, as its text says; such a session runs
  once for the tests of all its blocks.
* ``text``: a synopsis (capitals stand for what to put in, brackets for what may be left
  out): each line's subcommand exists and each option it names is in that subcommand's
  ``--help``.
* ``toml``: a file: it parses, and the vary file shown is a vary file of the shipped corner.

Files: every file name a block mentions (``--out x.csv``, ``"fit.png"``) that was not in the
copy before it ran is there afterwards, not empty; a PNG is a PNG, a CSV opens with its units
line and has a row, a TOML file is a model kinematrix loads.

A block that fails today because of a defect being fixed elsewhere is marked
``xfail(strict=True)`` in :data:`KNOWN_DEFECTS` (reason: the issue and the defect): once fixed
it passes, the strict mark fails the run, and the mark is removed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from installed import ROOT, entry_point, user_environment

README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The set-up line's steps that the environment running the tests stands for (see the docstring).
SETUP_STEPS = (re.compile(r"^python3 -m venv \.venv$"), re.compile(r"^\. \.venv/bin/activate$"),
               re.compile(r'^python3 -m pip install -e "\.\[test\]"$'))
#: The README's test command: this run.
TEST_COMMAND = "python3 -m pytest -q"
#: The first line of a Python block that continues the block before it.
CONTINUES = "# continues the snippet above"
#: Blocks (found by a piece of their text) that fail today because of a defect being fixed.
KNOWN_DEFECTS = {}
FILE_NAME = re.compile(r"(?<![\w./-])([\w./-]+\.(?:csv|png|gif|toml|parquet))\b")
PNG = b"\x89PNG\r\n\x1a\n"


def fenced_blocks(text=README):
    """``[(language, first line number, body)]`` of the fenced blocks of ``text``, in order."""
    blocks = []
    for found in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M):
        line = text.count("\n", 0, found.start()) + 1
        blocks.append((found.group(1), line, found.group(2)))
    return blocks


BLOCKS = fenced_blocks()


def block_id(block):
    language, line, _ = block
    return f"{language or 'plain'}-line{line}"


def marked(blocks):
    """``blocks`` as pytest parameters, with the :data:`KNOWN_DEFECTS` marks."""
    params = []
    for block in blocks:
        reasons = [reason for piece, reason in KNOWN_DEFECTS.items() if piece in block[2]]
        marks = [pytest.mark.xfail(strict=True, reason=reasons[0])] if reasons else []
        params.append(pytest.param(block, id=block_id(block), marks=marks))
    return params


def of(language):
    return [block for block in BLOCKS if block[0] == language]


# ---------------------------------------------------------------------- the copy
def tracked_files():
    """The repository's tracked files (``git ls-files``), or, without git, its files less build
    artefacts and caches."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [ROOT / name for name in listed.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "__pycache__", ".pytest_cache", ".hypothesis", "build", "dist", ".venv"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
                and not any(part.endswith(".egg-info") for part in p.parts)]


def copy_repository(destination: Path) -> Path:
    """A copy of the repository in ``destination``: its tracked files, and numba's cache of the
    compiled kernels (``__pycache__/*.nbi, *.nbc`` and the digest) with the sources' times
    kept, which numba's cache compares, so that the copy loads the kernels instead of
    compiling them. Under ``NUMBA_CACHE_DIR`` numba keeps each source folder's cache in a
    folder named for the folder's path: the copy's folders get copies of the repository's."""
    for source in tracked_files():
        if source.is_file():
            target = destination / source.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    for cache, target in kernel_caches(destination):
        kept = [p for p in cache.iterdir() if p.suffix in (".nbi", ".nbc") or p.name.endswith(".digest")]
        if kept:
            target.mkdir(parents=True, exist_ok=True)
            for path in kept:
                shutil.copy2(path, target / path.name)
    return destination


def kernel_caches(destination):
    """``(numba's cache folder of a source folder of the repository, that of its copy in
    destination)`` for every source folder that has one."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if not custom:
        return [(cache, destination / cache.relative_to(ROOT)) for cache in ROOT.glob("*/**/__pycache__")
                if ".git" not in cache.parts]
    from numba.core.caching import _CacheLocator  # noqa: PLC0415 (numba's own naming of the folders)

    def folder(directory):
        return Path(custom) / _CacheLocator.get_suitable_cache_subpath(str(directory / "__init__.py"))

    sources = {path.parent for path in ROOT.glob("*/**/*.py") if ".git" not in path.parts}
    return [(folder(d), folder(destination / d.relative_to(ROOT))) for d in sorted(sources) if folder(d).is_dir()]


@pytest.fixture
def repository(tmp_path):
    return copy_repository(tmp_path / "kinematrix")


# ---------------------------------------------------------------------- checks
def named_files(text):
    return sorted(set(FILE_NAME.findall(text)))


def check_written(root: Path, names, before):
    """Every file of ``names`` that did not exist ``before`` exists now and holds what its kind
    says."""
    for name in names:
        if name in before:
            continue
        path = root / name
        assert path.is_file(), f"{name} was not written"
        data = path.read_bytes()
        assert data, f"{name} is empty"
        if name.endswith(".png"):
            assert data.startswith(PNG) and len(data) > 10_000, f"{name} is not a picture"
        elif name.endswith(".csv"):
            lines = data.decode().splitlines()
            assert lines[0].startswith("# units: ") and len(lines) >= 3, f"{name}: {lines[:3]}"
        elif name.endswith(".toml"):
            from mechanism import load_model

            load_model(path)


def existing(root, names):
    return {name for name in names if (root / name).exists()}


def run_shell(line, root):
    return subprocess.run(["bash", "-c", line], cwd=root, env=user_environment(), capture_output=True, text=True,
                          timeout=600)


def user_commands(body):
    """The commands of a ``sh`` block as this test runs them: the set-up line without
    :data:`SETUP_STEPS`, no :data:`TEST_COMMAND`."""
    commands = []
    for line in body.splitlines():
        line = line.strip()
        if not line or line == TEST_COMMAND:
            continue
        steps = [step.strip() for step in line.split("&&")]
        kept = [step for step in steps if not any(rule.match(step) for rule in SETUP_STEPS)]
        if len(kept) != len(steps):  # the set-up line: exactly its three steps are left out
            assert len(steps) - len(kept) == len(SETUP_STEPS), line
        if kept:
            commands.append(" && ".join(kept))
    return commands


# ---------------------------------------------------------------------- the blocks
@pytest.mark.readme
@pytest.mark.parametrize("block", marked(of("sh")))
def test_shell_block_runs_as_written(block, repository):
    commands = user_commands(block[2])
    assert commands or TEST_COMMAND in block[2]
    for command in commands:
        names = named_files(command)
        before = existing(repository, names)
        done = run_shell(command, repository)
        assert done.returncode == 0, f"{command}\nexit {done.returncode}\n{done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr, done.stderr
        check_written(repository, names, before)


def python_chain(block):
    """The blocks a user has pasted into one Python session when ``block`` has run: the blocks
    it continues (:data:`CONTINUES`), then itself."""
    blocks = of("python")
    at = blocks.index(block)
    chain = [block]
    while chain[0][2].startswith(CONTINUES):
        assert at > 0, f"README.md line {block[1]}: continues no snippet"
        at -= 1
        chain.insert(0, blocks[at])
    return chain


def sessions():
    """The Python sessions of the README: each block that continues none starts one, and the
    blocks that continue it follow in the same session."""
    out = []
    for block in of("python"):
        if block[2].startswith(CONTINUES):
            out[-1].append(block)
        else:
            out.append([block])
    return out


#: One Python session, as a user has it: each block pasted in turn into the same interpreter
#: (``exec`` in one namespace, as ``python3`` runs what is pasted), each one's output and
#: error kept apart, one JSON line per block; a block that fails ends the session. After the
#: last block, the values of :data:`PROBES` whose names the session defined, one JSON line.
SESSION = r"""
import contextlib, io, json, sys, traceback
namespace = {"__name__": "__main__"}
for line, source in json.loads(sys.argv[1]):
    out, err, ok = io.StringIO(), io.StringIO(), True
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(source, f"README.md, line {line}", "exec"), namespace)
        except BaseException:
            ok = False
            traceback.print_exc()
    print(json.dumps({"line": line, "ok": ok, "stdout": out.getvalue(), "stderr": err.getvalue()}), flush=True)
    if not ok:
        break
else:
    probes = {}
    for name, expression in json.loads(sys.argv[2]).items():
        try:
            probes[name] = eval(expression, namespace)
        except NameError:
            pass
    print(json.dumps({"probes": probes}))
"""
#: What the snippets computed, read from their session once they have run: the expressions, in
#: the snippets' own names, of values :func:`test_python_snippets_report_their_numbers` checks.
PROBES = {"travel": 'table["wheel_travel"].tolist()[::8]', "design_camber": 'float(table["camber_left"][16])',
          "finite": "bool(np.isfinite(table.to_numpy()[:, :3]).all())", "drift": "float(drift)"}
_SESSIONS = {}


def run_session(blocks, tmp_path_factory):
    """``(repository copy, {line: result})`` of the session of ``blocks``, run once per test
    process (the tests of one session share it: ``xdist_group``)."""
    key = tuple(line for _, line, _ in blocks)
    if key not in _SESSIONS:
        root = copy_repository(tmp_path_factory.mktemp("readme") / "kinematrix")
        before = existing(root, named_files("\n".join(body for _, _, body in blocks)))
        done = subprocess.run([sys.executable, "-c", SESSION, json.dumps([[line, body] for _, line, body in blocks]),
                               json.dumps(PROBES)],
                              cwd=root, env=user_environment(), capture_output=True, text=True, timeout=900)
        results = {}
        for text in done.stdout.splitlines():
            result = json.loads(text)
            results[result.get("line", "probes")] = result
        _SESSIONS[key] = (root, before, results, done.stderr)
    return _SESSIONS[key]


@pytest.mark.readme
@pytest.mark.xdist_group("readme-python")
@pytest.mark.parametrize("block", marked(of("python")))
def test_python_snippet_runs_as_written(block, tmp_path_factory):
    session = next(s for s in sessions() if block in s)
    assert python_chain(block) == session[:session.index(block) + 1]
    root, before, results, stderr = run_session(session, tmp_path_factory)
    result = results.get(block[1])
    assert result is not None, f"README.md line {block[1]} did not run (an earlier block failed)\n{stderr[-2000:]}"
    assert result["ok"], f"README.md line {block[1]}:\n{result['stderr'][-3000:]}"
    assert "Traceback" not in result["stderr"], result["stderr"]
    assert result["stdout"].strip() or block[2].startswith(CONTINUES), "the snippet printed nothing"
    check_written(root, named_files(block[2]), before)


@pytest.mark.readme
@pytest.mark.xdist_group("readme-python")
def test_python_snippets_report_their_numbers(tmp_path_factory):
    """The README's Python snippets print what the workbench computes (their sessions above, the
    one run of each): the DataFrame in mm and deg (camber zero at the design pose, the travel
    exactly as asked), roll camber, Ackermann and steering ratio of the front axle (held against
    hand geometry in test_suspension_references.py), the wheel centre's path, and the four-bar
    drop that conserves energy and lands on the benchmark's reference crank angle."""
    out, probes = "", {}
    for session in sessions():
        _, _, results, stderr = run_session(session, tmp_path_factory)
        assert "probes" in results, f"README.md line {session[0][1]}: the session did not run through\n{stderr[-2000:]}"
        out += "".join(results[line]["stdout"] for _, line, _ in session)
        probes.update(results["probes"]["probes"])
    assert probes["travel"] == [-80.0, -40.0, 0.0, 40.0, 80.0]
    assert abs(probes["design_camber"]) < 1e-9  # deg: the wheel is upright at the design pose
    assert "roll camber 0.734 deg/deg, Ackermann 15.9 %, steering ratio 17.32" in out
    assert "wheel centre moves" in out
    assert "bump steer is most sensitive to rack_end_left.z" in out  # the tie rod's height sets bump steer
    assert "worst bump steer 0.059 -> 0.044 deg per 10 mm" in out
    assert abs(probes["drift"]) < 1e-8  # conservative four-bar at rtol 1e-10
    assert "crank at 2 s: -3.21653" in out  # benchmarks/dynamics.py's reference: -3.216536572 rad
    assert probes["finite"]
    # the compliance of the front axle on bushings (tests/test_suspension_compliance.py holds it
    # against central differences of equilibria) and the toe its bushings add in 1 g cornering, the
    # load at the contact patch of every equilibrium (tests/test_kc_patch.py)
    assert "compliance steer [-0.0318 -0.0309 -0.0306] deg/kN, lateral stiffness [12852. 13304. 13482.] N/mm" in out
    assert "toe in the turn [0.112 0.11  0.116] deg beside the rigid axle" in out


@pytest.mark.xdist_group("readme-python")
def test_the_tests_of_a_group_are_sent_to_one_process(request):
    """Under the test command (``-n 2 --dist loadgroup``) a test marked ``xdist_group`` carries
    its group in its id, by which the scheduler sends the group to one process: otherwise the
    README's Python sessions run once in each (tests/conftest.py)."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by pytest-xdist with --dist loadgroup")
    assert request.node.nodeid.endswith("@readme-python"), request.node.nodeid


def test_every_snippet_after_the_first_is_self_contained_or_says_it_continues():
    """A snippet stands alone (imports what it uses, loads what it analyses) unless its first
    line says it continues the one before: the names it uses unbound are the fault."""
    import ast
    import builtins

    for block in of("python"):
        if block[2].startswith(CONTINUES):
            continue
        tree = ast.parse(block[2])
        bound = set(dir(builtins))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
            elif isinstance(node, (ast.comprehension,)):
                bound |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        assert used <= bound, f"README.md line {block[1]}: {sorted(used - bound)} used but never defined"


@pytest.mark.readme
def test_synopses_name_real_subcommands_and_options(tmp_path):
    """Each ``text`` block line ``kinematrix SUBCOMMAND ... --option ...``: the subcommand is one
    and every option it names is in that subcommand's ``--help`` (run through the installed
    command)."""
    helps = {}
    lines = [line.split("#")[0].strip() for _, _, body in of("text") for line in body.splitlines()]
    lines = [line for line in lines if line]
    assert lines
    for line in lines:
        words = line.split()
        assert words[0] == "kinematrix", line
        sub = words[1]
        if sub not in helps:
            done = subprocess.run([entry_point(), sub, "--help"], cwd=tmp_path, env=user_environment(),
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{line}: {done.stderr}"
            helps[sub] = done.stdout
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line):
            assert option in helps[sub], f"{line}: {option} is not an option of kinematrix {sub}"


def test_toml_blocks_are_files_kinematrix_reads():
    """The vary file shown parses and is a vary file of the shipped corner (as the text says)."""
    from loops.study.designs import read_vary
    from loops.suspension import load_suspension

    blocks = of("toml")
    assert blocks
    corner = load_suspension(ROOT / "examples" / "double_wishbone.toml")
    for _, line, body in blocks:
        data = tomllib.loads(body)
        if "design" in data:
            import tempfile

            with tempfile.TemporaryDirectory() as scratch:
                path = Path(scratch) / "vary.toml"
                path.write_text(body)
                names, offsets = read_vary(path, corner)
            assert names and len(offsets) == data["variants"], f"README.md line {line}"


def test_every_fenced_block_is_covered_by_a_rule():
    """No block escapes: each language has its rule above; the set-up line is the only one with
    left-out steps, and the test command the only command not run."""
    assert {language for language, _, _ in BLOCKS} <= {"sh", "python", "text", "toml"}, \
        [block_id(b) for b in BLOCKS if b[0] not in ("sh", "python", "text", "toml")]
    setups = [line for _, _, body in of("sh") for line in body.splitlines() if "python3 -m venv" in line]
    assert len(setups) == 1
    assert user_commands(setups[0]) == [setups[0].split("&&")[-1].strip()]
    assert user_commands(setups[0])[0].startswith("kinematrix ")
    assert sum(TEST_COMMAND == line.strip() for _, _, body in of("sh") for line in body.splitlines()) == 1


def test_ci_installs_what_the_readme_installs():
    """``.ci/run`` installs the project with the README's extras (``.[test]``, whose dask makes the
    cluster tests run), and ends with the README's test command."""
    ci = (ROOT / ".ci" / "run").read_text()
    installs = re.findall(r"pip install .*?-e \"([^\"]+)\"", ci)
    setup = [extras for _, _, body in of("sh") for extras in re.findall(r"pip install -e \"([^\"]+)\"", body)]
    assert installs == setup == [".[test]"], (installs, setup)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(requirement.startswith("dask[distributed]") for requirement in extras["test"]), extras["test"]
    assert ci.strip().splitlines()[-1].strip() == TEST_COMMAND


def test_the_copy_loads_the_compiled_kernels(repository):
    """The copy's kernels come from the cache copied with it: a sweep there does not compile."""
    done = subprocess.run([sys.executable, "-c", "from mechanism import load_model; import numpy as np; "
                           "load_model('examples/four_bar.toml').sweep({'A': np.linspace(0, 1, 3)})"],
                          cwd=repository, env=user_environment(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    if os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0"):
        assert "compiling kernels" not in done.stderr
