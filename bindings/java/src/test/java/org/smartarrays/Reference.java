// Reference: the plain-Java expectations the tests compare smart arrays against (values drawn
// for a width, unsigned reductions over long[]), and the placements every test runs under.
package org.smartarrays;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

final class Reference {
    static final int[] WIDTHS = {1, 7, 32, 33, 63, 64};
    static final int[] LENGTHS = {0, 1, 63, 64, 65, 1023, 1024, 1025, 5000};

    private Reference() {}

    static List<Placement> placements() {
        return List.of(Placement.osDefault(), Placement.singleNode(0), Placement.interleaved(), Placement.interleaved(0),
                Placement.replicated());
    }

    /** The largest value {@code bits} bits hold, as an unsigned pattern. */
    static long maxValue(int bits) {
        return -1L >>> (64 - bits);
    }

    /** Random values that fit {@code bits}, with the largest value at a few spots (so max-width packing is exercised). */
    static long[] values(int length, int bits, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long mask = maxValue(bits);
        long[] values = new long[length];
        for (int i = 0; i < length; i++) {
            values[i] = random.nextLong() & mask;
        }
        if (length > 0) {
            values[length - 1] = mask;
            values[length / 2] = mask;
            values[0] = 0;
        }
        return values;
    }

    static long sum(long[] values) {
        long total = 0;
        for (long v : values) {
            total += v;
        }
        return total;
    }

    static long unsignedMin(long[] values) {
        long min = -1L;
        for (long v : values) {
            min = Long.compareUnsigned(v, min) < 0 ? v : min;
        }
        return min;
    }

    static long unsignedMax(long[] values) {
        long max = 0;
        for (long v : values) {
            max = Long.compareUnsigned(v, max) > 0 ? v : max;
        }
        return max;
    }

    /** Fewest bits for the largest value (1 for all zeros), as the library's automatic width. */
    static int bitsNeeded(long[] values) {
        long largest = values.length == 0 ? 0 : unsignedMax(values);
        return largest == 0 ? 1 : 64 - Long.numberOfLeadingZeros(largest);
    }

    static Stream<Integer> widths() {
        return java.util.Arrays.stream(WIDTHS).boxed();
    }
}
