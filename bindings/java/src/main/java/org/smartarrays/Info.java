// `java --enable-native-access=ALL-UNNAMED -jar smartarrays-<version>.jar`: prints the library's
// version, the runtime's worker count and the NUMA topology, and sums a small array, so users can
// check that the jar, the JDK and the native library work together.
package org.smartarrays;

/** Prints what the binding sees of the library and the machine. */
public final class Info {
    private Info() {}

    /**
     * Entry point of the runnable jar.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        System.out.println("smartarrays " + SmartArray.libraryVersion() + ", "
                + SmartArray.runtimeThreads() + " worker thread(s)");
        System.out.println("topology: " + SmartArray.topologyJson());
        try (SmartArray array = SmartArray.of(new long[] {1, 2, 3, 4, 1000}, Placement.interleaved(), SmartArray.MINIMAL_BITS)) {
            System.out.println("check: 5 values at " + array.bits() + " bits, sum " + array.sum());
        }
    }
}
