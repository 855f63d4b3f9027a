"""The packages' public names stay what DESIGN.md says they are when a submodule of the same
name is imported first: ``dynamics.simulate`` is the function even after ``from
dynamics.simulate import SimulationResult`` (the import system binds a submodule on its
package when it loads it; ``loops.lazy_exports.LazyPackage`` keeps the function there)."""

import subprocess
import sys

import pytest

PACKAGES = ("dynamics", "loops", "loops.study", "loops.suspension")

# In a fresh interpreter (this process has imported the submodules already): import each
# submodule that shares a public name first, then read the name from the package.
_PROBE = """
import importlib, sys, types
package_name = sys.argv[1]
package = importlib.import_module(package_name)
shadowed = [name for name, module in package._EXPORTS.items() if module == "." + name]
for name in shadowed:
    submodule = importlib.import_module(package_name + "." + name)
    value = getattr(package, name)
    assert not isinstance(value, types.ModuleType), f"{package_name}.{name} is the module"
    assert value is getattr(submodule, name), f"{package_name}.{name} is not the submodule's {name}"
print(len(shadowed))
"""


@pytest.mark.parametrize("package", PACKAGES)
def test_a_public_name_stays_itself_after_its_submodule_is_imported(package):
    done = subprocess.run([sys.executable, "-c", _PROBE, package], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1:]
    if package == "dynamics":
        assert int(done.stdout) >= 1  # simulate


def test_dynamics_simulate_is_callable_after_importing_its_module_by_name():
    """The user's way in: the result class from its module, then the package's function."""
    code = ("from dynamics.simulate import SimulationResult\nimport dynamics\n"
            "assert callable(dynamics.simulate) and dynamics.SimulationResult is SimulationResult")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1:]
