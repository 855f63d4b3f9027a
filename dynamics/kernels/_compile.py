"""The decorators of the dynamics kernels: those of :mod:`loops.kernels._compile`, with this
package's directory registered for the care of the disk cache (its kernels call the
kinematics kernels, so its digest covers both packages' sources)."""

from __future__ import annotations

from loops.kernels.by_reference import pass_by_reference
from loops.kernels._compile import (allocating_inline_kernel, allocating_kernel, callback_kernel, inline_kernel,
                                    internal_kernel, kernel, register_kernel_package)

from .state import Compiled, DynamicScratch, Inertia, IntegratorScratch, Kinematics, State, Tableau

__all__ = ["kernel", "internal_kernel", "inline_kernel", "allocating_kernel", "allocating_inline_kernel",
           "callback_kernel"]

register_kernel_package(__file__)
pass_by_reference(Inertia, Kinematics, DynamicScratch, State, Compiled, Tableau, IntegratorScratch)
