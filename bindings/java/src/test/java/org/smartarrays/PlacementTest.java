// Placement values and their text form (pure Java: needs no native library, so `make setup-java`
// runs it to pre-fetch Surefire's JUnit provider).
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PlacementTest {
    @Test
    void textRoundTrips() {
        for (Placement placement : Reference.placements()) {
            assertEquals(placement, Placement.parse(placement.toString()));
        }
        assertEquals("os", Placement.osDefault().toString());
        assertEquals("node:3", Placement.singleNode(3).toString());
        assertEquals("interleaved", Placement.interleaved().toString());
        assertEquals("interleaved:0,2", Placement.interleaved(0, 2).toString());
        assertEquals("replicated", Placement.replicated().toString());
    }

    @Test
    void acceptedSpellings() {
        assertEquals(Placement.singleNode(0), Placement.parse(" single "));
        assertEquals(Placement.singleNode(1), Placement.parse("single-node:1"));
        assertEquals(Placement.interleaved(0, 1), Placement.parse("Interleaved:0, 1"));
        assertEquals(Placement.osDefault(), Placement.parse("default"));
        assertEquals(Placement.replicated(), Placement.parse("REPLICATE"));
        assertTrue(Placement.parse("replicated") instanceof Placement.Replicated);
    }

    @Test
    void badTextAndNodesAreRefused() {
        for (String text : List.of("everywhere", "node", "node:x", "node:-1", "interleaved:0,,1", "replicated:1", "os:2", "")) {
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Placement.parse(text), text);
            assertTrue(error.getMessage().contains("not a placement") || error.getMessage().contains("negative"), error.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Placement.singleNode(-1));
        assertThrows(IllegalArgumentException.class, () -> Placement.interleaved(2, -1));
        assertThrows(NullPointerException.class, () -> Placement.parse(null));
    }
}
