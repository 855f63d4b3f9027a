"""Text tables (CSV) as people and spreadsheet programs save them.

A spreadsheet program saves "CSV UTF-8" with a byte-order mark, and plain "CSV" in the
machine's 8-bit code page (Latin-1 or Windows-1252 in Western Europe). Tables that
kinematrix reads back (a hardpoint table, a CSV to plot) are read as UTF-8 with the mark
dropped, else byte for byte as Latin-1, so that a degree sign in a comment does not stop
them; their names and numbers are ASCII either way.
"""

from __future__ import annotations

__all__ = ["read_table_text"]


def read_table_text(path) -> str:
    """The text of the file at ``path``: UTF-8 (a leading byte-order mark dropped), else Latin-1.

    Raises
    ------
    OSError
        When the file cannot be read.
    """
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
