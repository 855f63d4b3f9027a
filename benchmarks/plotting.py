"""Pictures: the processor time of the commands that draw them, against another checkout.

Cases (the commands the README and the test suite run, each a fresh process, as a user runs it):

* ``kinematrix plot`` of a sweep's CSV (one curve, a PNG);
* ``kinematrix suspension ... --plot sheet.png``: the front axle's parallel-travel sheet and
  its roll sheet (12 metric panels, front and side views);
* ``kinematrix simulate ... --plot``: the four-bar's simulated trajectory;
* example scripts: ``python examples/double_wishbone.py`` (one PNG) and
  ``python examples/four_bar.py --gif`` (a PNG and a 34-frame GIF).

For each it prints the median over ``--repeats`` runs of the command's processor time (user
and system, of the child process: the machines are shared, wall times are inflated by the
other work), and with ``--compare-with DIR`` the same commands run with the packages and
example scripts of the checkout DIR (``PYTHONPATH=DIR``), the two alternating run by run, and
the ratio (theirs / ours). Run with the checkouts' kernels compiled (a warm cache): the first
run of a cold checkout compiles them.

Run: ``python benchmarks/plotting.py [--repeats 5] [--compare-with /work/base-3b6f]``
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: The command line's entry point, run from a checkout by ``PYTHONPATH`` (``kinematrix``).
ENTRY = "import sys; from dynamics.cli import main; sys.exit(main())"


def cases(checkout):
    """``[(label, argv)]`` of the commands timed, with the example files of ``checkout``."""
    examples = pathlib.Path(checkout) / "examples"
    kinematrix = [sys.executable, "-c", ENTRY]
    axle = str(examples / "front_axle.toml")
    return [
        ("plot of a CSV (one curve)", [*kinematrix, "plot", "sweep.csv", "--x", "A", "--y", "C", "--out", "plot.png"]),
        ("suspension parallel sheet", [*kinematrix, "suspension", axle, "--analysis", "parallel", "--travel",
                                       "-80:80:5", "--out", "metrics.csv", "--plot", "sheet.png"]),
        ("suspension roll sheet", [*kinematrix, "suspension", axle, "--analysis", "roll", "--roll", "-3:3:0.25",
                                   "--out", "roll.csv", "--plot", "roll.png"]),
        ("simulate --plot (four-bar)", [*kinematrix, "simulate", str(examples / "four_bar.toml"), "--t-end", "0.5",
                                        "--q0", "A=10", "--qd0", "A=90", "--out", "sim.csv", "--plot", "sim.png"]),
        ("examples/double_wishbone.py", [sys.executable, str(examples / "double_wishbone.py"), "--out", "dw"]),
        ("examples/four_bar.py --gif", [sys.executable, str(examples / "four_bar.py"), "--out", "fb", "--gif"]),
    ]


def child_cpu(argv, checkout, folder):
    """Processor time (s, user + system) of running ``argv`` in ``folder`` with the packages of
    ``checkout`` first on the path; a failing command stops the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ, PYTHONPATH=str(checkout), MPLBACKEND="Agg")
    done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} (with {checkout}) exited {done.returncode}:\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each command (median reported)")
    parser.add_argument("--compare-with", type=pathlib.Path, help="another checkout to time in the same run")
    args = parser.parse_args(argv)
    checkouts = {"ours": ROOT} | ({"theirs": args.compare_with.resolve()} if args.compare_with else {})
    times = {name: {} for name in checkouts}
    with tempfile.TemporaryDirectory() as folder:
        child_cpu([sys.executable, "-c", ENTRY, "sweep", str(ROOT / "examples" / "four_bar.toml"), "--drive",
                   "A=0:360:5", "--speed", "A=1", "--out", "sweep.csv"], ROOT, folder)
        for name, checkout in checkouts.items():  # a first run of each: caches, page cache
            for label, command in cases(checkout):
                child_cpu(command, checkout, folder)
        for _ in range(args.repeats):
            for name, checkout in checkouts.items():  # alternating, run by run
                for label, command in cases(checkout):
                    times[name].setdefault(label, []).append(child_cpu(command, checkout, folder))
    header = f"{'command (CPU s, median)':<32} {'ours':>7}"
    if "theirs" in times:
        header += f" {'theirs':>7} {'ratio':>6}"
    print(header)
    for label in times["ours"]:
        ours = statistics.median(times["ours"][label])
        row = f"{label:<32} {ours:7.2f}"
        if "theirs" in times:
            theirs = statistics.median(times["theirs"][label])
            row += f" {theirs:7.2f} {theirs / ours:5.2f}x"
        print(row)


if __name__ == "__main__":
    main()
