"""Coverage-guided fuzz target (atheris) for the Python constructors of smart arrays.

Each input is decoded with ``atheris.FuzzedDataProvider`` into one of the ways users build an
array (``smartarrays.array`` / ``SmartArray`` from numpy arrays of any dtype, shape and stride,
``bytes``, ``bytearray``, memoryviews of any format, ``array.array``, lists, tuples, ranges,
generators and other iterables of arbitrary Python objects, objects with ``__array__``, other
smart arrays, ``zeros`` and ``_from_packed``), with fuzzed ``placement``, ``bits``,
``compression`` and ``threads``; then into operations on the result (indexing, slices, fancy
indexes, ``set``, ``del``, reductions, numpy functions, pickling, copies, Arrow capsules).
Some inputs build a typed column instead (``smartarrays.column`` / ``Column`` from numpy arrays
of every supported and some unsupported dtype, masked arrays, object arrays and lists of fuzzed
elements, with fuzzed encoding names) and check decoding, sums, filters and ``take``; others
drive ``Map``, ``Set`` and ``Bag`` against a dict, a set and a ``collections.Counter``.

Every call must either give the right answer, checked against a plain Python/numpy reference
computed here, or raise one of the documented exception types (``TypeError``, ``ValueError``,
``IndexError``, ``OverflowError``, ``BufferError``, ``MemoryError`` for absurd sizes). Anything
else (a ``pyo3_runtime.PanicException``, a ``SystemError``, a wrong value, a crash) is a finding:
it raises ``Finding`` and atheris stores the input under the artifact prefix.

Native coverage: for ``make fuzz`` the extension is built with SanitizerCoverage (see
mk/fuzz.mk; ``make test-fuzz`` runs the plain release wheel, guided by Python coverage alone:
the harness's branches and the package's Python code, which atheris instruments); its
``__sanitizer_cov_*`` symbols must resolve against a libFuzzer that is already loaded, so the
harness loads atheris's built-in libFuzzer (``atheris.core_with_libfuzzer``) with
``RTLD_GLOBAL`` *before* importing smartarrays, and tells atheris to use that same copy.

Run (mk/fuzz.mk builds the venv and the extension: make test-fuzz, make fuzz):
    fuzz/.venv-python/bin/python fuzz/python/constructors.py [libFuzzer flags] CORPUS_DIR
Reproduce a finding, printing each call as it is made:
    SMARTARRAYS_FUZZ_TRACE=1 fuzz/.venv-python/bin/python fuzz/python/constructors.py CRASH_FILE
"""

from __future__ import annotations

import array as pyarray
import collections
import inspect
import math
import operator
import os
import pickle
import shlex
import struct
import sys
import warnings
from fractions import Fraction

# The instrumented extension needs libFuzzer's coverage callbacks when it is loaded: make
# atheris's own libFuzzer global first (Python loads extensions with RTLD_LOCAL by default).
_flags = sys.getdlopenflags()
sys.setdlopenflags(os.RTLD_NOW | os.RTLD_GLOBAL)
import atheris  # noqa: E402
import atheris.core_with_libfuzzer  # noqa: E402,F401

sys.setdlopenflags(_flags)

import numpy as np  # noqa: E402

# The package's Python code is instrumented too (and the harness's functions, in main).
with atheris.instrument_imports(include=["smartarrays"]):
    import smartarrays as sa  # noqa: E402
    from smartarrays import _native  # noqa: E402

ALLOWED = (TypeError, ValueError, IndexError, OverflowError, BufferError, MemoryError)
U64 = 1 << 64
MAX_LEN = 3000  # values per array: small, so that an input runs in about a millisecond
ABSURD = 1 << 40  # lengths at least this large cannot fit in memory at any width
NODES = [node["id"] for node in sa.topology()["nodes"]]
CPUS = sa.topology()["cpu_count"]
# SMARTARRAYS_FUZZ_TRACE=1 prints each call before it runs (to read what a crashing input does).
TRACE = bool(os.environ.get("SMARTARRAYS_FUZZ_TRACE"))
# numpy's reference answers warn about empty means and the like; the answers are what counts.
warnings.simplefilter("ignore")
# Once, before the timed inputs: start the default runtime's workers and the 2-worker runtime the
# inputs may ask for, and install the advisor (measured on first use, then cached), so that no
# input pays for them and every input meets the same process state.
sa.array([1], placement="auto", compression="auto").sum(threads=2)


class Finding(AssertionError):
    """A wrong answer or an exception outside the documented types."""


class Boom(Exception):
    """Raised by the harness's own objects: must reach the caller unchanged."""


# ---------------------------------------------------------------------------------------------
# Running a call: a result, an expected exception, or a finding.


def attempt(call, what=""):
    """(True, result) or (False, exception) for the allowed types and Boom; raises Finding for
    any other exception (PanicException derives from BaseException)."""
    if TRACE:
        print(f"call: {what or call}", file=sys.stderr, flush=True)
    try:
        return True, call()
    except (KeyboardInterrupt, SystemExit):
        raise
    except ALLOWED + (Boom,) as error:
        return False, error
    except BaseException as error:  # noqa: BLE001 - the point of the harness
        raise Finding(f"unexpected {type(error).__module__}.{type(error).__name__}: {error}") from error


def expect_error(what, ok, result, errors):
    if ok:
        raise Finding(f"{what}: expected one of {names(errors)}, got {summary(result)}")
    if not isinstance(result, errors):
        raise Finding(f"{what}: expected one of {names(errors)}, got {type(result).__name__}: {result}")


def expect_ok(what, ok, result):
    if not ok:
        raise Finding(f"{what}: expected a result, got {type(result).__name__}: {result}")
    return result


def names(errors):
    return "/".join(e.__name__ for e in errors)


def summary(value):
    try:
        text = repr(value)
    except Exception as error:  # noqa: BLE001 - numpy cannot print strings of invalid code points
        text = f"<{type(value).__name__}: repr failed with {type(error).__name__}>"
    return text if len(text) < 300 else text[:300] + "..."


def check(condition, message):
    if not condition:
        raise Finding(message() if callable(message) else message)


# ---------------------------------------------------------------------------------------------
# Reference parsers of the arguments (what the documentation promises).

# Rust's str::trim removes Unicode White_Space, which differs from Python's str.strip.
RUST_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


def rust_trim(text):
    return text.strip(RUST_WHITESPACE)


def ascii_lower(text):
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in text)


def rust_uint(text, limit):
    """Rust's `str::parse::<uN>()`: an optional '+' and ASCII digits, below `limit`."""
    body = text[1:] if text.startswith("+") else text
    if not body or any(c not in "0123456789" for c in body):
        return None
    value = int(body)
    return value if value < limit else None


def encodable(text):
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def placement_reference(placement):
    """('ok', canonical or 'auto') or ('error', exception types)."""
    if not isinstance(placement, str):
        return "error", (TypeError,)
    if not encodable(placement):
        return "error", (ValueError,)  # UnicodeEncodeError
    lower = ascii_lower(rust_trim(placement))
    kind, colon, argument = lower.partition(":")
    if not colon:
        table = {"os": "os", "default": "os", "os-default": "os", "single": "node:0",
                 "single-node": "node:0", "interleaved": "interleaved", "interleave": "interleaved",
                 "replicated": "replicated", "replicate": "replicated", "auto": "auto"}
        if kind in table:
            canonical = table[kind]
            if canonical == "node:0" and 0 not in NODES:
                return "error", (ValueError,)
            return "ok", canonical
        return "error", (ValueError,)
    if kind in ("node", "single", "single-node"):
        node = rust_uint(rust_trim(argument), U64)
        if node is None or node not in NODES:
            return "error", (ValueError,)
        return "ok", f"node:{node}"
    if kind in ("interleaved", "interleave"):
        nodes = [rust_uint(rust_trim(part), U64) for part in argument.split(",")]
        if any(node is None or node not in NODES for node in nodes):
            return "error", (ValueError,)
        return "ok", "interleaved:" + ",".join(map(str, nodes))
    return "error", (ValueError,)


def width_reference(value):
    """('ok', 'minimal' | 'uncompressed' | 'auto' | int) or ('error', exception types)."""
    if value is None:
        return "ok", "minimal"
    if isinstance(value, str):
        if not encodable(value):
            return "error", (ValueError,)
        word = ascii_lower(rust_trim(value))
        words = {"auto": "auto", "uncompressed": "uncompressed", "none": "uncompressed",
                 "natural": "uncompressed", "minimal": "minimal", "min": "minimal"}
        if word in words:
            return "ok", words[word]
        bits = rust_uint(word, 1 << 32)
        if bits is not None and 1 <= bits <= 64:
            return "ok", bits
        return "error", (ValueError,)
    try:
        bits = operator.index(value)
    except Exception:  # noqa: BLE001 - anything that is not an integer
        return "error", (TypeError,)
    if 1 <= bits <= 64:
        return "ok", bits
    return "error", (ValueError,)


def threads_reference(value):
    if value is None:
        return "ok", None
    try:
        threads = operator.index(value)
    except Exception:  # noqa: BLE001
        return "error", (TypeError,)
    if not -(1 << 63) <= threads < (1 << 63):
        return "error", (OverflowError,)
    if threads < 1 or threads > 64 * CPUS:
        return "error", (ValueError,)
    return "ok", threads


def bits_for(width, values):
    """The width an array of `values` gets, or None when `width` is too narrow (ValueError)."""
    needed = max(1, max(values, default=0).bit_length())
    if width == "minimal":
        return needed
    if width == "uncompressed":
        return 32 if needed <= 32 else 64
    if width == "auto":
        return "auto"
    return width if width >= needed else None


# ---------------------------------------------------------------------------------------------
# Decoding fuzzed values.

BOUNDARIES = [0, 1, 2, 3, 7, 8, 127, 128, 255, 256, 1 << 15, (1 << 16) - 1, 1 << 16, (1 << 31) - 1,
              1 << 31, (1 << 32) - 1, 1 << 32, 1 << 33, 1 << 53, (1 << 63) - 1, 1 << 63, U64 - 2,
              U64 - 1, U64, U64 + 1, 1 << 100, 1 << 128, 1 << 200]


def fuzz_int(fdp):
    mode = fdp.ConsumeIntInRange(0, 7)
    if mode == 0:
        return fdp.ConsumeIntInRange(0, 255)
    if mode == 1:
        return fdp.ConsumeUInt(4)
    if mode == 2:
        return fdp.ConsumeUInt(8)
    if mode == 3:
        return fdp.PickValueInList(BOUNDARIES) + fdp.ConsumeIntInRange(-2, 2)
    if mode == 4:
        return -fdp.PickValueInList(BOUNDARIES) - fdp.ConsumeIntInRange(0, 2)
    if mode == 5:
        return fdp.ConsumeInt(9)
    if mode == 6:
        return fdp.ConsumeUInt(17)
    return fdp.ConsumeIntInRange(0, 1 << 16)


def fuzz_text(fdp, words):
    mode = fdp.ConsumeIntInRange(0, 4)
    if mode == 0:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 12))
    if mode == 1:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    word = fdp.PickValueInList(words)
    if mode == 2:
        return word
    # Decorate a valid word: case, whitespace, a fuzzed suffix.
    pad = fdp.PickValueInList(["", " ", "\t", "\u3000", "\x1c", "\n "])
    word = word.upper() if fdp.ConsumeBool() else word
    return pad + word + pad + (fdp.ConsumeUnicodeNoSurrogates(2) if mode == 4 else "")


class Index:
    """An object with __index__ (like numpy integers), returning a fuzzed int or raising."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        if self.value is Boom:
            raise Boom("__index__")
        return self.value

    def __repr__(self):
        return f"Index({self.value!r})"


def fuzz_element(fdp):
    """One element of an iterable: mostly ints, sometimes anything a user might pass."""
    kind = fdp.ConsumeIntInRange(0, 15)
    if kind <= 8:
        return fuzz_int(fdp)
    if kind == 9:
        return fdp.ConsumeBool()
    if kind == 10:
        dtype = fdp.PickValueInList([np.uint8, np.int8, np.uint16, np.int32, np.int64, np.uint64])
        info = np.iinfo(dtype)
        return dtype(fdp.ConsumeIntInRange(int(info.min), int(info.max)))
    if kind == 11:
        return Index(fdp.PickValueInList([fuzz_int(fdp), Boom]))
    if kind == 12:
        return fdp.PickValueInList([1.0, 2.5, float("nan"), np.float64(3.0), Fraction(4, 1), complex(1, 0)])
    if kind == 13:
        return fdp.PickValueInList([None, "1", b"\x01", [1], (2,), object()])
    if kind == 14:
        return np.bool_(fdp.ConsumeBool())
    return fdp.ConsumeIntInRange(0, 1 << 20)


def element_reference(element):
    """The u64 an element must become, or the exception types it must raise."""
    if isinstance(element, np.bool_):
        # numpy refuses __index__ on booleans (TypeError), like any non-integer.
        try:
            operator.index(element)
        except TypeError:
            return (TypeError,)
    if isinstance(element, Index) and element.value is Boom:
        return (TypeError,)
    try:
        value = operator.index(element)
    except Exception:  # noqa: BLE001
        return (TypeError,)
    if 0 <= value < U64:
        return value
    return (ValueError,)


def stretch(items, fdp):
    """Repeats `items` up to a fuzzed length (arrays of several chunks from short inputs)."""
    if not items or not fdp.ConsumeBool():
        return items
    length = fdp.PickValueInList([63, 64, 65, 127, 1000, 1023, 1024, 1025, 2049, MAX_LEN])
    return (items * (length // len(items) + 1))[:length]


# ---------------------------------------------------------------------------------------------
# Values for a constructor: (object, reference) where the reference is a list of ints (what the
# array must hold) or a tuple of exception types (the build must raise one of them).

NUMPY_DTYPES = ["u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8", "?", "<u2", ">u2", "<i4", ">i4", ">u8",
                "<u8", ">i1", "|u1", "f2", "f4", "f8", "c8", "c16", "O", "U2", "S3", "V4", "M8[s]",
                "m8[ms]", "uintp", "intp", "longlong", "ulonglong"]


def numpy_reference(array):
    """What building from a numpy array must give (the buffer path's rules)."""
    dtype = array.dtype
    if dtype.kind in "iub":
        if dtype.byteorder == ">" and dtype.itemsize > 1:
            return (ValueError,)
        if array.ndim != 1:
            return (ValueError,)
        values = [int(v) for v in array.tolist()]
        if any(v < 0 for v in values):
            return (ValueError,)
        return values
    if dtype.kind in "fcO":
        # Zero dimensions: numpy exports no buffer, and asarray's answer has the wrong shape.
        return (TypeError,) if array.ndim else (TypeError, ValueError)
    # Strings, void and datetimes: TypeError for the buffer's format, or, where numpy exports no
    # buffer for them (datetimes, some string arrays), its ValueError or the binding's for the
    # dimensions of numpy.asarray's answer.
    return (TypeError, ValueError, BufferError)


def fuzz_numpy(fdp):
    dtype = np.dtype(fdp.PickValueInList(NUMPY_DTYPES))
    raw = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8) * dtype.itemsize)
    if dtype.kind == "O":
        elements = [fuzz_element(fdp) for _ in range(fdp.ConsumeIntInRange(0, 6))]
        base = np.empty(len(elements), dtype=object)
        for i, element in enumerate(elements):
            base[i] = element
    elif dtype.kind == "U":
        # Valid code points only (numpy itself fails on others).
        base = np.array([chr(32 + b * 97 % 0xD000) * 2 for b in raw[:8]], dtype=dtype)
    else:
        raw = raw[: len(raw) - len(raw) % dtype.itemsize]
        base = np.frombuffer(raw, dtype=dtype)
        if dtype.kind == "b" and fdp.ConsumeBool():
            base = base.view(np.uint8).astype(bool)  # only 0 and 1 bytes (raw ones may hold 2..255)
    if base.size and fdp.ConsumeBool():
        reps = fdp.PickValueInList([2, 7, 64, 129, MAX_LEN // max(1, base.size)])
        base = np.tile(base, max(1, min(reps, MAX_LEN // base.size)))
    view = fdp.ConsumeIntInRange(0, 11)
    if view == 0 and base.size:
        return base.copy()
    if view == 1:
        return base[:: fdp.ConsumeIntInRange(1, 5)]
    if view == 2:
        return base[::-1]
    if view == 3 and base.size:
        start, stop = fdp.ConsumeIntInRange(-base.size, base.size), fdp.ConsumeIntInRange(-base.size, base.size)
        return base[start:stop: fdp.PickValueInList([1, 2, 3, -1, -2])]
    if view == 4 and base.size >= 2 and base.size % 2 == 0:
        return base.reshape(2, -1)
    if view == 5 and base.size >= 2 and base.size % 2 == 0:
        return base.reshape(2, -1)[fdp.ConsumeIntInRange(0, 1)]
    if view == 6 and base.size >= 2 and base.size % 2 == 0:
        return base.reshape(-1, 2)[:, fdp.ConsumeIntInRange(0, 1)]  # a strided column
    if view == 7 and base.size:
        return np.asarray(base[fdp.ConsumeIntInRange(0, base.size - 1)])  # zero dimensions
    if view == 8 and dtype.kind != "O":
        # Misaligned: the elements start one byte into a buffer.
        shifted = np.frombuffer(b"\x00" + base.tobytes(), dtype=dtype, offset=1) if base.size else base
        return shifted
    if view == 9:
        copy = base.copy()
        copy.setflags(write=False)
        return copy
    if view == 10 and base.size:
        return np.empty((0,), dtype=dtype)
    return base


def fuzz_memoryview(fdp):
    fmt = fdp.PickValueInList(list("bBhHiIlLqQnNc?fdP"))
    size = struct.calcsize(fmt)
    raw = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 16) * size)
    raw = raw[: len(raw) - len(raw) % size]
    if raw and fdp.ConsumeBool():
        raw = raw * max(1, min(fdp.PickValueInList([3, 65, 1025]), MAX_LEN // (len(raw) // size)))
    source = bytearray(raw) if fdp.ConsumeBool() else bytes(raw)
    view = memoryview(source).cast(fmt)
    shape = fdp.ConsumeIntInRange(0, 3)
    if shape == 1:
        view = view[:: fdp.PickValueInList([2, 3, -1, -2])]
    elif shape == 2 and len(view) >= 2 and len(view) % 2 == 0:
        view = memoryview(source).cast(fmt, shape=[2, len(view) // 2])
    return view


def memoryview_reference(view):
    fmt = view.format
    if fmt in "fdP":
        return (TypeError,)
    if view.ndim != 1:
        return (ValueError,)
    values = view.tolist()
    if fmt == "c":
        values = [ord(v) for v in values]
    elif fmt == "?":
        values = [int(bool(v)) for v in values]
    if any(v < 0 for v in values):
        return (ValueError,)
    return values


def fuzz_pyarray(fdp):
    code = fdp.PickValueInList(list("bBhHiIlLqQfdu"))
    template = pyarray.array(code)
    raw = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 16) * template.itemsize)
    raw = raw[: len(raw) - len(raw) % template.itemsize]
    if code == "u":
        # Only valid code points can be stored.
        template.fromunicode("".join(chr(b % 0x2000 + 32) for b in raw[:8]))
    else:
        template.frombytes(raw)
    return template


def pyarray_reference(values):
    if values.typecode in "fdu":
        return (TypeError,)
    items = values.tolist()
    if any(v < 0 for v in items):
        return (ValueError,)
    return items


class Lenient:
    """A reference that also accepts a refusal: `errors` instead of the right `reference`."""

    def __init__(self, reference, errors):
        self.reference, self.errors = reference, errors


class LyingLength:
    """An iterable whose __len__ says something else than what it yields."""

    def __init__(self, items, length):
        self.items, self.length = items, length

    def __len__(self):
        if self.length is Boom:
            raise Boom("__len__")
        return self.length

    def __iter__(self):
        return iter(self.items)


class OldSequence:
    """The sequence protocol without __iter__: __getitem__ until IndexError."""

    def __init__(self, items):
        self.items = items

    def __getitem__(self, index):
        return self.items[index]


class ArrayLike:
    """An object with __array__ (pandas, pyarrow and friends), returning anything."""

    def __init__(self, result):
        self.result = result

    def __array__(self, dtype=None, copy=None):
        if self.result is Boom:
            raise Boom("__array__")
        return self.result


def iterable_reference(items):
    for element in items:
        reference = element_reference(element)
        if isinstance(reference, tuple):
            return reference
    return [element_reference(e) for e in items]


def boom_after(items, at):
    yield from items[:at]
    raise Boom("generator")


def fuzz_range(fdp):
    start = fdp.PickValueInList([0, 1, -1, -3, U64 - 3, 1 << 62]) + fdp.ConsumeIntInRange(0, 5)
    step = fdp.PickValueInList([1, 2, 3, -1, -7, 1 << 30])
    if fdp.ConsumeBool():
        stop = start + step * fdp.ConsumeIntInRange(0, MAX_LEN)
    else:
        stop = start + step * fdp.PickValueInList([ABSURD, 1 << 50, (1 << 63) - 2, 1 << 63, 1 << 70])
    return range(start, stop, step)


def fuzz_values(fdp):
    """(values, reference) for a constructor."""
    source = fdp.ConsumeIntInRange(0, 17)
    if source <= 2:
        array = fuzz_numpy(fdp)
        return array, numpy_reference(array)
    if source == 3:
        view = fuzz_memoryview(fdp)
        return view, memoryview_reference(view)
    if source == 4:
        raw = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64))
        raw = bytes(stretch(list(raw), fdp))
        return (bytearray(raw) if fdp.ConsumeBool() else raw), list(raw)
    if source == 5:
        values = fuzz_pyarray(fdp)
        return values, pyarray_reference(values)
    if source == 6:
        values = fuzz_range(fdp)
        if len(values[: MAX_LEN + 1]) > MAX_LEN:  # len() itself overflows past 2**63
            # Cannot be held: a memory error (or the first value that does not fit).
            return values, (MemoryError, ValueError, OverflowError)
        return values, iterable_reference(list(values))
    if source == 7:
        items = [fuzz_element(fdp) for _ in range(fdp.ConsumeIntInRange(0, 8))]
        length = fdp.PickValueInList([0, 1, len(items), len(items) + 5, ABSURD, 1 << 62, (1 << 63) - 1, 1 << 63, -1, Boom])
        reference = iterable_reference(items)
        if length is Boom or length < 0:
            # len() fails: the length is only a hint, so the values, or len()'s own error.
            return LyingLength(items, length), Lenient(reference, (Boom, ValueError))
        if length >= ABSURD:
            # A hint no memory can honour (list() refuses it too): the values, or a refusal.
            return LyingLength(items, length), Lenient(reference, (MemoryError, OverflowError))
        return LyingLength(items, length), reference
    if source == 8:
        items = [fuzz_element(fdp) for _ in range(fdp.ConsumeIntInRange(1, 8))]
        at = fdp.ConsumeIntInRange(0, len(items))
        before = iterable_reference(items[:at])
        return boom_after(items, at), (before if isinstance(before, tuple) else (Boom,))
    if source == 9:
        array = fuzz_numpy(fdp)
        result = fdp.PickValueInList([array, array, array.tolist() if array.dtype.kind != "V" else None, None, 5, Boom])
        if isinstance(result, np.ndarray):
            # numpy.asarray first: its dimensions are checked before its element type.
            return ArrayLike(result), (ValueError,) if result.ndim != 1 else numpy_reference(result)
        if result is Boom:
            return ArrayLike(result), (Boom,)
        return ArrayLike(result), (TypeError, ValueError)
    if source == 10:
        text = fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 8))
        return text, (TypeError,)
    if source == 11:
        return fdp.PickValueInList([None, 5, 2.5, object(), {1: 2}.values(), {"a": 1}]), "scalar"
    # Iterables of fuzzed elements in every container.
    items = stretch([fuzz_element(fdp) for _ in range(fdp.ConsumeIntInRange(0, 24))], fdp)
    container = fdp.ConsumeIntInRange(0, 6)
    if container == 0:
        return items, iterable_reference(items)
    if container == 1:
        return tuple(items), iterable_reference(items)
    if container == 2:
        return (x for x in items), iterable_reference(items)
    if container == 3:
        return iter(items), iterable_reference(items)
    if container == 4:
        return collections.deque(items), iterable_reference(items)
    if container == 5:
        hashable = [x for x in items if not isinstance(x, (list, np.generic, float)) and x == x]
        keys = dict.fromkeys(hashable)
        return keys, iterable_reference(list(keys))
    return OldSequence(items), iterable_reference(items)


def scalar_reference(values):
    """Values that are neither buffers nor iterables (or mappings of non-ints)."""
    if isinstance(values, dict):
        return iterable_reference(list(values))
    if isinstance(values, type({}.values())):
        return iterable_reference(list(values))
    return (TypeError,)


# ---------------------------------------------------------------------------------------------
# Arguments.

PLACEMENT_WORDS = ["os", "default", "os-default", "single", "single-node", "node:0", "node:1", "node: 0",
                   "node:+0", "node:-1", "node:18446744073709551615", "node:18446744073709551616",
                   "interleaved", "interleave", "interleaved:0", "interleaved:0,0", "interleaved:0,1",
                   "interleaved:", "interleaved:,", "replicated", "replicate", "auto", "AUTO", "Node:0"]
WIDTH_WORDS = ["minimal", "min", "uncompressed", "none", "natural", "auto", "1", "7", "33", "64", "+7",
               "0", "65", "-1", "4294967297", "wide", ""]


def fuzz_placement(fdp):
    mode = fdp.ConsumeIntInRange(0, 7)
    if mode == 0:
        return None
    if mode == 1:
        return fdp.PickValueInList([0, b"os", 1.5])
    if mode <= 3:
        return fdp.PickValueInList(["os", "interleaved", "replicated", "node:0"])
    return fuzz_text(fdp, PLACEMENT_WORDS)


def fuzz_width(fdp):
    mode = fdp.ConsumeIntInRange(0, 9)
    if mode <= 2:
        return None
    if mode == 3:
        return fdp.ConsumeIntInRange(1, 64)
    if mode == 4:
        return fdp.PickValueInList([0, 65, -1, 1 << 32, (1 << 32) + 5, 1 << 70, 1 << 127, 1 << 128, -(1 << 200), 1 << 200])
    if mode == 5:
        return fdp.PickValueInList([True, False, np.int64(5), np.uint8(70), Index(9), Index(Boom), 3.0, b"5", [8]])
    return fuzz_text(fdp, WIDTH_WORDS)


def fuzz_threads(fdp):
    mode = fdp.ConsumeIntInRange(0, 5)
    if mode <= 2:
        return None
    if mode == 3:
        return fdp.PickValueInList([1, 2])
    return fdp.PickValueInList([0, -1, -(1 << 63), -(1 << 63) - 1, 1 << 63, 10 ** 6, 64 * CPUS + 1, True, False, 2.0, "2", np.int8(2)])


# ---------------------------------------------------------------------------------------------
# Checks of a built array.


def check_array(a, values, bits, placement):
    """Everything observable about `a` against the reference `values`."""
    n = len(values)
    reference = np.array(values, dtype=np.uint64)
    check(len(a) == n and a.shape == (n,) and a.ndim == 1, lambda: f"length {len(a)} != {n}")
    check(a.dtype == np.dtype(np.uint64), "dtype")
    if bits == "auto":
        check(a.bits >= max(1, max(values, default=0).bit_length()), lambda: f"auto chose {a.bits} bits for {max(values, default=0)}")
    else:
        check(a.bits == bits, lambda: f"bits {a.bits} != {bits}")
    check(a.nbytes == (n * a.bits + 7) // 8, lambda: f"nbytes {a.nbytes} for {n} values of {a.bits} bits")
    decoded = a.to_numpy()
    check(decoded.dtype == np.uint64 and np.array_equal(decoded, reference),
          lambda: f"to_numpy {summary(decoded.tolist())} != {summary(values)}")
    check(a.tolist() == values, lambda: f"tolist {summary(a.tolist())} != {summary(values)}")
    if placement == "auto":
        check(a.placement != "auto" and placement_reference(a.placement)[0] == "ok", lambda: f"auto gave {a.placement!r}")
        check(a.advice is not None, "placement auto without advice")
    elif placement is not None:
        check(a.placement == placement, lambda: f"placement {a.placement!r} != {placement!r}")
    check(a.replicas >= 1 and a.memory_bytes >= 0 and a.threads >= 1, "replicas/memory/threads")
    repr(a)


def check_reductions(a, values, fdp):
    threads = fuzz_threads(fdp)
    kind, allowed = threads_reference(threads)
    n = len(values)
    for name in ("sum", "min", "max", "minmax", "mean", "count_nonzero"):
        ok, result = attempt(lambda: getattr(a, name)(threads=threads))
        what = f"{name}(threads={threads!r}) of {n} values"
        if kind == "error":
            expect_error(what, ok, result, allowed)
            continue
        if n == 0 and name in ("min", "max", "minmax", "mean"):
            expect_error(what, ok, result, (ValueError,))
            continue
        result = expect_ok(what, ok, result)
        expected = {
            "sum": lambda: sum(values) % U64,
            "min": lambda: min(values),
            "max": lambda: max(values),
            "minmax": lambda: (min(values), max(values)),
            "count_nonzero": lambda: sum(1 for v in values if v),
            "mean": lambda: sum(values) / n,
        }[name]()
        if name == "mean":
            check(math.isclose(result, expected, rel_tol=1e-12), lambda: f"{what}: {result} != {expected}")
        else:
            check(result == expected, lambda: f"{what}: {result!r} != {expected!r}")


NUMPY_FUNCTIONS = [np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.sort, np.cumsum, np.argmax, np.nonzero]
NUMPY_KWARGS = [{}, {"axis": 0}, {"axis": -1}, {"axis": None}, {"keepdims": True}, {"axis": 1}, {"dtype": np.float64}, {"out": None}]


def check_numpy_function(a, values, fdp):
    func = fdp.PickValueInList(NUMPY_FUNCTIONS)
    kwargs = fdp.PickValueInList(NUMPY_KWARGS)
    reference = np.array(values, dtype=np.uint64)
    what = f"np.{func.__name__}(a, **{kwargs})"
    ok_ref, expected = attempt(lambda: func(reference, **kwargs))
    ok, result = attempt(lambda: func(a, **kwargs))
    if not ok_ref:
        expect_error(what, ok, result, (type(expected),) + ALLOWED)
        return
    if not ok and isinstance(result, ALLOWED):
        raise Finding(f"{what}: numpy answers {summary(expected)}, the smart array raised {type(result).__name__}: {result}")
    if func is np.mean:
        check(np.allclose(result, expected, rtol=1e-9, equal_nan=True), lambda: f"{what}: {result} != {expected}")
    elif func is np.nonzero:
        check(all(np.array_equal(x, y) for x, y in zip(result, expected)), lambda: f"{what} differs")
    else:
        check(np.array_equal(np.asarray(result), np.asarray(expected)), lambda: f"{what}: {summary(result)} != {summary(expected)}")


def fuzz_key(fdp, n):
    """An index key of any kind: ints and integer-likes, slices, index lists and arrays, masks,
    and things that are no index at all."""
    kind = fdp.ConsumeIntInRange(0, 9)
    if kind <= 2:
        key = fdp.PickValueInList([fdp.ConsumeIntInRange(-n - 2, n + 2), fuzz_int(fdp)])
        wrap = fdp.ConsumeIntInRange(0, 5)
        if wrap == 1:
            return bool(key & 1)
        if wrap == 2 and -(1 << 63) <= key < 1 << 63:
            return np.int64(key)
        if wrap == 3 and 0 <= key < U64:
            return np.uint64(key)
        if wrap == 4:
            return Index(key)
        if wrap == 5 and -(1 << 63) <= key < 1 << 63:
            return np.array(key)  # zero dimensions: an integer, as for numpy and lists
        return key
    if kind <= 4:
        parts = [fdp.PickValueInList([None, fdp.ConsumeIntInRange(-n - 3, n + 3), fuzz_int(fdp), 0.5]) for _ in range(3)]
        return slice(*parts)
    if kind <= 6:
        count = fdp.ConsumeIntInRange(0, 12)
        positions = [fdp.PickValueInList([fdp.ConsumeIntInRange(-n - 2, n + 2), fuzz_int(fdp)]) for _ in range(count)]
        as_array = fdp.ConsumeIntInRange(0, 3)
        if as_array == 1 and all(-(1 << 63) <= p < 1 << 63 for p in positions):
            return np.array(positions, dtype=np.int64)
        if as_array == 2 and all(0 <= p < U64 for p in positions):
            return np.array(positions, dtype=np.uint64)
        return positions
    if kind == 7:
        length = fdp.PickValueInList([n, n, n + 1, max(0, n - 1)])
        mask = [fdp.ConsumeBool() for _ in range(min(length, 64))]
        mask = (mask * (length // max(1, len(mask)) + 1))[:length] if mask else [False] * length
        return np.array(mask, dtype=bool) if fdp.ConsumeBool() else mask
    if kind == 8:
        return fdp.PickValueInList([None, 1.0, "0", (0,), (0, 1), [[0]], {0}, np.float64(1.0), Ellipsis, np.array(1.0), b"0"])
    return fdp.PickValueInList([[0, [1]], [0.5], [None], [True, 1]])


def integer_key(key):
    """The int a key stands for when it is one (ints, bools, numpy integers, zero-dimensional
    integer arrays, objects with __index__ and no length), else None."""
    if isinstance(key, (str, bytes, float, slice, tuple, list, set)) or key is None:
        return None
    if isinstance(key, np.ndarray) and key.ndim != 0:
        return None
    try:
        return operator.index(key)
    except TypeError:
        return None


def sized(key):
    try:
        len(key)
        return True
    except TypeError:
        return False


def getitem_reference(key, n):
    """('int', i) | ('values', positions) | exception types: numpy's rules, except that None,
    floats, strings, bytes and tuples are refused (one-dimensional arrays, no new axes)."""
    if isinstance(key, slice):
        try:
            return "values", list(range(*key.indices(n)))
        except (TypeError, ValueError) as error:
            return (type(error),)
    index = integer_key(key)
    if index is not None:
        return ("int", index) if -n <= index < n else (IndexError,)
    if isinstance(key, (tuple, str, bytes, float)) or key is None:
        return (IndexError,)
    try:
        indices = np.asarray(key)
    except ValueError:
        return (ValueError, IndexError)
    if indices.ndim != 1:
        return (IndexError,)
    if indices.dtype.kind == "b":
        return ("values", list(np.flatnonzero(indices).tolist())) if len(indices) == n else (IndexError,)
    if len(indices) == 0:
        return "values", []
    if indices.dtype.kind not in "iu":
        return (IndexError,)
    positions = indices.tolist()
    if all(-n <= p < n for p in positions):
        return "values", [p % n for p in positions]
    return (IndexError,)


def check_getitem(a, values, fdp):
    n = len(values)
    key = fuzz_key(fdp, n)
    reference = getitem_reference(key, n)
    what = f"a[{summary(key)}] of {n} values"
    ok, result = attempt(lambda: a[key], what)
    if isinstance(reference[0], type):
        expect_error(what, ok, result, reference)
        return
    result = expect_ok(what, ok, result)
    kind, detail = reference
    if kind == "int":
        check(type(result) is int and result == values[detail], lambda: f"{what}: {result!r} != {values[detail]}")
        return
    expected = [values[p] for p in detail]
    check(isinstance(result, np.ndarray) and result.dtype == np.uint64 and result.tolist() == expected,
          lambda: f"{what}: {summary(result)} != {summary(expected)}")


def value_reference(value, bits):
    """The u64 `a[i] = value` writes, or the exception types it must raise."""
    element = element_reference(value)
    if isinstance(element, tuple):
        return element
    return element if element < 1 << bits else (ValueError,)


def timeout_reference(timeout):
    if timeout is None:
        return None
    if isinstance(timeout, str):
        return (TypeError,)
    if isinstance(timeout, int) and abs(timeout) >= 1 << 1024:
        return (OverflowError,)
    if not (timeout >= 0 and math.isfinite(timeout)):
        return (ValueError,)
    return None


def check_set(a, values, fdp):
    n = len(values)
    key = fuzz_key(fdp, n)
    value = fdp.PickValueInList([fuzz_int(fdp), fuzz_element(fdp), (1 << a.bits) - 1, 1 << a.bits, 0])
    timeout = fdp.PickValueInList([None, None, 0.0, 0.5, -1.0, float("nan"), float("inf"), 1e300, 9.3e18, 1e18, 10 ** 400, "1", 1])
    if not fdp.ConsumeBool():
        timeout = None
    what = f"a.set({summary(key)}, {summary(value)}, timeout={timeout!r}) of {n} values at {a.bits} bits"
    if timeout is not None:
        ok, result = attempt(lambda: a.set(key, value, timeout=timeout), what)
    else:
        ok, result = attempt(lambda: a.__setitem__(key, value), what)
    # Every way this call can fail, by argument (checked in any order); a good call writes one value.
    errors = ()
    index = integer_key(key)
    if index is None:
        if isinstance(key, slice) or (not isinstance(key, str) and sized(key)):
            errors += (TypeError,)  # slice and fancy assignment are not supported
        else:
            errors += (IndexError,)  # no index at all
    elif not -n <= index < n:
        errors += (IndexError,)
    written = value_reference(value, a.bits)
    if isinstance(written, tuple):
        errors += written
    errors += timeout_reference(timeout) or ()
    if errors:
        expect_error(what, ok, result, errors)
    else:
        expect_ok(what, ok, result)
        values[index] = written
    check(a.tolist() == values, lambda: f"{what}: the array holds {summary(a.tolist())}, expected {summary(values)}")


def check_delete(a, values, fdp):
    key = fuzz_key(fdp, len(values))
    ok, result = attempt(lambda: a.__delitem__(key))
    expect_error(f"del a[{summary(key)}]", ok, result, (TypeError,))
    check(a.tolist() == values, "del changed the array")


def check_pickle(a, values, fdp):
    protocol = fdp.ConsumeIntInRange(0, 5)
    buffers = []
    out_of_band = protocol == 5 and fdp.ConsumeBool()
    data = pickle.dumps(a, protocol=protocol, buffer_callback=buffers.append if out_of_band else None)
    b = pickle.loads(data, buffers=buffers)
    check(type(b) is sa.SmartArray and b.bits == a.bits and b.placement == a.placement and b.tolist() == values,
          lambda: f"pickle protocol {protocol}: {summary(b)} != {summary(a)}")


def check_copy(a, values, fdp):
    placement = fuzz_placement(fdp)
    width = fuzz_width(fdp)
    constructor = fdp.PickValueInList([sa.array, sa.SmartArray])
    built(lambda: constructor(a, placement="interleaved" if placement is None else placement, bits=width),
          values, "interleaved" if placement is None else placement, width, None, None, "copy")


def check_array_protocol(a, values, fdp):
    dtype = fdp.PickValueInList([None, np.uint64, np.int64, np.uint8, np.float64, np.bool_, object, "U5"])
    reference = np.array(values, dtype=np.uint64)
    ok, result = attempt(lambda: np.asarray(a, dtype=dtype))
    expected = reference if dtype is None else reference.astype(dtype)
    result = expect_ok(f"np.asarray(a, dtype={dtype})", ok, result)
    check(result.dtype == expected.dtype and np.array_equal(result, expected),
          lambda: f"np.asarray(a, dtype={dtype}): {summary(result)} != {summary(expected)}")
    ok, result = attempt(lambda: a.__array__(copy=False))
    expect_error("a.__array__(copy=False)", ok, result, (ValueError,))
    check(list(iter(a)) == values, "iteration differs")
    # Arrow capsules made and dropped unconsumed (their release callbacks), and the page report.
    expect_ok("arrow capsules", *attempt(lambda: (a.__arrow_c_schema__(), a.__arrow_c_array__(),
                                                   a.__arrow_c_stream__(chunk_values=fdp.ConsumeIntInRange(0, 70)))))
    report = expect_ok("placement_report()", *attempt(a.placement_report))
    check(report["placement"] == a.placement, "placement_report names another placement")


def check_from_packed(a, values, fdp):
    """Rebuilding from (fuzzed) packed words, as pickle does (its protocol-2 form sends
    `(header, packed bytes, placement)`; `_from_packed` takes the words without the header)."""
    words = np.frombuffer(a.__reduce_ex__(2)[1][1], dtype=np.uint64)
    length, bits = len(values), a.bits
    mode = fdp.ConsumeIntInRange(0, 5)
    if mode == 1:
        raw = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64))
        words = np.frombuffer(raw[: len(raw) - len(raw) % 8], dtype=np.uint64)
    elif mode == 2:
        length = fdp.PickValueInList([length + 1, max(0, length - 1), 0, ABSURD, 1 << 63, U64 - 1, -1, U64])
    elif mode == 3:
        bits = fdp.PickValueInList([0, 65, -1, 1 << 32, max(1, bits - 1), min(64, bits + 1)])
    elif mode == 4:
        words = fdp.PickValueInList([words.tobytes(), bytearray(words.tobytes()) + b"\x00", [1, 2], "ab", words.astype(np.uint32), words[::2]])
    placement = fdp.PickValueInList(["os", "interleaved", "replicated", "bogus", "auto"])
    what = f"_from_packed({summary(words)}, {length}, {bits}, {placement!r})"
    ok, result = attempt(lambda: _native._from_packed(words, length, bits, placement), what)
    errors = ()
    try:
        raw = memoryview(words).tobytes() if not isinstance(words, (list, str)) else None
    except (TypeError, ValueError):
        raw = None
    contiguous = not isinstance(words, np.ndarray) or words.flags.c_contiguous
    if raw is None or not contiguous or len(raw) % 8:
        errors += (TypeError, ValueError, BufferError)
    if not 0 <= length < U64 or not 0 <= bits < 1 << 32:
        errors += (OverflowError,)
    elif not 1 <= bits <= 64:
        errors += (ValueError,)
    elif length * bits >= U64:
        errors += (MemoryError, ValueError)
    elif raw is not None and len(raw) // 8 != -(-length * bits // 64):
        errors += (ValueError,)
    if placement == "bogus":
        errors += (ValueError,)
    if errors:
        expect_error(what, ok, result, errors)
        return
    b = expect_ok(what, ok, result)
    stream = int.from_bytes(raw, "little")
    mask = (1 << bits) - 1
    expected = [(stream >> (i * bits)) & mask for i in range(length)]
    check(b.bits == bits and b.tolist() == expected and b.sum(threads=1) == sum(expected) % U64,
          lambda: f"{what}: {summary(b.tolist())} != {summary(expected)}")


def check_zeros(fdp):
    length = fdp.PickValueInList([0, 1, 63, 64, 65, 1025, MAX_LEN, ABSURD, 1 << 60, (1 << 63) - 1, 1 << 63, U64 - 1, U64, -1])
    width = fuzz_width(fdp)
    placement = fdp.PickValueInList(["os", "interleaved", "replicated", "node:0", "auto", "bogus"])
    threads = fuzz_threads(fdp)
    what = f"zeros({length}, {width!r}, placement={placement!r}, threads={threads!r})"
    ok, result = attempt(lambda: sa.zeros(length, width, placement=placement, threads=threads), what)
    errors = ()
    if not 0 <= length < U64:
        errors += (OverflowError,)
    elif length >= ABSURD:
        errors += (MemoryError, ValueError)
    kind, detail = width_reference(width)
    if kind == "error":
        errors += detail
    elif not isinstance(detail, int):
        errors += (ValueError,)
    kind, where = placement_reference(placement)
    if kind == "error":
        errors += where
    kind, detail = threads_reference(threads)
    if kind == "error":
        errors += detail
    if errors:
        expect_error(what, ok, result, errors)
        return
    a = expect_ok(what, ok, result)
    check(a.bits == width_reference(width)[1] and len(a) == length and a.sum() == 0 and a.count_nonzero() == 0,
          lambda: f"{what}: {summary(a)}")
    check(a.placement == where if where != "auto" else a.placement != "auto", lambda: f"{what}: placement {a.placement}")


def check_table(fdp, arrays):
    names = [fdp.PickValueInList(["a", "b", "a", "", "\u00e9", 1]) for _ in arrays]
    columns = dict(zip(names, arrays))
    if fdp.ConsumeBool():
        columns[fdp.PickValueInList(["x", "y"])] = fdp.PickValueInList([[1, 2], np.arange(2), None])
    ok, result = attempt(lambda: sa.table(columns))
    good = (columns and all(isinstance(k, str) for k in columns) and all(isinstance(v, sa.SmartArray) for v in columns.values())
            and len({len(v) for v in columns.values()}) == 1)
    what = f"table({summary(columns)})"
    if not good:
        if columns:
            expect_error(what, ok, result, (TypeError, ValueError))
        return
    t = expect_ok(what, ok, result)
    check(t.columns == list(columns) and len(t) == len(next(iter(columns.values()))), lambda: f"{what}: {t.columns}")


# ---------------------------------------------------------------------------------------------
# Typed columns (smartarrays.column / Column): numpy arrays of every supported dtype from fuzzed
# bytes (every float bit pattern, NaT, out-of-range days), object arrays and lists of fuzzed
# elements (mixed types, None, surrogates), unsupported dtypes, fuzzed encoding names; then
# decoding, reductions, filters and take against numpy/Python references.

COLUMN_NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
COLUMN_UNSUPPORTED = ["complex64", "float16", "datetime64[s]", "timedelta64[D]", "S3", "V8"]
COLUMN_ENCODINGS = ["auto", "auto", "auto", "bitpacked", "frame", "dictionary", "run_end", "constant", "alp", "fsst", "bogus", ""]


def total_order(value):
    """The IEEE total-order key of a float64 (columns compare floats this way)."""
    bits = struct.unpack("<q", struct.pack("<d", value))[0]
    return bits ^ 0x7FFFFFFFFFFFFFFF if bits < 0 else bits


def widen_f32(value):
    """A float32 as the float64 a column gives back: the same value, and for a NaN the same
    payload at the top of the mantissa (numpy's cast would quiet a signaling NaN)."""
    bits = int(np.float32(value).view(np.uint32))
    if not math.isnan(value):
        return float(value)
    wide = ((bits >> 31) << 63) | (0x7FF << 52) | ((bits & 0x7FFFFF) << 29)
    return struct.unpack("<d", struct.pack("<Q", wide))[0]


def fuzz_column_input(fdp):
    """(values, expected list or exception types, kind): expected lists hold Python values
    (None for nulls; floats compared bit for bit through total_order)."""
    length = fdp.PickValueInList([0, 1, 2, 3, 63, 64, 65, 200, 1025])
    mode = fdp.ConsumeIntInRange(0, 9)
    if mode <= 3:
        dtype = np.dtype(fdp.PickValueInList(COLUMN_NUMERIC))
        raw = fdp.ConsumeBytes(length * dtype.itemsize)
        raw += bytes(length * dtype.itemsize - len(raw))
        values = np.frombuffer(raw, dtype=dtype)
        if fdp.ConsumeBool() and length:
            values = values[:: fdp.ConsumeIntInRange(1, 3)]
        items = [widen_f32(v) if dtype == np.float32 else v.item() for v in values]
        if fdp.ConsumeIntInRange(0, 3) == 0:
            mask = np.array([fdp.ConsumeBool() for _ in range(len(values))], dtype=bool)
            masked = np.ma.masked_array(values, mask=mask)
            return masked, [None if m else v for v, m in zip(items, mask)], dtype.kind
        return values, items, dtype.kind
    if mode == 4:
        values = np.array([fdp.ConsumeBool() for _ in range(length)], dtype=bool)
        return values, values.tolist(), "b"
    if mode == 5:
        days = [fdp.PickValueInList([0, -1, 19000, (1 << 31) - 1, -(1 << 31), 1 << 31, fdp.ConsumeInt(8)]) for _ in range(length)]
        days = [d if -(1 << 63) <= d < (1 << 63) else 0 for d in days]
        values = np.array(days, dtype=np.int64).view("datetime64[D]")
        nat = -(1 << 63)
        if any(d != nat and not -(1 << 31) <= d < (1 << 31) for d in days):
            return values, (ValueError,), "M"
        return values, [None if d == nat else np.datetime64(d, "D") for d in days], "M"
    if mode == 6:
        words = [fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 6)) for _ in range(min(length, 200))]
        if fdp.ConsumeBool():
            clean = [w.rstrip("\x00") for w in words]
            values = np.array(clean, dtype=str) if clean else np.array([], dtype="<U1")
            words = values.tolist()
        else:
            values = np.array([None if fdp.ConsumeIntInRange(0, 5) == 0 else w for w in words], dtype=object)
            words = values.tolist()
        if any(w is not None and not encodable(w) for w in words):
            return values, (ValueError,), "U"
        return values, words, "U"
    if mode == 7:
        dtype = fdp.PickValueInList(COLUMN_UNSUPPORTED)
        return np.zeros(length, dtype=dtype), (TypeError,), "x"
    # Objects: lists and object arrays of fuzzed elements (ints, bools, floats, None, junk).
    items = [fuzz_element(fdp) for _ in range(fdp.ConsumeIntInRange(0, 40))]
    values = items if mode == 8 else np.array(items + [None], dtype=object)[:-1]
    return values, None, "o"


def column_reference(items):
    """For object input: the expected list, or exception types (a lenient reference: the kinds
    the binding distinguishes)."""
    kinds = set()
    for item in items:
        if item is None:
            continue
        if isinstance(item, str):
            kinds.add("str")
        elif isinstance(item, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(item, (int, np.integer)):
            kinds.add("int")
        elif isinstance(item, (float, np.floating)):
            kinds.add("float")
        else:
            return (TypeError,)
    if len(kinds) > 1:
        return (TypeError,)
    if not kinds:
        return [None] * len(items)  # only None (or nothing, in an object array): a string column
    if kinds == {"int"}:
        present = [int(i) for i in items if i is not None]
        if not (min(present) >= -(1 << 63) and max(present) < (1 << 63)) and not (min(present) >= 0 and max(present) < U64):
            return (ValueError,)
        return [None if i is None else int(i) for i in items]
    if kinds == {"bool"}:
        return [None if i is None else bool(i) for i in items]
    if kinds == {"float"}:
        return [None if i is None else float(i) for i in items]
    return [None if i is None else i for i in items]


def same_value(got, expected):
    if isinstance(expected, float):
        return isinstance(got, float) and total_order(got) == total_order(expected)
    if isinstance(expected, np.datetime64):
        return isinstance(got, np.datetime64) and got == expected
    return got == expected and type(got) is type(expected)


def check_column(fdp):
    values, expected, kind = fuzz_column_input(fdp)
    if expected is None:
        expected = column_reference(values if isinstance(values, list) else values.tolist())
        if isinstance(values, list) and not values and not isinstance(expected, tuple):
            expected = (TypeError,)
    encoding = fdp.PickValueInList(COLUMN_ENCODINGS)
    placement = fdp.PickValueInList(["interleaved", "os", "replicated", "node:0"])
    constructor = fdp.PickValueInList([sa.column, sa.Column])
    what = f"column({summary(values)}, encoding={encoding!r}, placement={placement!r})"
    ok, result = attempt(lambda: constructor(values, encoding=encoding, placement=placement), what)
    errors = expected if isinstance(expected, tuple) else ()
    if encoding not in ("auto",) and not errors:
        # A named encoding may not apply to the type or the data: a ValueError or TypeError.
        if not ok and isinstance(result, (ValueError, TypeError)):
            return
    if errors:
        expect_error(what, ok, result, errors + ((ValueError,) if encoding != "auto" else ()))
        return
    c = expect_ok(what, ok, result)
    got = c.tolist()
    check(len(c) == len(expected) and len(got) == len(expected), lambda: f"{what}: length {len(c)} != {len(expected)}")
    check(all(same_value(g, e) for g, e in zip(got, expected)), lambda: f"{what}: {summary(got)} != {summary(expected)}")
    out = c.to_numpy()
    check(out.dtype == c.dtype and len(out) == len(expected), lambda: f"{what}: to_numpy dtype {out.dtype} vs {c.dtype}")
    valid = [e for e in expected if e is not None]
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        operation = fdp.ConsumeIntInRange(0, 4)
        if operation == 0:
            ok, total = attempt(c.sum, f"{what}.sum()")
            if kind in ("M", "U") or (valid and isinstance(valid[0], (str, np.datetime64))) or (not valid and c.dtype.kind in "OM"):
                expect_error(f"{what}.sum()", ok, total, (TypeError,))
                continue
            total = expect_ok(f"{what}.sum()", ok, total)
            if valid and isinstance(valid[0], float):
                reference = 0.0
                for v in valid:
                    reference += v
                check(isinstance(total, float) and (total == reference or (total != total and reference != reference)),
                      lambda: f"{what}.sum(): {total} != {reference}")
            else:
                check(total == sum(int(v) for v in valid), lambda: f"{what}.sum(): {total}")
        elif operation == 1 and valid:
            probe = valid[fdp.ConsumeIntInRange(0, len(valid) - 1)]
            rows = c.equal(probe).tolist()
            reference = [i for i, e in enumerate(expected) if e is not None and same_value(e, probe)]
            check(rows == reference, lambda: f"{what}.equal({probe!r}): {rows} != {reference}")
        elif operation == 2 and valid and not isinstance(valid[0], (str, np.datetime64, bool)):
            low, high = sorted((valid[fdp.ConsumeIntInRange(0, len(valid) - 1)], valid[fdp.ConsumeIntInRange(0, len(valid) - 1)]),
                               key=lambda v: total_order(v) if isinstance(v, float) else v)
            key = (lambda v: total_order(v)) if isinstance(low, float) else (lambda v: v)
            rows = c.between(low, high, mask=True).tolist()
            reference = [e is not None and key(low) <= key(e) <= key(high) for e in expected]
            check(rows == reference, lambda: f"{what}.between({low!r}, {high!r})")
        elif operation == 3:
            indices = [fdp.ConsumeIntInRange(-len(expected) - 2, len(expected) + 1) for _ in range(fdp.ConsumeIntInRange(0, 5))]
            ok, taken = attempt(lambda: c.take(indices), f"{what}.take({indices})")
            if any(not -len(expected) <= i < len(expected) for i in indices):
                expect_error(f"{what}.take({indices})", ok, taken, (IndexError,))
            else:
                taken = expect_ok(f"{what}.take({indices})", ok, taken)
                check(len(taken) == len(indices), lambda: f"{what}.take: {len(taken)}")
        else:
            stats = c.statistics()
            check(stats["null_count"] == len(expected) - len(valid), lambda: f"{what}: statistics {stats}")


# ---------------------------------------------------------------------------------------------
# Collections (smartarrays.Map, Set, Bag) against a dict and a Counter.


def fuzz_keys(fdp, count):
    return [fdp.PickValueInList([fuzz_int(fdp), fdp.ConsumeIntInRange(-3, 3)]) for _ in range(count)]


def fits(value, dtype):
    return 0 <= value < U64 if dtype == "uint64" else -(1 << 63) <= value < (1 << 63)


def as_array(items, dtype):
    """The keys as a numpy array of the collection's dtype, or the list when they do not fit."""
    try:
        return np.array(items, dtype=dtype)
    except OverflowError:
        return items


def check_collections(fdp):
    dtype = fdp.PickValueInList(["uint64", "int64"])
    other = fdp.PickValueInList(["uint64", "int64"])
    keys = fuzz_keys(fdp, fdp.ConsumeIntInRange(0, 60))
    values = fuzz_keys(fdp, len(keys))
    which = fdp.ConsumeIntInRange(0, 2)
    threads = fdp.PickValueInList([None, 1, 2])
    keys_fit = all(fits(k, dtype) for k in keys)
    if which == 0:
        what = f"Bag.count({summary(keys)}, dtype={dtype})"
        ok, bag = attempt(lambda: sa.Bag.count(as_array(keys, dtype) if keys_fit else keys, dtype=dtype, threads=threads), what)
        if not keys_fit:
            expect_error(what, ok, bag, (ValueError, TypeError, OverflowError))
            return
        bag = expect_ok(what, ok, bag)
        reference = collections.Counter(keys)
        got = dict(zip(bag.items()[0].tolist(), bag.items()[1].tolist()))
        check(got == dict(reference), lambda: f"{what}: {summary(got)} != {summary(dict(reference))}")
        more = fuzz_keys(fdp, fdp.ConsumeIntInRange(0, 10))
        ok, result = attempt(lambda: bag.add_many(more), f"{what}.add_many({more})")
        if all(fits(k, dtype) for k in more):
            expect_ok(f"{what}.add_many", ok, result)
            reference.update(more)
            check(all(bag[k] == reference[k] for k in more), lambda: f"{what}.add_many: counts differ")
        else:
            expect_error(f"{what}.add_many", ok, result, (ValueError, TypeError, OverflowError))
        return
    if which == 1:
        what = f"Set({summary(keys)}, dtype={dtype})"
        ok, s = attempt(lambda: sa.Set(keys, dtype=dtype, threads=threads), what)
        if not keys_fit:
            expect_error(what, ok, s, (ValueError, TypeError, OverflowError))
            return
        s = expect_ok(what, ok, s)
        check(s.to_numpy().tolist() == sorted(set(keys)), lambda: f"{what}: {summary(s.to_numpy())}")
        probe = fuzz_int(fdp)
        check((probe in s) == (probe in set(keys)), lambda: f"{what}: {probe} in set")
        return
    combine = fdp.PickValueInList(["sum", "min", "max", "replace", "avg"])
    what = f"Map(key_dtype={dtype}, value_dtype={other}).upsert_many({summary(keys)}, {summary(values)}, {combine!r})"
    m = sa.Map(key_dtype=dtype, value_dtype=other)
    ok, result = attempt(lambda: m.upsert_many(keys, values, combine=combine), what)
    if combine == "avg" or not keys_fit or not all(fits(v, other) for v in values):
        expect_error(what, ok, result, (ValueError, TypeError, OverflowError))
        check(len(m) == 0, lambda: f"{what}: a refused batch changed the map")
        return
    reference, overflow = {}, False
    for k, v in zip(keys, values):
        if k not in reference:
            reference[k] = v
            continue
        old = reference[k]
        new = {"sum": old + v, "min": min(old, v), "max": max(old, v), "replace": v}[combine]
        if fits(new, other):
            reference[k] = new
        else:
            overflow = True
    if overflow:
        expect_error(what, ok, result, (OverflowError,))
    else:
        expect_ok(what, ok, result)
    got = dict(zip(m.items()[0].tolist(), m.items()[1].tolist()))
    check(got == reference, lambda: f"{what}: {summary(got)} != {summary(reference)}")
    probes = fuzz_keys(fdp, fdp.ConsumeIntInRange(0, 8))
    if all(fits(p, dtype) for p in probes):
        found_values, found = m.get_many(as_array(probes, dtype))
        check(found.tolist() == [p in reference for p in probes], lambda: f"{what}: get_many({probes})")
        check([int(v) for v, f in zip(found_values, found) if f] == [reference[p] for p in probes if p in reference],
              lambda: f"{what}: get_many values")


# ---------------------------------------------------------------------------------------------
# One input.


def built(call, values, placement, width, threads, compression, what, values_shown=None):
    """Runs a constructor call and checks it against the references; returns the array or None."""
    what = f"{what}(placement={placement!r}, bits={width!r}, threads={threads!r}, compression={compression!r})"
    ok, result = attempt(call, f"{what} of {summary(values_shown)}")
    errors = ()
    p_kind, p_detail = placement_reference(placement)
    if p_kind == "error":
        errors += p_detail
    given = [w for w in (width, compression) if w is not None]
    w_kind, w_detail = width_reference(given[0] if given else None)
    if len(given) == 2:
        errors += (ValueError,)
    elif w_kind == "error":
        errors += w_detail
    t_kind, t_detail = threads_reference(threads)
    if t_kind == "error":
        errors += t_detail
    refusals = ()
    if isinstance(values, Lenient):
        values, refusals = values.reference, values.errors
    if isinstance(values, tuple):
        errors += values
    elif not errors and bits_for(w_detail, values) is None:
        errors += (ValueError,)
    if errors:
        expect_error(what, ok, result, errors + refusals)
        return None
    if not ok and isinstance(result, refusals):
        return None
    a = expect_ok(what, ok, result)
    check_array(a, values, bits_for(w_detail, values), p_detail)
    return a


def test_one_input(data):
    fdp = atheris.FuzzedDataProvider(data)
    first = fdp.ConsumeIntInRange(0, 15)
    if first == 0:
        check_zeros(fdp)
        return
    if first in (1, 2):
        check_column(fdp)
        return
    if first == 3:
        check_collections(fdp)
        return
    values, reference = fuzz_values(fdp)
    if isinstance(reference, str):
        reference = scalar_reference(values)
    placement = fuzz_placement(fdp)
    width = fuzz_width(fdp)
    compression = fuzz_width(fdp) if fdp.ConsumeIntInRange(0, 3) == 0 else None
    threads = fuzz_threads(fdp)
    kwargs = {"bits": width, "threads": threads, "compression": compression}
    if placement is not None:
        kwargs["placement"] = placement
    constructor = fdp.PickValueInList([sa.array, sa.SmartArray])
    a = built(lambda: constructor(values, **kwargs), reference, "interleaved" if placement is None else placement,
              width, threads, compression, constructor.__name__, values)
    if a is None:
        return
    values = a.tolist()  # the reference from here on (checked equal above)
    for _ in range(fdp.ConsumeIntInRange(0, 6)):
        operation = fdp.ConsumeIntInRange(0, 10)
        if operation == 0:
            check_reductions(a, values, fdp)
        elif operation == 1:
            check_getitem(a, values, fdp)
        elif operation == 2:
            check_set(a, values, fdp)
        elif operation == 3:
            check_pickle(a, values, fdp)
        elif operation == 4:
            check_copy(a, values, fdp)
        elif operation == 5:
            check_array_protocol(a, values, fdp)
        elif operation == 6:
            check_from_packed(a, values, fdp)
        elif operation == 7:
            check_numpy_function(a, values, fdp)
        elif operation == 8:
            check_delete(a, values, fdp)
        elif operation == 9:
            check_table(fdp, [a, sa.array(values[: fdp.ConsumeIntInRange(0, len(values))])])
        else:
            check_getitem(a, values, fdp)


def main():
    # libFuzzer runs argv[0] through the shell for -merge=1 (and -fork): make it this
    # interpreter and this script, so that works however the harness was started.
    command = f"{shlex.quote(sys.executable)} {shlex.quote(os.path.abspath(__file__))}"
    # The harness's own branches (which constructor, which operation, which edge case) guide the
    # fuzzer too: alone when the extension is the plain release wheel (make test-fuzz), beside
    # the extension's counters when it is instrumented.
    for value in list(globals().values()):
        if inspect.isfunction(value) and value.__module__ == __name__ and value is not main:
            atheris.instrument_func(value)
    atheris.Setup([command] + sys.argv[1:], test_one_input, internal_libfuzzer=True)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
