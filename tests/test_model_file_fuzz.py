"""Property: every model file is either loaded and closed, or refused with one located line.

Files are made by mutating every shipped example (examples/*.toml): keys deleted, values of
the wrong type or length, non-finite and huge numbers, broken topology (links renamed,
pairs joining a link to itself, duplicate names, a pair removed), and raw bytes changed in
the text. For each file (mechanism/model_file.py, DESIGN.md "Model files and command
line"):

* ``load_model`` raises :class:`ModelError` whose message is one line of at most 400
  characters starting with the file's name; or
* it returns a mechanism whose loops close at its reference assembly, whose ``check()``
  reports, and which a two-position sweep of its first variable either completes or stops
  with a reason (``SweepStopped``) or refuses (``ModelError``);

never another exception (a traceback) and never a hang (each file gets a wall-clock budget,
enforced by an alarm). The search is derandomized and bounded (``max_examples``) so the
suite's run time stays modest.
"""

from __future__ import annotations

import contextlib
import math
import signal
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loops.compiled import compile_model
from loops.configuration import evaluate
from mechanism import ModelError, SweepStopped, load_model
from mechanism.limits import MAX_MESSAGE

# examples/*_vary.toml are design-study vary files, not models
EXAMPLES = sorted(p for p in (Path(__file__).resolve().parents[1] / "examples").glob("*.toml")
                  if not p.stem.endswith("_vary"))
SOURCES = {path.name: path.read_text(encoding="utf-8") for path in EXAMPLES}
DATA = {name: tomllib.loads(text) for name, text in SOURCES.items()}
#: Wall-clock seconds one file may take (load, check, closure and a short sweep).
BUDGET = 20
FUZZ = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------------ writing TOML
def toml_key(key):
    bare = key and all((c.isascii() and c.isalnum()) or c in "_-" for c in key)  # TOML's bare keys are ASCII
    return key if bare else toml_string(key)


def toml_string(text):
    return '"' + "".join(c if c not in '"\\' and 0x20 <= ord(c) != 0x7F else f"\\u{ord(c):04X}" for c in text) + '"'


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)  # dates and times: TOML's own literals


def toml_document(data):
    """A TOML text for ``data`` (top-level keys, tables, arrays of tables, inline tables)."""
    lines = [f"{toml_key(k)} = {toml_value(v)}" for k, v in data.items()
             if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(e, dict) for e in v))]
    for key, value in data.items():
        if isinstance(value, dict):
            plain = {k: v for k, v in value.items() if not isinstance(v, dict)}
            lines += ["", f"[{toml_key(key)}]"] + [f"{toml_key(k)} = {toml_value(v)}" for k, v in plain.items()]
            for sub, table in value.items():
                if isinstance(table, dict):
                    lines += ["", f"[{toml_key(key)}.{toml_key(sub)}]"]
                    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()]
        elif isinstance(value, list) and value and all(isinstance(e, dict) for e in value):
            for entry in value:
                lines += ["", f"[[{toml_key(key)}]]"] + [f"{toml_key(k)} = {toml_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


def test_the_writer_reproduces_every_example():
    """The fuzz's own TOML writer gives back each example's data (so mutations are what they say)."""
    for name, data in DATA.items():
        assert tomllib.loads(toml_document(data)) == data, name


# -------------------------------------------------------------------------- mutations
STRANGE = st.sampled_from([
    float("nan"), float("inf"), -float("inf"), 1e200, -1e308, 1e308, 5e-324, 0, -1, 10**400, True, "x", "",
    [], [[]], {}, {"times": [0, 1]}, [1, 2], [1, 2, 3, 4], [[1, 2, 3]] * 3, [float("nan")] * 3, [1e300] * 3,
    ["a", "b", "c"], "ground", [0, 0, 0], [[1, 0, 0, 0]] * 4,
])


def paths(data):
    """Every (table, index, key) path to a value of an array-of-tables entry, plus top-level keys."""
    out = [(key, None, None) for key in data]
    for table, entries in data.items():
        if isinstance(entries, list):
            for index, entry in enumerate(entries):
                if isinstance(entry, dict):
                    out += [(table, index, key) for key in entry]
        elif isinstance(entries, dict):
            out += [(table, None, key) for key in entries]
    return out


@st.composite
def mutated(draw):
    """(file name, text) of a mutated example."""
    name = draw(st.sampled_from(sorted(DATA)))
    data = tomllib.loads(SOURCES[name])
    for _ in range(draw(st.integers(1, 3))):
        spots = paths(data)
        if not spots:
            break
        table, index, key = draw(st.sampled_from(spots))
        holder = data if key is None else (data[table][index] if index is not None else data[table])
        field = table if key is None else key
        action = draw(st.sampled_from(["delete", "strange", "resize", "rename", "self", "duplicate", "drop entry",
                                       "scale"]))
        value = holder.get(field)
        if action == "delete":
            holder.pop(field, None)
        elif action == "strange":
            holder[field] = draw(STRANGE)
        elif action == "resize" and isinstance(value, list):
            holder[field] = value[:-1] if value and draw(st.booleans()) else value + value[:1]
        elif action == "rename" and isinstance(value, (str, list)):
            other = draw(st.sampled_from(["ground", "nowhere", "crank", "A", "é", "x y"]))
            holder[field] = other if isinstance(value, str) else [other] + value[1:]
        elif action == "self" and isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
            holder[field] = [value[0], value[0]]
        elif action == "duplicate" and index is not None:
            data[table].append(dict(data[table][index]))
        elif action == "drop entry" and index is not None and len(data[table]) > index:
            data[table].pop(index)
        elif action == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
            holder[field] = value * draw(st.sampled_from([1e-300, -1.0, 1e6, 1e12, 1e300]))
    return name, toml_document(data)


@st.composite
def corrupted(draw):
    """(file name, bytes) of an example with raw bytes changed."""
    name = draw(st.sampled_from(sorted(DATA)))
    raw = bytearray(SOURCES[name].encode("utf-8"))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(raw)))
        kind = draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        if kind == "flip" and at < len(raw):
            raw[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            raw[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del raw[at:at + draw(st.integers(1, 40))]
        elif kind == "truncate":
            del raw[at:]
    return name, bytes(raw)


# ------------------------------------------------------------------------- the rule
@contextlib.contextmanager
def budget(seconds):
    """Fail (not hang) when the block takes longer than ``seconds``."""
    def expired(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def holds_the_rule(path):
    """Loaded and closed (and analysable), or refused with one located line."""
    with budget(BUDGET):
        try:
            mechanism = load_model(path)
        except ModelError as error:
            message = str(error)
            assert message.startswith(f"{path.name}: "), message
            assert "\n" not in message and len(message) <= MAX_MESSAGE, message
            return "refused"
        system = compile_model(mechanism.snapshot())
        assert evaluate(system, system.reference_q()).closure_error() <= 1e-8
        mechanism.check()
        first = system.public_variables()[0]
        try:
            mechanism.sweep({first: [0.0, 1e-3]})
        except (SweepStopped, ModelError) as stop:
            assert "\n" not in str(stop)
        return "loaded"


@FUZZ
@given(case=mutated())
def test_a_mutated_model_file_is_loaded_and_closed_or_refused_in_one_line(tmp_path_factory, case):
    name, text = case
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_text(text, encoding="utf-8")
    holds_the_rule(path)


@settings(FUZZ, max_examples=60)
@given(case=corrupted())
def test_a_corrupted_model_file_is_loaded_and_closed_or_refused_in_one_line(tmp_path_factory, case):
    name, raw = case
    path = tmp_path_factory.mktemp("fuzz") / name
    path.write_bytes(raw)
    holds_the_rule(path)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_is_loaded_and_closed(example):
    assert holds_the_rule(example) == "loaded"
