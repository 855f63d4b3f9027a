"""A design variant's free coordinates (loops.held.reused_freedoms): the statics of a study's
variants takes its null space through the first model's choice instead of the SVDs, and
chooses as held_freedoms does.

References: held_freedoms on the same system and configuration (the choice, column for
column); a compliance study of the shipped axle on bushings run with the reuse and with it
switched off (every number equal, to the bit); the fallbacks watched by a spy on
held_freedoms.
"""

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import loops.held as held
from core_models import four_bar
from loops import equilibrium
from loops.compiled import compile_model
from loops.configuration import evaluate
from loops.study.study import run_study
from loops.suspension import load_suspension
from mechanism.errors import ModelError

AXLE = Path(__file__).resolve().parents[1] / "examples" / "front_axle_bushings.toml"
NAMES = ["lower_inner_left.z", "upper_inner_left.axis.z", "lower_ball_left.z", "lower_front_left.kz",
         "steer_ball_left.y"]


@pytest.fixture(scope="module")
def axle():
    return load_suspension(AXLE)


@pytest.fixture()
def fresh_choices(monkeypatch):
    monkeypatch.setattr(held, "_CHOICES", {})
    calls = []
    original = held.held_freedoms

    def spy(*args, **options):
        calls.append("null_space" in options)
        return original(*args, **options)

    monkeypatch.setattr(held, "held_freedoms", spy)
    return calls


def compliant_system(axle, values=None):
    mechanism = axle.mechanism.moved(values or {})
    mechanism.use_bushings(True)
    system = compile_model(mechanism.snapshot())
    return system, evaluate(system, system.reference_q())


def driven(system):
    return system.driver_columns(["travel_left", "travel_right"])


def test_a_study_with_reused_choices_is_the_study_without_them_to_the_bit(axle, monkeypatch):
    travel = np.array([-0.03, 0.0, 0.03])
    offsets = np.random.default_rng(26).uniform(-0.02, 0.02, (6, len(NAMES)))
    offsets[:, 3] *= 1e7  # N/m
    runs = []
    for limit in (held.REUSE_VARIABLES, -1):  # -1: every variant by held_freedoms
        monkeypatch.setattr(held, "REUSE_VARIABLES", limit)
        monkeypatch.setattr(held, "_CHOICES", {})
        runs.append(run_study(axle, NAMES, offsets, analysis="compliance", travel=travel))
    assert runs[0].reasons == runs[1].reasons == {}
    for name in runs[1].metrics:
        assert_array_equal(runs[0].values(name), runs[1].values(name), err_msg=name)


def test_a_variant_chooses_what_held_freedoms_chooses_through_the_first_choice(axle, fresh_choices):
    system, config = compliant_system(axle)
    first = held.reused_freedoms(system, config, driven(system), ["hub_left", "hub_right"])
    assert fresh_choices == [False]
    for dz in (0.004, -0.03):
        moved, moved_config = compliant_system(axle, {"lower_ball_left": axle.mechanism.snapshot().pair(
            "lower_ball_left").at + [0.0, 0.0, dz]})
        found = held.reused_freedoms(moved, moved_config, driven(moved), ["hub_left", "hub_right"])
        assert_array_equal(found, held.held_freedoms(moved, moved_config, driven(moved), ["hub_left", "hub_right"]))
    assert fresh_choices[:3] == [False, True, False]  # the variants chose on the null space through the first
    assert len(first) == len(found)


def test_a_block_that_loses_its_conditioning_is_chosen_anew(axle, fresh_choices):
    system, config = compliant_system(axle)
    held.reused_freedoms(system, config, driven(system))
    ((key, (chosen, rcond)),) = held._CHOICES.items()
    held._CHOICES[key] = (chosen, 1e300)  # as if the first block were far better conditioned
    found = held.reused_freedoms(system, config, driven(system))
    assert fresh_choices == [False, False]
    assert_array_equal(found, chosen)


def test_a_singular_block_is_chosen_anew(axle, fresh_choices):
    """The first choice with one column swapped for one whose block is singular (the columns no
    longer fix the motion): the choice is made again."""
    system, config = compliant_system(axle)
    expected = held.reused_freedoms(system, config, driven(system))
    ((key, (chosen, rcond)),) = held._CHOICES.items()
    fixed = set(driven(system)) | set(chosen)
    for column in (c for c in range(system.n) if c not in fixed):
        bad = np.r_[chosen[:-1], column]
        if held._null_space_through(system, config, np.r_[driven(system), bad])[0] is None:
            break
    else:
        pytest.fail("no column makes the block singular")
    held._CHOICES[key] = (bad, rcond)
    assert_array_equal(held.reused_freedoms(system, config, driven(system)), expected)
    assert fresh_choices == [False, False]


def test_redundant_loop_rows_are_never_reused(fresh_choices):
    """A spatial four-bar of revolutes: six closure rows, three of them redundant, so no square
    block: every call chooses by held_freedoms, and nothing is kept."""
    mechanism = four_bar()
    system = compile_model(mechanism.snapshot())
    config = evaluate(system, system.reference_q())
    assert system.rows > system.n - 1
    for _ in range(2):
        assert_array_equal(held.reused_freedoms(system, config, []), held.held_freedoms(system, config, []))
    assert held._CHOICES == {}


def test_a_large_model_is_never_reused(axle, fresh_choices, monkeypatch):
    monkeypatch.setattr(held, "REUSE_VARIABLES", 10)
    system, config = compliant_system(axle)
    for _ in range(2):
        held.reused_freedoms(system, config, driven(system))
    assert fresh_choices == [False, False] and held._CHOICES == {}


def test_a_held_name_that_is_no_string_is_one_located_line(axle):
    mechanism = axle.mechanism.moved({})
    mechanism.use_bushings(True)
    with pytest.raises(ModelError) as caught:
        equilibrium(mechanism, hold=[["hub_left"]])
    assert "\n" not in str(caught.value)


def test_the_flat_values_answer_as_the_tree():
    """The greedy choice's flat values (up to FLAT_VALUES candidates) and its segment tree give the
    same largest value and the same first index at least a threshold, through batched updates."""
    rng = np.random.default_rng(5)
    for count in (1, 2, 7, 64, 300):
        values = rng.uniform(0, 1, count)
        flat, tree = held._FlatLeftmost(values), held._Leftmost(values)
        for _ in range(min(count, 40)):
            assert flat.largest() == tree.largest()
            threshold = held.NEAR_BEST * flat.largest()
            at = flat.first_at_least(threshold)
            assert at == tree.first_at_least(threshold)
            changed = rng.choice(count, size=min(count, 5), replace=False)
            new = rng.uniform(0, 1, len(changed))
            new[0] = -np.inf
            for table in (flat, tree):
                table.update(changed, new)
            if not np.isfinite(flat.largest()):
                break
