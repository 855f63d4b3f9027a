"""The kernels' named tuples passed by reference: one pointer, each field one address and one load.

numba passes a named tuple of arrays by value: every field of every array (seven to eleven
machine words each) is an argument of its own at every call between kernels, unpacked and
packed again with LLVM's ``extractvalue``/``insertvalue`` at every entry and call, which is a
large part of the instructions LLVM optimizes and of the stack a call copies. Here the
named tuples registered by :func:`pass_by_reference` (the engine's here, the dynamics' in
:mod:`dynamics.kernels._compile`) are typed instead as :class:`StateReference`: its value is
one pointer to a structure holding the fields as numba stores them, which the CPython
wrapper fills from the Python named tuple (on its own stack, for the time of the call), and
``state.field`` is the field's address and a load. The fields stay read-only, as in a tuple;
the arrays they hold are written in place as before.

In a kernel, :func:`pack` builds such a state from a tuple of its fields (``pack(Work, (q, ...))``, in the
kernel's own frame: a kernel never returns one it built). Without the compiler
(``NUMBA_DISABLE_JIT=1``) the states are the named tuples themselves and ``pack(cls, *fields)``
is ``cls(*fields)``.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, config, types
from numba.core.datamodel import models
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate
from numba.extending import (NativeValue, infer_getattr, intrinsic, lower_getattr_generic, register_model, typeof_impl,
                             unbox)

from .state import Factor, Geometry, LoadArrays, Scratch, SquareBlock, Topology, Weights, Work

__all__ = ["StateReference", "pass_by_reference", "pack"]


class StateReference(types.Type):
    """A named tuple of the kernels by reference: its class's name, its fields' names and types."""

    def __init__(self, class_name, fields, field_types):
        self.class_name = class_name
        self.fields = tuple(fields)
        self.field_types = tuple(field_types)
        self.index = {field: i for i, field in enumerate(self.fields)}
        described = ", ".join(f"{field}: {kind}" for field, kind in zip(self.fields, self.field_types))
        super().__init__(name=f"&{class_name}({described})")

    @property
    def key(self):
        return self.class_name, self.fields, self.field_types


def _typeof_state(value, context):
    kinds = [typeof_impl(item, context) for item in value]
    if any(kind is None for kind in kinds):
        return None
    return StateReference(type(value).__name__, type(value)._fields, kinds)


def pass_by_reference(*named):
    """Type the named-tuple classes ``named`` as :class:`StateReference` in the kernels: their
    fields are then read through one pointer. A class whose instances a kernel unpacks
    (``a, b = state``) or indexes (``state[0]``) must not be one of them: read its fields by name."""
    for cls in named:
        typeof_impl.register(cls)(_typeof_state)


# StaticsScratch stays a tuple: the statics kernels' loops write its arrays while reading its
# fields, and a field read through the pointer is then read again at every iteration (LLVM
# cannot tell an array's store from the structure's field): the axle's compliance took 12 %
# longer by reference (benchmarks/statics.py).
pass_by_reference(Topology, Geometry, SquareBlock, Work, Scratch, Factor, LoadArrays, Weights)


@register_model(StateReference)
class _StateReferenceModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        members = [dmm.lookup(kind).get_data_type() for kind in fe_type.field_types]
        super().__init__(dmm, fe_type, ir.PointerType(ir.LiteralStructType(members)))


@infer_getattr
class _StateReferenceAttributes(AttributeTemplate):
    key = StateReference

    def generic_resolve(self, state, attr):
        if attr in state.index:
            return state.field_types[state.index[attr]]
        return None


@lower_getattr_generic(StateReference)
def _field(context, builder, state, value, attr):
    i = state.index[attr]
    kind = state.field_types[i]
    item = context.unpack_value(builder, kind, cgutils.gep_inbounds(builder, value, 0, i))
    return impl_ret_borrowed(context, builder, kind, item)


@unbox(StateReference)
def _unbox_state(state, obj, c):
    builder = c.builder
    target = cgutils.alloca_once(builder, c.context.get_value_type(state).pointee)
    failed = cgutils.alloca_once_value(builder, cgutils.false_bit)
    cleanups = []
    for i, kind in enumerate(state.field_types):
        native = c.unbox(kind, c.pyapi.tuple_getitem(obj, i))
        with builder.if_then(native.is_error, likely=False):
            builder.store(cgutils.true_bit, failed)
        c.context.pack_value(builder, kind, native.value, cgutils.gep_inbounds(builder, target, 0, i))
        cleanups.append((kind, native))

    def cleanup():
        for kind, native in cleanups:
            if native.cleanup is not None:
                native.cleanup()
            if c.context.enable_nrt:
                c.context.nrt.decref(builder, kind, native.value)

    return NativeValue(target, is_error=builder.load(failed), cleanup=cleanup)


@intrinsic
def _pack(typingctx, cls, fields):
    named = cls.instance_class
    state = StateReference(named.__name__, named._fields, fields.types)

    def codegen(context, builder, signature, args):
        target = cgutils.alloca_once(builder, context.get_value_type(state).pointee)
        items = cgutils.unpack_tuple(builder, args[1], len(state.fields))
        for i, (kind, item) in enumerate(zip(state.field_types, items)):
            context.pack_value(builder, kind, item, cgutils.gep_inbounds(builder, target, 0, i))
        return target

    return state(cls, fields), codegen


def _pack_python(cls, fields):
    return cls(*fields)


pack = _pack_python if config.DISABLE_JIT else _pack
