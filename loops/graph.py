"""The mechanism as a graph: links are nodes, pairs are keyed edges of a ``nx.MultiGraph``.

A spanning tree rooted at the ground fixes every link's absolute matrix as the product
of link and pair matrices along its tree path (mechanism/METHOD.md eq. 5); every pair left out of
the tree (a chord) closes one independent loop (eq. 2). Edges are keyed by pair name,
so two pairs between the same two links are two edges, and a loop is a walk of
``(pair, direction)``, never a bare list of nodes. The compiled system takes the same graph's
adjacency as plain dictionaries (:func:`pair_adjacency`, :func:`adjacency_tree`), so that a
command imports networkx only when it asks for the graph itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mechanism.errors import ModelError
from mechanism.specs import GROUND

if TYPE_CHECKING:  # the annotations' name only: networkx is imported where a graph is built
    import networkx as nx

__all__ = ["TreeEdge", "mechanism_graph", "spanning_tree", "pair_adjacency", "adjacency_tree"]


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
    import networkx as nx  # noqa: PLC0415 (the compiled system needs only pair_adjacency)

    graph = nx.MultiGraph()
    graph.add_nodes_from(link.name for link in links)
    for pair in pairs:
        graph.add_edge(pair.first, pair.second, key=pair.name, first=pair.first, virtual=pair.virtual)
    return graph


def pair_adjacency(links, pairs) -> dict:
    """The adjacency of :func:`mechanism_graph` without networkx: link name -> {neighbour link:
    {pair name: the pair's first link}}, links and pairs in the order that graph holds them
    (the links as given, then any link a pair names first; each pair under both its links)."""
    adjacency = {link.name: {} for link in links}
    for pair in pairs:
        for link in (pair.first, pair.second):
            adjacency.setdefault(link, {})
        keys = adjacency[pair.first].setdefault(pair.second, {})
        adjacency[pair.second][pair.first] = keys
        keys[pair.name] = pair.first
    return adjacency


def spanning_tree(graph: nx.MultiGraph, root: str = GROUND, preferred=None):
    """Breadth-first spanning tree from ``root`` of a :func:`mechanism_graph`; returns
    ``(tree_edges, chords)``: :func:`adjacency_tree` of its adjacency."""
    adjacency = {node: {other: {key: data["first"] for key, data in keys.items()} for other, keys in others.items()}
                 for node, others in graph.adj.items()}
    return adjacency_tree(adjacency, root, preferred)


def _edge_order(adjacency):
    """Pair name -> its position among the graph's edges as networkx lists them (node by node,
    each edge where it is first met)."""
    order, seen = {}, set()
    for node, others in adjacency.items():
        for other, keys in others.items():
            if other not in seen:
                for key in keys:
                    order.setdefault(key, len(order))
        seen.add(node)
    return order


def adjacency_tree(adjacency, root: str = GROUND, preferred=None):
    """Breadth-first spanning tree from ``root`` of a :func:`pair_adjacency`; returns
    ``(tree_edges, chords)``.

    Edges in ``preferred`` (a set of pair names, the real pairs) are used first, so the
    virtual links of point drivers never carry a real link's tree path. Tree edges come
    parents first, in a deterministic order (the graph's order of its edges).

    Raises
    ------
    ModelError
        If some link is not connected to ``root``.
    """
    order = _edge_order(adjacency)
    nodes = list(adjacency)
    preferred = set(order) if preferred is None else set(preferred)
    reached = {root}
    tree: list[TreeEdge] = []
    for allowed in (preferred, set(order)):
        frontier = [root] if len(reached) == 1 else sorted(reached, key=nodes.index)
        while frontier:
            next_frontier = []
            for node in frontier:
                edges = sorted(((other, key, first) for other, keys in adjacency[node].items()
                                for key, first in keys.items()), key=lambda e: order[e[1]])
                for other, key, first in edges:
                    if key not in allowed or other in reached:
                        continue
                    reached.add(other)
                    tree.append(TreeEdge(key, node, other, first == node))
                    next_frontier.append(other)
            frontier = next_frontier
    missing = [n for n in nodes if n not in reached]
    if missing:
        raise ModelError(f"link {missing[0]!r}", f"is not connected to {root!r} through any pair")
    tree_keys = {edge.pair for edge in tree}
    chords = [key for key in sorted(order, key=order.get) if key not in tree_keys]
    return tree, chords
