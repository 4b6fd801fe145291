#!/usr/bin/env python3
"""Checks `smartarrays graph` against networkx on the graphs networkx ships (karate club, les
miserables, florentine families, davis southern women) and on random graphs (directed and
undirected, with dangling vertices): identical degrees, BFS levels and components, and PageRank
(Jacobi and Gauss-Seidel) within 1e-6 per vertex with both run to a tight tolerance; and, on
edge lists, identical SSSP distances (Dijkstra on random integer weights, written as a `u v w`
file), betweenness from every source (within 1e-9 of networkx's unnormalised scores, twice them
for undirected graphs, where networkx counts each pair once) and triangle counts. Each graph is exported to a SNAP edge
list (and one to Matrix Market), the CLI runs with --format json --all, and the results are
compared. Runs several storage variants and placements.

usage: compare_networkx.py PATH/TO/smartarrays
Prints 'N passed, M failed' and exits non-zero on any failure.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

import networkx as nx

BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/release/smartarrays"
STORAGE = [
    ["--variant", "u"],
    ["--variant", "v+e", "--placement", "interleaved"],
    ["--variant", "v", "--placement", "replicated", "--threads", "3"],
    ["--variant", "v+e", "--edges-bits", "20", "--offsets-placement", "node:0", "--threads", "1"],
]

passed = 0
failed = 0


def check(condition, message):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print("FAIL:", message)


def cli(*arguments):
    result = subprocess.run([BINARY, "graph", *arguments], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed: {result.stderr}")
    return json.loads(result.stdout)


def graphs():
    yield "karate", nx.karate_club_graph()
    yield "les_miserables", nx.les_miserables_graph()
    yield "florentine", nx.florentine_families_graph()
    yield "davis", nx.davis_southern_women_graph()
    yield "gnp_directed", nx.gnp_random_graph(300, 0.02, seed=4, directed=True)
    yield "gnp_undirected", nx.gnp_random_graph(400, 0.01, seed=5)
    yield "scale_free_directed", nx.DiGraph(nx.scale_free_graph(500, seed=6))
    yield "random_out_edges", nx.random_k_out_graph(200, 3, 0.5, self_loops=False, seed=7)


def export(graph, folder, name):
    graph = nx.convert_node_labels_to_integers(graph, ordering="sorted" if all(isinstance(v, int) for v in graph) else "default")
    graph.remove_edges_from(list(nx.selfloop_edges(graph)))
    if graph.is_multigraph():
        graph = nx.DiGraph(graph) if graph.is_directed() else nx.Graph(graph)
    path = os.path.join(folder, name + ".el")
    with open(path, "w") as out:
        out.write(f"# {name} from networkx\n% comment lines of both kinds are skipped\n")
        for u, v in graph.edges():
            out.write(f"{u}\t{v}\n")
    return graph, path


def write_mtx(graph, folder, name):
    path = os.path.join(folder, name + ".mtx")
    symmetry = "general" if graph.is_directed() else "symmetric"
    with open(path, "w") as out:
        out.write(f"%%MatrixMarket matrix coordinate pattern {symmetry}\n% from networkx\n")
        n = graph.number_of_nodes()
        out.write(f"{n} {n} {graph.number_of_edges()}\n")
        for u, v in graph.edges():
            row, column = (u, v) if graph.is_directed() else (max(u, v), min(u, v))
            out.write(f"{row + 1} {column + 1}\n")
    return path


def compare(name, graph, path, extra):
    n = graph.number_of_nodes()
    directed = graph.is_directed()
    base = [path, "--vertices", str(n), "--format", "json", "--all", "--no-progress", *extra]
    if not directed and path.endswith(".el"):
        base.append("--undirected")
    label = f"{name} {' '.join(extra)} {os.path.basename(path)}"

    degrees = cli("degree", *base)["values"]
    expected = [graph.in_degree(v) + graph.out_degree(v) if directed else graph.degree(v) for v in range(n)]
    check(degrees == expected, f"{label}: degrees differ")

    reference = nx.pagerank(graph, alpha=0.85, tol=1e-15, max_iter=10000, weight=None)
    # The default (f32 contributions, f64 for the tail below 1e-5 of change) and f64
    # contributions: both as close at a tight tolerance.
    for precision in ("default", "f64"):
        chosen = [] if precision == "default" else ["--precision", precision]
        ranks = cli("pagerank", *base, *chosen, "--tolerance", "1e-13", "--max-iterations", "10000")
        worst = max(abs(ranks["values"][v] - reference[v]) for v in range(n))
        check(ranks["converged"] and worst < 1e-6, f"{label}: PageRank ({precision} precision) differs by {worst:.2e}")

    for source in sorted({0, n // 2, n - 1}):
        levels = cli("bfs", *base, "--source", str(source))["values"]
        reference = nx.single_source_shortest_path_length(graph, source)
        expected = [reference.get(v) for v in range(n)]
        check(levels == expected, f"{label}: BFS levels from {source} differ")

    ranks = cli("pagerank", *base, "--gauss-seidel", "--tolerance", "1e-13", "--max-iterations", "10000")
    reference = nx.pagerank(graph, alpha=0.85, tol=1e-15, max_iter=10000, weight=None)
    worst = max(abs(ranks["values"][v] - reference[v]) for v in range(n))
    check(ranks["converged"] and ranks["method"] == "gauss-seidel" and worst < 1e-6, f"{label}: Gauss-Seidel PageRank differs by {worst:.2e}")

    if path.endswith(".el"):
        compare_kernels(graph, path, base, label)

    labels = cli("components", *base)["values"]
    reference = nx.weakly_connected_components(graph) if directed else nx.connected_components(graph)
    expected = [0] * n
    for component in reference:
        smallest = min(component)
        for v in component:
            expected[v] = smallest
    check(labels == expected, f"{label}: components differ")


def compare_kernels(graph, path, base, label):
    """SSSP on random weights, exact betweenness and triangles against networkx."""
    n = graph.number_of_nodes()
    directed = graph.is_directed()
    weighted = graph.copy()
    generator = random.Random(n)
    for u, v in weighted.edges():
        weighted[u][v]["weight"] = generator.randint(0, 40)
    wel = path[:-3] + ".wel"
    with open(wel, "w") as out:
        out.write("# random integer weights\n")
        for u, v, w in weighted.edges(data="weight"):
            out.write(f"{u} {v} {w}\n")
    options = [option for option in base if option != path]
    for source in sorted({0, n // 2, n - 1}):
        for delta in ("1", "16"):
            distances = cli("sssp", wel, *options, "--source", str(source), "--delta", delta, "--verify")["values"]
            reference = nx.single_source_dijkstra_path_length(weighted, source, weight="weight")
            expected = [reference.get(v) for v in range(n)]
            check(distances == expected, f"{label}: SSSP distances from {source} (delta {delta}) differ")

    scores = cli("bc", *base, "--all-sources")["values"]
    reference = nx.betweenness_centrality(graph, normalized=False)
    factor = 1.0 if directed else 2.0
    worst = max(abs(scores[v] - factor * reference[v]) for v in range(n))
    check(worst < 1e-9 * max(1.0, max(reference.values())), f"{label}: betweenness differs by {worst:.2e}")

    if not directed:
        expected = sum(nx.triangles(graph).values()) // 3
        for order in ("degree", "id"):
            storage = [option for option in extra_storage(base) if option != "--undirected"]
            triangles = cli("tc", path, "--undirected", "--order", order, "--format", "json", "--no-progress", *storage)["triangles"]
            check(triangles == expected, f"{label}: {triangles} triangles ({order} order), networkx counts {expected}")


def extra_storage(base):
    """The storage options of a compare() argument list (after the fixed ones)."""
    return base[base.index("--no-progress") + 1:]


def main():
    with tempfile.TemporaryDirectory() as folder:
        for name, graph in graphs():
            graph, path = export(graph, folder, name)
            for extra in STORAGE:
                compare(name, graph, path, extra)
            compare(name, graph, write_mtx(graph, folder, name), [])
            binary = os.path.join(folder, name + ".sag")
            convert = [BINARY, "graph", "convert", path, "-o", binary, "--vertices", str(graph.number_of_nodes()), "--no-progress"]
            if not graph.is_directed():
                convert.append("--undirected")
            subprocess.run(convert, check=True, capture_output=True)
            compare(name, graph, binary, ["--variant", "v+e"])
    print(f"networkx comparison: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
