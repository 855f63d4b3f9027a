"""DESIGN.md's public-API example, verbatim: the contract outside checks drive the project by.

The block below is copied from DESIGN.md ("Public API"); if it stops running, the contract is
broken. The assertions pin what it promises: the mobility numbers of a planar four-bar, the
shapes and meanings of the results, the dynamics entry points.
"""

import numpy as np
from numpy.testing import assert_allclose

DESIGN_EXAMPLE = """
import numpy as np
from mechanism import Mechanism, load_model
from dynamics import simulate

m = Mechanism("four-bar")                      # a link named "ground" exists
m.add_link("crank", mass=1.0, com=(0.5, 0, 0), inertia=np.diag([0, 0.083, 0.083]))
m.add_link("coupler"); m.add_link("rocker")
m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
m.add_pair("B", "revolute", "crank", "coupler", at=(1, 0, 0), axis=(0, 0, 1))
m.add_pair("C", "revolute", "coupler", "rocker", at=(3, 2, 0), axis=(0, 0, 1))
m.add_pair("D", "revolute", "rocker", "ground", at=(4, 0, 0), axis=(0, 0, 1))
m.add_point("P", "coupler", at=(2, 1, 0))
m.set_gravity((0, -9.81, 0))
m.add_pair_spring("D", stiffness=5.0, free_value=0.0, damping=0.1)   # torsion (or linear) spring-damper in a pair
m.add_pair_force("A", lambda t: 0.5)                                # generalized force in a pair: a number or f(t)
m.add_spring_damper("strut", "coupler", (2, 1, 0), "ground", (2, 3, 0),
                    stiffness=100.0, free_length=1.9, damping=2.0)  # point to point, global design-pose points
m.add_point_force("push", "rocker", at=(4, 1, 0), force=lambda t: (0.0, -1.0, 0.0))  # global force vector

info = m.check()                  # MobilityReport, printable; see below
res = m.sweep({"A": np.linspace(0, 2 * np.pi, 361)}, speeds={"A": 1.0}, accelerations={"A": 0.0})
res.q("C")                        # (N,) angle of pair C, radians, relative to the design pose
res.q_dot("C"), res.q_ddot("C")   # with driver speeds (and accelerations, default 0)
res.point("P")                    # (N, 3) global coordinates
res.point_velocity("P"), res.point_acceleration("P")
res.pose("coupler")               # (N, 4, 4) absolute transforms
res.to_csv("four_bar.csv")

sim = simulate(m, t_end=2.0, q0={"A": 0.0}, qd0={"A": 0.0},   # keys of q0: the independent
               t_eval=np.linspace(0, 2, 201), rtol=1e-8)       # coordinates (as many as check().dof)
sim.t, sim.q("A"), sim.q_dot("C"), sim.point("P")
sim.energy().kinetic, sim.energy().potential, sim.energy().total

from dynamics import equations_of_motion
eom = equations_of_motion(m, q={"A": 0.3}, qd={"A": 1.0}, method="lagrange")  # or "kane"
eom.coordinates, eom.mass_matrix, eom.forces   # M(u) u'' = f(u, u', t) in the independent coordinates
"""


def test_design_public_api_example_runs_as_written(tmp_path, monkeypatch):
    """Every line of the contract runs; its numbers mean what DESIGN.md says."""
    monkeypatch.chdir(tmp_path)
    ns = {}
    exec(compile(DESIGN_EXAMPLE, "DESIGN.md", "exec"), ns)
    info, res, sim, eom = ns["info"], ns["res"], ns["sim"], ns["eom"]
    assert (info.grubler, info.dof, info.passive, info.redundant) == (-2, 1, 0, 3)
    assert [list(loop) for loop in info.loops] and len(info.loops) == 1
    assert res.q("C").shape == (361,) and res.point("P").shape == (361, 3)
    assert res.pose("coupler").shape == (361, 4, 4)
    assert_allclose(res.pose("coupler")[0], np.eye(4), rtol=0, atol=1e-12)  # design pose
    assert_allclose(res.q_dot("A"), 1.0, rtol=0, atol=0)
    assert (tmp_path / "four_bar.csv").exists()
    assert sim.t.shape == (201,) and np.isfinite(sim.q("A")).all()
    energy = sim.energy()
    assert_allclose(energy.total, energy.kinetic + energy.potential, rtol=1e-12, atol=1e-12)
    assert eom.coordinates == ["A"] and eom.mass_matrix.shape == (1, 1) and eom.forces.shape == (1,)
    assert eom.mass_matrix[0, 0] > 0
