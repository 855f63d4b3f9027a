"""Sweeps of many design variants at once: the engine's :mod:`loops.variants` (batched variants
of any mechanism), under the name the design studies used before it moved there."""

from ..variants import VariantRecord, VariantSetup, sweep_variants, variant_system

__all__ = ["VariantRecord", "VariantSetup", "sweep_variants", "variant_system"]
