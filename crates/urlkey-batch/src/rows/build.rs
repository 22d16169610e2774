//! A `urlkey map` row's birth: from its record and its keying (the full [`Outcome`], or the
//! lean path's [`LeanRow`]), with the grouping cells that the whole input decides asked of
//! a [`GroupLookup`] (the map engine, `map/grouping.rs`). Every pass-two path of a map run
//! builds its rows here (`map/mod.rs`: rows keyed again, rows from the spill's kept cells in
//! `rows/kept.rs`, the rows handed to a [`super::RowSink`]), and `--groups` rows too.

use urlkey::internals::PolicyInternals;
use urlkey::{Outcome, Policy};

use super::csv::join_names;
use super::record::{Classification, GroupCells, GroupRow, MapRow, REVIEW};
use crate::input::{InputRecord, RecordRef};

/// The outcome of one input record: its reading problem, or the policy's outcome.
pub fn outcome_of(policy: &Policy, r: &InputRecord) -> Outcome {
    match &r.problem {
        Some(p) => Outcome::invalid(p.clone()),
        None => policy.key(&r.observed),
    }
}

/// Which signature group a key is in, as a row shows it: what the map engine answers
/// after its first pass (`map/grouping.rs`).
pub(crate) trait GroupLookup {
    /// The grouping cells of the valid record at `here` with this key and signature
    /// (`sources`: the run's inputs' names when it has more than one, else empty).
    fn cells<'s>(
        &self,
        here: RecordRef,
        key: &str,
        signature: &str,
        sources: &'s [String],
    ) -> GroupCells<'s>;

    /// The grouping cells of the valid record at `here` whose key state the first pass
    /// found at ordinal `k`; `None` for an ordinal the grouping does not have.
    fn cells_at<'s>(
        &self,
        here: RecordRef,
        k: usize,
        sources: &'s [String],
    ) -> Option<GroupCells<'s>>;
}

/// Reused buffers for a pass-two row on the lean path ([`Policy::key_row_into`]): the key,
/// the signature and the removed tracking parameters, which is all a CSV or TSV row shows
/// of a valid record.
#[derive(Debug, Default)]
pub struct LeanRow {
    key: String,
    signature: String,
    removed: Vec<String>,
}

impl LeanRow {
    /// Keys `r` into the buffers; false when it has no key (a reading problem or the
    /// policy's error), whose row needs the error message: take [`outcome_of`].
    pub fn key(&mut self, policy: &Policy, r: &InputRecord) -> bool {
        r.problem.is_none()
            && policy
                .key_row_into(
                    &r.observed,
                    &mut self.key,
                    &mut self.signature,
                    &mut self.removed,
                )
                .is_ok()
    }

    /// The key, the signature and the removed parameters [`LeanRow::key`] left.
    pub(crate) fn parts(&self) -> (&str, &str, &[String]) {
        (&self.key, &self.signature, &self.removed)
    }
}

/// The row of one record, after pass one. `sources` names the run's inputs when it has
/// more than one (for the tail columns), else is empty.
pub(crate) fn outcome_row<'a>(
    groups: &impl GroupLookup,
    rec: &'a InputRecord,
    o: &'a Outcome,
    with_detail: bool,
    sources: &'a [String],
) -> MapRow<'a> {
    let keyed = match (o.key.as_deref(), o.signature.as_deref()) {
        (Some(key), Some(sig)) => Some((key, sig)),
        _ => None,
    };
    let mut row = grouped_row(groups, rec, keyed, &o.removed_params, sources);
    row.status = if o.is_valid() { "ok" } else { "invalid" };
    row.error_code = o.error.as_ref().map(|e| e.code.as_str());
    row.error = o.error.as_ref().map(|e| e.message.as_str());
    if with_detail {
        row.transformations = Some(&o.transformations[..]);
        row.removed_params = Some(&o.removed_params[..]);
        row.facts = Some(&o.facts[..]);
    }
    row
}

/// The row of a valid record from the lean path ([`LeanRow::key`]): the same row as
/// [`outcome_row`] without the detail fields (CSV and TSV have none).
pub(crate) fn lean_row<'a>(
    groups: &impl GroupLookup,
    rec: &'a InputRecord,
    lean: &'a LeanRow,
    sources: &'a [String],
) -> MapRow<'a> {
    grouped_row(
        groups,
        rec,
        Some((&lean.key, &lean.signature)),
        &lean.removed,
        sources,
    )
}

/// The row of `rec` keyed now, without detail, handed to `write`: from the lean path
/// ([`LeanRow::key`]) when it gives a key, else from the outcome, whose error message
/// an invalid record's row shows. `lean` is a buffer.
pub(crate) fn keyed_row<T>(
    groups: &impl GroupLookup,
    policy: &Policy,
    rec: &InputRecord,
    sources: &[String],
    lean: &mut LeanRow,
    write: impl FnOnce(&MapRow<'_>) -> T,
) -> T {
    if lean.key(policy, rec) {
        write(&lean_row(groups, rec, lean, sources))
    } else {
        let o = outcome_of(policy, rec);
        write(&outcome_row(groups, rec, &o, false, sources))
    }
}

/// A row with its grouping cells; valid (`ok`, no error) and without detail.
fn grouped_row<'a>(
    groups: &impl GroupLookup,
    rec: &'a InputRecord,
    keyed: Option<(&'a str, &'a str)>,
    removed: &[String],
    sources: &'a [String],
) -> MapRow<'a> {
    let mut row = ungrouped_row(rec, keyed, removed, sources);
    if let Some((key, sig)) = keyed {
        row.set_groups(groups.cells(RecordRef::of(rec), key, sig, sources));
    }
    row
}

/// A map row as pass one can write it: valid (`ok`, classification and grouping cells
/// still empty) with `keyed`'s key and signature, or `invalid` without them (whose row is
/// whole: the caller sets the error). Without detail.
pub(crate) fn ungrouped_row<'a>(
    rec: &'a InputRecord,
    keyed: Option<(&'a str, &'a str)>,
    removed: &[String],
    sources: &'a [String],
) -> MapRow<'a> {
    let mut row = row_from_parts(
        RecordRef::of(rec),
        &rec.observed,
        keyed,
        join_names(removed),
        &rec.kept,
        sources,
    );
    row.line = rec.line;
    row.run_line = (!sources.is_empty()).then_some(rec.run_line);
    row
}

/// [`ungrouped_row`] from a record's parts: its place, the input as read, its key and
/// signature (none for an invalid record), the removed parameters' names joined, its
/// kept cells. `urlkey map`'s spill keeps these instead of the record.
pub(crate) fn row_from_parts<'a>(
    at: RecordRef,
    observed: &'a str,
    keyed: Option<(&'a str, &'a str)>,
    removed_tracking: String,
    kept: &'a [String],
    sources: &'a [String],
) -> MapRow<'a> {
    MapRow {
        line: at.line(),
        observed,
        status: "ok",
        key: keyed.map(|k| k.0),
        signature: keyed.map(|k| k.1),
        group: None,
        duplicate_of: None,
        duplicates: None,
        variants: None,
        classification: if keyed.is_some() {
            ""
        } else {
            Classification::Invalid.as_str()
        },
        removed_tracking,
        error_code: None,
        error: None,
        review: REVIEW,
        transformations: None,
        removed_params: None,
        facts: None,
        source: sources.get(at.source() as usize).map(String::as_str),
        group_source: None,
        run_line: None,
        duplicate_of_source: None,
        kept,
    }
}

/// One `--groups` row: the group's id (its first record's line, or run line) and that
/// record's input, the signature, its records and distinct keys, up to five records' ids.
pub(crate) fn group_row(
    group: u64,
    group_source: Option<String>,
    signature: String,
    members: u64,
    distinct_keys: u64,
    sample_lines: Vec<u64>,
) -> GroupRow {
    GroupRow {
        group,
        group_source,
        signature,
        members,
        distinct_keys,
        classification: Classification::of(distinct_keys, members).as_str(),
        sample_lines,
        review: REVIEW,
    }
}
