"""Tests of loops.kernels.compile_progress: the line stderr shows while kernels compile.

numba's compile events are fed by hand (a dispatcher-like object with a ``py_func``), nested as
numba nests them (a callee compiles inside its caller). Off a terminal the line is said once;
on a terminal it is rewritten with the kernel compiling, the count and the seconds, and ended
at exit. Whether a real run says it only when compiling is tests/test_kernel_cache.py's.
"""

from __future__ import annotations

import io
import types

import pytest

pytest.importorskip("numba")

from loops.kernels.compile_progress import MESSAGE, CompileProgress  # noqa: E402


class Terminal(io.StringIO):
    def isatty(self):
        return True


def compile_event(name):
    def function():
        pass

    function.__qualname__ = name
    return types.SimpleNamespace(data={"dispatcher": types.SimpleNamespace(py_func=function)})


def compile_nested(listener, caller, callee):
    listener.on_start(compile_event(caller))
    listener.on_start(compile_event(callee))
    listener.on_end(compile_event(callee))
    listener.on_end(compile_event(caller))


def test_off_a_terminal_one_line_once():
    stream = io.StringIO()
    listener = CompileProgress(stream)
    compile_nested(listener, "walk_positions", "corrector")
    compile_nested(listener, "close_here", "corrector")
    listener.finish()
    assert stream.getvalue() == MESSAGE + "\n"


def test_on_a_terminal_what_compiles_and_how_far():
    stream = Terminal()
    listener = CompileProgress(stream)
    listener.on_start(compile_event("walk_positions.from_python"))
    assert stream.getvalue().endswith(f"\r{MESSAGE}: walk_positions (0 compiled, 0 s)\033[K")
    listener.on_start(compile_event("corrector"))  # a callee: shown as its caller
    listener.on_end(compile_event("corrector"))
    listener.on_end(compile_event("walk_positions.from_python"))
    assert stream.getvalue().endswith(f"\r{MESSAGE}: 1 compiled in 0 s\033[K")
    compile_nested(listener, "close_here", "corrector")
    assert stream.getvalue().endswith(f"\r{MESSAGE}: 2 compiled in 0 s\033[K")
    assert "\n" not in stream.getvalue()
    listener.finish()
    assert stream.getvalue().endswith("\n") and stream.getvalue().count("\n") == 1


def test_nothing_said_without_a_compile():
    stream = Terminal()
    CompileProgress(stream).finish()
    assert stream.getvalue() == ""
