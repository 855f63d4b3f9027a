"""Compiled kernels of the dynamics layer (DESIGN.md, "Compiled kernels").

* :mod:`.trace`: the trace form of Lagrange's equations (Pavlov eq. 7): mass matrix,
  velocity-product terms and gravity forces;
* :mod:`.kane`: the same by Kane's form (Newton-Euler), the independent cross-check;
* :mod:`.energy`: kinetic (eq. 7) and potential energy;
* :mod:`.motion`: the dynamics at one state: closing the loops at the driven values,
  transmission matrix, link Jacobians, bias accelerations, equations of motion;
* :mod:`.integrate`: embedded Runge-Kutta stepping (DOP853, RK45) with the loops closed at
  every stage.

Like :mod:`loops.kernels`, nothing here is imported when ``dynamics`` is.
"""
