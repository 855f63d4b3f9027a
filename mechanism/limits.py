"""The limits of what a model may hold, in one place.

Each limit is the honest answer to a question the arithmetic cannot answer well: beyond it
the numbers overflow, lose their digits, or take longer to read than anyone would wait.
The builder (:class:`mechanism.Mechanism`), the model-file reader and the compiled system
(:mod:`loops.compiled`) check them, and each message states the limit it met. README.md
("Limits") lists them with the limits of sweeps and simulations.
"""

from __future__ import annotations

__all__ = ["MAX_FILE_BYTES", "MAX_NESTING", "MAX_LENGTH", "MAX_MAGNITUDE", "MAX_OFFSET_RATIO", "MIN_SIZE",
           "COINCIDENT_SIZE", "MAX_MESSAGE"]

#: Largest model file read, in bytes (16 MiB; reading one takes a few seconds).
MAX_FILE_BYTES = 16 * 2**20
#: Deepest nesting of arrays and inline tables in a model file (a 3x3 inertia is 2 deep,
#: a table of force vectors 3).
MAX_NESTING = 16
#: Largest length a model holds (coordinates, free lengths, pitches), m.
MAX_LENGTH = 1e6
#: Largest magnitude of any other number of a model (masses, inertias, stiffnesses,
#: dampings, forces, gravity, times of force tables, pair values), SI units.
MAX_MAGNITUDE = 1e12
#: Pair centres (at the reference assembly) lie within this many times the mechanism's
#: size of the origin; farther out the closure loses the digits it is solved to.
MAX_OFFSET_RATIO = 1e4
#: Smallest size of a mechanism whose pairs do not all meet at one point, m.
MIN_SIZE = 1e-6
#: Pair centres spread over less than this (m) meet at one point (a spherical wrist).
COINCIDENT_SIZE = 1e-9
#: Longest message of an error (characters); longer ones are cut.
MAX_MESSAGE = 400
