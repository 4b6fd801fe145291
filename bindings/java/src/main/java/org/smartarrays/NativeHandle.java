// NativeHandle: the lifetime of one C handle (an array, column, map, set or bag), shared by the classes
// that own one. The handle is a segment scoped to a shared arena: once closed it can no longer be
// passed to C (IllegalStateException, never a use of freed memory); closing fails while another
// thread is inside a native call with it; the C free function runs exactly once, from close() or
// from the Cleaner when the owner was never closed.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Cleaner;

/** One owned C handle: scoped, freed once. */
@SuppressWarnings("restricted") // the handle's size and lifetime come from the C ABI's contract
final class NativeHandle {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Per-thread 16-byte slot for the C functions' out-arguments. */
    private static final ThreadLocal<MemorySegment> SCRATCH = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    private final MemorySegment handle;
    private final Arena arena;
    private final Release release;
    private final Cleaner.Cleanable cleanable;

    /**
     * @param owner the Java object whose unreachability frees the handle
     * @param raw the handle the C function returned
     * @param free the C function that frees it
     */
    NativeHandle(Object owner, MemorySegment raw, MethodHandle free) {
        this.arena = Arena.ofShared();
        this.handle = raw.reinterpret(arena, null);
        this.release = new Release(arena, raw, free);
        this.cleanable = CLEANER.register(owner, release);
    }

    /** Calls a C constructor {@code f(..., T **out)} and returns the handle it wrote. */
    static MemorySegment created(int status, MemorySegment out) {
        Native.check(status);
        return out.get(ADDRESS, 0);
    }

    /** @return the scoped handle (unusable once closed) */
    MemorySegment get() {
        return handle;
    }

    /** @return this thread's 16-byte out-argument slot */
    static MemorySegment scratch() {
        return SCRATCH.get();
    }

    /** Runs {@code f(handle, size_t *out)} and returns {@code *out}. */
    long size(MethodHandle function) {
        try {
            MemorySegment slot = scratch();
            Native.check((int) function.invokeExact(handle, slot));
            return slot.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Runs {@code f(handle, char **out)} and returns the text (freed on the C side). */
    String text(MethodHandle function) {
        try {
            MemorySegment slot = scratch();
            Native.check((int) function.invokeExact(handle, slot));
            return Native.takeString(slot);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** @return {@code bytes} bytes at {@code address}, valid only while the handle is open */
    MemorySegment scoped(MemorySegment address, long bytes) {
        return address.reinterpret(bytes, arena, null);
    }

    boolean isClosed() {
        return !arena.scope().isAlive();
    }

    /** Frees the handle; repeated calls do nothing. Throws IllegalStateException while a native call holds it. */
    void close() {
        release.closeScope();
        cleanable.clean();
    }

    /** Frees the C handle exactly once; refers to nothing that keeps the owner reachable. */
    private static final class Release implements Runnable {
        private final Arena arena;
        private final MemorySegment raw;
        private final MethodHandle free;

        Release(Arena arena, MemorySegment raw, MethodHandle free) {
            this.arena = arena;
            this.raw = raw;
            this.free = free;
        }

        synchronized void closeScope() {
            if (arena.scope().isAlive()) {
                arena.close();
            }
        }

        @Override
        public void run() {
            try {
                closeScope();
            } catch (IllegalStateException inUse) {
                return; // a call raced with unreachability: leaking is safe, freeing is not
            }
            try {
                free.invokeExact(raw);
            } catch (Throwable t) {
                throw Native.rethrow(t);
            }
        }
    }
}
