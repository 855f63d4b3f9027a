"""mechanism/atomic.py: every file written (CSV, TOML, PNG, GIF) is written atomically.

A failed write (a full disk, simulated by a write that raises ENOSPC) leaves the previous file
byte for byte and no temporary file; a symbolic link is followed (the link stays, its target
changes); a signal that can be caught, arriving during the write, leaves no temporary file;
a SIGKILL's leftover is removed by the next write to the same file.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core_models import four_bar
from mechanism import ModelError, atomic, save_model
from loops import plotting

REPO = Path(__file__).resolve().parents[1]


def no_space(fd, data):
    raise OSError(errno.ENOSPC, "No space left on device")


def writers(tmp_path):
    """One writer per kind of file, each writing to the path it is given."""
    mechanism = four_bar()
    result = mechanism.sweep({"A": np.linspace(0.0, 0.5, 3)})
    return {
        "csv": lambda path: result.to_csv(path),
        "toml": lambda path: save_model(mechanism, path),
        "png": lambda path: plotting.plot_curves([0, 1], {"y": [0, 1]}, path=path),
        "gif": lambda path: plotting.animate_sweep(result, path, max_frames=2),
    }


@pytest.mark.parametrize("kind", ["csv", "toml", "png", "gif"])
def test_a_full_disk_leaves_the_previous_file_and_no_temporary_file(tmp_path, monkeypatch, kind):
    write = writers(tmp_path)[kind]
    path = tmp_path / f"out.{kind}"
    path.write_bytes(b"previous")
    monkeypatch.setattr(atomic, "_write_all", no_space)
    with pytest.raises(OSError) as info:
        write(path)
    assert info.value.errno == errno.ENOSPC
    assert path.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"out.{kind}"]


@pytest.mark.parametrize("kind", ["csv", "toml", "png", "gif"])
def test_a_symbolic_link_is_followed(tmp_path, kind):
    write = writers(tmp_path)[kind]
    target = tmp_path / "data" / f"real.{kind}"
    target.parent.mkdir()
    target.write_bytes(b"previous")
    link = tmp_path / f"link.{kind}"
    link.symlink_to(target)
    write(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() != b"previous" and target.stat().st_size > 0
    assert sorted(p.name for p in target.parent.iterdir()) == [f"real.{kind}"]


def test_the_new_file_has_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        atomic.write_atomically(tmp_path / "a.txt", "text\n")
    finally:
        os.umask(umask)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("path", [None, 3, ""])
def test_what_is_not_a_file_name_is_a_located_error(path):
    with pytest.raises(ModelError) as info:
        atomic.write_atomically(path, "x")
    assert info.value.where == "path"


SLOW_WRITER = """
import os, sys, time
sys.path.insert(0, {repo!r})
from mechanism import atomic
slow = atomic._write_all
def write_slowly(fd, data):
    os.write(fd, data[:10])
    print("writing", flush=True)
    time.sleep(1)
    slow(fd, data[10:])
atomic._write_all = write_slowly
atomic.write_atomically({path!r}, "0123456789" * 100)
print("done", flush=True)
time.sleep(1)
"""


def start_slow_writer(tmp_path):
    path = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_WRITER.format(repo=str(REPO), path=str(path))],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "writing\n"
    assert len([p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]) == 1
    return proc, path


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_caught_signal_during_the_write_leaves_no_temporary_file(tmp_path, signal_number):
    """The signal is held back until the file is in place, then ends the process as usual."""
    proc, path = start_slow_writer(tmp_path)
    proc.send_signal(signal_number)
    proc.wait(timeout=30)
    assert proc.returncode != 0  # ended by the signal (SIGINT: a KeyboardInterrupt)
    assert path.read_text() == "0123456789" * 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_a_sigkill_leftover_is_removed_by_the_next_write(tmp_path):
    proc, path = start_slow_writer(tmp_path)
    proc.kill()
    proc.wait(timeout=30)
    leftovers = [p.name for p in tmp_path.iterdir()]
    assert len(leftovers) == 1 and leftovers[0].startswith(".out.csv.") and leftovers[0].endswith(".tmp")
    atomic.write_atomically(path, "again\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    assert path.read_text() == "again\n"


def test_temporary_files_of_running_processes_are_left_alone(tmp_path):
    path = tmp_path / "out.csv"
    alive = tmp_path / f"{atomic._prefix(str(path))}{os.getppid()}.abc.tmp"
    alive.write_text("someone else's write in progress")
    atomic.write_atomically(path, "mine\n")
    assert alive.exists()


def test_a_named_pipe_is_written_into_not_replaced(tmp_path):
    """A target that is not a regular file (a named pipe here; ``/dev/null`` is the same case,
    which must never be replaced by a regular file) is written into as it is."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    atomic.write_atomically(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert received == [b"through the pipe\n"]
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_directory_is_not_a_file_to_write(tmp_path):
    with pytest.raises(IsADirectoryError):
        atomic.write_atomically(tmp_path, "x")
    assert list(tmp_path.iterdir()) == []
