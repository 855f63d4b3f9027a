"""Atomic file writes: every file kinematrix writes (CSV, TOML, PNG, GIF) goes through here.

The whole content is made in memory first; then it is written to a temporary file in the
target's folder and renamed over the target. So a reader never sees a half-written file,
and a failure part-way (a full disk, a read-only folder) leaves the previous file as it was
and no temporary file behind.

* A symbolic link is followed: the file it points to is replaced, the link stays a link.
* A target that is not a regular file (``/dev/null``, a terminal, a named pipe) is written
  into as it is: there is nothing to replace.
* While the temporary file exists, the signals that can be caught and that end a process
  (Ctrl-C's SIGINT, SIGTERM, SIGHUP, SIGQUIT, ...) are held back and delivered once the
  file is in place or removed, so no signal that can be caught leaves a temporary file
  (in the main thread, where Python handles signals).
* SIGKILL cannot be caught: a write it ends leaves its temporary file
  (``.<name>.<host>-<pid>.<random>.tmp``); the next write to the same file removes the
  temporary files of processes of this host that no longer run.
* The new file gets the usual permissions (0666 less the umask).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import tempfile
import threading

from .errors import ModelError

__all__ = ["write_atomically", "write_text_atomically", "target_path", "HELD_SIGNALS"]

#: Signals held back while a temporary file exists: those that end a process and can be caught.
HELD_SIGNALS = frozenset(getattr(signal, name) for name in (
    "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF",
    "SIGPIPE") if hasattr(signal, name))


def target_path(path, where="path") -> str:
    """The file a write to ``path`` replaces: ``path`` with symbolic links followed.

    Raises
    ------
    ModelError
        (at ``where``) when ``path`` is not a file name (None, a number, an empty string).
    """
    try:
        name = os.fspath(path)
    except TypeError:
        raise ModelError(where, f"expected a file name (str or path-like), got {type(path).__name__}") from None
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if not name:
        raise ModelError(where, "expected a file name, got an empty string")
    return os.path.realpath(name)


@contextlib.contextmanager
def _signals_held():
    """Hold back :data:`HELD_SIGNALS` while the block runs, then deliver them.

    Each signal that arrives meanwhile is only recorded (the handler runs in the main
    thread whichever thread the system chose); when the block ends, the previous handlers
    are restored and the recorded signals raised again, so they act as they would have
    (terminate, or raise KeyboardInterrupt), with the file already in place or removed.
    Handlers can be set in the main thread only; elsewhere the block runs unguarded.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived = []
    previous = {}
    for number in HELD_SIGNALS:
        handler = signal.getsignal(number)
        if handler in (signal.SIG_IGN, None):
            continue  # ignored, or set outside Python: leave it
        previous[number] = signal.signal(number, lambda received, frame: arrived.append(received))
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(arrived):
            signal.raise_signal(number)


def _mode():
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_all(fd, data: bytes):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def _prefix(target):
    """Temporary files of ``target`` are named ``.<name>.<host>-<pid>.<random>.tmp``."""
    host = "".join(c for c in socket.gethostname() if c.isalnum())[:32] or "host"
    return f".{os.path.basename(target)}.{host}-"


def _remove_stale(target):
    """Remove temporary files of ``target`` left by processes of this host that no longer run
    (a write ended by SIGKILL, which no program can catch)."""
    directory = os.path.dirname(target)
    prefix = _prefix(target)
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid = name[len(prefix):].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))
        except OSError:
            pass  # alive (another user's process): leave its file alone


def _through_named_file(target, data):
    fd, name = tempfile.mkstemp(prefix=f"{_prefix(target)}{os.getpid()}.", suffix=".tmp",
                                dir=os.path.dirname(target))
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.chmod(name, _mode())
        os.replace(name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def write_atomically(path, data) -> None:
    """Replace the file at ``path`` (symbolic links followed) by ``data`` (bytes, or str as UTF-8).

    Raises
    ------
    OSError
        When the file cannot be written (the previous file is then left as it was).
    ModelError
        When ``path`` is not a file name.
    """
    target = target_path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if os.path.exists(target) and not os.path.isfile(target):
        _into_special_file(target, data)  # /dev/null, a terminal, a pipe: nothing to replace
        return
    with _signals_held():
        _through_named_file(target, data)
    _remove_stale(target)


def _into_special_file(target, data):
    """Write into a file that is not a regular one (a device, a named pipe), in place."""
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    fd = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_text_atomically(path, text: str) -> None:
    """Replace the file at ``path`` by ``text`` (UTF-8, lines as given); see :func:`write_atomically`."""
    write_atomically(path, text)
