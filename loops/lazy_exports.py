"""Packages whose public names are imported on first use (PEP 562): one mechanism for ``loops``,
``loops.suspension`` and ``loops.study``.

A package lists where each public name lives in ``_EXPORTS`` (name -> relative module) and
calls :func:`export_lazily` with its ``__name__``: importing the package then imports none of
its submodules, so that the command line's parser (``kinematrix --help``) loads no numpy.
"""

from __future__ import annotations

import importlib
import sys
import types

__all__ = ["export_lazily"]


class LazyPackage(types.ModuleType):
    """A package whose public function keeps its name when the submodule of the same name is
    imported (the import system binds a submodule on its package): ``loops.sweep`` is the
    function, as it was when the package imported its names at once; the module is in
    ``sys.modules``."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and vars(self).get("_EXPORTS", {}).get(name) == "." + name:
            value = getattr(value, name)
        super().__setattr__(name, value)


def export_lazily(package_name: str) -> None:
    """Give the package ``package_name`` (its ``_EXPORTS`` and ``__all__`` already set) the
    module ``__getattr__`` and ``__dir__`` that import its names on first use."""
    package = sys.modules[package_name]
    namespace = vars(package)

    def __getattr__(name):
        module = namespace["_EXPORTS"].get(name)
        if module is None:
            raise AttributeError(f"module {package_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package_name), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(namespace["__all__"]))

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    package.__class__ = LazyPackage
