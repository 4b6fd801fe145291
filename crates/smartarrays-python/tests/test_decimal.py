"""Exact decimal columns: decimal.Decimal sequences and Arrow decimal arrays in, Decimal objects,
object arrays and decimal128 Arrow arrays out, exact sums and filters, all checked against
Python's decimal module; every refusal is a clear error naming the value."""

import decimal
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smartarrays as sa
from conftest import EDGE_LENGTHS

pa = pytest.importorskip("pyarrow")

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
ENCODINGS = ["bitpacked", "frame", "dictionary", "run_end"]

# Unscaled values anywhere in int64, often right at (or next to) its limits.
UNSCALED = st.one_of(
    st.integers(I64_MIN, I64_MAX),
    st.sampled_from([I64_MIN, I64_MIN + 1, -1, 0, 1, I64_MAX - 1, I64_MAX]),
    st.integers(-1000, 1000),
)


def dec(unscaled: int, scale: int) -> Decimal:
    """unscaled / 10**scale, exactly, with exponent -scale."""
    return Decimal(f"{unscaled}E-{scale}")


def at_scale(value: Decimal, scale: int) -> Decimal:
    """`value` written with `scale` digits after the point (exact: the test values fit)."""
    with decimal.localcontext(decimal.Context(prec=80, traps=[decimal.Inexact])):
        return value.quantize(Decimal(1).scaleb(-scale))


def exact_sum(values: list[Decimal | None]) -> Decimal:
    with decimal.localcontext(decimal.Context(prec=80, traps=[decimal.Inexact])):
        return sum((v for v in values if v is not None), Decimal(0))


def check_column(column: sa.Column, expected: list[Decimal | None], scale: int) -> None:
    """Every way out of `column` gives `expected` at `scale`, digit for digit."""
    want = [None if v is None else at_scale(v, scale) for v in expected]
    assert len(column) == len(want)
    assert column.scale == scale
    assert column.dtype == np.dtype(object)
    assert column.null_count == sum(v is None for v in want)
    got = column.tolist()
    assert [None if v is None else str(v) for v in got] == [None if v is None else str(v) for v in want]
    assert all(v is None or isinstance(v, Decimal) for v in got)
    array = column.to_numpy()
    assert array.dtype == np.dtype(object) and not isinstance(array, np.ma.MaskedArray)
    assert array.tolist() == want
    for i in {0, len(want) // 2, len(want) - 1} if want else set():
        assert column[i] == want[i] and (want[i] is None or str(column[i]) == str(want[i]))
    total = column.sum()
    assert isinstance(total, Decimal) and total == exact_sum(want)
    assert str(total) == str(at_scale(total, scale))
    present = [v for v in want if v is not None]
    if present:
        assert column.min() == min(present) and column.max() == max(present)
        assert str(column.min()) == str(min(present))
    else:
        with pytest.raises(ValueError, match="without valid values"):
            column.min()
    arrow = pa.array(column)
    assert arrow.type == pa.decimal128(38, scale)
    assert arrow.to_pylist() == want


# ----------------------------------------------------------------------------------------------
# Round trips


@given(
    scale=st.integers(0, 18),
    values=st.lists(st.one_of(st.none(), UNSCALED), max_size=80),
)
def test_decimals_round_trip_exactly(scale: int, values: list[int | None]) -> None:
    expected = [None if v is None else dec(v, scale) for v in values]
    if not values or all(v is None for v in values):
        return  # no type to tell (None-only sequences are string columns)
    check_column(sa.column(expected), expected, scale)


@given(values=st.lists(st.tuples(st.integers(-(10**6), 10**6), st.integers(0, 12)), min_size=1, max_size=40))
def test_mixed_scales_rescale_to_the_largest(values: list[tuple[int, int]]) -> None:
    decimals = [dec(u, s) for u, s in values]
    scale = max(s for _, s in values)
    column = sa.column(decimals)
    check_column(column, decimals, scale)


@pytest.mark.parametrize("length", EDGE_LENGTHS)
def test_edge_lengths_with_nulls_and_limits(length: int) -> None:
    rng = np.random.default_rng(length)
    scale = 4
    unscaled = [int(v) for v in rng.integers(I64_MIN, I64_MAX, size=length, endpoint=True)]
    if length:
        unscaled[0], unscaled[-1] = I64_MIN, I64_MAX
    values: list[Decimal | None] = [dec(u, scale) for u in unscaled]
    for i in range(1, length, 7):
        values[i] = None
    if length == 0:
        column = sa.column(pa.array([], type=pa.decimal128(19, scale)))
    else:
        column = sa.column(values)
    check_column(column, values, scale)
    # Arrow in, at the same scale, gives the same column; so do chunks and object arrays.
    arrow_in = sa.column(pa.array(values, type=pa.decimal128(38, scale)))
    check_column(arrow_in, values, scale)
    if length:
        chunked = pa.chunked_array([values[: length // 2], values[length // 2 :]], type=pa.decimal128(38, scale))
        check_column(sa.column(chunked), values, scale)
        check_column(sa.column(np.array(values, dtype=object)), values, scale)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_integer_encoding_holds_decimals(encoding: str) -> None:
    values = [dec(v, 2) for v in [105, 105, -3, 99999, 105, 0, -3]]
    column = sa.column(values, encoding=encoding)
    assert column.encoding == encoding
    check_column(column, values, 2)


def test_sum_leaves_int64_exactly() -> None:
    values = [dec(I64_MAX, 18)] * 5 + [dec(1, 18)]
    total = sa.column(values).sum()
    assert total == Decimal(5 * I64_MAX + 1).scaleb(-18, decimal.Context(prec=60))
    assert str(total) == "46.116860184273879036"


def test_readme_style_values() -> None:
    prices = sa.column([Decimal("19.99"), Decimal("5"), None, Decimal("0.005")])
    assert prices.scale == 3
    assert prices.tolist() == [Decimal("19.990"), Decimal("5.000"), None, Decimal("0.005")]
    assert str(prices.sum()) == "24.995"
    assert np.asarray(prices).tolist() == prices.tolist()
    stats = prices.statistics()
    assert stats["min"] == Decimal("0.005") and stats["max"] == Decimal("19.99")
    assert repr(prices).startswith("Column(len=4, dtype=object")
    assert prices[1:3].tolist() == [Decimal("5.000"), None]
    assert prices.take([3, 0]).tolist() == [Decimal("0.005"), Decimal("19.990")]


def test_non_decimal_columns_have_no_scale() -> None:
    assert sa.column(np.arange(3)).scale is None
    assert sa.column(["a"]).scale is None


# ----------------------------------------------------------------------------------------------
# Arrow


@pytest.mark.parametrize("make", ["decimal32", "decimal64", "decimal128"])
def test_arrow_decimal_widths(make: str) -> None:
    if not hasattr(pa, make):
        pytest.skip(f"this pyarrow has no {make}")
    precision = {"decimal32": 9, "decimal64": 18, "decimal128": 38}[make]
    values = [Decimal("-1234.567"), None, Decimal("0.001"), Decimal("999999.999")]
    wide = pa.array(values, type=pa.decimal128(20, 3))
    try:
        array = wide.cast(getattr(pa, make)(precision if make != "decimal128" else 20, 3))
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
        pytest.skip(f"this pyarrow casts no decimal128 to {make}")
    assert array.type == getattr(pa, make)(precision if make != "decimal128" else 20, 3)
    column = sa.column(array)
    check_column(column, values, 3)


def test_arrow_decimal128_limits_and_scale_18() -> None:
    values = [dec(I64_MIN, 18), dec(I64_MAX, 18), None, dec(0, 18)]
    column = sa.column(pa.array(values, type=pa.decimal128(38, 18)))
    check_column(column, values, 18)
    back = pa.array(column)
    assert back.equals(pa.array(values, type=pa.decimal128(38, 18)))


def test_arrow_negative_scale_is_rescaled_to_zero() -> None:
    try:
        array = pa.array([Decimal("1E+3"), Decimal("-5E+2"), None], type=pa.decimal128(5, -2))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        pytest.skip("this pyarrow builds no negative-scale decimals")
    column = sa.column(array)
    assert column.scale == 0
    assert column.tolist() == [Decimal(1000), Decimal(-500), None]


def test_arrow_errors_name_the_row() -> None:
    with pytest.raises(ValueError, match="row 1 .*int64 range"):
        sa.column(pa.array([Decimal(1), Decimal(2**63)], type=pa.decimal128(38, 0)))
    with pytest.raises(ValueError, match="row 0 .*int64 range"):
        sa.column(pa.array([dec(-(2**63) - 1, 2)], type=pa.decimal128(38, 2)))
    with pytest.raises(ValueError, match="scale 19 is past 18"):
        sa.column(pa.array([Decimal("1E-19")], type=pa.decimal128(38, 19)))
    with pytest.raises(TypeError, match="not supported"):
        sa.column(pa.array([Decimal(1)], type=pa.decimal256(40, 2)))


# ----------------------------------------------------------------------------------------------
# Filters


CONSTANTS = st.one_of(
    st.builds(dec, UNSCALED, st.integers(0, 20)),
    st.integers(-(2**70), 2**70),
    st.integers(-5, 5),
    st.sampled_from([Decimal("1E+30"), Decimal("-1E+30"), Decimal("0.0000000000000000000001"), Decimal("-0")]),
)


@given(
    scale=st.integers(0, 18),
    values=st.lists(st.one_of(st.none(), UNSCALED, st.integers(-20, 20)), min_size=1, max_size=70),
    constants=st.lists(CONSTANTS, min_size=3, max_size=3),
)
def test_filters_compare_exactly(scale: int, values: list[int | None], constants: list[Decimal | int]) -> None:
    decimals = [None if v is None else dec(v, scale) for v in values]
    if all(v is None for v in decimals):
        return
    # Some constants equal to values of the column, some between them.
    constants = constants + [d for d in decimals[:2] if d is not None]
    column = sa.column(decimals)
    for constant in constants:
        want = [i for i, v in enumerate(decimals) if v is not None and v == constant]
        assert column.equal(constant).tolist() == want, constant
        assert column.equal(constant, mask=True).tolist() == [i in want for i in range(len(decimals))]
    low, high = sorted(constants[:2])
    want = [i for i, v in enumerate(decimals) if v is not None and low <= v <= high]
    assert column.between(low, high).tolist() == want, (low, high)
    assert column.between(high, low).tolist() == ([] if low != high else want)
    want = [i for i, v in enumerate(decimals) if v is not None and v in set(constants)]
    assert column.isin(constants).tolist() == want


def test_constants_with_more_digits_than_the_scale() -> None:
    column = sa.column([Decimal("1.00"), Decimal("1.01"), Decimal("1.02"), None, Decimal("-1.01")])
    assert column.equal(Decimal("1.005")).tolist() == []
    assert column.equal(Decimal("1.0100000000000000000000000001")).tolist() == []
    assert column.equal(Decimal("1.010000000000000000000000")).tolist() == [1]
    assert column.equal(1).tolist() == [0]
    assert column.between(Decimal("1.005"), Decimal("1.015")).tolist() == [1]
    assert column.between(Decimal("-1.015"), Decimal("-1.005")).tolist() == [4]
    assert column.between(Decimal("1.001"), Decimal("1.009")).tolist() == []
    assert column.between(-(10**40), 10**40).tolist() == [0, 1, 2, 4]
    assert column.between(Decimal("-1E+40"), Decimal("1.0199999999999999999999999")).tolist() == [0, 1, 4]
    assert column.isin([Decimal("1.011"), Decimal("1.02"), 1]).tolist() == [0, 2]
    assert column.isnull().tolist() == [3]


def test_filter_constants_near_the_int64_limit() -> None:
    column = sa.column([dec(I64_MAX, 0), dec(I64_MIN, 0), Decimal(0)])
    assert column.equal(I64_MAX).tolist() == [0]
    assert column.equal(I64_MAX + 1).tolist() == []
    assert column.between(Decimal(I64_MAX) - Decimal("0.5"), 2**64).tolist() == [0]
    assert column.between(-(2**64), Decimal(I64_MIN) + Decimal("0.5")).tolist() == [1]
    assert column.between(Decimal(I64_MAX) + Decimal("0.5"), 2**64).tolist() == []


def test_filter_errors() -> None:
    column = sa.column([Decimal("1.5")])
    for bad in [Decimal("NaN"), Decimal("Infinity"), Decimal("-Infinity"), Decimal("sNaN")]:
        with pytest.raises(ValueError, match="not a finite number"):
            column.equal(bad)
    for bad in [1.5, "1.5", True, np.float64(1.5)]:
        with pytest.raises(TypeError, match="compared with decimal.Decimal or int"):
            column.equal(bad)
    with pytest.raises(TypeError, match="None is no value"):
        column.between(None, 1)
    # Other columns do not take decimals.
    with pytest.raises(TypeError):
        sa.column(np.arange(3)).equal(Decimal(1))


# ----------------------------------------------------------------------------------------------
# Errors in


def test_sequence_errors_name_the_index() -> None:
    with pytest.raises(ValueError, match="index 1 is not a finite number"):
        sa.column([Decimal(1), Decimal("NaN")])
    with pytest.raises(ValueError, match="index 0 is not a finite number"):
        sa.column([Decimal("-Infinity")])
    with pytest.raises(ValueError, match="index 2 is not a finite number"):
        sa.column([Decimal(1), None, Decimal("sNaN")])
    with pytest.raises(ValueError, match="index 1 has 19 digits after the point"):
        sa.column([Decimal("1"), Decimal("1E-19")])
    with pytest.raises(ValueError, match="index 0 does not fit .* scale 0"):
        sa.column([Decimal(2**63)])
    with pytest.raises(ValueError, match="index 0 does not fit .* scale 0"):
        sa.column([Decimal(-(2**63) - 1)])
    with pytest.raises(ValueError, match="index 0 does not fit"):
        sa.column([Decimal("1E+40")])
    with pytest.raises(ValueError, match="index 0 does not fit"):
        sa.column([Decimal("1" * 60)])
    with pytest.raises(ValueError, match="index 0 does not fit"):
        sa.column([Decimal("1E+999999999999999999")])
    with pytest.raises(ValueError, match="index 0 has .* digits after the point"):
        sa.column([Decimal("1E-999999999999999999")])
    # Each value fits alone; at the common scale (18) the 10 does not.
    with pytest.raises(ValueError, match="index 1 does not fit .* scale 18"):
        sa.column([Decimal("1E-18"), Decimal(10)])
    # Right at the limits they fit.
    assert sa.column([Decimal(I64_MIN), Decimal(I64_MAX)]).tolist() == [Decimal(I64_MIN), Decimal(I64_MAX)]
    assert sa.column([Decimal("0E+100"), Decimal("1E+18")]).tolist() == [Decimal(0), Decimal(10**18)]


def test_mixed_objects_are_refused() -> None:
    with pytest.raises(TypeError, match="mixed objects: element 0 is Decimal but element 1 is int"):
        sa.column([Decimal(1), 2])
    with pytest.raises(TypeError, match="mixed objects: element 0 is float but element 2 is Decimal"):
        sa.column([1.0, None, Decimal(1)])
    with pytest.raises(TypeError, match="mixed objects"):
        sa.column(np.array(["a", Decimal(1)], dtype=object))
