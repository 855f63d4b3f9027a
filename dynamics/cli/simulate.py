"""``kinematrix simulate MODEL.toml --t-end 2 [--q0 A=10] [--qd0 A=0] [--samples 201] [--out sim.csv]
[--plot sim.png]``: the dynamic response (:func:`dynamics.simulate`) in the model file's units.

A simulation that stops writes the samples it reached and exits 1; Ctrl-C writes them and
exits 130 (:func:`loops.cli.outputs.finish`).
"""

import math

from loops.cli.arguments import INTERRUPTED, STOPPED, UserError, assignment, number, quantity_of, \
    variable_quantities
from loops.cli.outputs import check_distinct, check_image, check_standard_output, finish, plot_call

NAME = "simulate"
HELP = "dynamic response"
#: The longest simulation (s) whose kernels run as plain Python on a cold cache
#: (:mod:`dynamics.cli.kernel_mode`): the four-bar's 5 s cost about 5 s of processor time
#: so, against more than a minute of compiling the integrator.
SMALL_JOB_SECONDS = 5.0
#: A simulation runs the dynamics kernels too: their cache decides with the kinematics'.
USES_DYNAMICS_KERNELS = True


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL")
    parser.add_argument("--t-end", type=float, required=True, metavar="T", help="end time, s")
    parser.add_argument("--q0", action="append", default=[], metavar="NAME=V",
                        help="initial value of an independent coordinate, file units")
    parser.add_argument("--qd0", action="append", default=[], metavar="NAME=V",
                        help="initial rate of an independent coordinate, file units per second")
    parser.add_argument("--samples", type=int, metavar="N", help="number of stored times (default: the solver's)")
    parser.add_argument("--out", metavar="FILE.csv")
    parser.add_argument("--plot", metavar="FILE.png", help="the coordinates against time (FILE.html: an interactive "
                        "page, the mechanism moving in 3-D beside its curves)")


def initial_state(args, units, quantities):
    """``{"--q0": {name: value}, "--qd0": {name: rate}}`` in SI from the options."""
    initial = {}
    for option, given in (("--q0", args.q0), ("--qd0", args.qd0)):
        initial[option] = {}
        for text in given:
            name, value = assignment(text, option)
            quantity = quantity_of(quantities, name, option)
            initial[option][name] = units.to_si(number(value, f"{option} {name}"), quantity)
    if initial["--qd0"] and not initial["--q0"]:  # the keys of q0 are the independent coordinates
        name = next(iter(initial["--qd0"]))
        raise UserError(f"--qd0 {name}: give its initial value too (--q0 {name}=VALUE): the rates are of the "
                        "independent coordinates that --q0 names")
    return initial


def sample_times(args, mechanism):
    """``{"t_eval": times}`` for ``--samples N`` (N times from 0 to ``--t-end``), else ``{}``."""
    if args.samples is None:
        return {}
    if args.samples < 2:
        raise UserError(f"--samples: need at least 2, got {args.samples}")
    import numpy as np

    from loops.compiled import compile_model
    from dynamics.run import check_sample_count

    check_sample_count(compile_model(mechanism.snapshot()), args.samples, "--samples")
    return {"t_eval": np.linspace(0.0, args.t_end, args.samples)}


def small_job(args) -> bool:
    """True for a simulation of at most :data:`SMALL_JOB_SECONDS`."""
    return 0.0 < args.t_end <= SMALL_JOB_SECONDS


def run(args) -> int:
    from mechanism.errors import SimulationInterrupted, SimulationStopped
    from mechanism.model_file import read_model

    check_distinct([("MODEL", args.model)], [("--out", args.out), ("--plot", args.plot)])
    check_standard_output(args.out)
    loaded = read_model(args.model, assemble=False)  # the options first: assembling loads the engine
    units = loaded.units
    quantities = variable_quantities(loaded.mechanism.snapshot())
    if not (math.isfinite(args.t_end) and args.t_end > 0):
        raise UserError(f"--t-end: must be positive, got {args.t_end!r}")
    initial = initial_state(args, units, quantities)
    check_image(args.plot, "--plot")
    mechanism = loaded.assembled()
    options = sample_times(args, mechanism)
    try:
        from dynamics import simulate  # after the user's mistakes: it loads scipy.linalg (0.1 s)
    except ImportError:
        raise UserError("simulate is not available yet (dynamics.simulate is not part of this "
                        "installation)") from None

    status, note = 0, None
    try:
        result = simulate(mechanism, t_end=args.t_end, q0=initial["--q0"], qd0=initial["--qd0"], **options)
    except SimulationInterrupted as stop:
        result, status, note = stop.partial, INTERRUPTED, stop.reason
    except SimulationStopped as stop:
        result, status, note = stop.partial, STOPPED, f"simulation stopped: {stop.reason}"

    def pictures():
        if not args.plot:
            return
        from dynamics.views import simulation_view
        from loops import plotting

        wanted = list(initial["--q0"]) or result.variable_names
        curves = {name: units.from_si(result.q(name), quantities[name]) for name in wanted}
        plot_call(plotting.plot_curves, result.t, curves, path=args.plot, page=lambda: simulation_view(result),
                  x_label="t [s]", y_label=", ".join(f"{n} [{units.label(quantities[n])}]" for n in curves))

    return finish(args, result, "samples", status, note, units, pictures)
