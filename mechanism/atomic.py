"""Atomic file writes: a temporary file in the target's folder, then a rename.

A reader never sees a half-written model file, result table or picture, and a failure
part-way leaves the previous file as it was. The new file gets the usual permissions (0666
less the umask), not the temporary file's 0600.
"""

from __future__ import annotations

import os
import tempfile

__all__ = ["write_text_atomically", "write_bytes_atomically"]


def _write_atomically(path, data, mode, **options) -> None:
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    handle = tempfile.NamedTemporaryFile(mode, dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                         delete=False, **options)
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(handle.name, 0o666 & ~umask)
        os.replace(handle.name, path)
    except BaseException:
        try:
            os.unlink(handle.name)
        except OSError:
            pass
        raise


def write_text_atomically(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory + os.replace."""
    _write_atomically(path, text, "w", encoding="utf-8", newline="\n")


def write_bytes_atomically(path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory + os.replace."""
    _write_atomically(path, data, "wb")
