"""Independent references for the kinematics tests: closed forms from the literature.

Everything here is plain numpy (no import from kinematrix), so a defect in the library
cannot leak into the reference it is checked against. Each function's docstring names
its source and, where the formula was derived here, shows the derivation.
"""
