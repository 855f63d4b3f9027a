"""The geometry of many design variants at once: the engine's :mod:`loops.variants` (batched
variants of any mechanism), under the name the design studies used before it moved there."""

from ..variants import VANISHED_AXIS, VariantGeometry, road_loop_pairs

__all__ = ["VariantGeometry", "road_loop_pairs", "VANISHED_AXIS"]
