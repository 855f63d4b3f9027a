"""Text tables (CSV) as people and spreadsheet programs save them.

A spreadsheet program saves "CSV UTF-8" with a byte-order mark, and plain "CSV" in the
machine's 8-bit code page (Latin-1 or Windows-1252 in Western Europe), "Unicode text" in
UTF-16 with a byte-order mark. Tables that
kinematrix reads back (a hardpoint table, a CSV to plot) are read as UTF-8 with the mark
dropped, else byte for byte as Latin-1, so that a degree sign in a comment does not stop
them; their names and numbers are ASCII either way.
"""

from __future__ import annotations

__all__ = ["read_table_text"]


def read_table_text(path, limit=None) -> str:
    """The text of the file at ``path``: UTF-16 after its byte-order mark (a spreadsheet's
    "Unicode text"), else UTF-8 (a leading byte-order mark dropped), else Latin-1. With
    ``limit`` (bytes), at most that much is read.

    Raises
    ------
    OSError
        When the file cannot be read.
    ValueError
        When it is larger than ``limit``, or not UTF-16 after a UTF-16 byte-order mark.
    """
    with open(path, "rb") as handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise ValueError(f"larger than {limit} bytes")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-16 text after its byte-order mark (byte {exc.start})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
