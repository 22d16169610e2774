//! `urlkey_query_pairs(url)`, twice under one name: a table function and a scalar
//! function. Both give the pairs of the URL's query from [`urlkey::query_pairs`]
//! (form-decoded: `+` is a space, `%2B` a plus; order kept, repeats and blank values
//! kept).
//!
//! - The table function ([`QueryPairs`]): one row `(position, name, value)` per pair,
//!   `position` from 1. Its argument is a constant (DuckDB's C API has no lateral table
//!   functions): a NULL URL gives no rows, and text that is not an absolute URL is an
//!   error whose message starts with its stable code (`web.invalid-url: ...`), as
//!   Python's `query_pairs` raises `InvalidUrlError`. Zero rows would not tell an invalid
//!   URL from a URL without a query.
//! - The scalar function ([`QueryPairList`]): `STRUCT(name, value)[]` per row, for a
//!   column (`SELECT unnest(urlkey_query_pairs(url), recursive := true) FROM t`). NULL
//!   for a NULL URL and for text that is not an absolute URL: over a column an error
//!   would end the whole query, and NULL still differs from `[]`, a URL without a query.

use std::error::Error;
use std::sync::atomic::{AtomicUsize, Ordering};

use duckdb::core::{DataChunkHandle, Inserter, LogicalTypeHandle, LogicalTypeId};
use duckdb::vscalar::{ScalarFunctionSignature, VScalar};
use duckdb::vtab::arrow::WritableVector;
use duckdb::vtab::{BindInfo, InitInfo, TableFunctionInfo, VTab};

use urlkey::internals::too_long_message;
use urlkey::policy::DEFAULT_MAX_INPUT_BYTES;
use urlkey::{ErrorCode, KeyError};

use crate::vector::Strings;

/// The fields of the scalar function's structs, in order.
pub const PAIR_FIELDS: [&str; 2] = ["name", "value"];

/// The pairs of one URL, found at bind time.
pub struct Pairs {
    pairs: Vec<(String, String)>,
}

/// How many pairs were written so far.
pub struct Cursor {
    next: AtomicUsize,
}

/// The pairs of `url`, or the error text (code first) for text that is not a URL and for
/// text over the input limit (64 KiB, `input.too-long`, as `urlkey_key` and the command).
pub fn pairs_of(url: &str) -> Result<Vec<(String, String)>, String> {
    let err = |e: KeyError| format!("{}: {}", e.code.as_str(), e.message);
    if url.len() > DEFAULT_MAX_INPUT_BYTES {
        let message = too_long_message(url.len(), DEFAULT_MAX_INPUT_BYTES);
        return Err(err(KeyError::new(ErrorCode::InputTooLong, message)));
    }
    urlkey::query_pairs(url).map_err(err)
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

/// The pairs of one row of the scalar function: `None` (NULL) for a NULL URL, for text
/// that is not an absolute URL and for text over the input limit.
pub fn pair_list(url: Option<&str>) -> Option<Vec<(String, String)>> {
    url.and_then(|u| pairs_of(u).ok())
}

/// The SQL type of the scalar function's result: `STRUCT(name VARCHAR, value VARCHAR)[]`.
pub fn pair_list_type() -> LogicalTypeHandle {
    let fields: Vec<(&str, LogicalTypeHandle)> = PAIR_FIELDS
        .iter()
        .map(|f| (*f, LogicalTypeHandle::from(LogicalTypeId::Varchar)))
        .collect();
    LogicalTypeHandle::list(&LogicalTypeHandle::struct_type(&fields))
}

/// `urlkey_query_pairs(url)`, the scalar function: a list of `(name, value)` structs
/// per row, a whole chunk per call.
pub struct QueryPairList;

impl VScalar for QueryPairList {
    type State = ();

    fn invoke(
        _: &(),
        input: &mut DataChunkHandle,
        output: &mut dyn WritableVector,
    ) -> Result<(), Box<dyn Error>> {
        let urls = Strings::of(input, 0);
        let rows: Vec<Option<Vec<(String, String)>>> = (0..urls.len())
            .map(|row| pair_list(urls.get(row).as_deref()))
            .collect();
        write_pair_lists(&rows, output);
        Ok(())
    }

    fn signatures() -> Vec<ScalarFunctionSignature> {
        vec![ScalarFunctionSignature::exact(
            vec![LogicalTypeHandle::from(LogicalTypeId::Varchar)],
            pair_list_type(),
        )]
    }
}

/// Writes one list per row: the rows' pairs one after another in the list's struct
/// child, each row's entry its offset and length; a `None` row is NULL.
fn write_pair_lists(rows: &[Option<Vec<(String, String)>>], output: &mut dyn WritableVector) {
    let total: usize = rows.iter().flatten().map(Vec::len).sum();
    let mut list = output.list_vector();
    let items = list.struct_child(total.max(1));
    let names = items.child(0, total.max(1));
    let values = items.child(1, total.max(1));
    let mut offset = 0;
    for (row, pairs) in rows.iter().enumerate() {
        let Some(pairs) = pairs else {
            list.set_entry(row, offset, 0);
            list.set_null(row);
            continue;
        };
        for (i, (name, value)) in pairs.iter().enumerate() {
            names.insert(offset + i, name.as_str());
            values.insert(offset + i, value.as_str());
        }
        list.set_entry(row, offset, pairs.len());
        offset += pairs.len();
    }
    list.set_len(total);
}

#[cfg(test)]
mod tests {
    use super::{pair_list, pairs_of};

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

    #[test]
    fn the_scalar_gives_the_same_pairs_and_null_for_null_or_no_url() {
        for url in [
            "https://e.com/?a=1&b=&a=2&c+d=x%2By",
            "https://e.com/",
            "https://e.com/?&&x",
        ] {
            assert_eq!(pair_list(Some(url)), Some(pairs_of(url).unwrap()), "{url}");
        }
        assert_eq!(pair_list(Some("https://e.com/")), Some(Vec::new()));
        assert_eq!(pair_list(None), None);
        assert_eq!(pair_list(Some("not a url")), None);
        assert_eq!(pair_list(Some("")), None);
    }

    #[test]
    fn text_over_the_input_limit_is_refused_as_key_refuses_it() {
        let limit = urlkey::policy::DEFAULT_MAX_INPUT_BYTES;
        let head = "https://e.com/?a=";
        let at = format!("{head}{}", "x".repeat(limit - head.len()));
        assert_eq!(at.len(), limit);
        assert_eq!(pairs_of(&at).unwrap().len(), 1);
        let over = format!("{at}x");
        let e = pairs_of(&over).unwrap_err();
        let want = urlkey::PolicySet::builtin()
            .get("citation@1")
            .unwrap()
            .key(&over);
        let want = want.error.unwrap();
        assert_eq!(e, format!("{}: {}", want.code.as_str(), want.message));
        assert!(e.starts_with("input.too-long: "), "{e}");
        assert_eq!(pair_list(Some(&over)), None);
    }
}
