"""The named state the dynamics kernels take, and their constants (no numba here).

The Python layer builds these (:mod:`dynamics.motion`, :mod:`dynamics.integrate`,
:mod:`dynamics.run`) and re-exports them where its users look; the
kernels take them. Named tuples carry the arrays; the integrator's two small vectors, which
it reads and updates at every step, stay arrays (one argument each, an entry one load) with
their entries named by the index constants below, as for the walk (:mod:`loops.kernels.state`).
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["Inertia", "Kinematics", "DynamicScratch", "State", "Compiled", "Tableau", "DOP853_KIND", "RK45_KIND",
           "IntegratorScratch", "Samples",
           "T_END", "RTOL", "ATOL", "LONGEST_STEP", "STEP", "STEP_BUDGET", "SWITCH_THRESHOLD", "DEAD_POINT_THRESHOLD",
           "REJECTED", "SHORTEST_STEP", "CONTROLS", "STEPS", "REJECTIONS", "RHS_CALLS", "NEXT_SAMPLE", "STORED", "CLOSURE_FAILURES",
           "COUNTERS"]

# ------------------------------------------------------------------- the dynamics
Inertia = namedtuple("Inertia", ["J", "masses", "coms", "inertias", "gravity", "massive", "method"])
Inertia.__doc__ = """Mass properties for the kernels: pseudo-inertias ``J`` (L, 4, 4), masses (L,),
centres of mass (L, 3) and central inertias (L, 3, 3) in link frames, gravity (3,), the links
with mass, and the formulation (0: trace form, 1: Kane's form)."""

Kinematics = namedtuple("Kinematics", [
    "G", "jacobians", "q_dot", "q_ddot", "V", "A", "M", "h", "Q", "pair_forces", "wrenches", "powers",
    "accelerations", "efforts", "pair_values", "point_values", "prescribed", "scratch",
])
DynamicScratch = namedtuple("DynamicScratch", ["m4", "m3", "v3", "partial", "products", "vG", "bias", "d", "matrix",
                                               "result", "powers", "branch"])
Kinematics.__doc__ = """Arrays of one evaluation of the dynamics
(:func:`dynamics.kernels.motion.dynamics_at`): transmission ``G`` (n, d), link Jacobians
(L, d, 6), ``q_dot``/``q_ddot`` (n,), link velocities ``V`` and accelerations ``A`` (L, 6),
``M`` (d, d), ``h``, ``Q`` (d,), pair forces (n,), link wrenches (L, 6), powers
``[dissipated, external, driver]`` W, independent accelerations (m,), driver efforts (d,),
and the load values at the time: pair forces (F, 1), point forces (P, 3), prescribed
motions (k, 3); and the kernels' temporaries (:class:`DynamicScratch`; its ``branch`` (d + 2, n)
serves :func:`dynamics.kernels.motion.curvature_at`)."""

State = namedtuple("State", ["work", "factor", "G", "kin", "anchor_q", "anchor_rotations", "anchor_G", "curvature"])
State.__doc__ = """A closed state (see the module docstring): ``work``, ``factor`` (square block), ``G``
(n, d), ``kin``; the anchor's ``anchor_q`` (n,), ``anchor_rotations`` (m, 3, 3), ``anchor_G``
(n, d) and ``curvature`` (n, d, d)."""
Compiled = namedtuple("Compiled", ["topology", "geometry", "block", "inertia", "loads", "params", "m"])
Compiled.__doc__ = """What the dynamics kernels take of a model: its topology, geometry and square
block, its :class:`Inertia` and loads (:class:`loops.kernels.state.LoadArrays`), the walk's parameters ``params``
(:mod:`loops.kernels.state`) and the number ``m`` of independent coordinates."""

# ------------------------------------------------------------------- the integrator
#: :attr:`Tableau.kind`: Dormand and Prince's 8(5,3) pair, or their 5(4) pair.
DOP853_KIND, RK45_KIND = 0, 1

Tableau = namedtuple("Tableau", ["kind", "stages", "error_order", "A", "B", "C", "E3", "E5", "D", "A_EXTRA",
                                 "C_EXTRA", "dense_rows"])
Tableau.__doc__ = """An embedded Runge-Kutta pair: ``kind`` DOP853_KIND (DOP853: two error estimates,
7th-order dense output from three extra stages) or RK45_KIND (RK45: one estimate ``E5``, dense
output ``D`` = P)."""

IntegratorScratch = namedtuple("IntegratorScratch", ["K", "KX", "F", "vectors"])
IntegratorScratch.__doc__ = """The arrays of one step of the compiled integrator (the kernels allocate
nothing): stage derivatives ``K`` (stages + 1, N), with the extra stages of the dense output
``KX`` (stages + 1 + extra, N), dense-output coefficients ``F`` (rows, N), and four
vectors (4, N) (new state and rate, stage state, a sample's rate)."""

#: The sample buffer of a simulation (:mod:`dynamics.simulation_result`): per stored time
#: ``t``, the variables ``q``, spherical ``rotations``, rates ``q_dot``, ``q_ddot``, link poses
#: ``T``, velocities ``V``, accelerations ``A``, the three work integrals ``work`` and the
#: drivers' efforts ``drive``.
Samples = namedtuple("Samples", ["t", "q", "rotations", "q_dot", "q_ddot", "T", "V", "A", "work", "drive"])

#: ``control`` (float64, :data:`CONTROLS`,): the end time (s); the relative and absolute
#: tolerances; the largest step (s); the step size (s; in: the next step to try, out: the
#: step after the last accepted one); the accepted steps one call may take; the partition's
#: switch ratio and dead-point ratio (:func:`~.integrate.partition_health`); 1 when the last
#: step was rejected (no growth right after a rejection; in and out); the smallest step (s)
#: before the integration stops.
(T_END, RTOL, ATOL, LONGEST_STEP, STEP, STEP_BUDGET, SWITCH_THRESHOLD, DEAD_POINT_THRESHOLD, REJECTED,
 SHORTEST_STEP) = range(10)
CONTROLS = 10

#: ``counters`` (int64, :data:`COUNTERS`,): accepted steps, rejected steps, evaluations of
#: the right-hand side, the next sample time to store, the samples stored, closure failures
#: in a row.
STEPS, REJECTIONS, RHS_CALLS, NEXT_SAMPLE, STORED, CLOSURE_FAILURES = range(6)
COUNTERS = 6
