"""The stamp of a kernel package's disk cache: a digest of the sources its cached kernels were
compiled from, written beside numba's cache files (:mod:`._compile` keeps the cache while the
stamp matches and deletes it otherwise).

Reading a stamp loads no kernel and leaves the cache as it is, so the command line can ask
whether a first run would compile (:func:`stamped`) before any kernel module loads. numba's
version is read from its installed metadata (importing numba costs a command 0.2 s of
processor time); numba itself is imported only for its naming of the directories of a
``NUMBA_CACHE_DIR``, not its compiler.
"""

from __future__ import annotations

import hashlib
import os
import pathlib

__all__ = ["STAMP", "INLINED_DIRECTORIES", "KINEMATICS_DIRECTORY", "cache_directory", "numba_version", "package_digest",
           "kernel_package_digest", "stamped"]

#: The name of the stamp file in each kernel package's cache directory.
STAMP = "kinematrix-kernels.digest"
#: Sources the kernels inline that are no kernel package of their own: the pair families'
#: (:mod:`.pairs` compiles their functions into the kernels that use them).
INLINED_DIRECTORIES = (pathlib.Path(__file__).resolve().parent.parent.parent / "mechanism" / "pairs",)
#: The kinematics kernels' source directory: every other kernel package calls or inlines their
#: kernels, so its digest chains theirs (:func:`kernel_package_digest`).
KINEMATICS_DIRECTORY = pathlib.Path(__file__).resolve().parent


def cache_directory(directory):
    """Where numba keeps the cache of the kernels in source ``directory``: ``__pycache__``
    beside the sources, or below ``NUMBA_CACHE_DIR`` in a directory numba names for the
    source directory (its name and a hash of its path)."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        from numba.core.caching import _CacheLocator  # noqa: PLC0415 (numba's own naming of the directories)

        return pathlib.Path(custom) / _CacheLocator.get_suitable_cache_subpath(str(directory / "__init__.py"))
    return directory / "__pycache__"


def numba_version() -> str:
    """``numba.__version__`` without importing numba: the version its installed metadata gives
    (the same string for an installed numba), or ``numba.__version__`` for a numba without any."""
    from importlib import metadata  # noqa: PLC0415

    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        import numba  # noqa: PLC0415

        return numba.__version__


def package_digest(directory, base):
    """The digest of a kernel package: numba's version, the digest ``base`` of the kinematics
    kernels (whose kernels every other package's call or inline; "" for them), its own
    sources and those of :data:`INLINED_DIRECTORIES`."""
    h = hashlib.sha256(numba_version().encode())
    h.update(base.encode())
    for source in (directory, *INLINED_DIRECTORIES):
        for path in sorted(source.glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def kernel_package_digest(directory):
    """The digest that stamps the cache of the kernel package in source ``directory``: the
    kinematics kernels' :func:`package_digest`, and any other package's chained on it (its
    kernels call or inline theirs)."""
    directory = pathlib.Path(directory).resolve()
    base = "" if directory == KINEMATICS_DIRECTORY else kernel_package_digest(KINEMATICS_DIRECTORY)
    return package_digest(directory, base)


def stamped(directories):
    """True when the cache of every kernel package in ``directories`` (source directories)
    carries the stamp of its current sources (:func:`kernel_package_digest`): its kernels were
    compiled (or are being compiled) for them. False for a first run after an install or an
    upgrade, or with an empty ``NUMBA_CACHE_DIR``."""
    for directory in directories:
        try:
            stamp = (cache_directory(pathlib.Path(directory).resolve()) / STAMP).read_text()
        except OSError:
            return False
        if stamp != kernel_package_digest(directory):
            return False
    return True
