"""The Spark scale-up study's five jobs (word count, grep, sort, naive Bayes, k-means) in Rust.

Files are memory-mapped and processed in parallel by the project's runtime (``threads=n`` for n
workers; the default is the module's, see ``smartarrays.set_threads``); numbers come back as numpy
arrays. A malformed line raises ``ValueError`` naming the file and line; a missing file
``FileNotFoundError``. The command line ``smartarrays jobs ...`` runs the same code and also
generates inputs (``smartarrays jobs generate text|reviews|vectors|keys``).

Example:

>>> import numpy as np, smartarrays.jobs as jobs
>>> keys, passes = jobs.sort_keys(np.array([300, 7, 65536], dtype=np.uint64))
>>> keys.tolist(), passes  # 65536 needs 17 bits: 3 radix passes, not 8
([7, 300, 65536], 3)
>>> points = np.array([[0.0], [1.0], [10.0], [11.0]])
>>> centroids, cost, _ = jobs.kmeans(points, k=2, initial=np.array([[0.0], [5.0]]))
>>> centroids.ravel().tolist(), cost
([0.5, 10.5], 1.0)
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _native

__all__ = ["wordcount", "grep", "sort_lines", "sort_keys", "bayes", "kmeans"]

_Path = str | os.PathLike[str]


def wordcount(path: _Path, threads: int | None = None, arrow: bool = False) -> Any:
    """(word, count) for every word of a text file (pieces of lines between spaces), most
    frequent first, ties in byte order. The file must be UTF-8. With ``arrow=True``: a
    ``pyarrow.Table`` of the columns ``word`` (string) and ``count`` (uint64), in that order."""
    pairs = _native._jobs_wordcount(os.fspath(path), threads)
    if not arrow:
        return pairs
    import pyarrow as pa  # type: ignore[import-untyped,import-not-found,unused-ignore]

    return pa.table({"word": pa.array([w for w, _ in pairs], pa.string()),
                     "count": pa.array([c for _, c in pairs], pa.uint64())})


def grep(path: _Path, pattern: str = "The", threads: int | None = None) -> list[bytes]:
    """The lines of a file that contain ``pattern`` (bytes, case-sensitive), in order, without
    their newlines."""
    return _native._jobs_grep(os.fspath(path), pattern, threads)


def sort_lines(path: _Path, threads: int | None = None) -> list[bytes]:
    """The lines of a file sorted by their bytes (the study's sort)."""
    return _native._jobs_sort_lines(os.fspath(path), threads)


def sort_keys(source: _Path | npt.ArrayLike, threads: int | None = None, arrow: bool = False) -> tuple[Any, int]:
    """Sorts unsigned 64-bit keys with a parallel radix sort of one pass per byte the largest key
    needs: from a file of one integer per line, or from an array (numpy, a pyarrow array or
    chunked array, anything numpy converts; as uint64). Returns the sorted keys (a numpy uint64
    array, or with ``arrow=True`` a ``pyarrow.UInt64Array``) and the number
    of passes."""
    if isinstance(source, (str, os.PathLike)):
        keys, passes = _native._jobs_sort_keys(os.fspath(source), threads)
    else:
        keys, passes = _native._jobs_sort_keys(np.ascontiguousarray(source, dtype=np.uint64), threads)
    if arrow:
        import pyarrow as pa  # type: ignore[import-untyped,import-not-found,unused-ignore]

        return pa.array(keys, pa.uint64()), passes
    return keys, passes


def bayes(train: _Path, path: _Path, alpha: float = 1.0, threads: int | None = None) -> npt.NDArray[np.object_]:
    """Trains multinomial naive Bayes on ``train`` (``LABEL<TAB>TEXT`` lines; Laplace smoothing
    for ``alpha=1``, scikit-learn's ``MultinomialNB`` formulas) and returns the predicted label of
    every line of ``path`` (the text after a tab, or the whole line)."""
    labels, classes = _native._jobs_bayes(os.fspath(train), os.fspath(path), alpha, threads)
    return np.array(labels, dtype=object)[classes.astype(np.intp)]


def kmeans(
    source: _Path | npt.ArrayLike,
    k: int = 8,
    iterations: int = 4,
    init_steps: int = 5,
    seed: int = 1,
    initial: npt.ArrayLike | None = None,
    threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], float, int]:
    """K-means over the points of a vectors file (numbers separated by spaces, one point per
    line) or of a 2-d array: k-means|| as Spark MLlib (``init_steps`` rounds), or the ``initial``
    centroids, then ``iterations`` Lloyd iterations. Returns the centroids (k x d), the sum of
    squared distances to them, and the passes the initialisation made over the points."""
    start: Any = None
    if initial is not None:
        start = np.ascontiguousarray(initial, dtype=np.float64)
        k = len(start)
    if isinstance(source, (str, os.PathLike)):
        return _native._jobs_kmeans(os.fspath(source), 0, k, iterations, init_steps, seed, start, threads)
    points = np.ascontiguousarray(source, dtype=np.float64)
    if points.ndim != 2:
        raise ValueError(f"points must be a 2-d array (one row per point), not {points.ndim}-d")
    return _native._jobs_kmeans(points, points.shape[1], k, iterations, init_steps, seed, start, threads)
