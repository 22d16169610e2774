//! urlkey as a Polars expression plugin: named, versioned URL keys, their reasons and the
//! facts about each URL, computed in Rust on Polars' own threads, without the GIL, in lazy
//! and streaming queries.
//!
//! The Python package `urlkey_polars` (`python/urlkey_polars/__init__.py`) registers the
//! expressions of [`expressions`] with `polars.plugins.register_plugin_function` and the
//! `.urlkey` namespace on expressions:
//!
//! ```python
//! import polars as pl
//! import urlkey_polars  # registers pl.col(...).urlkey
//! pl.DataFrame({"url": ["https://Example.com/a/?utm_source=x"]}).with_columns(
//!     key=pl.col("url").urlkey.key(policy="citation@1"))
//! ```
//!
//! Tested from Python, through the library as Polars loads it:
//! `crates/urlkey-py/tests/test_polars.py` (every expression against the Python package and
//! the command line) and `test_cross_engine.py` (CLI, Python, Spark, Polars and DuckDB on
//! the WPT inputs and the 200,000-line corpus). A Rust test binary would need a second
//! build of Polars, linked to libpython, where the plugin must not be.
//!
//! The same file is a Python extension module, `urlkey_polars._internal`, whose functions
//! check a policy when an expression is built (so that a misspelt policy fails at once,
//! with its stable code, not at `collect()`), and describe the policies.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod expressions;
mod ffi;
pub mod input;
pub mod outcome;
pub mod policies;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use urlkey::policy::defaults;

use policies::{resolve, PolicyArgs};

create_exception!(
    urlkey_polars,
    PolicyError,
    PyValueError,
    "A policy that cannot be had: `.code` is `policy.unknown`, `policy.unknown-option` or `policy.file`."
);

/// check_policy(policy, policy_text=None, policy_origin=None) -> dict
///
/// Resolves a policy as the expressions will, and describes it: `id`, `description`,
/// `builtin`, `urlkey_version` and `psl_version`. Raises `PolicyError` (with `.code`) when
/// it cannot be had.
#[pyfunction]
#[pyo3(signature = (policy, policy_text = None, policy_origin = None))]
fn check_policy<'py>(
    py: Python<'py>,
    policy: String,
    policy_text: Option<String>,
    policy_origin: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let args = PolicyArgs {
        policy,
        policy_text,
        policy_origin,
    };
    let r = resolve(&args).map_err(|e| {
        let err = PolicyError::new_err(e.message.clone());
        let _ = err.value(py).setattr("code", e.code);
        err
    })?;
    let d = PyDict::new(py);
    d.set_item("id", r.policy.id())?;
    d.set_item("description", r.policy.description())?;
    d.set_item(
        "builtin",
        urlkey::policy::BUILTIN_IDS.contains(&r.policy.id()),
    )?;
    d.set_item("urlkey_version", env!("CARGO_PKG_VERSION"))?;
    d.set_item("psl_version", r.set.psl().version())?;
    Ok(d)
}

/// The module: `check_policy`, `PolicyError`, `DEFAULT_POLICIES` and the field lists.
#[pymodule]
#[pyo3(name = "_internal")]
fn urlkey_polars_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PolicyError", py.get_type::<PolicyError>())?;
    m.add("OUTCOME_FIELDS", outcome::field_names())?;
    m.add(
        "TRANSFORMATION_FIELDS",
        outcome::transformation_field_names(),
    )?;
    let default_policies = PyDict::new(py);
    for (command, id) in defaults::ALL {
        default_policies.set_item(command, id)?;
    }
    m.add("DEFAULT_POLICIES", default_policies)?;
    m.add_function(wrap_pyfunction!(check_policy, m)?)?;
    Ok(())
}
