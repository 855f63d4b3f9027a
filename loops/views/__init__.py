"""Interactive views: the mechanism in 3-D beside its curves, in one page that works offline.

A view is one self-contained HTML page (plotly.js inlined: it opens from a USB stick with no
network) or the same page inline in a notebook: a 3-D scene of the mechanism (links between
their pair centres and points, pairs marked by type, wheels as discs, the ground fixed, each
hardpoint's name and coordinates on hover, an axis triad), panels of curves with hover
readouts, zoom and a legend, and a slider with play/pause that moves the pose and a marker on
every curve together. Values are in the model file's units.

* :mod:`~loops.views.page`: :class:`Page` (what is drawn and what moves) and :class:`View`
  (``write_html``, ``to_html``, ``show``, and a notebook's HTML).
* :mod:`~loops.views.scene`: the 3-D scene of one or more designs; :mod:`~loops.views.panels`:
  the 2-D panels; :mod:`~loops.views.geometry`: what a scene draws, as arrays.
* :mod:`~loops.views.sweeps`: the engine's pages: :func:`mechanism_view`, :func:`sweep_view`,
  :func:`curves_view`. The suspension workbench (:mod:`loops.suspension.views`), design studies
  (:mod:`loops.study.views`) and simulations (:mod:`dynamics.views`) add their own panels.

plotly is optional (``pip install 'kinematrix[views]'``); without it a view raises a one-line
:class:`~mechanism.errors.ModelError` naming the extra. This package imports plotly only when
a page is written or shown.

Examples
--------
>>> from mechanism import load_model
>>> from loops.views import mechanism_view
>>> view = mechanism_view(load_model("examples/four_bar.toml"))
>>> view.player["count"], "four" in view.title
(1, True)
"""

from .page import INSTALL_HINT, Page, View, require_plotly
from .sweeps import curves_view, mechanism_view, sweep_view

__all__ = ["Page", "View", "require_plotly", "INSTALL_HINT", "mechanism_view", "sweep_view", "curves_view"]
