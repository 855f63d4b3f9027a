"""Compiled kernels of the kinematics layer (DESIGN.md, "Compiled kernels").

One module per equation of the method, over the frozen arrays of
:class:`loops.compiled.CompiledSystem`:

* :mod:`.rotations`, :mod:`.rigid`: SO(3) exponential and logarithm, its left Jacobian,
  rigid 4x4 products and twists (the layout of :mod:`mechanism.transforms`);
* :mod:`.pairs`: pair matrices ``A(q)``, unit twists ``S(q)`` and their rates, per pair
  family (METHOD.md, table and "Q operators");
* :mod:`.closure`: link poses along the tree (eq. 5), loop closure defects (eq. 2), the
  linearized closure ``B`` (eq. 3) and the gauges of idle spins;
* :mod:`.linear`: banded LU with partial pivoting, condition estimates;
* :mod:`.velocity`, :mod:`.acceleration`: eq. 4 and its derivative;
* :mod:`.newton`, :mod:`.continuation`: the corrector and the walk;
* :mod:`.points`: points on links (eqs. 5, 6).

Nothing here is imported by ``import loops``: the Python layer imports a kernel module
inside the function that first needs it, so numba is imported (and, on the first run on
a machine, the kernels compiled) only when a computation starts.
"""
