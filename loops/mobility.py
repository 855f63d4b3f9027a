"""Mobility of a closed-loop mechanism: counted (Grubler-Kutzbach) and true (rank of ``B``).

* ``grubler``: the spatial Grubler-Kutzbach count ``6 (links - 1) - sum(6 - f_p)``, which
  equals ``variables - 6 loops``.
* ``redundant``: closure equations that depend on others, ``6 loops - rank(B)`` (a planar
  loop has 3, a Bennett loop 2).
* ``mobility``: ``variables - rank(B)``, the dimension of the motions that keep every loop
  closed at the reference assembly.
* ``passive``: idle freedoms among them: a link whose pairs all lie on one line and all
  allow it to spin about that line (a tie rod between two balls) turns without moving
  anything else.
* ``dof = mobility - passive``, so that ``grubler == dof + passive - redundant``.

The report describes the mechanism without the virtual links of point drivers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mechanism.specs import GROUND

from .compiled import compile_model
from .configuration import evaluate
from .linear import DENSE_VARIABLES, closure_matrix
from .linear import rank as matrix_rank
from .passive import idle_spin

__all__ = ["MobilityReport", "mobility_report"]


@dataclass
class MobilityReport:
    """Loops and mobility of a mechanism (printable).

    Attributes
    ----------
    loops : list of loops.loop_basis.Loop, each a tuple of its pair names in walk order
    grubler, dof, passive, redundant : int
    passive_links : list of str, links with an idle spin
    links, pairs, variables : int, counts (ground included in links)
    closure_error : float, dimensionless closure defect at the reference assembly
    """

    name: str
    loops: list
    grubler: int
    dof: int
    passive: int
    redundant: int
    passive_links: list = field(default_factory=list)
    links: int = 0
    pairs: int = 0
    variables: int = 0
    closure_error: float = 0.0

    @property
    def mobility(self) -> int:
        """Every freedom, idle ones included: ``dof + passive``."""
        return self.dof + self.passive

    def __str__(self):
        lines = [f"Mechanism {self.name!r}: {self.links} links (ground included), {self.pairs} pairs, "
                 f"{self.variables} pair variables, {len(self.loops)} independent loop(s)"]
        for loop in self.loops:
            lines.append(f"  {loop.name}: pairs {' - '.join(loop)}; links {' - '.join(loop.links)}")
        lines.append(f"Grubler-Kutzbach count: {self.variables} pair variables - 6 x {len(self.loops)} loop "
                     f"equations = {self.grubler}")
        rank = 6 * len(self.loops) - self.redundant
        lines.append(f"Redundant constraints: {self.redundant} (rank of the closure matrix B is {rank} of "
                     f"{6 * len(self.loops)} equations; a planar or a spherical loop repeats 3, a Bennett "
                     "loop 3)")
        lines.append(f"Passive freedoms: {self.passive}"
                     + (f" (idle spin of {', '.join(self.passive_links)} about the line through its pairs)"
                        if self.passive_links else ""))
        lines.append(f"Degrees of freedom: {self.dof} (pair variables - rank of B - passive = "
                     f"{self.variables} - {rank} - {self.passive})")
        lines.append(f"Check: grubler {self.grubler} = dof {self.dof} + passive {self.passive} "
                     f"- redundant {self.redundant}")
        if self.closure_error > 1e-8:
            lines.append(f"Warning: the reference assembly does not close (defect {self.closure_error:.3g}); "
                         "the counts above hold for a closed assembly only: call assemble()")
        return "\n".join(lines)


def _spin_rank(spins, n) -> int:
    """Rank of the idle spins' rates (k, n): numpy's ``matrix_rank``, block by block in a model of
    more than DENSE_VARIABLES variables (a spin moves only its link's own pairs)."""
    if n <= DENSE_VARIABLES:
        return int(np.linalg.matrix_rank(spins))
    import scipy.sparse  # noqa: PLC0415 (large models only)

    from .structure import blocks  # noqa: PLC0415

    return sum(int(np.linalg.matrix_rank(part.dense())) for part in blocks(scipy.sparse.csr_matrix(spins))
               if len(part.rows))


def mobility_report(model) -> MobilityReport:
    """Mobility report of ``model`` at its reference assembly (see the module docstring)."""
    system = compile_model(model, with_point_drivers=False)
    config = evaluate(system, system.reference_q())
    rank = matrix_rank(closure_matrix(system, config, gauges=False))
    n_equations = 6 * len(system.loops)
    mobility = system.n - rank
    spins, idle_links = [], []
    for link in system.link_names:
        if link == GROUND:
            continue
        found = idle_spin(system, config, link)
        if found is not None:
            spins.append(found[0] / system.column_scale)
            idle_links.append(link)
    passive = _spin_rank(np.array(spins), system.n) if spins else 0
    return MobilityReport(
        name=model.name,
        loops=list(system.loops),
        grubler=system.n - n_equations,
        dof=mobility - passive,
        passive=passive,
        redundant=n_equations - rank,
        passive_links=idle_links,
        links=len(system.links),
        pairs=len(system.pairs),
        variables=system.n,
        closure_error=config.closure_error(),
    )
