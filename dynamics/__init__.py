"""kinematrix, the dynamics layer: pseudo-inertia, Lagrange (trace form), Kane cross-check,
simulation, inverse dynamics and pair reactions.

* :func:`equations_of_motion`: ``M(u) u'' = f(u, u', t)`` in the independent coordinates at
  one state, by the trace form (Pavlov eq. 7) or Kane's form;
* :func:`simulate`: forward dynamics with ``solve_ivp`` integrators, the loops closed at
  every step, energy bookkeeping, partition switching near dead points;
* :func:`inverse_dynamics`: the generalized force each driver must supply for a prescribed
  motion over a sweep, with the pair reactions (:func:`pair_reactions`).
"""

from .equations import EquationsOfMotion, equations_of_motion
from .inverse_dynamics import InverseDynamicsResult, PairReactions, inverse_dynamics, pair_reactions
from .pseudo_inertia import inertia_from_pseudo, kinetic_energy_trace, pseudo_inertia, transform_pseudo_inertia
from .simulate import EnergyHistory, SimulationResult, simulate

__all__ = [
    "simulate",
    "SimulationResult",
    "EnergyHistory",
    "equations_of_motion",
    "EquationsOfMotion",
    "inverse_dynamics",
    "InverseDynamicsResult",
    "pair_reactions",
    "PairReactions",
    "pseudo_inertia",
    "inertia_from_pseudo",
    "transform_pseudo_inertia",
    "kinetic_energy_trace",
]
