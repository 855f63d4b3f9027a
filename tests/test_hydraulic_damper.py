"""A hydraulic (quadratic) damper: force ``c v |v|`` along the line between two points
(``add_spring_damper(..., damping_law="quadratic")``, ``damping_law = "quadratic"`` in a file).

References: the closed-form fall of a mass against quadratic drag, ``v(t) = v_t tanh(g t / v_t)``,
``x(t) = v_t^2 / g ln cosh(g t / v_t)`` with the terminal speed ``v_t = sqrt(m g / c)``, and the
energy books (potential lost = kinetic + dissipated).
"""

import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

from dynamics import simulate
from loops import equilibrium
from mechanism import Mechanism, ModelError, load_model, save_model

MASS, G, C = 2.0, 9.81, 0.5  # kg, m/s^2, N s^2/m^2: v_t = 6.264 m/s


def falling_mass(law="quadratic", damping=C):
    """A mass on a vertical slide, a damper from a point 10 m above it to the mass."""
    m = Mechanism("falling mass")
    m.add_link("mass", mass=MASS, com=(0, 0, 0), inertia=np.eye(3) * 1e-3)
    m.add_pair("slide", "prismatic", "ground", "mass", at=(0, 0, 0), axis=(0, 0, 1))
    m.set_gravity((0, 0, -G))
    m.add_spring_damper("damper", "ground", (0, 0, 10.0), "mass", (0, 0, 0), stiffness=0.0,
                        damping=damping, damping_law=law)
    return m


def test_a_mass_falls_to_the_closed_form_terminal_speed():
    """The fall follows v_t tanh(g t / v_t) and reaches v_t = sqrt(m g / c)."""
    terminal = np.sqrt(MASS * G / C)
    t = np.linspace(0.0, 6.0, 61)
    sim = simulate(falling_mass(), t_end=6.0, q0={"slide": 0.0}, qd0={"slide": 0.0}, t_eval=t, rtol=1e-11)
    assert_allclose(-sim.q_dot("slide"), terminal * np.tanh(G * t / terminal), rtol=0, atol=1e-8)
    assert_allclose(-sim.q("slide"), terminal ** 2 / G * np.log(np.cosh(G * t / terminal)), rtol=0, atol=1e-8)
    assert abs(-sim.q_dot("slide")[-1] - terminal) < 1e-3 * terminal  # tanh(9.4) = 1 - 1.4e-8


def test_the_dissipated_energy_is_the_dampers_work():
    """Potential lost = kinetic + dissipated, and the dissipated energy is the integral of c |v|^3."""
    terminal = np.sqrt(MASS * G / C)
    t = np.linspace(0.0, 3.0, 301)
    sim = simulate(falling_mass(), t_end=3.0, q0={"slide": 0.0}, qd0={"slide": 0.0}, t_eval=t, rtol=1e-11)
    energy = sim.energy()
    drop = -sim.q("slide")
    assert_allclose(MASS * G * drop, energy.kinetic + energy.dissipated, rtol=0, atol=1e-7)
    # the damper's work by the closed form: integral of c v^3 dt, v = v_t tanh(g t / v_t)
    fine = np.linspace(0.0, 3.0, 30001)
    power = C * (terminal * np.tanh(G * fine / terminal)) ** 3
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(fine))])[::100]
    assert_allclose(energy.dissipated, work, rtol=0, atol=1e-5)
    assert energy.dissipated[-1] > 50.0


def test_the_linear_law_is_unchanged():
    """The default law stays c v: the terminal speed is m g / c."""
    sim = simulate(falling_mass("linear", 4.0), t_end=5.0, q0={"slide": 0.0}, qd0={"slide": 0.0},
                   t_eval=np.array([0.0, 5.0]), rtol=1e-11)
    terminal = MASS * G / 4.0
    assert_allclose(-sim.q_dot("slide")[-1], terminal * (1 - np.exp(-G / terminal * 5.0)), rtol=1e-9)


def test_the_statics_ignore_the_damper_at_rest():
    """At rest a quadratic damper carries nothing: the slide held at a value holds the weight."""
    eq = equilibrium(falling_mass(), drivers={"slide": np.array([0.0, -1.0])})
    assert_allclose(eq.force("slide"), [MASS * G, MASS * G], rtol=1e-12)


def test_a_bad_damping_law_is_a_located_error():
    m = falling_mass()
    with pytest.raises(ModelError) as caught:
        m.add_spring_damper("other", "ground", (0, 0, 1), "mass", (0, 0, 0), stiffness=0.0, damping=1.0,
                            damping_law="cubic")
    message = str(caught.value)
    assert message.startswith("spring-damper 'other': damping_law: ") and "\n" not in message
    assert "'linear', 'quadratic'" in message and "'cubic'" in message
    assert "other" not in {sd.name for sd in m.snapshot().spring_dampers}


MODEL = """
name = "drop"
[units]
length = "mm"
[gravity]
vector = [0, 0, -9810]
[[links]]
name = "mass"
mass = 2.0
inertia = [[1000, 0, 0], [0, 1000, 0], [0, 0, 1000]]
[[pairs]]
name = "slide"
type = "prismatic"
links = ["ground", "mass"]
at = [0, 0, 0]
axis = [0, 0, 1]
[[spring_dampers]]
name = "damper"
link_a = "ground"
at_a = [0, 0, 10000]
link_b = "mass"
at_b = [0, 0, 0]
stiffness = 0
damping = DAMPING
LAW
"""


def test_a_model_file_gives_the_damper_in_file_units(tmp_path):
    """``damping_law = "quadratic"``: damping in N s^2/mm^2 (1 N s^2/mm^2 = 1e6 N s^2/m^2); saving
    writes the law and the same number back."""
    path = tmp_path / "drop.toml"
    path.write_text(MODEL.replace("DAMPING", "5e-7").replace("LAW", 'damping_law = "quadratic"'))
    damper = load_model(path).snapshot().spring_dampers[0]
    assert damper.damping_law == "quadratic"
    assert_allclose(damper.damping, 0.5, rtol=1e-15)
    saved = tmp_path / "saved.toml"
    save_model(load_model(path), saved)
    text = saved.read_text()
    assert 'damping_law = "quadratic"' in text and re.search(r"damping = 5e-07\b", text), text
    again = load_model(saved).snapshot().spring_dampers[0]
    assert (again.damping, again.damping_law) == (damper.damping, damper.damping_law)
    # the linear law (the default) writes no law: old files stay byte for byte
    path.write_text(MODEL.replace("DAMPING", "0.004").replace("LAW", ""))
    save_model(load_model(path), saved)
    assert "damping_law" not in saved.read_text()
    assert_allclose(load_model(saved).snapshot().spring_dampers[0].damping, 4.0, rtol=1e-15)


@pytest.mark.parametrize("law", ['"cubic"', "2"])
def test_a_bad_law_in_a_file_is_one_located_line(tmp_path, law):
    path = tmp_path / "drop.toml"
    path.write_text(MODEL.replace("DAMPING", "5e-7").replace("LAW", f"damping_law = {law}"))
    with pytest.raises(ModelError) as caught:
        load_model(path)
    message = str(caught.value)
    assert "\n" not in message and "spring_dampers[0]" in message and "damping_law" in message, message
    assert "'linear', 'quadratic'" in message, message
