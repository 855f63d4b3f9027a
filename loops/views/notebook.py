"""What a mechanism, a sweep, an analysis or a study shows in a notebook (their ``_repr_html_``).

Each shows a short summary table (a mechanism: its name, links, pairs, loops and degrees of
freedom; a record: its positions, drivers and how it ended), then its interactive view
(:mod:`loops.views`), as pandas and xarray show a table and plotly a figure. Nothing is
computed that the object does not already hold, except a mechanism's mobility report (its
``check()``, milliseconds). Without plotly the summary says which extra to install instead
of the view; a view that cannot be drawn (a record of no position) leaves the summary alone.
``__repr__`` stays the plain text it was. Set :data:`INLINE_VIEWS` to False for the summaries
alone (as pandas' ``display.notebook_repr_html`` turns its tables off).

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

__all__ = ["summary_table", "notebook_html", "mechanism_html", "record_rows", "record_html", "INLINE_VIEWS"]

#: Whether a notebook shows the interactive view under each summary (False: the summary alone).
INLINE_VIEWS = True


def summary_table(kind, rows) -> str:
    """An HTML table of ``rows`` (``[(label, text)]``) headed by ``kind``."""
    cells = "".join(f'<tr><th style="text-align:left;padding:1px 10px 1px 0">{html.escape(str(label))}</th>'
                    f'<td style="text-align:left">{html.escape(str(text))}</td></tr>' for label, text in rows)
    return (f'<div class="kx-summary"><b>{html.escape(kind)}</b><table style="margin:2px 0 6px 0;'
            f'font-size:12px">{cells}</table></div>')


def notebook_html(kind, rows, make_view) -> str:
    """The summary table, then ``make_view()``'s page inline (or one line saying why not)."""
    table = summary_table(kind, rows)
    if not INLINE_VIEWS:
        return table
    try:
        view = make_view()
        return table + view._repr_html_()
    except ModelError as error:
        if INSTALL_HINT in str(error):
            return table + f"<p><i>interactive view {html.escape(INSTALL_HINT)}</i></p>"
        return table + f"<p><i>no interactive view: {html.escape(str(error))}</i></p>"


def mechanism_html(mechanism) -> str:
    """A mechanism in a notebook: its name, size, loops and degrees of freedom (its ``check()``),
    and the model alone in 3-D with its loops coloured (:func:`~loops.views.sweeps.mechanism_view`)."""
    from .sweeps import mechanism_view  # noqa: PLC0415

    model = mechanism.snapshot()
    report = mechanism.check()
    rows = [("name", model.name),
            ("links", f"{sum(1 for link in model.links if not link.virtual)} (ground included)"),
            ("pairs", sum(1 for pair in model.pairs if not pair.virtual)), ("points", len(model.points)),
            ("loops", "; ".join(f"{loop.name}: {' - '.join(loop)}" for loop in report.loops) or "none"),
            ("degrees of freedom", f"{report.dof} (passive {report.passive}, redundant {report.redundant})"),
            ("units", str(model.units))]
    return notebook_html("Mechanism", rows, lambda: mechanism_view(model, report))


def record_rows(record) -> list:
    """The summary rows of a trajectory record: model, positions, drivers, held, how it ended."""
    rows = [("model", record.model.name), ("positions", len(record))]
    if record.drivers:
        rows.append(("drivers", ", ".join(record.drivers)))
    if record.held:
        rows.append(("held", ", ".join(record.held)))
    rows.append(("stop reason", record.stop_reason or "none: complete"))
    return rows


def record_html(record) -> str:
    """A sweep (any trajectory record) in a notebook: its summary and :func:`~loops.views.sweeps.sweep_view`."""
    from .sweeps import sweep_view  # noqa: PLC0415

    return notebook_html(type(record).__name__, record_rows(record), lambda: sweep_view(record))
