//! Reading a `VARCHAR` argument of a scalar function, row by row, without copying.
//!
//! The one module that reads DuckDB's memory itself (`unsafe`): duckdb-rs 1.20000.1 has
//! safe writers (`Inserter`, `set_null`, list and struct children) but no safe reader of
//! string vectors, and reading through Arrow (`flat_vector_to_arrow_array`) would copy
//! every string once more. DuckDB hands C API scalar functions flattened input vectors
//! (`CAPIScalarFunction` flattens the chunk before the call), so a row is a
//! `duckdb_string_t` in the vector's data, and NULL is a clear bit of its validity mask.
#![allow(unsafe_code)]

use std::borrow::Cow;
use std::marker::PhantomData;

use duckdb::core::DataChunkHandle;
use duckdb::ffi::{
    duckdb_data_chunk_get_vector, duckdb_string_t, duckdb_vector_get_data,
    duckdb_vector_get_validity,
};

/// A `VARCHAR` column of an input chunk.
pub struct Strings<'a> {
    data: *const duckdb_string_t,
    /// `None`: no row is NULL.
    validity: Option<*const u64>,
    len: usize,
    _chunk: PhantomData<&'a DataChunkHandle>,
}

impl<'a> Strings<'a> {
    /// Column `col` of `chunk`, which must be a `VARCHAR` column (the function's
    /// signatures say so: DuckDB casts the arguments to them before the call).
    pub fn of(chunk: &'a DataChunkHandle, col: usize) -> Self {
        assert!(
            col < chunk.num_columns(),
            "column {col} of {}",
            chunk.num_columns()
        );
        let len = chunk.len();
        // SAFETY: column `col` exists (checked above) and is a flat VARCHAR vector of
        // `chunk` (see the module docs), whose data holds one `duckdb_string_t` per row and
        // stays valid while `chunk` is borrowed; the validity mask is null (all valid) or
        // one bit per row.
        unsafe {
            let vector = duckdb_data_chunk_get_vector(chunk.get_ptr(), col as u64);
            let data = duckdb_vector_get_data(vector).cast::<duckdb_string_t>();
            let validity = duckdb_vector_get_validity(vector);
            Strings {
                data,
                validity: (!validity.is_null()).then_some(validity.cast_const()),
                len,
                _chunk: PhantomData,
            }
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The text of row `row`, `None` when it is NULL. DuckDB keeps `VARCHAR` valid
    /// UTF-8; should a row not be, its invalid bytes read as U+FFFD (a copy).
    pub fn get(&self, row: usize) -> Option<Cow<'a, str>> {
        assert!(row < self.len, "row {row} of {}", self.len);
        if let Some(mask) = self.validity {
            // SAFETY: the mask has a bit for each of the chunk's rows (`row < len`).
            let word = unsafe { *mask.add(row / 64) };
            if word & (1u64 << (row % 64)) == 0 {
                return None;
            }
        }
        // SAFETY: `row < len`; a string of up to 12 bytes is inlined in the
        // `duckdb_string_t` itself (read in place, in the vector's memory), a longer one
        // points to memory the vector keeps alive.
        let bytes: &'a [u8] = unsafe {
            let s = &*self.data.add(row);
            let len = s.value.inlined.length as usize;
            if len <= 12 {
                std::slice::from_raw_parts(s.value.inlined.inlined.as_ptr().cast::<u8>(), len)
            } else {
                std::slice::from_raw_parts(s.value.pointer.ptr.cast::<u8>(), len)
            }
        };
        Some(String::from_utf8_lossy(bytes))
    }
}

/// Writes `values` into the first rows of a `BIGINT` vector.
pub fn write_i64(vector: &mut duckdb::core::FlatVector<'_>, values: &[i64]) {
    assert!(values.len() <= vector.capacity());
    // SAFETY: the caller's vector is a BIGINT column (8-byte `i64` rows) with room for
    // `capacity()` rows, checked above.
    unsafe { vector.copy(values) };
}
