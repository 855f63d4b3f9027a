"""A new Dask worker's first task: the README's design study through a scheduler and one fresh
worker (``--nthreads 1``, its ``NUMBA_CACHE_DIR`` an empty directory), in processor seconds.

Starts ``dask scheduler`` and ``dask worker --nthreads 1`` (processes of their own), runs the
README's ``kinematrix study`` with ``--scheduler`` (a process of its own, its kernels in its
usual cache: a user's machine after a first study), and prints the worker's processor time
(user + system, the whole process) during each of the study's two tasks (500 variants each),
the first with the compile or the load of the kernels, the second without; then the same for
every ``--compare-with`` checkout (its code first on ``PYTHONPATH`` for all three processes),
alternating over ``--repeats`` rounds. The machine is shared: compare figures of one run.

Run: ``python benchmarks/cluster_first_task.py [--repeats 2] [--compare-with ../old-checkout]``
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

from dask.distributed import Client, WorkerPlugin

ROOT = pathlib.Path(__file__).resolve().parent.parent
STUDY = ["study", "examples/double_wishbone.toml", "--vary", "examples/double_wishbone_vary.toml", "--analysis",
         "parallel", "--travel", "-80:80:4", "--out", "study.csv"]


class TaskTimes(WorkerPlugin):
    """A Dask worker plugin: the worker process's processor seconds from each task's start to
    its end (``transition`` runs on the worker's event loop at each change of a task's state)."""

    name = "kinematrix-task-times"

    def __init__(self):
        self.started, self.seconds = {}, []

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing":
            self.started[key] = time.process_time()
        elif start == "executing" and key in self.started:
            self.seconds.append(time.process_time() - self.started.pop(key))


def _wait_for(path, seconds=60):
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"no scheduler file {path} after {seconds} s")
        time.sleep(0.2)


def one_round(code):
    """``[seconds of task 1, of task 2]`` of a fresh worker running ``code``'s study."""
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        env = dict(os.environ, PYTHONPATH=str(code))
        worker_env = dict(env, NUMBA_CACHE_DIR=str(scratch / "cache"))
        scheduler_file = scratch / "scheduler.json"
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        dask = str(pathlib.Path(sys.executable).with_name("dask"))
        scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(scheduler_file)], env=env, **quiet)
        worker = None
        try:
            _wait_for(scheduler_file)
            worker = subprocess.Popen([dask, "worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1",
                                       "--nworkers", "1", "--no-dashboard", "--no-nanny"], env=worker_env, **quiet)
            address = json.loads(scheduler_file.read_text())["address"]
            with Client(address, set_as_default=False, timeout=60) as client:
                client.wait_for_workers(1, timeout=60)
                client.register_plugin(TaskTimes(), name=TaskTimes.name)
                kinematrix = str(pathlib.Path(sys.executable).with_name("kinematrix"))
                done = subprocess.run([kinematrix, *STUDY, "--scheduler", address], cwd=code, env=env,
                                      capture_output=True, text=True)
                if done.returncode:
                    raise SystemExit(done.stderr)
                return client.run(lambda dask_worker: dask_worker.plugins[TaskTimes.name].seconds).popitem()[1]
        finally:
            for process in (worker, scheduler):
                if process is not None:
                    process.terminate()
                    process.wait(30)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--compare-with", type=pathlib.Path, action="append", default=[])
    args = parser.parse_args(argv)
    codes = [ROOT, *(path.resolve() for path in args.compare_with)]
    times = {code: [] for code in codes}
    for _ in range(args.repeats):
        for code in codes:
            times[code].append(one_round(code))
            first, second = times[code][-1]
            print(f"{code}: first task {first:.1f} s, second {second:.1f} s of the worker's processor time",
                  flush=True)
    for code in codes:
        print(f"{code}: minimum of {args.repeats}: first task {min(t[0] for t in times[code]):.1f} s, "
              f"second {min(t[1] for t in times[code]):.1f} s")


if __name__ == "__main__":
    main()
