"""The one registry of the workbench's analyses: what each is called, what it takes, what
runs it, what its sheet shows, and what of the rest of the house it supports.

:data:`ANALYSES` maps each analysis's command-line name to an :class:`Analysis`: its title
(``SuspensionResult.analysis``), its function (in :mod:`.standard` or :mod:`.body_motion`,
imported on first call, so that the command line's parser reads this module without numpy),
its inputs (:class:`Input`: the function's keyword, the command-line option, the quantity
and how a study gives it), the panels of its sheet, and whether design studies, design
sensitivities and the optimiser run it. The command line (``kinematrix suspension`` and
``study``), :mod:`loops.study.study`, :mod:`loops.study.sensitivity`,
:mod:`loops.study.optimise`, :mod:`loops.suspension.sheets` and :mod:`loops.study.sheets`
read it; nothing else lists analyses.

Adding an analysis
------------------
Two files. (1) Its function, in the module of its kind (:mod:`.standard` for sweeps of wheel
travel and steering, :mod:`.body_motion` for motions of the body): ``name(suspension,
<inputs as keywords>, *, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE)`` (:data:`loops.continuation.DEFAULT_TOLERANCE`), returning
``suspension.finish(record, title, travel_at, input_columns, metric_columns, stop)`` (a
:class:`~loops.suspension.model.SuspensionResult`; the input columns first, the analysis's
inputs). (2) Its :class:`Analysis` entry below: name, title, ``"module:function"``, a
description for ``--analysis``'s help, its :class:`Input` entries (a new option is added to
both commands from here; a range of values ``START:STOP:STEP`` in the model file's units of
its quantity, or a second model file, quantity ``"model"``), the sheet's panels (column
names, or per-wheel metrics drawn left and right), and ``study``, ``sensitivities``,
``optimise`` False where those do not take it (the registry says so, and they refuse it by
name). The command line's ``--analysis`` and its options, a study's plan, the sheets follow.

Adding a metric
---------------
Two files: its function and its entry in the catalogue, :mod:`loops.suspension.metrics`
(see "Adding a metric" there): its CSV column, its sheet axis and its sensitivities follow.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace

__all__ = ["Analysis", "Input", "ANALYSES", "analysis", "titled", "STEERING", "ROAD", "BUSHING_RATES"]

#: ``Analysis.sensitivities`` of an analysis whose metrics are taken on the moving road (the
#: roll): its sensitivities follow the road, the axis and the travels (METHOD.md (R1)-(R8)).
ROAD = "road"
#: ``Analysis.sensitivities`` of an analysis whose sensitivities are to the bushings' rates and to
#: hardpoints by the equilibrium's own route (the compliance's: METHOD.md (C4)-(C7),
#: :mod:`loops.study.sensitivity.bushing_rates`), not the linearised closure's.
BUSHING_RATES = "bushing-rates"
#: The ``one_of`` group of the two steering inputs: the rack's travel or the steering wheel's
#: angle, exactly one of them.
STEERING = "steering"


@dataclass(frozen=True)
class Input:
    """One input of an analysis.

    Attributes
    ----------
    name : the analysis function's keyword (``travel``, ``rack``, ``roll_angle``)
    option : its command-line option (``--travel``)
    quantity : ``"length"``, ``"angle"``, ``"dimensionless"`` (a fraction), ``"steering"`` (the
        steering variable's, a length for a rack), ``"model"`` (a second model file: its
        Suspension) or ``"text"`` (a word or text passed as given: a load case)
    what : what it is, for messages (``"the wheel travel values"``)
    help : the option's help text (the first analysis that declares an option gives it)
    required : the analysis needs it (else ``default``)
    single : one value, not one per position (a steering analysis's fixed wheel travel)
    default : the value when not given (a single input's)
    several : with ``single``, the analysis that takes several (``"combined"``)
    one_of : a group of inputs of which exactly one is given (:data:`STEERING`)
    tiled : a study repeats its values for every variant (False: the analysis itself
        repeats them, as combined repeats the rack input for every travel level)
    plan : the :class:`~loops.study.study.Plan` field a study takes it from (None: studies
        do not take it)
    """

    name: str
    option: str
    quantity: str
    what: str
    help: str = ""
    required: bool = True
    single: bool = False
    default: float | None = None
    several: str | None = None
    one_of: str | None = None
    tiled: bool = True
    plan: str | None = None


@dataclass(frozen=True)
class Analysis:
    """One analysis of the registry (see the module docstring).

    Attributes
    ----------
    name : the command-line name (``--analysis parallel``)
    title : ``SuspensionResult.analysis`` (``"parallel travel"``)
    function : ``"module:function"`` in :mod:`loops.suspension` (:meth:`run` calls it)
    description : for ``--analysis``'s help
    inputs : tuple of :class:`Input`
    panels : the sheet's metric panels in order (those a result lacks are skipped)
    axle : it runs on an axle (a corner is mirrored into one; a study needs an axle file)
    study, sensitivities, optimise : whether design studies, design sensitivities and the
        optimiser take it (``sensitivities``: True for an analysis in the body frame, whose
        chain rules are the metrics' own; :data:`ROAD` for one on the moving road;
        :data:`BUSHING_RATES` for one differentiated with respect to bushing rates, and to
        hardpoints by (C7))
    levels : the input column whose values are levels drawn as separate curves on the sheet
        (combined: ``wheel_travel``), or None
    own_metrics : the per-wheel metrics only it has, besides the catalogue's
        :data:`~loops.suspension.metrics.METRICS` (roll: ``roll_camber``, ``roll_steer``)
    notes : ``{option: why}`` said when an option of another analysis is given to this one
    catalogue : its columns are the catalogue's metrics (False: a table of its own, as the load
        case's forces, :mod:`.hardpoint_loads`, and its own sheet)
    bushings : it runs on a model with bushings only (their compliant variant: the compliance
        analyses, :mod:`.compliance`); others are refused, saying how to add them. A design study
        of it runs its variants one by one (each an equilibrium of its own; the variants' batched
        walk is kinematic), and it alone takes bushing rates among a study's parameters
    compiles_first : the command line compiles its kernels on a cold cache whatever the job's
        size (the load and compliance analyses: as plain Python an equilibrium or an inverse
        dynamics costs about 0.2 s a position); a kinematic analysis's small job runs them as
        plain Python instead (:mod:`dynamics.cli.kernel_mode`)
    """

    name: str
    title: str
    function: str
    description: str
    inputs: tuple
    panels: tuple
    axle: bool = False
    study: bool = True
    sensitivities: bool | str = True
    optimise: bool = False
    levels: str | None = None
    own_metrics: tuple = ()
    notes: dict = field(default_factory=dict)
    catalogue: bool = True
    bushings: bool = False
    compiles_first: bool = False

    def run(self, suspension, **inputs):
        """The analysis of ``suspension`` with ``inputs`` (SI; ``travel_at``, ``tolerance``)."""
        module, _, name = self.function.partition(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(suspension, **inputs)

    def input(self, name) -> Input | None:
        return next((i for i in self.inputs if i.name == name), None)


_TRAVEL = Input("travel", "--travel", "length", "the wheel travel values", plan="travel",
                help="wheel travel in the file's length unit (+ bump); for steering one value, for combined the levels")
_RACK = Input("rack", "--rack", "steering", "the values of the steering variable", one_of=STEERING, plan="rack",
              help="steering variable (rack travel) in the file's units")
_STEERING_WHEEL = Input("steering_wheel", "--steering-wheel", "angle", "the steering-wheel angles", one_of=STEERING,
                        help="steering-wheel angle in the file's angle unit ([vehicle] rack_travel_per_turn)")

#: Every analysis, by its command-line name, in the order the command line lists them.
ANALYSES = {a.name: a for a in (
    Analysis("parallel", "parallel travel", "standard:parallel_travel", "parallel wheel travel", (_TRAVEL,),
             ("camber", "toe", "camber_gain", "bump_steer", "castor", "kingpin_inclination", "scrub_radius",
              "track_change", "roll_centre_height", "motion_ratio", "wheel_rate", "anti_dive", "anti_squat",
              "castor_trail", "wheel_recession", "fvsa_length"), optimise=True),
    Analysis("opposite", "opposite travel", "standard:opposite_travel", "opposite wheel travel (left +, right -)",
             (_TRAVEL,), ("camber", "toe", "roll_centre_height", "roll_centre_lateral", "track", "track_change",
                          "camber_gain", "bump_steer", "castor", "kingpin_inclination", "scrub_radius",
                          "motion_ratio"), axle=True),
    Analysis("roll", "roll", "body_motion:roll", "body roll about the static roll centre",
             (Input("roll_angle", "--roll", "angle", "the roll angles", plan="roll",
                    help="roll angle in the file's angle unit (+ right side down)"),),
             ("camber", "steer_angle", "roll_camber", "roll_steer", "roll_centre_height", "roll_centre_lateral",
              "wheel_travel", "track", "toe", "camber_front_view", "half_track", "motion_ratio"), axle=True,
             sensitivities=ROAD, optimise=True, own_metrics=("roll_camber", "roll_steer"), notes={"--travel": "the wheel travels follow the roll angle, --roll"}),
    Analysis("steering", "steering", "standard:steering", "steering",
             (_RACK, _STEERING_WHEEL,
              Input("travel", "--travel", "length", "the wheel travel", required=False, single=True, default=0.0,
                    several="combined", plan="steer_travel")),
             ("steer_angle", "ackermann_percent", "ackermann_error", "steering_ratio", "steer_rate", "camber",
              "camber_front_view", "castor", "kingpin_inclination", "scrub_radius", "castor_trail", "toe"),
             optimise=True),
    Analysis("combined", "combined travel and steering", "standard:combined", "steering at several travels",
             (_TRAVEL, replace(_RACK, tiled=False), _STEERING_WHEEL),
             ("steer_angle", "toe", "camber", "camber_front_view", "ackermann_percent", "steering_ratio", "castor",
              "kingpin_inclination", "scrub_radius", "castor_trail", "steer_rate", "bump_steer"),
             levels="wheel_travel"),
    Analysis("pitch", "pitch", "body_motion:pitch",
             "body pitch of a two-axle vehicle about its pitch centre (--rear: the rear axle's file)",
             (Input("pitch_angle", "--pitch", "angle", "the pitch angles",
                    help="pitch angle in the file's angle unit (+ nose down)"),
              Input("rear", "--rear", "model", "the rear axle",
                    help="pitch: the rear axle's (or corner's) model file, [vehicle] wheelbase behind")),
             ("wheel_travel_front", "wheel_travel_rear", "anti_dive_front", "anti_lift_front", "anti_lift_rear",
              "anti_squat_rear"), study=False, sensitivities=False),
    Analysis("loads", "load case", "hardpoint_loads:load_case",
             "hardpoint loads of a load case (--case) over wheel travel (--held-by driver) or where the spring "
             "holds it (--held-by spring)",
             (Input("case", "--case", "text", "the load case",
                    help="load case: static, braking, acceleration, cornering, bump, pothole, combined, or an own "
                    "'vertical=1, lateral=-0.5, longitudinal=0, at=contact-patch, unit=g' (unit g of the corner's "
                    "static load, [vehicle] mass and front_weight, or N; mx, my, mz in N m)"),
              replace(_TRAVEL, required=False, plan=None),
              Input("held_by", "--held-by", "text", "what holds the wheel", required=False,
                    help="loads: what holds the wheel, 'driver' (the travel drivers at --travel, default) or "
                    "'spring' (the travel where the spring carries the load)"),
              Input("scale", "--scale", "dimensionless", "the fractions of the case", required=False,
                    help="loads held by the spring: the fractions of the case applied in turn, START:STOP:STEP "
                    "(default 1: the whole case)")),
             (), study=False, sensitivities=False, catalogue=False, compiles_first=True),
    Analysis("compliance", "compliance", "compliance:compliance",
             "compliance steer and camber (per kN, per 100 N m), wheel-centre and patch stiffness over wheel travel, "
             "exact from the linearised equilibrium of the model's bushings (--case: about a loaded state)",
             (_TRAVEL, Input("case", "--case", "text", "the load case", required=False)),
             ("compliance_steer_lateral_patch", "compliance_camber_lateral_patch", "compliance_steer_lateral_centre",
              "compliance_camber_lateral_centre", "compliance_steer_longitudinal_patch",
              "compliance_camber_longitudinal_patch", "compliance_steer_longitudinal_centre",
              "compliance_camber_longitudinal_centre", "compliance_steer_aligning", "compliance_camber_aligning",
              "lateral_stiffness_patch", "longitudinal_stiffness_patch"),
             sensitivities=BUSHING_RATES, optimise=True, catalogue=False, bushings=True, compiles_first=True),
    Analysis("kc", "K&C curves", "compliance:kc_curves",
             "K&C curves: toe and camber over wheel travel under the constant load --case (the bushings' compliant "
             "variant) beside the rigid curve",
             (replace(_TRAVEL, plan=None), Input("case", "--case", "text", "the load case")),
             ("toe", "camber", "toe_change", "camber_change"), study=False, sensitivities=False, catalogue=False,
             bushings=True, compiles_first=True),
)}


def analysis(name, where="analysis") -> Analysis:
    """The registry's :class:`Analysis` ``name``; ModelError at ``where`` for any other."""
    if name not in ANALYSES:
        from mechanism.errors import ModelError  # noqa: PLC0415 (this module imports nothing heavy)

        raise ModelError(where, f"expected one of {', '.join(ANALYSES)}, got {name!r}")
    return ANALYSES[name]


def titled(title) -> Analysis | None:
    """The :class:`Analysis` whose results carry ``title`` (``SuspensionResult.analysis``)."""
    return next((a for a in ANALYSES.values() if a.title == title), None)
