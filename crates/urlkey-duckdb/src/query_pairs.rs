//! The table function `urlkey_query_pairs(url)`: one row `(position, name, value)` per
//! pair of the URL's query, from [`urlkey::query_pairs`] (form-decoded: `+` is a space,
//! `%2B` a plus; order kept, repeats and blank values kept). `position` counts from 1.
//!
//! The argument is a constant (DuckDB's C API has no lateral table functions): a NULL
//! URL gives no rows, and text that is not an absolute URL is an error whose message
//! starts with its stable code (`web.invalid-url: ...`), as Python's `query_pairs`
//! raises `InvalidUrlError`. Zero rows would not tell an invalid URL from a URL without
//! a query.

use std::error::Error;
use std::sync::atomic::{AtomicUsize, Ordering};

use duckdb::core::{DataChunkHandle, Inserter, LogicalTypeHandle, LogicalTypeId};
use duckdb::vtab::{BindInfo, InitInfo, TableFunctionInfo, VTab};

/// The pairs of one URL, found at bind time.
pub struct Pairs {
    pairs: Vec<(String, String)>,
}

/// How many pairs were written so far.
pub struct Cursor {
    next: AtomicUsize,
}

/// The pairs of `url`, or the error text (code first) for text that is not a URL.
pub fn pairs_of(url: &str) -> Result<Vec<(String, String)>, String> {
    urlkey::query_pairs(url).map_err(|e| format!("{}: {}", e.code.as_str(), e.message))
}

/// `urlkey_query_pairs`.
pub struct QueryPairs;

impl VTab for QueryPairs {
    type InitData = Cursor;
    type BindData = Pairs;

    fn bind(bind: &BindInfo) -> Result<Pairs, Box<dyn Error>> {
        bind.add_result_column("position", LogicalTypeHandle::from(LogicalTypeId::Bigint));
        bind.add_result_column("name", LogicalTypeHandle::from(LogicalTypeId::Varchar));
        bind.add_result_column("value", LogicalTypeHandle::from(LogicalTypeId::Varchar));
        let url = bind.get_parameter(0);
        let pairs = if url.is_null() {
            Vec::new()
        } else {
            pairs_of(&url.to_string())?
        };
        Ok(Pairs { pairs })
    }

    fn init(init: &InitInfo) -> Result<Cursor, Box<dyn Error>> {
        init.set_max_threads(1);
        Ok(Cursor {
            next: AtomicUsize::new(0),
        })
    }

    fn func(
        func: &TableFunctionInfo<Self>,
        output: &mut DataChunkHandle,
    ) -> Result<(), Box<dyn Error>> {
        let pairs = &func.get_bind_data().pairs;
        let cursor = &func.get_init_data().next;
        let start = cursor.load(Ordering::Relaxed).min(pairs.len());
        let capacity = output.flat_vector(0).capacity();
        let end = pairs.len().min(start + capacity);
        let mut position = output.flat_vector(0);
        let names = output.flat_vector(1);
        let values = output.flat_vector(2);
        // `position` is a BIGINT column: the one write that is not a string.
        let positions: Vec<i64> = (start..end)
            .map(|i| i64::try_from(i + 1).unwrap_or(i64::MAX))
            .collect();
        crate::vector::write_i64(&mut position, &positions);
        for (row, (name, value)) in pairs[start..end].iter().enumerate() {
            names.insert(row, name.as_str());
            values.insert(row, value.as_str());
        }
        output.set_len(end - start);
        cursor.store(end, Ordering::Relaxed);
        Ok(())
    }

    fn parameters() -> Option<Vec<LogicalTypeHandle>> {
        Some(vec![LogicalTypeHandle::from(LogicalTypeId::Varchar)])
    }
}

#[cfg(test)]
mod tests {
    use super::pairs_of;

    #[test]
    fn pairs_keep_order_repeats_and_blanks() {
        let p = pairs_of("https://e.com/?a=1&b=&a=2&c+d=x%2By").unwrap();
        let want = [("a", "1"), ("b", ""), ("a", "2"), ("c d", "x+y")];
        assert_eq!(p.len(), want.len());
        for ((n, v), (wn, wv)) in p.iter().zip(want) {
            assert_eq!((n.as_str(), v.as_str()), (wn, wv));
        }
        assert!(pairs_of("https://e.com/").unwrap().is_empty());
    }

    #[test]
    fn text_that_is_no_url_is_an_error_with_its_code_first() {
        let e = pairs_of("not a url").unwrap_err();
        assert!(e.starts_with("web."), "{e}");
        assert!(e.contains(": "), "{e}");
    }
}
