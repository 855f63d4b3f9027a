"""The mechanism as a graph: links are nodes, pairs are keyed edges of a ``nx.MultiGraph``.

A spanning tree rooted at the ground fixes every link's absolute matrix as the product
of link and pair matrices along its tree path (mechanism/METHOD.md eq. 5); every pair left out of
the tree (a chord) closes one independent loop (eq. 2). Edges are keyed by pair name,
so two pairs between the same two links are two edges, and a loop is a walk of
``(pair, direction)``, never a bare list of nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from mechanism.errors import ModelError
from mechanism.specs import GROUND

__all__ = ["TreeEdge", "mechanism_graph", "spanning_tree"]


@dataclass(frozen=True)
class TreeEdge:
    """A pair on the spanning tree, walked from ``parent`` to ``child``.

    ``forward`` is True when the walk goes from the pair's first link to its second.
    """

    pair: str
    parent: str
    child: str
    forward: bool


def mechanism_graph(links, pairs) -> nx.MultiGraph:
    """Multigraph with one node per link name and one edge per pair (key = pair name)."""
    graph = nx.MultiGraph()
    graph.add_nodes_from(link.name for link in links)
    for pair in pairs:
        graph.add_edge(pair.first, pair.second, key=pair.name, first=pair.first, virtual=pair.virtual)
    return graph


def spanning_tree(graph: nx.MultiGraph, root: str = GROUND, preferred=None):
    """Breadth-first spanning tree from ``root``; returns ``(tree_edges, chords)``.

    Edges in ``preferred`` (a set of pair names, the real pairs) are used first, so the
    virtual links of point drivers never carry a real link's tree path. Tree edges come
    parents first, in a deterministic order (declaration order of the pairs).

    Raises
    ------
    ModelError
        If some link is not connected to ``root``.
    """
    order = {key: i for i, (_, _, key) in enumerate(graph.edges(keys=True))}
    preferred = set(order) if preferred is None else set(preferred)
    reached = {root}
    tree: list[TreeEdge] = []
    for allowed in (preferred, set(order)):
        frontier = [root] if len(reached) == 1 else sorted(reached, key=list(graph.nodes).index)
        while frontier:
            next_frontier = []
            for node in frontier:
                edges = sorted(graph.edges(node, keys=True, data=True), key=lambda e: order[e[2]])
                for _, other, key, data in edges:
                    if key not in allowed or other in reached:
                        continue
                    reached.add(other)
                    tree.append(TreeEdge(key, node, other, data["first"] == node))
                    next_frontier.append(other)
            frontier = next_frontier
    missing = [n for n in graph.nodes if n not in reached]
    if missing:
        raise ModelError(f"link {missing[0]!r}", f"is not connected to {root!r} through any pair")
    tree_keys = {edge.pair for edge in tree}
    chords = [key for key in sorted(order, key=order.get) if key not in tree_keys]
    return tree, chords
