"""The test modules rewritten once by the controlling process (tests/rewritten_modules.py): the
file is the one pytest's import hook reads, with the asserts rewritten; an unchanged module is
not written again, an edited one is; and where pytest's private API has changed nothing is
written and nothing fails."""

from __future__ import annotations

import pytest
from _pytest.assertion import rewrite

from rewritten_modules import rewritten_modules, write_rewritten

SAMPLE = "def test_sample():\n    left = 1\n    assert left == 2\n"


def _cached(path):
    return rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)


def test_a_module_is_written_rewritten_where_pytests_import_hook_reads_it(pytestconfig, tmp_path):
    if pytestconfig.getoption("assertmode") != "rewrite":
        pytest.skip("asserts not rewritten in this run (--assert=plain)")
    module = tmp_path / "test_sample.py"
    module.write_text(SAMPLE)
    assert write_rewritten(pytestconfig, [module]) == 1
    code = rewrite._read_pyc(module, _cached(module))  # what the hook's exec_module reads
    assert code is not None
    namespace = {"__name__": "test_sample"}
    exec(code, namespace)  # noqa: S102 (the module's own code, read back)
    with pytest.raises(AssertionError, match=r"assert 1 == 2"):  # a plain assert has no message
        namespace["test_sample"]()
    assert write_rewritten(pytestconfig, [module]) == 0  # up to date: not written again
    # pytest knows a module's cache by its source's hash (pytest 9.2), or before by its size and
    # modification time in whole seconds: an edit of the same size within the second read as
    # the same source there (pytest 9.0.3, CI's run on 1a55652)
    module.write_text(SAMPLE.replace("left = 1", "left = 13"))
    assert write_rewritten(pytestconfig, [module]) == 1


def test_a_changed_private_api_writes_nothing_and_raises_nothing(pytestconfig, tmp_path, monkeypatch):
    module = tmp_path / "test_sample.py"
    module.write_text(SAMPLE)
    monkeypatch.delattr(rewrite, "_rewrite_test")
    assert write_rewritten(pytestconfig, [module]) == 0
    monkeypatch.undo()
    monkeypatch.setattr(rewrite, "_rewrite_test", lambda *args: None)  # returns something else
    assert write_rewritten(pytestconfig, [module]) == 0
    assert not _cached(module).exists()


def test_the_modules_are_the_test_files_and_conftest_files_collected(pytestconfig, tmp_path):
    (tmp_path / "conftest.py").write_text("")
    (tmp_path / "test_one.py").write_text(SAMPLE)
    (tmp_path / "helpers.py").write_text("")
    (tmp_path / "deeper").mkdir()
    (tmp_path / "deeper" / "test_two.py").write_text(SAMPLE)
    names = [p.relative_to(tmp_path).as_posix() for p in rewritten_modules(pytestconfig, [tmp_path])]
    assert names == ["conftest.py", "deeper/test_two.py", "test_one.py"]
    one = f"{tmp_path / 'test_one.py'}::test_sample"
    assert rewritten_modules(pytestconfig, [one]) == [tmp_path / "test_one.py"]
