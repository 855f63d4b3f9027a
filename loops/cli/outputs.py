"""Writing the command line's files: CSV tables, images and interactive pages, and the report
of a stopped or interrupted run.

Every picture option (``--plot``, ``plot --out``) writes an interactive page when its file
ends in ``.html`` or ``.htm`` (:data:`PAGE_SUFFIXES`), an image otherwise: :func:`plot_call`
decides, for every subcommand, from the suffix; a subcommand gives it both the image's
drawing function and its page (a :class:`loops.views.View`). Pages need plotly (the
``views`` extra): without it :func:`check_image` stops the command before any work, one line
naming the extra, status 2.

Every CSV goes through the one CSV writer (:meth:`loops.results.Trajectory.to_csv`, or a
result's own ``to_csv``), atomically (:mod:`mechanism.atomic`): a file is written whole or not
at all. A file that cannot be written is a :class:`~loops.cli.arguments.UserError`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys

from .arguments import INTERRUPTED, PROG, UserError


def write_result_csv(result, out, units):
    """Write ``result`` as CSV in ``units`` to ``out`` (None: standard output), by the one
    CSV writer, :meth:`loops.results.Trajectory.to_csv`."""
    if out is None:
        write_stdout(result.to_csv(None, units=units))
        return
    try:
        result.to_csv(out, units=units)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None


def write_table(writer, path):
    """Call ``writer(path)`` (a result's ``to_csv``-like method: path None returns the text),
    and write its text to standard output when ``path`` is None."""
    try:
        text = writer(path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    if path is None:
        write_stdout(text)


#: File endings of interactive pages (every other ending is an image).
PAGE_SUFFIXES = (".html", ".htm")


def is_page(path) -> bool:
    """True for a picture written as an interactive page (``.html``, ``.htm``)."""
    return path is not None and os.path.splitext(str(path))[1].lower() in PAGE_SUFFIXES


def check_image(path, option):
    """A user error, before any work, for an image file whose format matplotlib cannot write, or
    for a page (``.html``) without plotly."""
    if path is None:
        return
    if is_page(path):
        from loops.views import require_plotly
        from mechanism.errors import ModelError

        try:
            require_plotly()
        except ModelError as exc:
            raise UserError(f"{option} {path}: an interactive page {exc.problem}") from None
        return
    suffix = os.path.splitext(path)[1][1:].lower()
    if not suffix:
        return
    from .matplotlib_import import import_matplotlib

    import_matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix not in formats:
        raise UserError(f"{option} {path}: cannot write a {suffix!r} image (formats: {', '.join(sorted(formats))})")


def check_directory(path, option):
    """A user error, before a long run, for an output file whose directory does not exist."""
    if path is None:
        return
    folder = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(folder):
        raise UserError(f"{option} {path}: no directory {folder}")


def plot_call(function, *args, path, page=None, **kwargs):
    """Draw and save a picture to ``path``: the interactive page ``page()`` (a
    :class:`loops.views.View`) when ``path`` ends in ``.html`` or ``.htm``, else the image
    ``function(*args, path=path, **kwargs)``. A failed write, an unknown image format or a page
    without plotly is a user error."""
    if is_page(path):
        if page is None:
            raise UserError(f"{path}: this picture has no interactive page; name an image (.png, .svg, .pdf)")
        view = page()
        try:
            view.write_html(path)
        except OSError as exc:
            raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
        return view
    try:
        return function(*args, path=path, **kwargs)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # matplotlib: "Format 'xyz' is not supported (supported formats: ...)"
        if "format" not in str(exc).lower():
            raise
        raise UserError(f"{path}: {' '.join(str(exc).split())}") from None


def finish(args, result, what, status, note, units, pictures):
    """Write the CSV (unless nothing was reached), draw the pictures, report a stop on stderr.

    ``args.out`` is the CSV file (None: standard output); ``what`` names the rows ("positions",
    "samples"); ``note`` says why the run stopped (None: it did not); ``pictures()`` draws the
    images. Returns the exit status. Ctrl-C here ends the command with status 130 and says what
    was written: a CSV file is written whole or not at all (mechanism/atomic.py holds the signal
    until it is in place).
    """
    wrote = False
    try:
        if len(result) or note is None:
            write_result_csv(result, args.out, units)
            wrote = bool(len(result))
        if len(result):
            pictures()
    except KeyboardInterrupt:
        note = (note + "; then " if note else "") + "interrupted (Ctrl-C)"
        status = INTERRUPTED
    if note is not None:
        written = "nothing written" if not wrote else (
            f"{len(result)} {what} written to {args.out}" if args.out else f"{len(result)} {what} written")
        print(f"{PROG}: {note}; {written}", file=sys.stderr)
    return status


def write_stdout(text):
    """Write ``text`` (a CSV) to standard output, flushed; a closed or full standard output is
    a user error (and what is left in its buffer is dropped, so that the exit says nothing more)."""
    if sys.stdout is None:
        raise UserError("standard output is closed: name the output file with --out")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise UserError(f"cannot write to standard output: {exc.strerror or exc}") from None


def check_standard_output(path):
    """A user error, before any work, when a CSV is to go to standard output (``path`` None)
    and standard output is closed."""
    if path is None and sys.stdout is None:
        raise UserError("standard output is closed: name the output file with --out")


def file_identity(path, option):
    """What tells the file ``path`` names from another: ``("file", device, inode)`` for an
    existing regular file (symbolic links followed: ``os.path.samefile``), ``("path",
    resolved path)`` for one to be made, None for a device or a pipe (written into, never
    replaced). A loop of symbolic links is a user error naming ``option``."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UserError(f"{option} {path}: a loop of symbolic links") from None
        return ("path", os.path.realpath(path))
    if not stat.S_ISREG(info.st_mode):
        return None
    return ("file", info.st_dev, info.st_ino)


def check_distinct(inputs, outputs):
    """A user error, before anything is written, when an output is an input or another output.

    ``inputs`` and ``outputs`` are ``(option, path)`` pairs (``"MODEL"`` for a positional
    argument; path None: not given). Files are the same by :func:`file_identity`: one file
    by two names or through a symbolic link is one file.
    """
    seen = {}
    for option, path in inputs:
        if path is not None:
            key = file_identity(path, option)
            if key is not None:
                seen.setdefault(key, (option, path))
    for option, path in outputs:
        if path is None:
            continue
        key = file_identity(path, option)
        if key is None:
            continue
        if key in seen:
            other, other_path = seen[key]
            raise UserError(f"{option} {path}: the same file as {other} {other_path}; choose another name")
        seen[key] = (option, path)


def report_held(held, prefix=""):
    """Say on stderr which variables a sweep held (no driver fixes their freedom), if any."""
    if held:
        whose = "its freedom" if len(held) == 1 else "their freedoms"
        print(f"{PROG}: {prefix}holding {', '.join(held)} (no driver fixes {whose})", file=sys.stderr)
