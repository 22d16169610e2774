//! The reader settings of a request that posts a text (`POST /api/map`, `/api/map.csv`,
//! `/api/diff`): the same settings and checks as the command line's `--input-format`,
//! `--column`, `--field`, `--max-line-bytes` and `--keep-columns`.

use urlkey_batch::input::{InputFormat, KeepColumns, ReadOptions, Setting, DEFAULT_MAX_LINE_BYTES};

use crate::error::ApiError;

/// The reader settings of a request (`input_format`, `column`, `field`,
/// `max_line_bytes`, `keep_columns`), checked by the reader's own check, as the command
/// line's are; the message names the request's field.
pub(crate) fn read_options(
    input_format: Option<&str>,
    column: &Option<String>,
    field: &Option<String>,
    max_line_bytes: Option<usize>,
    keep_columns: Option<&str>,
) -> Result<ReadOptions, ApiError> {
    let format = match input_format {
        None | Some("") => InputFormat::Lines,
        Some(f) => InputFormat::parse(f).ok_or_else(|| {
            ApiError::new(
                "request.invalid-option",
                format!("input_format {f:?}: use lines, csv, tsv or jsonl"),
            )
        })?,
    };
    let nonempty = |o: &Option<String>| o.as_ref().filter(|s| !s.is_empty()).cloned();
    let opts = ReadOptions {
        format,
        column: nonempty(column),
        field: nonempty(field),
        max_line_bytes: max_line_bytes.unwrap_or(DEFAULT_MAX_LINE_BYTES),
        keep: keep_columns.map(KeepColumns::parse).unwrap_or_default(),
        ..ReadOptions::default()
    };
    opts.validate().map_err(|e| {
        let field = match e.setting {
            Setting::Column => " (column: a header name or a 1-based number)",
            Setting::Field => " (field: the name of the field holding the URL)",
            Setting::LineLimit => " (max_line_bytes)",
            Setting::Keep => " (keep_columns)",
            _ => "",
        };
        ApiError::new("request.invalid-option", format!("{e}{field}"))
    })?;
    Ok(opts)
}
