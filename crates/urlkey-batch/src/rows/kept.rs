//! A CSV or TSV map row from what `urlkey map`'s first pass kept of its record ([`Kept`]:
//! `map/spill.rs` stores it in a temporary file and restores it) and the record read again,
//! with the grouping cells the whole input decides: pass two without keying the record
//! again. A record whose kept cells do not hold is keyed again ([`push_keyed_again`]),
//! through the same builders (`rows/build.rs`) as a run that does not spill.

use std::io;

use urlkey::{Outcome, Policy};

use super::build::{keyed_row, row_from_parts, ungrouped_row, GroupLookup, LeanRow};
use super::columns::Tail;
use super::csv::{
    needs_quotes, push_map_row, push_map_row_head, push_map_row_rest, spreadsheet_safe,
    starts_a_formula, RowRest,
};
use crate::input::{InputRecord, RecordRef};

/// How pass one writes rows: the settings of the output's rows.
pub(crate) struct RowShape<'a> {
    /// `,` or a tab.
    pub delimiter: u8,
    /// The output's tail columns.
    pub tail: &'a Tail,
    /// The run's inputs' names, when it has more than one.
    pub sources: &'a [String],
}

/// A kept record that does not read back whole: the temporary file that held it was
/// changed while `map` ran.
pub(crate) fn damaged() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "map's temporary file was changed while map ran",
    )
}

/// A key kept as an edit of the input it came from: the input's first `lower` bytes with
/// ASCII letters lowercased, then its next `same` bytes as they are, then `rest`, the rest
/// of the key as text (`map/spill.rs` makes the edit).
pub(crate) type KeyEdit<'a> = (usize, usize, &'a str);

/// The key that the first pass kept as `edit` of this input, in `buf`.
pub(crate) fn key_of_edit<'b>(
    observed: &str,
    (lower, same, rest): KeyEdit,
    buf: &'b mut String,
) -> io::Result<&'b str> {
    let end = lower.checked_add(same).ok_or_else(damaged)?;
    buf.clear();
    buf.push_str(observed.get(..lower).ok_or_else(damaged)?);
    buf.make_ascii_lowercase();
    buf.push_str(observed.get(lower..end).ok_or_else(damaged)?);
    buf.push_str(rest);
    Ok(buf)
}

/// Where a record's signature is: at an offset into its key, with a length, or a text.
pub(crate) enum Sig<'a> {
    InKey(usize, usize),
    Text(&'a str),
}

/// What pass one kept of a record.
pub(crate) enum Kept<'a> {
    /// Its cells: the key as an edit of the input ([`KeyEdit`]), the signature, the
    /// removed parameters joined, the status and error.
    Cells {
        key: KeyEdit<'a>,
        sig: Sig<'a>,
        removed: &'a str,
        error: Option<(bool, &'a str, &'a str)>,
    },
    /// An invalid record's whole row.
    Row(&'a str),
}

/// An invalid record's whole row (it has no grouping cells), as its first pass writes it,
/// appended to `out`.
pub(crate) fn push_whole_row(
    r: &InputRecord,
    o: &Outcome,
    error: Option<(bool, &str, &str)>,
    shape: &RowShape,
    out: &mut Vec<u8>,
) {
    let mut row = ungrouped_row(r, None, &o.removed_params, shape.sources);
    row.status = if o.is_valid() { "ok" } else { "invalid" };
    row.error_code = error.map(|e| e.1);
    row.error = error.map(|e| e.2);
    push_map_row(out, shape.delimiter, &row, shape.tail);
}

/// The row of a valid record from its cells and the record read again, with its grouping
/// cells, appended to `out`. Where the text as read needs no quotes (most rows) the key is
/// written from its edit straight into the row and the signature copied from it there
/// ([`push_key_cells`]); otherwise the row is made as a [`MapRow`](super::MapRow)
/// with the key as text, and quoted where it needs it.
/// `k` is the ordinal of the record's key state, whose grouping cells `groups` gives.
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_kept_row(
    kept: Kept,
    r: &InputRecord,
    k: usize,
    groups: &impl GroupLookup,
    shape: &RowShape,
    key: &mut String,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let (cells_key, sig, removed, error) = match kept {
        Kept::Cells {
            key,
            sig,
            removed,
            error,
        } => (key, sig, removed, error),
        Kept::Row(row) => {
            out.extend_from_slice(row.as_bytes());
            return Ok(());
        }
    };
    let observed = r.observed.as_str();
    // The key is the text as read, cut and case folded, plus `rest`; the signature is in
    // the key or its own text: what a quote could need beyond the text as read.
    let d = shape.delimiter;
    let as_observed = !needs_quotes(cells_key.2.as_bytes(), d)
        && match sig {
            Sig::Text(t) => !needs_quotes(t.as_bytes(), d),
            Sig::InKey(..) => true,
        };
    let here = RecordRef::of(r);
    let groups = groups
        .cells_at(here, k, shape.sources)
        .ok_or_else(damaged)?;
    let (status, error_code, error) = match error {
        Some((valid, code, message)) => (
            if valid { "ok" } else { "invalid" },
            Some(code),
            Some(message),
        ),
        None => ("ok", None, None),
    };
    if as_observed {
        let (start, plain) = push_map_row_head(out, d, here.line(), observed, status);
        if plain {
            push_key_cells(out, d, observed, cells_key, sig)?;
            let rest = RowRest {
                cells: groups,
                removed_tracking: removed,
                error_code,
                error,
                source: shape
                    .sources
                    .get(here.source() as usize)
                    .map(String::as_str),
                run_line: (!shape.sources.is_empty()).then_some(r.run_line),
                kept: &r.kept,
            };
            push_map_row_rest(out, d, start, &rest, shape.tail);
            return Ok(());
        }
        out.truncate(start);
    }
    let key = key_of_edit(observed, cells_key, key)?;
    let sig = match sig {
        Sig::Text(t) => t,
        Sig::InKey(at, len) => {
            let end = at.checked_add(len).ok_or_else(damaged)?;
            key.get(at..end).ok_or_else(damaged)?
        }
    };
    let mut row = row_from_parts(
        here,
        observed,
        Some((key, sig)),
        removed.to_string(),
        &r.kept,
        shape.sources,
    );
    row.status = status;
    row.error_code = error_code;
    row.error = error;
    row.run_line = (!shape.sources.is_empty()).then_some(r.run_line);
    row.set_groups(groups);
    push_map_row(out, d, &row, shape.tail);
    Ok(())
}

/// The key and signature cells of a row whose text as read went in without quotes, each
/// followed by `d`: the key from its edit ([`KeyEdit`]) written into `out` and case
/// folded there, the signature copied from it there or from its own text; each prefixed
/// as [`spreadsheet_safe`] would. What [`key_of_edit`] and the row's two cells did with a
/// buffer and two copies.
pub(crate) fn push_key_cells(
    out: &mut Vec<u8>,
    d: u8,
    observed: &str,
    (lower, same, rest): KeyEdit,
    sig: Sig,
) -> io::Result<()> {
    let end = lower.checked_add(same).ok_or_else(damaged)?;
    let head = observed.get(..end).ok_or_else(damaged)?;
    if !head.is_char_boundary(lower) {
        return Err(damaged());
    }
    let mut at = out.len();
    out.extend_from_slice(head.as_bytes());
    out[at..at + lower].make_ascii_lowercase();
    out.extend_from_slice(rest.as_bytes());
    if starts_a_formula(out.get(at)) {
        out.insert(at, b'\'');
        at += 1;
    }
    let key_end = out.len();
    out.push(d);
    match sig {
        Sig::Text(t) => out.extend_from_slice(spreadsheet_safe(t).as_bytes()),
        Sig::InKey(from, len) => {
            let from = at.checked_add(from).ok_or_else(damaged)?;
            let to = from.checked_add(len).ok_or_else(damaged)?;
            // The key is text: a slice of it is text when it starts and ends where a
            // character does (a byte that is not a UTF-8 continuation, or the end).
            let boundary =
                |i: usize| i == key_end || out.get(i).is_some_and(|&b| (b as i8) >= -0x40);
            if to > key_end || !boundary(from) || !boundary(to) {
                return Err(damaged());
            }
            if starts_a_formula(out.get(from).filter(|_| from < to)) {
                out.push(b'\'');
            }
            out.extend_from_within(from..to);
        }
    }
    out.push(d);
    Ok(())
}

/// The row of a record that pass one did not keep as it is now: keyed again, its state
/// probed in the table, as when the run does not spill.
pub(crate) fn push_keyed_again(
    groups: &impl GroupLookup,
    policy: &Policy,
    r: &InputRecord,
    shape: &RowShape,
    lean: &mut LeanRow,
    out: &mut Vec<u8>,
) {
    keyed_row(groups, policy, r, shape.sources, lean, |row| {
        push_map_row(out, shape.delimiter, row, shape.tail)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A damaged edit or signature place is an error, never a panic or a cut character.
    #[test]
    fn a_damaged_key_edit_is_an_error() {
        let t = "http://h/é?ü=1";
        let bad = [
            ((0, 99, ""), Sig::InKey(0, 1)),
            ((10, 0, ""), Sig::InKey(0, 1)),
            ((0, 10, ""), Sig::InKey(0, 1)),
            ((0, t.len(), ""), Sig::InKey(10, 1)),
            ((0, t.len(), ""), Sig::InKey(0, 99)),
            ((0, t.len(), ""), Sig::InKey(usize::MAX, 2)),
            ((usize::MAX, 2, ""), Sig::InKey(0, 1)),
        ];
        for (edit, sig) in bad {
            let mut out = Vec::new();
            assert!(
                push_key_cells(&mut out, b',', t, edit, sig).is_err(),
                "{edit:?}"
            );
        }
        let mut out = Vec::new();
        push_key_cells(&mut out, b',', t, (4, t.len() - 4, ""), Sig::InKey(9, 2)).expect("a place");
        assert_eq!(out, "http://h/é?ü=1,é,".as_bytes());
    }
}
