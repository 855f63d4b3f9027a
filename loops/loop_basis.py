"""Independent closed loops: one per chord of the spanning tree (mechanism/METHOD.md eq. 2).

The loop of chord c (joining links a and b) is the walk from the deepest common ancestor
of a and b down the tree to a, across c to b, and back up to the ancestor. Walking it and
multiplying link and pair matrices gives the identity when the loop is closed. Number of
loops = pairs - links + 1 (cycle rank of a connected multigraph).
"""

from __future__ import annotations

__all__ = ["Loop", "independent_loops"]


class Loop(tuple):
    """An independent loop: a tuple of its pair names in walk order, with attributes.

    Attributes
    ----------
    name : str
        ``"loop 1 (D)"``: number and closing chord pair.
    chord : str
        The pair that closes it.
    walk : tuple of (pair name, direction)
        The pairs in order around the loop; direction +1 walks from the pair's first link
        to its second, -1 the other way.
    links : tuple of str
        The links visited, in walk order.
    """


    def __new__(cls, name: str, chord: str, walk: tuple, links: tuple):
        self = super().__new__(cls, (pair for pair, _ in walk))
        self.name, self.chord, self.walk, self.links = name, chord, tuple(walk), tuple(links)
        return self

    @property
    def pairs(self) -> tuple:
        return tuple(self)

    def __repr__(self):
        return f"Loop({self.name!r}, pairs={tuple(self)!r})"


def _path_to_root(tree_by_child, link):
    """Tree edges from ``link`` up to the root, child to parent."""
    path = []
    while link in tree_by_child:
        edge = tree_by_child[link]
        path.append(edge)
        link = edge.parent
    return path


def independent_loops(tree, chords, pairs_by_name, n_links) -> list[Loop]:
    """Loops of the chords, in chord order; asserts ``len == pairs - links + 1``."""
    tree_by_child = {edge.child: edge for edge in tree}
    loops = []
    for number, chord in enumerate(chords, start=1):
        pair = pairs_by_name[chord]
        up_a = _path_to_root(tree_by_child, pair.first)
        up_b = _path_to_root(tree_by_child, pair.second)
        shared = {e.pair for e in up_a} & {e.pair for e in up_b}
        down_to_a = [e for e in reversed(up_a) if e.pair not in shared]
        up_from_b = [e for e in up_b if e.pair not in shared]
        walk = [(e.pair, 1 if e.forward else -1) for e in down_to_a]
        walk.append((chord, 1))
        walk += [(e.pair, -1 if e.forward else 1) for e in up_from_b]
        start = down_to_a[0].parent if down_to_a else pair.first
        # The walk ends where it started (the common ancestor): drop the repeat.
        links = ([start] + [e.child for e in down_to_a] + [pair.second] + [e.parent for e in up_from_b])[:-1]
        loops.append(Loop(f"loop {number} ({chord})", chord, tuple(walk), tuple(links)))
    expected = len(pairs_by_name) - n_links + 1
    assert len(loops) == expected, (len(loops), expected)
    return loops
