"""Tests of loops.graph: the mechanism as a multigraph and its spanning tree from the ground.

Links are nodes and pairs keyed edges of a ``nx.MultiGraph`` (DESIGN.md "Loops"), so two
pairs between the same two links are two edges and close a loop of their own (networkx's
``cycle_basis`` cannot see that: STYLE.md anchor D). The spanning tree is breadth-first
from the ground, parents before children, and prefers real pairs so that the virtual links
of a point driver never carry a real link's tree path.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from numpy.testing import assert_allclose

from core_models import bennett, double_wishbone, four_bar, rssr, spatial_all_pairs
from loops.graph import mechanism_graph, spanning_tree
from loops.compiled import compile_model
from loops.configuration import evaluate
from mechanism import Mechanism, ModelError
from mechanism.transforms import inverse
from oracles.pairs import oracle_of

MECHANISMS = {
    "four-bar": four_bar,
    "spatial-all-pairs": spatial_all_pairs,
    "RSSR": rssr,
    "Bennett": bennett,
    "double-wishbone": double_wishbone,
}


def slider_on_two_pairs():
    """A slider held by a prismatic pair P and a parallel, offset cylindrical pair C, both to
    the ground: two pairs between the same two links, one loop, one freedom (the slide)."""
    m = Mechanism("slider on two guides")
    m.add_link("slider")
    m.add_pair("P", "prismatic", "ground", "slider", at=(0, 0, 0), axis=(1, 0, 0))
    m.add_pair("C", "cylindrical", "ground", "slider", at=(0, 0.1, 0), axis=(2, 0, 0))
    return m


def test_two_pairs_between_the_same_links_make_a_loop():
    """Two pairs between the same two links are two keyed edges and close a loop of their own."""
    # Two pairs joining ground and slider are two keyed edges; one is on the tree, the other a chord closing the loop
    # {P, C}; the mechanism slides (dof 1) and C's slide follows P's.
    m = slider_on_two_pairs()
    model = m.snapshot()
    graph = mechanism_graph(model.links, model.pairs)
    assert isinstance(graph, nx.MultiGraph)
    assert graph.number_of_edges("ground", "slider") == 2
    assert {key for _, _, key in graph.edges(keys=True)} == {"P", "C"}
    tree, chords = spanning_tree(graph)
    assert [edge.pair for edge in tree] == ["P"] and chords == ["C"]
    info = m.check()
    assert [set(loop) for loop in info.loops] == [{"P", "C"}]
    assert (info.dof, info.passive) == (1, 0)
    slide = np.linspace(-0.2, 0.3, 6)
    res = m.sweep({"P": slide})
    # Exact kinematics: the slider translates along x only, so C slides with it and never turns.
    # Closure to 1e-10 relative to the size (0.1 m): 1e-11 m and 1e-10 rad, with a 10x margin.
    assert_allclose(res.q("C.1"), slide, rtol=0.0, atol=1e-10)
    assert_allclose(res.q("C.0"), 0.0, rtol=0.0, atol=1e-9)


@pytest.mark.parametrize("build", MECHANISMS.values(), ids=MECHANISMS.keys())
def test_spanning_tree_reaches_every_link_once_parents_first(build):
    """The BFS tree reaches each link once, parents first, with correct direction flags; chords are the rest."""
    # The tree has links - 1 edges, reaches every link exactly once, lists a parent before its children, marks
    # ``forward`` when it walks a pair from its first link; chords are the other pairs, in declaration order.
    model = build().snapshot()
    graph = mechanism_graph(model.links, model.pairs)
    tree, chords = spanning_tree(graph)
    pairs = {p.name: p for p in model.pairs}
    assert len(tree) == len(model.links) - 1
    reached = ["ground"]
    for edge in tree:
        assert edge.parent in reached and edge.child not in reached
        reached.append(edge.child)
        pair = pairs[edge.pair]
        assert {pair.first, pair.second} == {edge.parent, edge.child}
        assert edge.forward == (pair.first == edge.parent)
    assert sorted(reached) == sorted(link.name for link in model.links)
    declared = [p.name for p in model.pairs]
    assert chords == [name for name in declared if name not in {e.pair for e in tree}]


def test_virtual_pairs_never_carry_a_real_link():
    """A point driver's virtual links and pairs never lie on a real link's tree path (preferred real pairs)."""
    # With the road loop of the point driver ``travel`` added, every real link still hangs on real pairs: its whole tree
    # path avoids the virtual slides and ball.
    system = compile_model(double_wishbone().snapshot(), with_point_drivers=True)
    virtual_links = {link.name for link in system.links if link.virtual}
    virtual_pairs = {pair.name for pair in system.pairs if pair.virtual}
    assert len(virtual_links) == 3 and len(virtual_pairs) == 3  # the driver's own slide is public
    by_child = {edge.child: edge for edge in system.tree}
    for link in system.link_names:
        if link in virtual_links or link == "ground":
            continue
        while link != "ground":
            edge = by_child[link]
            assert edge.pair not in virtual_pairs, (link, edge.pair)
            assert edge.parent not in virtual_links
            link = edge.parent


def test_unconnected_link_raises_a_located_model_error():
    """A node no pair reaches stops the tree with ModelError naming the link."""
    model = four_bar().snapshot()
    graph = mechanism_graph(model.links, model.pairs)
    graph.add_node("island")
    with pytest.raises(ModelError) as caught:
        spanning_tree(graph)
    assert caught.value.where == "link 'island'"
    assert "not connected to 'ground'" in str(caught.value)


@pytest.mark.parametrize("build", [spatial_all_pairs, double_wishbone], ids=["spatial-all-pairs", "double-wishbone"])
def test_tree_paths_give_the_link_poses(build):
    """Link poses are products of F_j A(q) F_k^-1 along the tree path (eq. 5), inverted when walked back."""
    # Each link's pose is the product along its tree path of ``F_j A(q) F_k^-1`` (inverted for a pair walked backwards),
    # eq. (5): the compiled system's poses at random q agree.
    system = compile_model(build().snapshot())
    rng = np.random.default_rng(11)
    q = rng.uniform(-0.4, 0.4, system.n)
    config = evaluate(system, q)
    pairs = {p.name: p for p in system.pairs}
    pose = {"ground": np.eye(4)}
    for edge in system.tree:  # parents first
        pair = pairs[edge.pair]
        values = q[system.pair_slices[pair.name]]
        across = pair.frame_on_first @ oracle_of(pair.pair_type).matrix(values) @ inverse(pair.frame_on_second)
        pose[edge.child] = pose[edge.parent] @ (across if edge.forward else inverse(across))
    for link, T in pose.items():
        # A few products of O(1) rotations and O(0.5 m) offsets: round-off only.
        assert_allclose(config.link_poses[system.link_index[link]], T, rtol=1e-12, atol=1e-12, err_msg=link)


@pytest.mark.parametrize("build", list(MECHANISMS.values()), ids=list(MECHANISMS))
def test_the_adjacency_without_networkx_is_the_multigraphs(build):
    """:func:`loops.graph.pair_adjacency` (what the compiled system builds its tree from) holds the
    networkx multigraph's adjacency in the graph's own order, virtual links of point drivers
    included, and gives the same tree and chords."""
    from loops.graph import adjacency_tree, pair_adjacency

    model = build().snapshot()
    system = compile_model(model)
    graph = mechanism_graph(system.links, system.pairs)
    adjacency = pair_adjacency(system.links, system.pairs)
    assert [(node, [(other, list(keys.items())) for other, keys in others.items()]) for node, others in adjacency.items()] \
        == [(node, [(other, [(key, data["first"]) for key, data in keys.items()]) for other, keys in others.items()])
            for node, others in graph.adj.items()]
    real = [p.name for p in model.pairs]  # the road loops' pairs last (loops.compiled)
    assert adjacency_tree(adjacency, preferred=real) == spanning_tree(graph, preferred=real)
    assert (system.tree, system.chords) == spanning_tree(graph, preferred=real)


def test_a_sweep_imports_no_networkx():
    """The compiled system builds its tree without networkx (a tenth of a small command's time)."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; from mechanism import load_model; m = load_model('examples/four_bar.toml'); "
            "m.sweep({'A': [0.0, 0.1]}); m.check(); print('networkx' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "False\n"
