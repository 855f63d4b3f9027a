"""The named state the kinematics kernels take, and their constants (no numba here).

The Python layer builds these (:mod:`loops.compiled`, :mod:`loops.configuration`,
:mod:`loops.linear`, :mod:`loops.continuation`) and re-exports them where its users look;
the kernels import them from here, so that a kernel imports only kernels.

Named tuples carry the arrays (:class:`Topology`, :class:`Geometry`, :class:`Work`,
:class:`Scratch`, :class:`SquareBlock`, :class:`Factor`). The small vectors a walk reads and
updates at every step (its parameters, its counters, its diagnostics, a factorization's
``info``, the predictor's ``curved`` flags) stay float64 or int64 arrays, their entries named
by the index constants below (``params[TOLERANCE]``, ``factor.info[VALID]``): an array of a
few numbers costs numba one argument, and reading an entry is one load.

This module imports only the standard library: importing it (to build a system, to read a
constant) loads no compiler.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["Topology", "Geometry", "Work", "Scratch", "SquareBlock", "Factor", "SQUARE", "LEAST_SQUARES",
           "RANK_TOLERANCE", "TRUSTED_CONDITIONING", "SINGULAR_CONDITIONING",
           "PIVOT_RATIO", "CONDITIONING", "VALID", "BAND_OVERFLOW", "DETERMINANT_SIGN", "FACTOR_INFO_SIZE",
           "WalkState", "WalkRecord", "VariantRecordArrays",
           "TOLERANCE", "MOTION_LIMIT", "BRANCH_RATIO", "HALVING_LIMIT", "ITERATION_LIMIT", "NEWTON_STEP_LIMIT",
           "SINGULAR_RCOND", "RECHOOSE_RCOND", "TANGENTS", "WALK_PARAMETERS",
           "STEPS_TAKEN", "STEP_BUDGET", "WALK_COUNTERS",
           "LAST_ERROR", "LAST_ITERATIONS", "CONDITIONING_HERE", "REACHED", "CORRECTOR_RESULT", "WALK_DIAGNOSTICS",
           "ERROR", "ITERATIONS", "CORRECTION", "FACTORIZATIONS", "CORRECTOR_RESULT_SIZE",
           "CURVED_HERE", "CURVED_BEFORE", "RECORDING", "CURVED_FLAGS", "LoadArrays", "Weights",
           "StaticsScratch", "EquilibriumRecord", "FORCE_TOLERANCE", "SETTLE_ITERATIONS", "SETTLE_STEP",
           "STATICS_PARAMETERS", "LOAD_SCALE", "RESIDUAL", "CORRECTED", "SETTLED", "CHORD_KEPT",
           "STATICS_INFO"]

# ----------------------------------------------------------------- the compiled system
Topology = namedtuple("Topology", [
    "n", "pairs", "links", "loops", "gauges", "spheres", "ground",
    "family", "parameters", "start", "size", "first", "second", "sphere",
    "column_pair", "rotational",
    "tree_order", "parent", "tree_pair", "forward",
    "chord", "loop_ptr", "loop_cols", "loop_signs",
    "gauge_link", "sphere_columns",
])
Topology.__doc__ = """What every design variant of a model shares (:mod:`loops.compiled`)."""
Geometry = namedtuple("Geometry", ["frame_j", "frame_k", "scale", "gauge_axis", "gauge_reference"])
Geometry.__doc__ = """What a hardpoint changes (:mod:`loops.compiled`)."""

# ------------------------------------------------------------ a configuration at work
#: The arrays of one configuration being iterated by the kernels (a Newton corrector, a
#: walk): its variables and spherical states, and everything :func:`loops.kernels.closure.
#: configure` and the Jacobian fill in. Scratch space, never a result.
Work = namedtuple("Work", ["q", "rotations", "A", "T", "W", "xi", "defects", "centres", "swings",
                           "loop_blocks", "gauge_rows", "scratch"])

#: Preallocated temporaries of the kernels (allocating small arrays inside compiled loops
#: costs more than the arithmetic): 4x4 and 3x3 matrices, 3- and 6-vectors, vectors over
#: the variables, the equations and the links, and a spherical-state copy. Who uses which
#: row: ``m4[0:2]``, ``m3[0]``, ``v3[0]``, ``v6[0]`` the closure (:func:`configure`);
#: ``m3[1:3]``, ``v3[1:5]`` the Newton step and re-seating; ``v3[5:14]`` the gauges' Jacobian
#: and rates; ``v6[1:4]`` the velocity-product terms; ``variables[0:2]``, ``rotations`` the
#: corrector; ``equations[0]`` right-hand sides, ``equations[1:3]`` the solves.
Scratch = namedtuple("Scratch", ["m4", "m3", "v3", "v6", "variables", "equations", "links", "rotations", "terms"])

# --------------------------------------------------------------------- the solve layer
#: Singular values (or QR pivots) below this fraction of the largest are exact rank defects.
RANK_TOLERANCE = 1e-9
#: Reciprocal condition number below which a block's solves are not trusted by the guards
#: and the dynamics: a correction's noise is taken at this floor, the orientation of the
#: block is not compared, and a stage of a simulation takes its tangent and accelerations
#: from the branch (and never becomes the anchor). Solves above it lose at most
#: ~eps / 1e-6 ~ 2e-10 of their relative accuracy.
TRUSTED_CONDITIONING = 1e-6
#: Reciprocal condition number below which a position is singular (its own tangent unusable).
SINGULAR_CONDITIONING = 1e-10

SquareBlock = namedtuple("SquareBlock", [
    "mode",             # SQUARE (banded LU of chosen rows) or LEAST_SQUARES (SVD of all rows)
    "size",             # N, the number of free columns (= chosen rows)
    "kl", "ku",         # sub- and super-diagonals of the ordered block
    "free",             # (N,) free columns, in variable order
    "driven",           # (d,) driven columns, in the order of the drivers
    "column_position",  # (n,) position of each free column in the band ordering, -1 if driven
    "driven_position",  # (n,) position of each driven column among the drivers, -1 if free
    "row_position",     # (rows,) position of each chosen row in the band ordering, -1 if left out
    "row_scale",        # (rows,) 1 for rotations and gauges, 1/scale for gaps
    "column_scale",     # (n,) 1 for angles, scale for lengths
])
SquareBlock.__doc__ = """The block of ``B`` the kernels factorize (:mod:`loops.linear`): the square
block of chosen rows (``mode == SQUARE``), or every row, solved in the least-squares,
minimum-norm sense through an SVD (``mode == LEAST_SQUARES``: for assembling from rough
guesses, where rows that are dependent at the closure are not dependent yet)."""

#: :attr:`SquareBlock.mode`: banded LU of chosen rows, or the SVD of all rows.
SQUARE, LEAST_SQUARES = 0, 1

#: A factorization of a :class:`SquareBlock` (:func:`loops.kernels.linear.factorize_block`):
#: banded LU factors, row exchanges, the driven columns of the chosen rows (N, d), and
#: ``info`` (:data:`FACTOR_INFO_SIZE`,), whose entries are named below.
Factor = namedtuple("Factor", ["band", "pivots", "driven", "info"])

#: ``Factor.info``: the smallest over the largest pivot magnitude; the reciprocal condition
#: number (1-norm); 1 when the factors are usable, 0 when there are none (not yet made, or
#: made at a singular position); 1 when an entry fell outside the band; the sign of the
#: determinant (+1, -1; 0 for a least-squares block).
PIVOT_RATIO, CONDITIONING, VALID, BAND_OVERFLOW, DETERMINANT_SIGN = range(5)
FACTOR_INFO_SIZE = 5

# ------------------------------------------------------------------------ the walk
#: Where a walk stands and what it remembers (:mod:`loops.kernels.continuation`): the closed
#: configuration ``here`` with its factorization ``factor`` and tangent ``G`` (n, d); the
#: scratch of a step of the same shapes (``trial``, ``trial_factor``, ``new_G``); the memory
#: of the last two accepted steps ``last_G`` (2, n, d), ``last_step`` (2, d), the curvatures
#: ``curvature`` (2, n) and their flags ``curved`` (:data:`CURVED_FLAGS`,). A batch of
#: variants (:mod:`loops.kernels.variants`) stacks every array along a leading variant axis.
WalkState = namedtuple("WalkState", ["here", "factor", "G", "trial", "trial_factor", "new_G", "last_G", "last_step",
                                     "curvature", "curved"])
#: What a walk records at every position it reaches (row i for position i): variables ``q``
#: (N, n), spherical ``rotations`` (N, m, 3, 3), rates ``q_dot``, ``q_ddot`` (N, n), link
#: poses ``T`` (N, L, 4, 4), link velocities ``V`` and accelerations ``A`` (N, L, 6), and the
#: tangent ``G`` (N, n, d).
WalkRecord = namedtuple("WalkRecord", ["q", "rotations", "q_dot", "q_ddot", "T", "V", "A", "G"])
#: What a batch of variants records (:func:`loops.kernels.variants.walk_variants`): per
#: variant v and position i, the variables ``q[v, i]`` (n,), the link poses ``T[v, i]``
#: (L, 4, 4) and, per recorded driver direction k, the link velocities ``V[v, i, k]`` and
#: accelerations ``A[v, i, k]`` (L, 6).
VariantRecordArrays = namedtuple("VariantRecordArrays", ["q", "T", "V", "A"])

#: The walk's and corrector's parameters ``params`` (float64, :data:`WALK_PARAMETERS`,):
#: closure tolerance (dimensionless); largest predicted motion of a step; correction over
#: predicted motion above which a step jumped branches; halvings of one step before the walk
#: stops; Newton iterations per step; largest Newton step; reciprocal condition below which
#: a position is singular; below which a block that leaves rows out is chosen anew (0:
#: never); the number of driven columns (the first ones) whose tangents the walk makes.
(TOLERANCE, MOTION_LIMIT, BRANCH_RATIO, HALVING_LIMIT, ITERATION_LIMIT, NEWTON_STEP_LIMIT, SINGULAR_RCOND,
 RECHOOSE_RCOND, TANGENTS) = range(9)
WALK_PARAMETERS = 9

#: The walk's ``counters`` (int64, :data:`WALK_COUNTERS`,): steps taken, and the step budget
#: at which it returns (``BUDGET``) for the caller to resume.
STEPS_TAKEN, STEP_BUDGET = range(2)
WALK_COUNTERS = 2

#: The walk's ``diagnostics`` (float64, :data:`WALK_DIAGNOSTICS`,): the last corrector's
#: error and iterations, the reciprocal condition where the walk stands (0: singular), the
#: index of the first target not reached, and from :data:`CORRECTOR_RESULT` on the room for
#: the corrector's result.
LAST_ERROR, LAST_ITERATIONS, CONDITIONING_HERE, REACHED = range(4)
CORRECTOR_RESULT = 4
WALK_DIAGNOSTICS = 8

#: The corrector's ``result`` (float64, :data:`CORRECTOR_RESULT_SIZE`,): the closure error it
#: ended with, its iterations, the sum of its step sizes (dimensionless, max norm), and the
#: factorizations it made.
ERROR, ITERATIONS, CORRECTION, FACTORIZATIONS = range(4)
CORRECTOR_RESULT_SIZE = 4

#: The predictor's ``curved`` flags (float64, :data:`CURVED_FLAGS`,; 1 true, 0 false): the
#: curvature where the latest step ends is kept, the one where it started is kept, the walk
#: records curvatures.
CURVED_HERE, CURVED_BEFORE, RECORDING = range(3)
CURVED_FLAGS = 3

# ------------------------------------------------------------------------ the loads
LoadArrays = namedtuple("LoadArrays", [
    "spring_cols", "spring_stiffness", "spring_free", "spring_damping",
    "force_cols", "force_keys", "force_ptr", "force_times", "force_values",
    "point_links", "point_at", "point_keys", "point_ptr", "point_times", "point_values",
    "prescribed_cols", "prescribed_keys", "prescribed_ptr", "prescribed_times", "prescribed_values",
    "strut_link_a", "strut_link_b", "strut_at_a", "strut_at_b", "strut_stiffness", "strut_free",
    "strut_damping", "bushing_start", "bushing_stiffness", "bushing_damping", "bushing_preload",
    "strut_quadratic", "point_circle", "moment_links",
])
LoadArrays.__doc__ = """The loads of a model as arrays for the kernels (SI units, :mod:`loops.loads`): pair
springs (columns, stiffness, free value, damping), pair forces and point forces (columns or
links and points; per load a callback key or -1 and a table ``ptr``/``times``/``values``),
prescribed motions (columns, keys, tables of (value, rate, second rate)), spring-dampers, and
bushings (per bushing the first of its six columns, its stiffness and damping (6, 6) and
preload (6,) in its own axes: translations first, N/m, N m/rad, N s/m, N m s/rad, N, N m), and per
spring-damper whether its damper is quadratic (bool: force ``c v |v|``, else ``c v``), and per
point force its circle (P, 7): axis (3, unit, link frame), radius (m) and the fixed direction
``toward`` (3, unit, global), the force acting at the circle's point farthest along ``toward``
(:func:`loops.kernels.loads.application_point`, METHOD.md (E8)); radius 0: at ``point_at`` itself.
Free moments on links (N m, global axes, METHOD.md (E9)) share the point forces' tables: the
``point_keys``/``point_ptr``/``point_times``/``point_values`` rows are the P point forces, then the
M moments, whose links are ``moment_links`` (M,) (empty without moments).
Gravity is not here: the dynamics treat it as a potential (trace form) or at the centres of
mass (Kane's form), the statics by :class:`Weights`."""

#: The weights of the links for the statics kernels: masses (L,) kg, centres of mass in link
#: frames (L, 3) m, gravity (3,) m/s^2, and the links with mass (int64).
Weights = namedtuple("Weights", ["masses", "coms", "gravity", "massive"])

# ------------------------------------------------------------------------ the statics
#: The arrays of the statics kernels (:mod:`loops.kernels.statics`) at one configuration with
#: ``D`` driven columns (the fixed ones, then the free coordinates ``u``, ``k`` of them):
#: link wrenches ``W`` and their subtree sums ``F`` (L, 6), and their rates along one driven
#: column ``dW``, ``dF``, with the link velocities ``V`` (L, 6) along it; the pair forces ``P``,
#: the generalized forces in the pair variables ``Q`` and the pair forces' rates ``dP`` (n,),
#: the column of rates ``rates`` (n,) and a step ``step`` (n,); ``Z`` (n, D) the rates of the
#: generalized forces along each driven column; the closure's multipliers ``mu`` (rows,);
#: each pair's transmitted wrench ``Omega`` (P, 6); the generalized forces ``forces`` (D,)
#: and stiffness ``K`` (D, D) in the driven columns; the free block's copy ``reduced`` and LU
#: ``lu`` (k, k) with ``pivots`` (k,), a free step ``du`` (k,) and the equilibrium path's
#: slope ``slope`` (k, D - k); the load values at the time (``pair_values`` (F, 1),
#: ``point_values`` (P + M, 3)); zero rates and link velocities (``zero_rates`` (n,),
#: ``zero_links`` (L, 6): statics has no damping); a Newton step's start ``saved_q`` (n,) and
#: ``saved_rotations`` (m, 3, 3); the free coordinates where a walk's step predicted the
#: equilibrium ``predicted`` (k,); scratch ``v3`` (16, 3), ``v6`` (4, 6),
#: ``buffer`` (at least rows and n long), and ``info`` (:data:`STATICS_INFO`,).
StaticsScratch = namedtuple("StaticsScratch", [
    "W", "F", "dW", "dF", "V", "P", "Q", "dP", "rates", "step", "Z", "mu", "Omega", "forces", "K", "reduced", "lu",
    "pivots", "du", "slope", "pair_values", "point_values", "zero_rates", "zero_links", "saved_q", "saved_rotations",
    "predicted", "v3", "v6", "buffer", "info",
])

#: What an equilibrium walk records at every position it reaches (row i for position i):
#: variables ``q`` (N, n), spherical ``rotations`` (N, m, 3, 3), link poses ``T`` (N, L, 4, 4),
#: the equilibrium path's tangent ``G`` (N, n, f) along the f fixed columns, the efforts the
#: fixed columns hold ``efforts`` (N, f), the reduced stiffness ``K`` (N, k, k) in the free
#: coordinates, ``info`` (N, STATICS_INFO) (load scale, force residual, ...), and the motions
#: per unit rate of each free coordinate, the fixed columns held (the transmission's free
#: columns, eq. 4): every variable's rate ``free_rates`` (N, k, n) and every link's twist
#: ``free_twists`` (N, k, L, 6) (global, origin-referenced).
EquilibriumRecord = namedtuple("EquilibriumRecord", ["q", "rotations", "T", "G", "efforts", "K", "info",
                                                     "free_rates", "free_twists"])

#: The statics' parameters (float64, :data:`STATICS_PARAMETERS`,): the force tolerance
#: (reduced forces over the load scale), the Newton iterations one equilibrium may take, the
#: largest predicted motion of one Newton step (rad, or sizes).
FORCE_TOLERANCE, SETTLE_ITERATIONS, SETTLE_STEP = range(3)
STATICS_PARAMETERS = 3

#: ``StaticsScratch.info``: the load scale (N m per unit motion: the loads' generalized forces
#: summed in magnitude), the largest reduced force in the free coordinates over it, the sum of
#: the Newton steps of the last equilibrium (dimensionless), 1 when the last equilibrium was
#: reached (0 otherwise), and 0 when its first step, taken with the factorization of the
#: stiffness it was given (a chord step), was refused (1 otherwise).
LOAD_SCALE, RESIDUAL, CORRECTED, SETTLED, CHORD_KEPT = range(5)
STATICS_INFO = 5
