"""The record of a simulation: its samples as the integrator stores them, and the result a
simulation returns (:class:`SimulationResult`, a :class:`loops.results.Trajectory` in time)
with its energy bookkeeping (:class:`EnergyHistory`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from loops.results import Column, Trajectory
from mechanism.errors import ModelError

from .kernels.state import Samples

__all__ = ["Samples", "new_samples", "grown_samples", "EnergyHistory", "SimulationResult"]



def new_samples(system, capacity) -> Samples:
    """An empty sample buffer of ``capacity`` rows for ``system``'s variables, links and spherical pairs."""
    n, links, m = system.n, system.topology.links, len(system.spherical_pairs)
    return Samples(np.zeros(capacity), np.zeros((capacity, n)), np.zeros((capacity, m, 3, 3)),
                   np.zeros((capacity, n)), np.zeros((capacity, n)), np.zeros((capacity, links, 4, 4)),
                   np.zeros((capacity, links, 6)), np.zeros((capacity, links, 6)), np.zeros((capacity, 3)),
                   np.zeros((capacity, n)))


def grown_samples(samples, capacity) -> Samples:
    """``samples`` copied into a buffer of ``capacity`` rows (the rows beyond them zero)."""
    out = []
    for a in samples:
        b = np.zeros((capacity,) + a.shape[1:])
        b[:len(a)] = a
        out.append(b)
    return Samples(*out)


@dataclass
class EnergyHistory:
    """Energy bookkeeping at the stored times (J, each (N,)).

    ``total = kinetic + potential`` (gravity, pair springs, point-to-point springs);
    ``dissipated`` by the dampers since t = 0; ``external_work`` of the pair and point
    forces; ``driver_work`` of the prescribed drivers. ``balance = total + dissipated -
    external_work - driver_work`` stays at its initial value (to the integration
    tolerance). Unpacks as ``kinetic, potential, total``.
    """

    kinetic: np.ndarray
    potential: np.ndarray
    dissipated: np.ndarray
    external_work: np.ndarray
    driver_work: np.ndarray

    @property
    def total(self):
        return self.kinetic + self.potential

    @property
    def balance(self):
        return self.total + self.dissipated - self.external_work - self.driver_work

    def __iter__(self):
        return iter((self.kinetic, self.potential, self.total))


class SimulationResult(Trajectory):
    """A simulated motion at the stored times (a :class:`loops.results.Trajectory`).

    Attributes
    ----------
    t : (N,) s
    coordinates : list of str, the independent coordinates at the start
    prescribed : list of str, the prescribed coordinates
    switches : list of (t, old coordinates, new coordinates), partition switches
    stop_reason : str or None
    evaluations : int, right-hand side evaluations; steps : int, accepted steps
    """

    def __init__(self, dyn, samples, count, coordinates, prescribed, switches, stop_reason, evaluations, steps):
        k = slice(0, count)
        super().__init__(dyn.system, list(coordinates) + list(prescribed), samples.q[k].copy(),
                         samples.q_dot[k].copy(), samples.q_ddot[k].copy(), samples.T[k].copy(), samples.V[k].copy(),
                         samples.A[k].copy(), stop_reason=stop_reason, rotations=samples.rotations[k].copy())
        self._dyn = dyn
        self.t = samples.t[k].copy()
        self._work = samples.work[k].copy()
        self._drive = samples.drive[k].copy()
        self.coordinates = list(coordinates)
        self.prescribed = list(prescribed)
        self.switches = list(switches)
        self.evaluations = evaluations
        self.steps = steps

    def _describe(self):
        end = f"{self.t[-1]:.6g}" if len(self.t) else "-"
        return f"{len(self)} samples of {self.model.name!r} to t = {end} s"

    def _repr_html_(self):
        """In a notebook: a summary and the simulation's interactive page (:mod:`dynamics.views`)."""
        from .views import simulation_html  # noqa: PLC0415

        return simulation_html(self)

    def driver_force(self, name):
        """Generalized force (N m or N) a prescribed driver applies to keep its motion, (N,)."""
        if name not in self.prescribed:
            raise ModelError(f"driver {name!r}", f"not a prescribed coordinate ({', '.join(self.prescribed) or 'none'})")
        return self._drive[:, self._dyn.system.variable_index[name]].copy()

    def energy(self) -> EnergyHistory:
        """Kinetic, potential, dissipated energy and work of the loads at the stored times."""
        kinetic, potential = self._dyn.energies(self._poses, self._velocities, self._q)
        return EnergyHistory(kinetic, potential, self._work[:, 0].copy(), self._work[:, 1].copy(),
                             self._work[:, 2].copy())

    def reactions(self):
        """Force and moment transmitted by each pair at the stored times (:class:`PairReactions`)."""
        from .inverse_dynamics import pair_reactions  # noqa: PLC0415

        return pair_reactions(self._dyn, self._q, self._q_dot, self._accelerations, self.t,
                              self._drive, velocities=self._velocities)

    def columns(self, points=None):
        """CSV columns: ``t``, then the trajectory's columns (variables, points, rates)."""
        return [Column("t", self.t, "time", 0)] + super().columns(points)
