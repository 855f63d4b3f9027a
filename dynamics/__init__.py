"""kinematrix, the dynamics layer: pseudo-inertia, Lagrange (trace form), Kane cross-check,
simulation, inverse dynamics and pair reactions.

* :func:`equations_of_motion`: ``M(u) u'' = f(u, u', t)`` in the independent coordinates at
  one state, by the trace form (Pavlov eq. 7) or Kane's form;
* :func:`simulate`: forward dynamics with ``solve_ivp`` integrators, the loops closed at
  every step, energy bookkeeping, partition switching near dead points;
* :func:`inverse_dynamics`: the generalized force each driver must supply for a prescribed
  motion over a sweep, with the pair reactions (:func:`pair_reactions`).
"""

from loops.lazy_exports import export_lazily

#: Where each public name lives. The submodules are imported on first use (PEP 562), so that
#: ``import dynamics`` (the command line's package) costs nothing for a sweep.
_EXPORTS = {
    "simulate": ".simulate", "SimulationResult": ".simulate", "EnergyHistory": ".simulate",
    "equations_of_motion": ".equations", "EquationsOfMotion": ".equations",
    "inverse_dynamics": ".inverse_dynamics", "InverseDynamicsResult": ".inverse_dynamics",
    "pair_reactions": ".inverse_dynamics", "PairReactions": "loops.reactions",
    "pseudo_inertia": ".pseudo_inertia", "inertia_from_pseudo": ".pseudo_inertia",
    "transform_pseudo_inertia": ".pseudo_inertia", "kinetic_energy_trace": ".pseudo_inertia",
}


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

export_lazily(__name__)
