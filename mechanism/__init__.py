"""kinematrix, the model layer: links, kinematic pairs, points, loads and model files.

Pavlov's matrix method for spatial linkages with closed loops. Build a model with
:class:`Mechanism` (or :func:`load_model` from a TOML file); analyse it with its
``check()``, ``sweep()`` and ``assemble()`` methods (package ``loops``) and with
``dynamics.simulate``.

The method's equations, as the code implements them, are in ``mechanism/METHOD.md``;
docstrings throughout the three packages cite them by number ("eq. 3", "Pavlov eq. (3)",
numbers (1)-(7)) and by its section titles ("Frames from points", "Dynamics (7)").
"""

from .errors import (
    ClosureError,
    KinematrixError,
    ModelError,
    SimulationInterrupted,
    SimulationStopped,
    SingularConfigurationError,
    SweepInterrupted,
    SweepStopped,
)
from .model import Mechanism
from .pairs import Cylindrical, Helical, Hooke, Prismatic, Revolute, Spherical
from .transforms import dh_transform

__all__ = [
    "Mechanism",
    "load_model",
    "save_model",
    "KinematrixError",
    "ModelError",
    "ClosureError",
    "SingularConfigurationError",
    "SweepStopped",
    "SimulationStopped",
    "SweepInterrupted",
    "SimulationInterrupted",
    "Revolute",
    "Prismatic",
    "Cylindrical",
    "Helical",
    "Hooke",
    "Spherical",
    "dh_transform",
]


def load_model(path):
    """Read a TOML model file (see DESIGN.md, "Model files"); returns a :class:`Mechanism`."""
    from .model_file import load_model as _load

    return _load(path)


def save_model(mechanism, path, units=None):
    """Write ``mechanism`` to a TOML model file atomically (``units``: e.g. ``("mm", "deg")``)."""
    from .model_file import save_model as _save

    return _save(mechanism, path, units=units)
