//! `smartarrays.VertexIds`: the id map of a graph relabelled by `Graph.reorder_by_degree()`,
//! between the input's vertex ids ("original") and the relabelled graph's ("new"), with the
//! translations of the graph crate's `VertexIds` (`to_new`, `to_original`,
//! `results_to_original`, `parents_to_original`, `labels_to_original`) on numpy arrays. The
//! use is "relabel once, run many kernels, map the results back".

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use smartarrays_graph::VertexIds;

use crate::buffer::{copy_u64_words, new_numpy_u64};

/// The map between a graph's original vertex ids and those of its relabelled copy.
#[pyclass(name = "VertexIds", module = "smartarrays", frozen)]
pub struct PyVertexIds {
    ids: Arc<VertexIds>,
}

impl PyVertexIds {
    /// Wraps a map made by the graph crate.
    pub(crate) fn new(ids: VertexIds) -> PyVertexIds {
        PyVertexIds { ids: Arc::new(ids) }
    }
}

/// A numpy uint64 array holding `values`.
fn numpy_words<'py>(py: Python<'py>, values: &[u64]) -> PyResult<Bound<'py, PyAny>> {
    new_numpy_u64(py, values.len(), |out| out.copy_from_slice(values))
}

/// `values` as a one-dimensional numpy array of one value per vertex (`n`), or a ValueError
/// naming `name`.
fn per_vertex<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    n: usize,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let array = py.import("numpy")?.call_method1("asarray", (values,))?;
    let ndim: usize = array.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "{name} must be one-dimensional, got {ndim} dimensions"
        )));
    }
    let len: usize = array.getattr("size")?.extract()?;
    if len != n {
        return Err(PyValueError::new_err(format!(
            "{name} holds {len} values; the graph has {n} vertices"
        )));
    }
    Ok(array)
}

/// Integer `values` (checked to be integers) as 64-bit words of their two's complement.
fn integer_words(py: Python<'_>, array: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u64>> {
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let len: usize = array.getattr("size")?.extract()?;
    if len > 0 && kind != "i" && kind != "u" {
        return Err(PyTypeError::new_err(format!(
            "{name} must hold integers, got dtype {}",
            array.getattr("dtype")?.str()?
        )));
    }
    let dtype = if kind == "u" { "uint64" } else { "int64" };
    let numpy = py.import("numpy")?;
    let words = numpy
        .call_method1("ascontiguousarray", (array, dtype))?
        .call_method1("view", ("uint64",))?;
    copy_u64_words(&words)
}

/// A lookup error of the map as a Python IndexError.
fn index_error(error: smartarrays_graph::GraphError) -> PyErr {
    PyIndexError::new_err(error.to_string())
}

/// Any other map error (a bad length, an id that is not a vertex) as a ValueError.
fn value_error(error: smartarrays_graph::GraphError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

#[pymethods]
impl PyVertexIds {
    /// The map from the new id of every original vertex: `new_ids[v]` is `v`'s new id (a
    /// permutation of `0..len(new_ids)`, else ValueError).
    #[staticmethod]
    fn from_new_ids(py: Python<'_>, new_ids: &Bound<'_, PyAny>) -> PyResult<PyVertexIds> {
        let array = py.import("numpy")?.call_method1("asarray", (new_ids,))?;
        let n: usize = array.getattr("size")?.extract()?;
        let array = per_vertex(py, &array, n, "new_ids")?;
        let words = integer_words(py, &array, "new_ids")?;
        VertexIds::from_new_ids(words)
            .map(PyVertexIds::new)
            .map_err(value_error)
    }

    fn __len__(&self) -> usize {
        self.ids.len()
    }

    fn __repr__(&self) -> String {
        format!("VertexIds({} vertices)", self.ids.len())
    }

    /// The new id of every original vertex (indexed by original id), as uint64.
    fn new_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy_words(py, self.ids.new_ids())
    }

    /// The original id of every new vertex (indexed by new id), as uint64.
    fn original_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy_words(py, self.ids.original_ids())
    }

    /// The new id of original vertex `v` (IndexError when `v` is not a vertex).
    fn to_new(&self, v: u64) -> PyResult<u64> {
        self.ids.to_new(v).map_err(index_error)
    }

    /// The original id of new vertex `v` (IndexError when `v` is not a vertex).
    fn to_original(&self, v: u64) -> PyResult<u64> {
        self.ids.to_original(v).map_err(index_error)
    }

    /// Per-vertex results of the relabelled graph (indexed by new id: levels, distances,
    /// ranks, scores, any dtype) in original order: `values[new_ids()]`.
    fn results_to_original<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let array = per_vertex(py, values, self.ids.len(), "values")?;
        array.get_item(self.new_ids(py)?)
    }

    /// Per-vertex values in original order (a personalisation, say) in the relabelled graph's
    /// order: `values[original_ids()]`.
    fn results_to_new<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let array = per_vertex(py, values, self.ids.len(), "values")?;
        array.get_item(self.original_ids(py)?)
    }

    /// BFS parents of the relabelled graph (indexed by new id, holding new ids, -1 where not
    /// reached, as `Graph.bfs` returns them) in original order and original ids, as int64.
    fn parents_to_original<'py>(
        &self,
        py: Python<'py>,
        parents: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let array = per_vertex(py, parents, self.ids.len(), "parents")?;
        let words = integer_words(py, &array, "parents")?;
        let ids = Arc::clone(&self.ids);
        let mapped = py
            .detach(|| ids.ids_to_original(&words, Some(u64::MAX)))
            .map_err(value_error)?;
        numpy_words(py, &mapped)?.call_method1("view", ("int64",))
    }

    /// Component labels of the relabelled graph (indexed by new id, as
    /// `Graph.connected_components` returns them) as the input graph's labels: the smallest
    /// original id of each vertex's component, in original order, as uint64.
    fn labels_to_original<'py>(
        &self,
        py: Python<'py>,
        labels: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let array = per_vertex(py, labels, self.ids.len(), "labels")?;
        let words = integer_words(py, &array, "labels")?;
        let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
        if kind == "i" && words.iter().any(|&w| (w as i64) < 0) {
            return Err(PyValueError::new_err("labels cannot be negative"));
        }
        let ids = Arc::clone(&self.ids);
        let mapped = py
            .detach(|| ids.labels_to_original(&words))
            .map_err(value_error)?;
        numpy_words(py, &mapped)
    }
}
