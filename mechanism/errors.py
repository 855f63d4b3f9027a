"""Exceptions of kinematrix: a shallow hierarchy that carries the data of the failure.

Every message is one line and names what is wrong and where (pair, link, loop,
file/table/key, driver value). ``mechanism``, ``loops`` and ``dynamics`` all raise
these, so a caller can catch :class:`KinematrixError` for anything the package
reports about a model or a solve.
"""

from __future__ import annotations

from .limits import MAX_MESSAGE

__all__ = [
    "KinematrixError",
    "ModelError",
    "ClosureError",
    "SingularConfigurationError",
    "SweepStopped",
    "SimulationStopped",
    "SweepInterrupted",
    "SimulationInterrupted",
]


def one_line(text, length) -> str:
    """``text`` on one line, cut to ``length`` characters (a value quoted whole may be huge): the
    rule of every message here, for errors raised elsewhere (``loops.study.cluster``) too."""
    text = " ".join(str(text).splitlines())
    return text if len(text) <= length else text[:max(length - 4, 0)] + " ..."


class KinematrixError(Exception):
    """Base class of every error kinematrix raises on purpose."""


class ModelError(KinematrixError, ValueError):
    """A model (built in Python or read from a file) is malformed.

    Attributes
    ----------
    where : str
        Location of the mistake, for example ``"wishbone.toml: pairs[3].axis"``
        or ``"pair 'B'"``; the message starts with it.
    problem : str
        What is wrong. The message is one line of at most
        :data:`mechanism.limits.MAX_MESSAGE` characters (longer ones are cut).
    """

    def __init__(self, where: str, problem: str):
        self.where = one_line(where, MAX_MESSAGE // 2)
        self.problem = one_line(problem, MAX_MESSAGE - len(self.where) - 2)
        super().__init__(f"{self.where}: {self.problem}" if self.where else self.problem)


class ClosureError(KinematrixError, RuntimeError):
    """The loop-closure equations (Pavlov eq. 2) could not be satisfied.

    Attributes
    ----------
    loop : str or None
        Name of the loop with the largest residual (``"loop 1 (D: ground-rocker)"``).
    driver_values : dict
        Driver name -> value (SI, radians) at which the solve was attempted.
    residual : float
        Largest closure residual reached (m; rotations scaled by the model size).
    iterations : int
        Newton iterations spent.
    """

    def __init__(self, message: str, *, loop=None, driver_values=None,
                 residual=float("nan"), iterations=0):
        self.loop = loop
        self.driver_values = dict(driver_values or {})
        self.residual = residual
        self.iterations = iterations
        super().__init__(message)


class SingularConfigurationError(ClosureError):
    """The closure Jacobian lost rank in the driven coordinates (a dead point)."""


class SweepStopped(ClosureError):
    """A sweep could not go on.

    Attributes
    ----------
    partial : loops.results.SweepResult
        Result for every position reached (all of them closed).
    reason : str
        One sentence naming the driver value and the cause.
    """

    def __init__(self, reason: str, partial, **kwargs):
        self.reason = reason
        self.partial = partial
        super().__init__(reason, **kwargs)


class SimulationStopped(KinematrixError, RuntimeError):
    """A simulation stopped before ``t_end``.

    Attributes
    ----------
    partial : dynamics.simulate.SimulationResult
        The trajectory up to the stop (every stored sample closed).
    reason : str
        One sentence naming the time and the cause.
    """

    def __init__(self, reason: str, partial):
        self.reason = reason
        self.partial = partial
        super().__init__(reason)


class SweepInterrupted(SweepStopped, KeyboardInterrupt):
    """A sweep (or an inverse-dynamics run) interrupted by Ctrl-C (SIGINT).

    Both a :class:`SweepStopped`, with ``.partial`` holding every position reached (all
    closed) and ``.reason`` naming the last one, and a :class:`KeyboardInterrupt`, so that
    code that does not know kinematrix still stops as it would on Ctrl-C.
    """


class SimulationInterrupted(SimulationStopped, KeyboardInterrupt):
    """A simulation interrupted by Ctrl-C: ``.partial`` holds the accepted, closed samples so far."""
