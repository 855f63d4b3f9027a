"""Atomic file writes: a temporary file in the target's folder, then a rename.

A reader never sees a half-written model file or result table, and a failure part-way
leaves the previous file as it was. The new file gets the usual permissions (0666 less
the umask), not the temporary file's 0600.
"""

from __future__ import annotations

import os
import tempfile

__all__ = ["write_text_atomically"]


def write_text_atomically(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory + os.replace."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", newline="\n", dir=directory,
                                         prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                         delete=False)
    try:
        with handle:
            handle.write(text)
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
