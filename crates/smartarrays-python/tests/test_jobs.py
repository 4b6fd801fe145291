"""smartarrays.jobs: each of the Spark study's jobs against a pure-Python reference on small
files (empty, one line, no trailing newline, repeated spaces), naive Bayes against scikit-learn's
MultinomialNB and k-means against scikit-learn's KMeans (lloyd) from the same centroids."""

import math
import pathlib
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smartarrays.jobs as jobs

TEXTS = [b"", b"one", b"The one\n", b"  The  cat\n\nthe hat \nThere x", b"a b a\nb\n"]


def lines_of(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if data == b"" or data.endswith(b"\n"):
        lines.pop()
    return lines


def write(tmp_path: pathlib.Path, data: bytes, name: str = "input.txt") -> pathlib.Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("data", TEXTS)
@pytest.mark.parametrize("threads", [1, 2])
def test_text_jobs_equal_python(tmp_path: pathlib.Path, data: bytes, threads: int) -> None:
    path = write(tmp_path, data)
    counts = Counter(w.decode() for line in lines_of(data) for w in line.split(b" ") if w)
    expected = sorted(counts.items(), key=lambda p: (-p[1], p[0].encode()))
    assert jobs.wordcount(path, threads=threads) == expected
    assert jobs.grep(path, threads=threads) == [line for line in lines_of(data) if b"The" in line]
    assert jobs.grep(str(path), "a", threads=threads) == [line for line in lines_of(data) if b"a" in line]
    assert jobs.sort_lines(path, threads=threads) == sorted(lines_of(data))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 1000), max_size=300))
def test_sort_keys_equals_numpy(values: list[int]) -> None:
    keys = np.array(values, dtype=np.uint64)
    found, passes = jobs.sort_keys(keys)
    np.testing.assert_array_equal(found, np.sort(keys))
    assert passes == math.ceil(int(keys.max(initial=0)).bit_length() / 8)


def test_sort_keys_reads_a_file_and_names_a_bad_line(tmp_path: pathlib.Path) -> None:
    found, passes = jobs.sort_keys(write(tmp_path, b"300\n7\n65536\n"))
    assert found.tolist() == [7, 300, 65536] and passes == 3
    with pytest.raises(ValueError, match=r"bad\.txt:2: "):
        jobs.sort_keys(write(tmp_path, b"1\nx\n", "bad.txt"))
    with pytest.raises(FileNotFoundError):
        jobs.wordcount(tmp_path / "missing.txt")


def reviews(rng: np.random.Generator, lines: int) -> bytes:
    vocabulary = [f"w{i}" for i in range(60)]
    out = []
    for _ in range(lines):
        label = int(rng.integers(1, 4))
        words = rng.choice(vocabulary[label * 10 : label * 10 + 30], size=int(rng.integers(1, 12)))
        out.append(f"{label}\t{' '.join(words)}\n")
    return "".join(out).encode()


def python_bayes(train: bytes, test: bytes, alpha: float) -> list[str]:
    docs, counts, vocabulary = Counter(), {}, set()
    for line in lines_of(train):
        label, text = line.decode().split("\t", 1)
        docs[label] += 1
        words = [w for w in text.split(" ") if w]
        counts.setdefault(label, Counter()).update(words)
        vocabulary.update(words)
    labels = sorted(docs)
    predicted = []
    for line in lines_of(test):
        words = [w for w in line.decode().split("\t", 1)[1].split(" ") if w in vocabulary]
        scores = [
            math.log(docs[c] / sum(docs.values()))
            + sum(math.log((counts[c][w] + alpha) / (sum(counts[c].values()) + alpha * len(vocabulary))) for w in words)
            for c in labels
        ]
        predicted.append(labels[scores.index(max(scores))])
    return predicted


@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_bayes_equals_python_and_sklearn(tmp_path: pathlib.Path, alpha: float) -> None:
    rng = np.random.default_rng(5)
    train, test = reviews(rng, 400), reviews(rng, 150)
    predicted = jobs.bayes(write(tmp_path, train, "train.txt"), write(tmp_path, test, "test.txt"), alpha=alpha, threads=2)
    assert predicted.tolist() == python_bayes(train, test, alpha)
    sklearn = pytest.importorskip("sklearn")
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    def split(data: bytes) -> tuple[list[str], list[str]]:
        pairs = [line.decode().split("\t", 1) for line in lines_of(data)]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    labels, texts = split(train)
    vectorizer = CountVectorizer(tokenizer=lambda s: [w for w in s.split(" ") if w], token_pattern=None, lowercase=False)
    model = MultinomialNB(alpha=alpha).fit(vectorizer.fit_transform(texts), labels)
    assert sklearn is not None
    assert predicted.tolist() == model.predict(vectorizer.transform(split(test)[1])).tolist()


def python_lloyd(points: np.ndarray, centres: np.ndarray, iterations: int) -> np.ndarray:
    centres = centres.copy()
    for _ in range(iterations):
        nearest = np.array([min(range(len(centres)), key=lambda c: sum((p - centres[c]) ** 2)) for p in points])
        for c in range(len(centres)):
            if (nearest == c).any():
                centres[c] = points[nearest == c].mean(axis=0)
    return centres


@pytest.mark.parametrize("threads", [1, 2])
def test_kmeans_from_given_centroids_equals_lloyd_and_sklearn(tmp_path: pathlib.Path, threads: int) -> None:
    rng = np.random.default_rng(3)
    centres = rng.uniform(-10, 10, size=(8, 3))
    points = centres[rng.integers(0, 8, size=600)] + rng.normal(size=(600, 3))
    initial = points[:8].copy()
    found, cost, passes = jobs.kmeans(points, initial=initial, threads=threads)
    assert passes == 0 and found.shape == (8, 3)
    np.testing.assert_allclose(found, python_lloyd(points, initial, 4), rtol=1e-9, atol=1e-9)
    # The same from a vectors file.
    path = write(tmp_path, "".join(" ".join(repr(float(x)) for x in p) + "\n" for p in points).encode())
    from_file, file_cost, _ = jobs.kmeans(path, initial=initial, threads=threads)
    np.testing.assert_allclose(from_file, found, rtol=1e-12)
    assert file_cost == pytest.approx(cost, rel=1e-12)
    pytest.importorskip("sklearn")
    from sklearn.cluster import KMeans

    model = KMeans(n_clusters=8, init=initial, n_init=1, max_iter=4, tol=0.0, algorithm="lloyd").fit(points)
    np.testing.assert_allclose(found, model.cluster_centers_, rtol=1e-9, atol=1e-9)
    assert cost == pytest.approx(model.inertia_, rel=1e-9)


def test_kmeans_parallel_init_finds_k_centroids_and_counts_its_passes() -> None:
    rng = np.random.default_rng(4)
    points = rng.uniform(-10, 10, size=(8, 2))[rng.integers(0, 8, size=2000)] + rng.normal(size=(2000, 2))
    found, cost, passes = jobs.kmeans(points, threads=2)
    assert found.shape == (8, 2) and passes == 6 and cost > 0
    again, _, _ = jobs.kmeans(points, threads=1)
    np.testing.assert_array_equal(found, again)
    with pytest.raises(ValueError):
        jobs.kmeans(points, k=0)
    with pytest.raises(ValueError):
        jobs.kmeans(np.zeros(5))


def test_module_docstring_examples_run() -> None:
    import doctest

    result = doctest.testmod(jobs, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_arrow_in_and_out(tmp_path: pathlib.Path) -> None:
    import pyarrow as pa

    path = write(tmp_path, b"b a b\nc b\n")
    table = jobs.wordcount(path, arrow=True)
    assert table.column_names == ["word", "count"]
    assert table.schema.field("count").type == pa.uint64()
    assert list(zip(table["word"].to_pylist(), table["count"].to_pylist())) == jobs.wordcount(path)
    chunked = pa.chunked_array([pa.array([5, 2**63], pa.uint64()), pa.array([0, 7], pa.uint64())])
    keys, passes = jobs.sort_keys(chunked, arrow=True)
    assert isinstance(keys, pa.UInt64Array)
    assert keys.to_pylist() == [0, 5, 7, 2**63] and passes == 8
    from_file, _ = jobs.sort_keys(write(tmp_path, b"9\n1\n", "k.txt"), arrow=True)
    assert from_file.to_pylist() == [1, 9]
