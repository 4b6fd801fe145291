// smartarrays.hpp - header-only C++17 wrapper over the smartarrays C ABI (smartarrays.h).
//
// Owns: RAII, move-only handles (smartarrays::Array, smartarrays::F64Array), exceptions that
// carry the library's error text (smartarrays::Error), a forward iterator and a chunk range
// that work with range-for and the standard algorithms, and the process-wide functions
// (version, thread count, topology).
//
//   #include <smartarrays/smartarrays.hpp>
//   auto array = smartarrays::Array::from_values(values, "interleaved");   // width: automatic
//   uint64_t total = std::accumulate(array.begin(), array.end(), uint64_t{0});
//   for (const auto& chunk : array.chunks())                              // decoded blocks
//       total += std::accumulate(chunk.begin(), chunk.end(), uint64_t{0});
//
// Thread safety follows the C ABI: const member functions may run concurrently on one array;
// set() and destruction need exclusive use. Iterators and chunk ranges are per-thread objects.
// Link with the imported CMake target smartarrays::smartarrays (find_package(smartarrays)).
#ifndef SMARTARRAYS_SMARTARRAYS_HPP
#define SMARTARRAYS_SMARTARRAYS_HPP

#include <smartarrays.h>

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <exception>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// The iterator's refill path is inlined into loops (so the iterator stays in registers) while
// the decoding call stays out of line.
#if defined(__GNUC__) || defined(__clang__)
#define SMARTARRAYS_ALWAYS_INLINE inline __attribute__((always_inline))
#define SMARTARRAYS_NOINLINE __attribute__((noinline))
#else
#define SMARTARRAYS_ALWAYS_INLINE inline
#define SMARTARRAYS_NOINLINE
#endif

namespace smartarrays {

/// A failed call: the status code and the library's message for it.
class Error : public std::runtime_error {
public:
    Error(SaStatus status, const std::string& message)
        : std::runtime_error(std::string(sa_status_name(status)) + ": " + message), status_(status) {}

    /// The C status code (SA_STATUS_...).
    SaStatus status() const noexcept { return status_; }

private:
    SaStatus status_;
};

namespace detail {

/// Throws Error for any status other than SA_STATUS_OK.
inline void check(SaStatus status) {
    if (status != SA_STATUS_OK) {
        throw Error(status, sa_last_error_message());
    }
}

/// Takes ownership of a string returned by the library and copies it into a std::string.
inline std::string take_string(char* text) {
    std::unique_ptr<char, void (*)(char*)> owned(text, sa_string_free);
    return owned ? std::string(owned.get()) : std::string();
}

inline const char* placement_text(const std::string& placement) {
    return placement.empty() ? nullptr : placement.c_str();
}

}  // namespace detail

/// Library version, "MAJOR.MINOR.PATCH".
inline std::string version() { return sa_version(); }

/// Sets the worker threads of arrays created from now on (0 = one per CPU).
inline void set_threads(std::size_t threads) { detail::check(sa_runtime_set_threads(threads)); }

/// Worker threads new arrays use.
inline std::size_t threads() {
    std::size_t out = 0;
    detail::check(sa_runtime_threads(&out));
    return out;
}

/// NUMA nodes of the machine (as the runtime sees it).
inline std::size_t node_count() {
    std::size_t out = 0;
    detail::check(sa_topology_node_count(&out));
    return out;
}

/// CPUs of the machine (as the runtime sees it).
inline std::size_t cpu_count() {
    std::size_t out = 0;
    detail::check(sa_topology_cpu_count(&out));
    return out;
}

/// The topology as JSON text ({"nodes": [...]}).
inline std::string topology_json() {
    char* text = nullptr;
    detail::check(sa_topology_json(&text));
    return detail::take_string(text);
}

/// A read-only run of consecutive decoded values: indices first() .. first() + size().
class Chunk {
public:
    Chunk() = default;
    Chunk(std::size_t first, const std::uint64_t* data, std::size_t size) : first_(first), data_(data), size_(size) {}

    std::size_t first() const noexcept { return first_; }
    const std::uint64_t* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    const std::uint64_t* begin() const noexcept { return data_; }
    const std::uint64_t* end() const noexcept { return data_ + size_; }
    std::uint64_t operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    std::size_t first_ = 0;
    const std::uint64_t* data_ = nullptr;
    std::size_t size_ = 0;
};

/// An array of unsigned 64-bit integers, bit-compressed and placed on NUMA nodes (move-only).
class Array {
public:
    /// Values decoded per step by iterators and chunk ranges of compressed arrays (16 KiB).
    static constexpr std::size_t default_window = 2048;

    class const_iterator;
    class ChunkRange;

    /// An array of `len` zeros. placement: "os" (default), "node:N", "interleaved",
    /// "interleaved:N,M", "replicated"; bits: 1..64, or 0 for automatic.
    explicit Array(std::size_t len, const std::string& placement = "os", std::uint32_t bits = 0) {
        detail::check(sa_array_new(len, detail::placement_text(placement), bits, &handle_));
    }

    /// A copy of `values[0..len]`; bits 0 picks the fewest bits that hold the largest value.
    static Array from_values(const std::uint64_t* values, std::size_t len, const std::string& placement = "os",
                             std::uint32_t bits = 0) {
        SaArray* handle = nullptr;
        detail::check(sa_array_from_u64(values, len, detail::placement_text(placement), bits, &handle));
        return Array(handle);
    }

    static Array from_values(const std::vector<std::uint64_t>& values, const std::string& placement = "os",
                             std::uint32_t bits = 0) {
        return from_values(values.data(), values.size(), placement, bits);
    }

    static Array from_values(std::initializer_list<std::uint64_t> values, const std::string& placement = "os",
                             std::uint32_t bits = 0) {
        return from_values(values.begin(), values.size(), placement, bits);
    }

    /// A copy of 32-bit values.
    static Array from_values(const std::vector<std::uint32_t>& values, const std::string& placement = "os",
                             std::uint32_t bits = 0) {
        SaArray* handle = nullptr;
        detail::check(sa_array_from_u32(values.data(), values.size(), detail::placement_text(placement), bits, &handle));
        return Array(handle);
    }

    /// Takes ownership of a handle from the C ABI (NULL is refused).
    static Array adopt(SaArray* handle) {
        if (handle == nullptr) {
            throw Error(SA_STATUS_NULL_POINTER, "cannot adopt a NULL array handle");
        }
        return Array(handle);
    }

    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    Array(Array&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    Array& operator=(Array&& other) noexcept {
        if (this != &other) {
            sa_array_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ~Array() { sa_array_free(handle_); }

    /// The C handle (still owned by this object; NULL after a move).
    const SaArray* handle() const noexcept { return handle_; }
    SaArray* handle() noexcept { return handle_; }
    /// Gives up ownership of the C handle (free it with sa_array_free).
    SaArray* release() noexcept { return std::exchange(handle_, nullptr); }

    std::size_t size() const { return query<std::size_t>(sa_array_len); }
    bool empty() const { return size() == 0; }
    /// Bits per value (1..64).
    std::uint32_t bits() const { return query<std::uint32_t>(sa_array_bits); }
    /// Whether values are stored uncompressed (64 bits), so they can be read in place.
    bool uncompressed() const { return bits() == 64; }
    std::size_t replica_count() const { return query<std::size_t>(sa_array_replica_count); }
    std::size_t memory_bytes() const { return query<std::size_t>(sa_array_memory_bytes); }
    std::size_t packed_bytes() const { return query<std::size_t>(sa_array_packed_bytes); }
    std::string placement() const { return text(sa_array_placement); }
    /// Where the pages are, as JSON (see sa_array_placement_report_json).
    std::string placement_report_json() const { return text(sa_array_placement_report_json); }
    std::string placement_report_text() const { return text(sa_array_placement_report_text); }

    /// Value `index`; throws Error (SA_STATUS_INDEX_OUT_OF_RANGE) past the end.
    std::uint64_t at(std::size_t index) const {
        std::uint64_t out = 0;
        detail::check(sa_array_get(handle_, index, &out));
        return out;
    }
    /// Same as at(): always checked.
    std::uint64_t operator[](std::size_t index) const { return at(index); }

    /// Sets value `index` in every copy; throws when it does not fit or is out of range.
    void set(std::size_t index, std::uint64_t value) { detail::check(sa_array_set(handle_, index, value)); }

    /// Decodes values start .. start + count into out.
    void unpack(std::size_t start, std::uint64_t* out, std::size_t count) const {
        detail::check(sa_array_unpack(handle_, start, out, count));
    }

    std::vector<std::uint64_t> to_vector() const {
        std::vector<std::uint64_t> out(size());
        unpack(0, out.data(), out.size());
        return out;
    }

    /// Wrapping sum of all values, in parallel.
    std::uint64_t sum() const { return query<std::uint64_t>(sa_array_sum); }
    /// Wrapping sum of values start .. end, on the calling thread.
    std::uint64_t sum(std::size_t start, std::size_t end) const {
        std::uint64_t out = 0;
        detail::check(sa_array_sum_range(handle_, start, end, &out));
        return out;
    }
    /// Smallest value (parallel); throws SA_STATUS_EMPTY_ARRAY when empty.
    std::uint64_t min() const { return query<std::uint64_t>(sa_array_min); }
    /// Largest value (parallel); throws SA_STATUS_EMPTY_ARRAY when empty.
    std::uint64_t max() const { return query<std::uint64_t>(sa_array_max); }

    /// For 64-bit arrays, the values in place (valid while the array lives; do not read while
    /// another thread calls set()). Throws SA_STATUS_NOT_UNCOMPRESSED for other widths.
    const std::uint64_t* raw_values() const {
        const std::uint64_t* out = nullptr;
        detail::check(sa_array_raw_values(handle_, &out));
        return out;
    }

    /// Calls visit(chunk) with consecutive Chunks covering start .. end (on this thread). If
    /// visit returns bool, false stops the visit. Exceptions thrown by visit are rethrown here.
    template <typename Visit>
    void for_each_chunk(Visit&& visit, std::size_t start = 0, std::size_t end = npos) const {
        if (end == npos) {
            end = size();
        }
        struct State {
            Visit* visit;
            std::exception_ptr error;
        } state{&visit, nullptr};
        auto trampoline = [](void* user, std::size_t first, const std::uint64_t* values, std::size_t count) -> std::int32_t {
            auto* s = static_cast<State*>(user);
            try {
                Chunk chunk(first, values, count);
                if constexpr (std::is_same_v<std::invoke_result_t<Visit&, const Chunk&>, bool>) {
                    return (*s->visit)(chunk) ? 0 : 1;
                } else {
                    (*s->visit)(chunk);
                    return 0;
                }
            } catch (...) {
                s->error = std::current_exception();
                return 1;
            }
        };
        SaStatus status = sa_array_for_each_chunk(handle_, start, end, trampoline, &state);
        if (state.error) {
            std::rethrow_exception(state.error);
        }
        if (status != SA_STATUS_STOPPED) {
            detail::check(status);
        }
    }

    /// Consecutive chunks of `window` values (the last may be shorter), for range-for:
    /// for (const Chunk& c : array.chunks()) ... Compressed arrays are decoded into a buffer
    /// owned by the range (valid until the next step); 64-bit arrays are read in place.
    ChunkRange chunks(std::size_t window = default_window) const;

    const_iterator begin() const;
    const_iterator end() const;
    const_iterator cbegin() const;
    const_iterator cend() const;

    /// Exports through the Arrow C Data Interface (zero-copy for 64-bit arrays); the caller
    /// releases both structs.
    void export_arrow(ArrowArray* out_array, ArrowSchema* out_schema) const {
        detail::check(sa_array_export_arrow(handle_, out_array, out_schema));
    }
    /// Exports an Arrow C stream of `chunk_values`-value uint64 arrays (0 = library default).
    void export_arrow_stream(ArrowArrayStream* out, std::size_t chunk_values = 0) const {
        detail::check(sa_array_export_arrow_stream(handle_, chunk_values, out));
    }

    static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

private:
    explicit Array(SaArray* handle) noexcept : handle_(handle) {}

    template <typename T, typename F>
    T query(F f) const {
        T out{};
        detail::check(f(handle_, &out));
        return out;
    }
    template <typename F>
    std::string text(F f) const {
        char* out = nullptr;
        detail::check(f(handle_, &out));
        return detail::take_string(out);
    }

    SaArray* handle_ = nullptr;
};

/// Forward iterator over an Array's values. Compressed arrays are decoded one window at a time
/// into a buffer (shared by copies, replaced on refill when shared, so copies stay independent);
/// 64-bit arrays are read in place. The array must outlive its iterators and not be set()
/// while they are used.
class Array::const_iterator {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::uint64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::uint64_t*;
    using reference = const std::uint64_t&;

    /// The end iterator (also what a default-constructed iterator is).
    const_iterator() = default;
    const_iterator(const const_iterator& other) noexcept
        : array_(other.array_), len_(other.len_), first_(other.first_), cur_(other.cur_), begin_(other.begin_), end_(other.end_),
          window_(other.window_) {
        retain();
    }
    /// Moving leaves `other` equal to end().
    const_iterator(const_iterator&& other) noexcept
        : array_(other.array_), len_(other.len_), first_(other.first_), cur_(std::exchange(other.cur_, nullptr)), begin_(other.begin_),
          end_(other.end_), window_(std::exchange(other.window_, nullptr)) {}
    const_iterator& operator=(const const_iterator& other) noexcept {
        if (this != &other) {
            const_iterator copy(other);
            swap(copy);
        }
        return *this;
    }
    const_iterator& operator=(const_iterator&& other) noexcept {
        swap(other);
        return *this;
    }
    ~const_iterator() { release(); }

    reference operator*() const noexcept { return *cur_; }
    pointer operator->() const noexcept { return cur_; }

    const_iterator& operator++() {
        if (++cur_ == end_) {
            next_window();
        }
        return *this;
    }
    const_iterator operator++(int) {
        const_iterator before = *this;
        ++*this;
        return before;
    }

    /// Position of the iterator (the array's length at the end).
    std::size_t index() const noexcept { return cur_ == nullptr ? len_ : first_ + static_cast<std::size_t>(cur_ - begin_); }

    friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept {
        if (a.cur_ == nullptr || b.cur_ == nullptr) {
            return a.cur_ == b.cur_;
        }
        return a.index() == b.index();
    }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) noexcept { return !(a == b); }

private:
    friend class Array;

    /// A decode buffer, reference-counted by the iterators that read it.
    struct Window {
        explicit Window(std::size_t size) : values(size) {}
        std::atomic<std::size_t> refs{1};
        std::vector<std::uint64_t> values;
    };

    /// Decodes values first .. first + count into `window` (or into a new window when other
    /// iterators still read it) and returns the window used. Kept out of line and given only
    /// values, so the iterator itself never escapes and stays in registers in loops.
    SMARTARRAYS_NOINLINE static Window* refill(const SaArray* array, std::size_t first, std::size_t count, Window* window) {
        if (window->refs.load(std::memory_order_acquire) != 1) {
            auto* fresh = new Window(window->values.size());
            if (window->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                delete window;
            }
            window = fresh;
        }
        SaStatus status = sa_array_unpack(array, first, window->values.data(), count);
        if (status != SA_STATUS_OK) {
            delete window;
            detail::check(status);
        }
        return window;
    }

    SMARTARRAYS_ALWAYS_INLINE const_iterator(const SaArray* array, std::size_t len, std::size_t window) : array_(array), len_(len) {
        if (len == 0) {
            return;
        }
        const std::uint64_t* raw = nullptr;
        if (sa_array_raw_values(array, &raw) == SA_STATUS_OK) {
            begin_ = cur_ = raw;
            end_ = raw + len;
            return;
        }
        window_ = new Window(window == 0 ? default_window : window);
        load(0);
    }

    SMARTARRAYS_ALWAYS_INLINE void load(std::size_t first) {
        std::size_t count = len_ - first < window_->values.size() ? len_ - first : window_->values.size();
        Window* used = refill(array_, first, count, window_);
        window_ = used;
        first_ = first;
        begin_ = cur_ = used->values.data();
        end_ = cur_ + count;
    }

    SMARTARRAYS_ALWAYS_INLINE void next_window() {
        std::size_t next = first_ + static_cast<std::size_t>(end_ - begin_);
        if (next >= len_ || window_ == nullptr) {
            cur_ = nullptr;  // the end
            return;
        }
        load(next);
    }

    void retain() noexcept {
        if (window_ != nullptr) {
            window_->refs.fetch_add(1, std::memory_order_relaxed);
        }
    }
    void release() noexcept {
        if (window_ != nullptr && window_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            delete window_;
        }
        window_ = nullptr;
    }
    void swap(const_iterator& other) noexcept {
        std::swap(array_, other.array_);
        std::swap(len_, other.len_);
        std::swap(first_, other.first_);
        std::swap(cur_, other.cur_);
        std::swap(begin_, other.begin_);
        std::swap(end_, other.end_);
        std::swap(window_, other.window_);
    }

    const SaArray* array_ = nullptr;
    std::size_t len_ = 0;
    std::size_t first_ = 0;               // index of begin_
    const std::uint64_t* cur_ = nullptr;  // NULL at the end
    const std::uint64_t* begin_ = nullptr;
    const std::uint64_t* end_ = nullptr;
    Window* window_ = nullptr;  // NULL for 64-bit arrays (read in place)
};

SMARTARRAYS_ALWAYS_INLINE Array::const_iterator Array::begin() const { return const_iterator(handle_, size(), default_window); }
inline Array::const_iterator Array::end() const {
    const_iterator it;
    it.len_ = size();
    return it;
}
inline Array::const_iterator Array::cbegin() const { return begin(); }
inline Array::const_iterator Array::cend() const { return end(); }

/// The chunks of an array as a range (see Array::chunks). Its iterator is an input iterator:
/// each step decodes the next window into the range's buffer.
class Array::ChunkRange {
public:
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = Chunk;
        using difference_type = std::ptrdiff_t;
        using pointer = const Chunk*;
        using reference = const Chunk&;

        reference operator*() const noexcept { return chunk_; }
        pointer operator->() const noexcept { return &chunk_; }
        iterator& operator++() {
            range_->load(chunk_.first() + chunk_.size(), chunk_);
            return *this;
        }
        void operator++(int) { ++*this; }
        // Chunks of one range are told apart by where they start (the end has no data).
        friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.chunk_.data() == nullptr || b.chunk_.data() == nullptr ? a.chunk_.data() == b.chunk_.data()
                                                                            : a.chunk_.first() == b.chunk_.first();
        }
        friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

    private:
        friend class ChunkRange;
        iterator(const ChunkRange* range, Chunk chunk) : range_(range), chunk_(chunk) {}
        const ChunkRange* range_;
        Chunk chunk_;
    };

    iterator begin() const {
        Chunk first;
        load(0, first);
        return iterator(this, first);
    }
    iterator end() const { return iterator(this, Chunk()); }

private:
    friend class Array;

    ChunkRange(const SaArray* array, std::size_t len, std::size_t window)
        : array_(array), len_(len), window_(window == 0 ? default_window : window) {
        if (sa_array_raw_values(array, &raw_) != SA_STATUS_OK) {
            raw_ = nullptr;
            buffer_.resize(window_);
        }
    }

    /// Sets `chunk` to the chunk starting at `first` (an empty chunk with NULL data at the end).
    void load(std::size_t first, Chunk& chunk) const {
        if (first >= len_) {
            chunk = Chunk(len_, nullptr, 0);
            return;
        }
        std::size_t count = len_ - first < window_ ? len_ - first : window_;
        if (raw_ != nullptr) {
            chunk = Chunk(first, raw_ + first, count);
        } else {
            detail::check(sa_array_unpack(array_, first, buffer_.data(), count));
            chunk = Chunk(first, buffer_.data(), count);
        }
    }

    const SaArray* array_;
    std::size_t len_;
    std::size_t window_;
    const std::uint64_t* raw_ = nullptr;
    mutable std::vector<std::uint64_t> buffer_;
};

inline Array::ChunkRange Array::chunks(std::size_t window) const { return ChunkRange(handle_, size(), window); }

/// An array of doubles with a NUMA placement, never compressed (move-only).
class F64Array {
public:
    explicit F64Array(std::size_t len, const std::string& placement = "os") {
        detail::check(sa_f64_array_new(len, detail::placement_text(placement), &handle_));
    }
    static F64Array from_values(const double* values, std::size_t len, const std::string& placement = "os") {
        SaF64Array* handle = nullptr;
        detail::check(sa_f64_array_from_f64(values, len, detail::placement_text(placement), &handle));
        return F64Array(handle);
    }
    static F64Array from_values(const std::vector<double>& values, const std::string& placement = "os") {
        return from_values(values.data(), values.size(), placement);
    }

    F64Array(const F64Array&) = delete;
    F64Array& operator=(const F64Array&) = delete;
    F64Array(F64Array&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    F64Array& operator=(F64Array&& other) noexcept {
        if (this != &other) {
            sa_f64_array_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ~F64Array() { sa_f64_array_free(handle_); }

    const SaF64Array* handle() const noexcept { return handle_; }

    std::size_t size() const {
        std::size_t out = 0;
        detail::check(sa_f64_array_len(handle_, &out));
        return out;
    }
    bool empty() const { return size() == 0; }
    double at(std::size_t index) const {
        double out = 0;
        detail::check(sa_f64_array_get(handle_, index, &out));
        return out;
    }
    double operator[](std::size_t index) const { return at(index); }
    void set(std::size_t index, double value) { detail::check(sa_f64_array_set(handle_, index, value)); }
    /// Sum in parallel (the last bits may vary with scheduling).
    double sum() const {
        double out = 0;
        detail::check(sa_f64_array_sum(handle_, &out));
        return out;
    }
    /// The values in place (the local copy); valid while the array lives and is not set().
    const double* data() const {
        const double* out = nullptr;
        detail::check(sa_f64_array_raw_values(handle_, &out));
        return out;
    }
    const double* begin() const { return data(); }
    const double* end() const { return data() + size(); }
    std::vector<double> to_vector() const { return std::vector<double>(begin(), end()); }
    void export_arrow(ArrowArray* out_array, ArrowSchema* out_schema) const {
        detail::check(sa_f64_array_export_arrow(handle_, out_array, out_schema));
    }

private:
    explicit F64Array(SaF64Array* handle) noexcept : handle_(handle) {}
    SaF64Array* handle_ = nullptr;
};

}  // namespace smartarrays

#endif  // SMARTARRAYS_SMARTARRAYS_HPP
