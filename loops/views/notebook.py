"""What a mechanism, a sweep, an analysis or a study shows in a notebook (their ``_repr_html_``).

Each shows a short summary table (a mechanism: its name, links, pairs, loops and degrees of
freedom; a record: its positions, drivers and how it ended), then its interactive view
(:mod:`loops.views`), as pandas and xarray show a table and plotly a figure. Nothing is
computed that the object does not already hold, except a mechanism's mobility report (its
``check()``, milliseconds). Without plotly the summary says which extra to install instead
of the view; a view that cannot be drawn (a record of no position) leaves the summary alone.
``__repr__`` stays the plain text it was.

Examples
--------
>>> from loops.views.notebook import summary_table
>>> ">positions</th>" in summary_table("SweepResult", [("positions", "361")])
True
"""

from __future__ import annotations

import html

from mechanism.errors import ModelError

from .page import INSTALL_HINT

__all__ = ["summary_table", "notebook_html"]


def summary_table(kind, rows) -> str:
    """An HTML table of ``rows`` (``[(label, text)]``) headed by ``kind``."""
    cells = "".join(f'<tr><th style="text-align:left;padding:1px 10px 1px 0">{html.escape(str(label))}</th>'
                    f'<td style="text-align:left">{html.escape(str(text))}</td></tr>' for label, text in rows)
    return (f'<div class="kx-summary"><b>{html.escape(kind)}</b><table style="margin:2px 0 6px 0;'
            f'font-size:12px">{cells}</table></div>')


def notebook_html(kind, rows, make_view) -> str:
    """The summary table, then ``make_view()``'s page inline (or one line saying why not)."""
    table = summary_table(kind, rows)
    try:
        view = make_view()
        return table + view._repr_html_()
    except ModelError as error:
        if INSTALL_HINT in str(error):
            return table + f"<p><i>interactive view {html.escape(INSTALL_HINT)}</i></p>"
        return table + f"<p><i>no interactive view: {html.escape(str(error))}</i></p>"
