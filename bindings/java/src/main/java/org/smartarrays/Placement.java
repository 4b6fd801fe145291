// Placement: where a smart array's memory goes on a NUMA machine (the paper's §4.1), as Java
// values that map one-to-one onto the C ABI's placement text ("os", "node:N", "interleaved",
// "interleaved:N,M", "replicated").
package org.smartarrays;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where a {@link SmartArray}'s memory lives.
 *
 * <pre>{@code
 * Placement p = Placement.interleaved();          // pages round-robin over all nodes
 * Placement q = Placement.parse("node:0");        // every page on node 0
 * assert q.equals(Placement.singleNode(0));
 * }</pre>
 */
public sealed interface Placement {
    /** The operating system's default: each page lands on the node of the thread that first writes it. */
    record OsDefault() implements Placement {
        @Override
        public String toString() {
            return "os";
        }
    }

    /**
     * Every page on one node.
     *
     * @param node the NUMA node id
     */
    record SingleNode(int node) implements Placement {
        /** Checks the node id. */
        public SingleNode {
            if (node < 0) {
                throw new IllegalArgumentException("a NUMA node id is never negative, got " + node);
            }
        }

        @Override
        public String toString() {
            return "node:" + node;
        }
    }

    /**
     * Pages round-robin over the listed nodes; an empty list means every node.
     *
     * @param nodes the NUMA node ids (copied)
     */
    record Interleaved(List<Integer> nodes) implements Placement {
        /** Copies and checks the node list. */
        public Interleaved {
            nodes = List.copyOf(Objects.requireNonNull(nodes, "nodes"));
            for (int node : nodes) {
                if (node < 0) {
                    throw new IllegalArgumentException("a NUMA node id is never negative, got " + node);
                }
            }
        }

        @Override
        public String toString() {
            if (nodes.isEmpty()) {
                return "interleaved";
            }
            StringBuilder text = new StringBuilder("interleaved:");
            for (int i = 0; i < nodes.size(); i++) {
                text.append(i == 0 ? "" : ",").append(nodes.get(i));
            }
            return text.toString();
        }
    }

    /** One full copy per node; each reader uses its own node's copy, and writes go to every copy. */
    record Replicated() implements Placement {
        @Override
        public String toString() {
            return "replicated";
        }
    }

    /** @return the OS default placement */
    static Placement osDefault() {
        return new OsDefault();
    }

    /**
     * @param node a NUMA node id
     * @return every page on {@code node}
     */
    static Placement singleNode(int node) {
        return new SingleNode(node);
    }

    /**
     * @param nodes NUMA node ids; none means every node
     * @return pages interleaved over {@code nodes}
     */
    static Placement interleaved(int... nodes) {
        return new Interleaved(Arrays.stream(nodes).boxed().toList());
    }

    /** @return one copy per node */
    static Placement replicated() {
        return new Replicated();
    }

    /**
     * Parses the text form used by the C ABI and the command line: {@code os} (or {@code default}),
     * {@code node:N} (or {@code single:N}; {@code single} alone is node 0), {@code interleaved},
     * {@code interleaved:N,M,...}, {@code replicated}.
     *
     * @param text the placement text
     * @return the placement
     * @throws IllegalArgumentException when the text is not a placement
     */
    static Placement parse(String text) {
        String lower = Objects.requireNonNull(text, "text").trim().toLowerCase(Locale.ROOT);
        int colon = lower.indexOf(':');
        String kind = colon < 0 ? lower : lower.substring(0, colon);
        String argument = colon < 0 ? null : lower.substring(colon + 1);
        try {
            switch (kind) {
                case "os", "default", "os-default" -> {
                    if (argument == null) {
                        return osDefault();
                    }
                }
                case "single", "single-node", "node" -> {
                    if (argument != null) {
                        return singleNode(Integer.parseInt(argument.trim()));
                    }
                    if (!kind.equals("node")) {
                        return singleNode(0);
                    }
                }
                case "interleaved", "interleave" -> {
                    if (argument == null) {
                        return interleaved();
                    }
                    return interleaved(Arrays.stream(argument.split(",")).mapToInt(n -> Integer.parseInt(n.trim())).toArray());
                }
                case "replicated", "replicate" -> {
                    if (argument == null) {
                        return replicated();
                    }
                }
                default -> {
                }
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a placement: \"" + text + "\" (a node id is not a number)", e);
        }
        throw new IllegalArgumentException(
                "not a placement: \"" + text + "\" (expected os, node:N, interleaved, interleaved:N,M,... or replicated)");
    }
}
