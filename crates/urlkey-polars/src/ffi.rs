//! The entry points Polars calls, written here instead of by pyo3-polars' `#[polars_expr]`:
//! that macro's schema function for a fixed output type (`output_type=String`) has no
//! `catch_unwind`, so a panic there (importing a Categorical input field, for one) crossed
//! the FFI boundary and aborted the Python process. Here every entry point, schema and
//! compute, runs its body under [`std::panic::catch_unwind`]: a panic becomes Polars'
//! "the plugin panicked" error (a Python exception), an error its message; nothing else
//! can leave the function. (The macro's `derive` feature also builds Polars a second
//! time, for the macro itself.)
//!
//! Per expression `NAME` Polars looks up two symbols (plugin ABI 0.1, polars-ffi):
//! `_polars_plugin_field_NAME(fields, n, out, kwargs, kwargs_len)`, the output field from
//! the input fields, and `_polars_plugin_NAME(series, n, kwargs, kwargs_len, out, ctx)`,
//! the result. `plugin!` writes both from two safe functions. Two more symbols are the
//! plugin's, not an expression's: `_polars_plugin_get_version` and
//! `_polars_plugin_get_last_error_message`, which Polars reads after a call that left no
//! result.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use polars::prelude::*;
use polars_arrow::datatypes::Field as ArrowField;
use polars_arrow::ffi::{export_field_to_c, import_field_from_c, ArrowSchema};
use polars_ffi::version_0::{export_series, import_series_buffer, CallerContext, SeriesExport};

use crate::expressions as x;

/// The output field of an expression from its input fields.
pub type SchemaFn = fn(&[ArrowField]) -> PolarsResult<Field>;
/// The result of an expression from its input columns and its pickled keyword arguments.
pub type ComputeFn = fn(&[Series], &[u8]) -> PolarsResult<Series>;

thread_local! {
    /// The message of this thread's last failed call, for
    /// `_polars_plugin_get_last_error_message`.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Sets the error Polars reads back. A `CString` refuses NUL bytes: they are replaced.
fn set_error(e: PolarsError) {
    let text = polars_err!(ComputeError: "{}", e).to_string();
    let text = CString::new(text.replace('\0', "\u{FFFD}")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// Marks the last call as panicked: Polars turns the message `PANIC` into its "the plugin
/// panicked" error.
fn set_panic() {
    LAST_ERROR.with(|last| *last.borrow_mut() = c"PANIC".to_owned());
}

/// The plugin ABI version this library was built for; Polars refuses a plugin of another
/// major version.
#[no_mangle]
pub extern "C" fn _polars_plugin_get_version() -> u32 {
    // Polars asks for the version before any other call. A caught panic is an error Polars
    // raises in Python: its message goes to stderr only when Polars is verbose
    // (`POLARS_VERBOSE=1`), as in plugins built with pyo3-polars.
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            if polars_config::config().verbose() {
                eprintln!("{info}");
            }
        }))
    });
    let (major, minor) = polars_ffi::get_version();
    (u32::from(major) << 16) + u32::from(minor)
}

/// The message of this thread's last failed call; valid until its next call.
#[no_mangle]
pub extern "C" fn _polars_plugin_get_last_error_message() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// A slice from a pointer and a length that may be (null, 0).
///
/// # Safety
/// When `len > 0`, `ptr` points to `len` valid values that outlive the slice.
unsafe fn slice<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if len == 0 || ptr.is_null() {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// The body of `_polars_plugin_field_NAME`.
///
/// # Safety
/// `fields` holds `n` Arrow schemas and `out` is writable (Polars' plugin ABI 0.1).
pub unsafe fn field_entry(
    fields: *const ArrowSchema,
    n: usize,
    out: *mut ArrowSchema,
    f: SchemaFn,
) {
    let result = catch_unwind(AssertUnwindSafe(|| -> PolarsResult<ArrowSchema> {
        // SAFETY: the caller's contract.
        let schemas = unsafe { slice(fields, n) };
        let inputs = schemas
            .iter()
            // SAFETY: each is a valid Arrow schema Polars exported for this call.
            .map(|s| unsafe { import_field_from_c(s) })
            .collect::<PolarsResult<Vec<_>>>()?;
        let field = f(&inputs)?;
        Ok(export_field_to_c(&field.to_arrow(CompatLevel::newest())))
    }));
    match result {
        // SAFETY: `out` is writable; the value there is the caller's empty schema.
        Ok(Ok(schema)) => unsafe { *out = schema },
        Ok(Err(e)) => set_error(e),
        Err(_) => set_panic(),
    }
}

/// The body of `_polars_plugin_NAME`.
///
/// # Safety
/// `series` holds `n` exported series, `kwargs` `kwargs_len` bytes, and `out` is writable
/// (Polars' plugin ABI 0.1).
pub unsafe fn compute_entry(
    series: *mut SeriesExport,
    n: usize,
    kwargs: *const u8,
    kwargs_len: usize,
    out: *mut SeriesExport,
    f: ComputeFn,
) {
    let result = catch_unwind(AssertUnwindSafe(|| -> PolarsResult<SeriesExport> {
        // SAFETY: the caller's contract; the series are moved out of the buffer once.
        let inputs = unsafe { import_series_buffer(series, n) }?;
        // SAFETY: the caller's contract.
        let kwargs = unsafe { slice(kwargs, kwargs_len) };
        let result = f(&inputs, kwargs)?;
        Ok(export_series(&result))
    }));
    match result {
        // SAFETY: `out` is writable; the value there is the caller's empty export.
        Ok(Ok(export)) => unsafe { *out = export },
        Ok(Err(e)) => set_error(e),
        Err(_) => set_panic(),
    }
}

/// Declares the two entry points of one expression: `plugin!(field_symbol, symbol,
/// schema_fn, compute_fn)`.
macro_rules! plugin {
    ($field:ident, $compute:ident, $schema_fn:path, $compute_fn:path) => {
        #[no_mangle]
        /// # Safety
        /// Called by Polars with its plugin ABI 0.1.
        pub unsafe extern "C" fn $field(
            fields: *const ::polars_arrow::ffi::ArrowSchema,
            n: usize,
            out: *mut ::polars_arrow::ffi::ArrowSchema,
            _kwargs: *const u8,
            _kwargs_len: usize,
        ) {
            // SAFETY: Polars' plugin ABI.
            unsafe { field_entry(fields, n, out, $schema_fn) }
        }

        #[no_mangle]
        /// # Safety
        /// Called by Polars with its plugin ABI 0.1.
        pub unsafe extern "C" fn $compute(
            series: *mut SeriesExport,
            n: usize,
            kwargs: *const u8,
            kwargs_len: usize,
            out: *mut SeriesExport,
            _context: *mut CallerContext,
        ) {
            // SAFETY: Polars' plugin ABI.
            unsafe { compute_entry(series, n, kwargs, kwargs_len, out, $compute_fn) }
        }
    };
}

// The entry points of every expression, here where `unsafe` is allowed.
plugin!(
    _polars_plugin_field_key,
    _polars_plugin_key,
    x::key_type,
    x::key
);
plugin!(
    _polars_plugin_field_clean,
    _polars_plugin_clean,
    x::clean_type,
    x::clean
);
plugin!(
    _polars_plugin_field_outcome,
    _polars_plugin_outcome,
    x::outcome_type,
    x::outcome
);
plugin!(
    _polars_plugin_field_registrable_domain,
    _polars_plugin_registrable_domain,
    x::registrable_domain_type,
    x::registrable_domain
);
plugin!(
    _polars_plugin_field_query_pairs,
    _polars_plugin_query_pairs,
    x::query_pairs_type,
    x::query_pairs
);
plugin!(
    _polars_plugin_field_inspect,
    _polars_plugin_inspect,
    x::inspect_type,
    x::inspect
);
plugin!(
    _polars_plugin_field_explain,
    _polars_plugin_explain,
    x::explain_type,
    x::explain
);
plugin!(
    _polars_plugin_field_selftest_panic,
    _polars_plugin_selftest_panic,
    x::selftest_panic_type,
    x::selftest_panic
);
