//! Python bindings of urlkey: the native module `urlkey._urlkey`, re-exported by the
//! Python package `urlkey` (`python/urlkey/__init__.py`).
//!
//! - `key(url, policy, base)`: one record as a dict, the fields of `urlkey key`'s JSONL.
//! - `inspect(url, policy)`: `urlkey inspect --format json` as a dict.
//! - `query_pairs(url)`, `policies()`, `psl_version()`, `error_codes()`.
//! - `DEFAULT_POLICIES`: each command's default policy by name (`key`, `map`, `inspect`,
//!   ...), from [`urlkey::policy::defaults`], the definition the command line and
//!   `urlkey serve` read too; the Python wrappers' default arguments read it.
//! - `_keys(array, policy, base)`: the vectorized keys of a pyarrow string array, handed
//!   over both ways through the Arrow C data interface and computed with the GIL released
//!   ([`columns::key_batch`]).
//!
//! Errors are Python exceptions carrying the stable code in `.code`: `PolicyError`
//! (unknown policy or option), `InvalidUrlError` (`query_pairs` of text that is no URL),
//! `UsageError` (`base` with a policy that does not resolve relative input). An invalid
//! URL given to `key()` is not an exception: the record says `status: invalid`, as the CLI
//! does.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod columns;

use std::sync::OnceLock;

use arrow_array::make_array;
use arrow_data::ArrayData;
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use urlkey::policy::defaults;
use urlkey::{Outcome, Policy, PolicySet};

create_exception!(
    urlkey,
    UrlkeyError,
    PyValueError,
    "Base class of urlkey's errors. `.code` holds the stable code, `.message` the text."
);
create_exception!(
    urlkey,
    PolicyError,
    UrlkeyError,
    "A policy that cannot be had: `.code` is `policy.unknown`, `policy.unknown-option` or `policy.file`."
);
create_exception!(
    urlkey,
    InvalidUrlError,
    UrlkeyError,
    "Text that is not a URL where one is required; `.code` is the stable code (`web.invalid-url`, ...)."
);
create_exception!(
    urlkey,
    UsageError,
    UrlkeyError,
    "Arguments that do not go together (`base` with a policy that does not resolve relative input)."
);

fn coded<T: pyo3::PyTypeInfo>(py: Python<'_>, code: &str, message: String) -> PyErr {
    let err = PyErr::new::<T, _>(message.clone());
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; if it
    // did, the exception still carries its message.
    let _ = value.setattr("code", code);
    let _ = value.setattr("message", message);
    err
}

/// The builtin policies with the embedded Public Suffix List, built once.
fn policy_set() -> &'static PolicySet {
    static SET: OnceLock<PolicySet> = OnceLock::new();
    SET.get_or_init(PolicySet::builtin)
}

fn get_policy(py: Python<'_>, id: &str) -> PyResult<Policy> {
    policy_set()
        .get(id)
        .map_err(|e| coded::<PolicyError>(py, e.code().as_str(), e.to_string()))
}

fn check_base(py: Python<'_>, policy: &Policy, base: Option<&str>) -> PyResult<()> {
    let Some(b) = base else { return Ok(()) };
    if !policy.accepts_base() {
        return Err(coded::<UsageError>(
            py,
            "usage.base",
            format!(
                "base is used only by policies that resolve relative input (whatwg@1); {} does not",
                policy.id()
            ),
        ));
    }
    urlkey::WebUrl::parse(b, None)
        .map(|_| ())
        .map_err(|e| coded::<InvalidUrlError>(py, e.code.as_str(), format!("base {b:?}: {e}")))
}

/// The JSONL record of `urlkey key` as a dict (`line` is None).
fn record<'py>(
    py: Python<'py>,
    observed: &str,
    policy: &str,
    o: &Outcome,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("line", py.None())?;
    d.set_item("observed", observed)?;
    d.set_item("policy", policy)?;
    d.set_item("status", if o.is_valid() { "ok" } else { "invalid" })?;
    d.set_item("key", o.key.as_deref())?;
    d.set_item("canonical", o.canonical.as_deref())?;
    match &o.error {
        Some(e) => {
            let err = PyDict::new(py);
            err.set_item("code", e.code.as_str())?;
            err.set_item("message", &e.message)?;
            d.set_item("error", err)?;
        }
        None => d.set_item("error", py.None())?,
    }
    let ts = PyList::empty(py);
    for t in &o.transformations {
        let td = PyDict::new(py);
        td.set_item("rule", t.rule)?;
        td.set_item("component", t.component.as_str())?;
        td.set_item("before", &t.before)?;
        td.set_item("after", &t.after)?;
        // As in the command's JSONL record: only an unwrap names its wrapper.
        if let Some(w) = t.wrapper {
            td.set_item("wrapper", w)?;
        }
        ts.append(td)?;
    }
    d.set_item("transformations", ts)?;
    d.set_item("removed_params", &o.removed_params)?;
    let facts: Vec<&str> = o.facts.iter().map(|f| f.as_str()).collect();
    d.set_item("facts", facts)?;
    d.set_item("psl", o.psl.as_deref())?;
    Ok(d)
}

/// key(url, policy=DEFAULT_POLICIES["key"], base=None) -> dict
///
/// The key record of one URL under a policy: the fields of `urlkey key`'s JSONL record
/// (`line` is None). An invalid URL gives `status == "invalid"` with `error`
/// `{code, message}`; it is not an exception. Raises `PolicyError` for an unknown policy
/// and `UsageError` when `base` is given to a policy that does not resolve relative input.
#[pyfunction]
#[pyo3(signature = (url, policy = defaults::KEY, base = None))]
fn key<'py>(
    py: Python<'py>,
    url: &str,
    policy: &str,
    base: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let p = get_policy(py, policy)?;
    check_base(py, &p, base)?;
    let o = p.key_with_base(url, base);
    record(py, url, p.id(), &o)
}

/// inspect(url, policy=DEFAULT_POLICIES["inspect"]) -> dict
///
/// Everything about one URL, as `urlkey inspect --format json` prints it: canonical form,
/// href, facts, is_website, profile, offsets, query pairs, registrable domain, the key
/// under `policy` and under every builtin policy.
#[pyfunction]
#[pyo3(signature = (url, policy = defaults::INSPECT))]
fn inspect<'py>(py: Python<'py>, url: &str, policy: &str) -> PyResult<Bound<'py, PyAny>> {
    let p = get_policy(py, policy)?;
    let i = urlkey::inspect(url, policy_set(), &p);
    let text = serde_json::to_string(&i).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// query_pairs(url) -> list[tuple[str, str]]
///
/// The query of a URL as ordered (name, value) pairs, form-decoded (`+` is a space,
/// `%2B` a plus), blank values and repeats kept. Raises `InvalidUrlError` when the text
/// is not an absolute URL.
#[pyfunction]
fn query_pairs(py: Python<'_>, url: &str) -> PyResult<Vec<(String, String)>> {
    urlkey::query_pairs(url).map_err(|e| coded::<InvalidUrlError>(py, e.code.as_str(), e.message))
}

/// policies() -> list[dict]
///
/// Every builtin policy: `id`, `description`, `builtin`, `uses_psl` (as `urlkey policies
/// --format json` lists them).
#[pyfunction]
fn policies(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for p in policy_set().list() {
        let d = PyDict::new(py);
        d.set_item("id", p.id)?;
        d.set_item("description", p.description)?;
        d.set_item("builtin", p.builtin)?;
        d.set_item("uses_psl", p.uses_psl)?;
        out.append(d)?;
    }
    Ok(out)
}

/// psl_version() -> str
///
/// The version of the embedded Public Suffix List (carried in records as `psl`).
#[pyfunction]
fn psl_version() -> String {
    policy_set().psl().version().to_string()
}

/// error_codes() -> dict[str, str]
///
/// Every stable error code with its description (`urlkey codes`).
#[pyfunction]
fn error_codes(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for c in urlkey::ErrorCode::ALL {
        d.set_item(c.as_str(), c.description())?;
    }
    Ok(d)
}

/// _keys(values, policy=DEFAULT_POLICIES["key"], base=None) -> pyarrow.RecordBatch
///
/// The vectorized core of `urlkey.keys`: `values` is a pyarrow array of strings (or any
/// object with `__arrow_c_array__`); it crosses into Rust through the Arrow C data
/// interface, without a Python object per row, and the keys are computed with the GIL
/// released.
#[pyfunction]
#[pyo3(signature = (values, policy = defaults::KEY, base = None))]
fn _keys<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    policy: &str,
    base: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let p = get_policy(py, policy)?;
    check_base(py, &p, base.as_deref())?;
    let array = make_array(ArrayData::from_pyarrow_bound(values)?);
    let batch = py
        .detach(|| columns::key_batch(array.as_ref(), &p, policy_set().psl(), base.as_deref()))
        .map_err(PyTypeError::new_err)?;
    batch.to_pyarrow(py)
}

/// The native module.
#[pymodule]
#[pyo3(name = "_urlkey")]
fn urlkey_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("UrlkeyError", py.get_type::<UrlkeyError>())?;
    m.add("PolicyError", py.get_type::<PolicyError>())?;
    m.add("InvalidUrlError", py.get_type::<InvalidUrlError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("KEY_COLUMNS", columns::columns())?;
    let default_policies = PyDict::new(py);
    for (command, id) in defaults::ALL {
        default_policies.set_item(command, id)?;
    }
    m.add("DEFAULT_POLICIES", default_policies)?;
    m.add_function(wrap_pyfunction!(key, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(query_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(psl_version, m)?)?;
    m.add_function(wrap_pyfunction!(error_codes, m)?)?;
    m.add_function(wrap_pyfunction!(_keys, m)?)?;
    Ok(())
}
