//! The grouping engine of `urlkey map` (seed 000): duplicates, variants and a
//! classification for every record, with compact state per distinct key. Pass one
//! ([`super::MapRun`]) feeds it; pass two reads its counts.
//!
//! Per 128-bit fingerprint of the key it counts how many records share it and where the
//! first one was; per fingerprint of the signature, how many distinct keys share it.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};

use hashbrown::HashMap;
use urlkey::{ErrorCode, Outcome, Policy};

use crate::input::{InputRecord, RecordRef, Skipped};
use crate::output::join_names;
pub use crate::rows::GroupRow;
use crate::rows::{MapRow, REVIEW};

/// A 128-bit fingerprint (XXH3-128).
pub type Fingerprint = u128;

/// The fingerprint of a key or signature.
#[inline]
pub fn fingerprint(text: &str) -> Fingerprint {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// The fingerprints are already uniform: hash tables use their low 64 bits as is.
#[derive(Clone, Copy, Default)]
pub struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.0 ^= u64::from_le_bytes(b);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl BuildHasher for FingerprintHasher {
    type Hasher = FingerprintHasher;
    fn build_hasher(&self) -> FingerprintHasher {
        FingerprintHasher(0)
    }
}

/// A fingerprint as a table key: two 64-bit halves, so that a table entry is aligned to 8
/// bytes, not 16 (a `u128` key pads a 24-byte state to 48 bytes). Hashes as its low half.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Fp(u64, u64);

impl Fp {
    #[inline]
    fn of(f: Fingerprint) -> Self {
        Fp(f as u64, (f >> 64) as u64)
    }
}

impl std::hash::Hash for Fp {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0);
    }
}

/// Per distinct key (40 bytes a table entry with its fingerprint).
#[derive(Clone, Copy)]
struct KeyState {
    count: u64,
    first: RecordRef,
    /// The ordinal of the signature of its first record (`Grouping::sig_states`).
    signature: usize,
}

/// Per distinct signature, in a dense vector (24 bytes; its table entry holds the
/// fingerprint and this ordinal, 24 bytes more).
#[derive(Clone, Copy)]
struct SigState {
    distinct_keys: u64,
    members: u64,
    first: RecordRef,
}

/// How a record is classified (seed 000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Classification {
    /// The record produced no key.
    Invalid,
    /// Its signature group holds distinct keys: a person must decide.
    Review,
    /// Several records share its key and nothing else shares its signature.
    Duplicate,
    /// Alone.
    Unique,
}

impl Classification {
    /// The name in output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Classification::Invalid => "invalid",
            Classification::Review => "review",
            Classification::Duplicate => "duplicate",
            Classification::Unique => "unique",
        }
    }
}

/// Two different keys with one fingerprint (only detectable with `--verify-fingerprints`).
#[derive(Debug)]
pub struct FingerprintCollision {
    /// The first key.
    pub first: String,
    /// The second key.
    pub second: String,
}

/// Counts for the summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct MapSummary {
    /// The policy used.
    pub policy: String,
    /// Lines read (records and skipped lines).
    pub lines_read: u64,
    /// Lines skipped.
    pub skipped: Skipped,
    /// Records (one per non-skipped line or row).
    pub records: u64,
    /// Records with a key.
    pub valid: u64,
    /// Records without a key.
    pub invalid: u64,
    /// Invalid records by error code.
    pub invalid_by_code: BTreeMap<String, u64>,
    /// Distinct keys.
    pub distinct_keys: u64,
    /// Distinct signatures.
    pub signature_groups: u64,
    /// Keys shared by more than one record in a signature group of one key.
    pub duplicate_groups: u64,
    /// Signature groups with more than one distinct key.
    pub review_groups: u64,
    /// Worker threads.
    pub threads: usize,
    /// Wall time.
    pub elapsed_seconds: f64,
    /// Lines per second.
    pub lines_per_second: f64,
}

/// What pass one keeps of a record, computed on a worker thread so that the thread that
/// owns the tables only inserts.
#[derive(Debug, Clone)]
pub struct Counted {
    at: RecordRef,
    fingerprints: Result<(Fingerprint, Fingerprint), Option<ErrorCode>>,
    key: Option<Box<str>>,
    signature: Option<Box<str>>,
}

impl Counted {
    /// The fingerprints of a record's key and signature (or its error code); the key's
    /// text only when `verify`, the signature's only when `groups`.
    pub fn of(at: RecordRef, o: &Outcome, verify: bool, groups: bool) -> Self {
        match (o.key.as_deref(), o.signature.as_deref()) {
            (Some(key), Some(sig)) => Counted {
                at,
                fingerprints: Ok((fingerprint(key), fingerprint(sig))),
                key: verify.then(|| key.into()),
                signature: groups.then(|| sig.into()),
            },
            _ => Counted {
                at,
                fingerprints: Err(o.error.as_ref().map(|e| e.code)),
                key: None,
                signature: None,
            },
        }
    }
}

/// Reused buffers for [`Counted::key`].
#[derive(Debug, Default)]
pub struct KeyBuffers {
    key: String,
    signature: String,
}

impl Counted {
    /// [`Counted::of`] through the lean key path ([`Policy::key_signature_into`]): the
    /// same fingerprints and error code without building an `Outcome`.
    pub fn key(
        policy: &Policy,
        r: &InputRecord,
        verify: bool,
        groups: bool,
        buf: &mut KeyBuffers,
    ) -> Self {
        let fingerprints = match &r.problem {
            Some(p) => Err(Some(p.code)),
            None => policy
                .key_signature_into(&r.observed, &mut buf.key, &mut buf.signature)
                .map(|()| (fingerprint(&buf.key), fingerprint(&buf.signature)))
                .map_err(Some),
        };
        let valid = fingerprints.is_ok();
        Counted {
            at: RecordRef::of(r),
            fingerprints,
            key: (valid && verify).then(|| buf.key.as_str().into()),
            signature: (valid && groups).then(|| buf.signature.as_str().into()),
        }
    }
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
    /// policy's error), whose row needs the error message: take [`super::outcome_of`].
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
}

/// The state of pass one.
pub struct Grouping {
    keys: HashMap<Fp, KeyState, FingerprintHasher>,
    /// Signature fingerprint -> ordinal in `sig_states`.
    sigs: HashMap<Fp, usize, FingerprintHasher>,
    sig_states: Vec<SigState>,
    /// Only with `--groups`: per signature ordinal, its text and up to five member lines.
    sig_detail: Vec<(String, Vec<u64>)>,
    verify: Option<HashMap<Fingerprint, Box<str>, FingerprintHasher>>,
    keep_detail: bool,
    /// Summary counts so far.
    pub summary: MapSummary,
}

impl Grouping {
    /// Empty state. `verify` keeps every key's text to prove fingerprints distinct;
    /// `groups` keeps signature texts and sample lines for `--groups`.
    pub fn new(policy: &str, verify: bool, groups: bool) -> Self {
        Grouping {
            keys: HashMap::with_hasher(FingerprintHasher(0)),
            sigs: HashMap::with_hasher(FingerprintHasher(0)),
            sig_states: Vec::new(),
            sig_detail: Vec::new(),
            verify: verify.then(|| HashMap::with_hasher(FingerprintHasher(0))),
            keep_detail: groups,
            summary: MapSummary {
                policy: policy.to_string(),
                ..MapSummary::default()
            },
        }
    }

    /// Counts one record.
    pub fn insert(&mut self, at: RecordRef, o: &Outcome) -> Result<(), FingerprintCollision> {
        let c = Counted::of(at, o, self.verify.is_some(), self.keep_detail);
        self.insert_counted(c)
    }

    /// Counts one record whose fingerprints a worker computed ([`Counted::of`]).
    pub fn insert_counted(&mut self, c: Counted) -> Result<(), FingerprintCollision> {
        self.summary.records += 1;
        let (kf, sf) = match c.fingerprints {
            Ok(f) => f,
            Err(code) => {
                self.summary.invalid += 1;
                let code = code.map_or("unknown", ErrorCode::as_str);
                *self
                    .summary
                    .invalid_by_code
                    .entry(code.to_string())
                    .or_default() += 1;
                return Ok(());
            }
        };
        self.summary.valid += 1;
        if let (Some(v), Some(key)) = (&mut self.verify, c.key) {
            let known = v.entry(kf).or_insert_with(|| key.clone());
            if *known != key {
                return Err(FingerprintCollision {
                    first: known.to_string(),
                    second: key.to_string(),
                });
            }
        }
        let at = c.at;
        let ordinal = match self.sigs.entry(Fp::of(sf)) {
            hashbrown::hash_map::Entry::Occupied(e) => *e.get(),
            hashbrown::hash_map::Entry::Vacant(e) => {
                let n = self.sig_states.len();
                self.sig_states.push(SigState {
                    distinct_keys: 0,
                    members: 0,
                    first: at,
                });
                if self.keep_detail {
                    let text = c.signature.map(str::into_string).unwrap_or_default();
                    self.sig_detail.push((text, Vec::new()));
                }
                *e.insert(n)
            }
        };
        let sig_state = &mut self.sig_states[ordinal];
        sig_state.members += 1;
        if let Some(d) = self.sig_detail.get_mut(ordinal) {
            if d.1.len() < 5 {
                d.1.push(at.line());
            }
        }
        match self.keys.entry(Fp::of(kf)) {
            hashbrown::hash_map::Entry::Occupied(mut e) => e.get_mut().count += 1,
            hashbrown::hash_map::Entry::Vacant(e) => {
                e.insert(KeyState {
                    count: 1,
                    first: at,
                    signature: ordinal,
                });
                sig_state.distinct_keys += 1;
            }
        }
        Ok(())
    }

    /// Fills in the group counts of the summary; call after pass one.
    pub fn close(&mut self) {
        self.summary.distinct_keys = self.keys.len() as u64;
        self.summary.signature_groups = self.sigs.len() as u64;
        self.summary.review_groups = self
            .sig_states
            .iter()
            .filter(|s| s.distinct_keys > 1)
            .count() as u64;
        self.summary.duplicate_groups = self
            .keys
            .values()
            .filter(|k| k.count > 1 && self.sig_states[k.signature].distinct_keys == 1)
            .count() as u64;
    }

    /// The row of one record, after pass one. `sources` names the run's inputs when it has
    /// more than one (for the tail columns), else is empty.
    pub fn row<'a>(
        &self,
        rec: &'a InputRecord,
        o: &'a Outcome,
        with_detail: bool,
        sources: &'a [String],
    ) -> MapRow<'a> {
        let keyed = match (o.key.as_deref(), o.signature.as_deref()) {
            (Some(key), Some(sig)) => Some((key, sig)),
            _ => None,
        };
        let mut row = self.row_of(rec, keyed, &o.removed_params, sources);
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
    /// [`Grouping::row`] without the detail fields (CSV and TSV have none).
    pub fn lean_row<'a>(
        &self,
        rec: &'a InputRecord,
        lean: &'a LeanRow,
        sources: &'a [String],
    ) -> MapRow<'a> {
        self.row_of(
            rec,
            Some((&lean.key, &lean.signature)),
            &lean.removed,
            sources,
        )
    }

    /// A row with its grouping columns; valid (`ok`, no error) and without detail.
    fn row_of<'a>(
        &self,
        rec: &'a InputRecord,
        keyed: Option<(&'a str, &'a str)>,
        removed: &[String],
        sources: &'a [String],
    ) -> MapRow<'a> {
        let (mut group, mut duplicate_of, mut duplicates, mut variants) = (None, None, None, None);
        let name = |r: RecordRef| sources.get(r.source() as usize).map(String::as_str);
        let (mut group_source, mut duplicate_of_source) = (None, None);
        let classification = match keyed {
            Some((key, sig)) => {
                let k = self.keys.get(&Fp::of(fingerprint(key))).copied();
                let s = self
                    .sigs
                    .get(&Fp::of(fingerprint(sig)))
                    .map(|&n| &self.sig_states[n]);
                let count = k.map_or(1, |k| k.count);
                let distinct = s.map_or(1, |s| s.distinct_keys);
                let here = RecordRef::of(rec);
                let first = k.map(|k| k.first).filter(|&f| f != here);
                group = s.map(|s| s.first.line());
                group_source = s.and_then(|s| name(s.first));
                duplicate_of = first.map(RecordRef::line);
                duplicate_of_source = first.and_then(name);
                duplicates = Some(count);
                variants = Some(distinct);
                if distinct > 1 {
                    Classification::Review
                } else if count > 1 {
                    Classification::Duplicate
                } else {
                    Classification::Unique
                }
            }
            None => Classification::Invalid,
        };
        MapRow {
            line: rec.line,
            observed: &rec.observed,
            status: "ok",
            key: keyed.map(|k| k.0),
            signature: keyed.map(|k| k.1),
            group,
            duplicate_of,
            duplicates,
            variants,
            classification: classification.as_str(),
            removed_tracking: join_names(removed),
            error_code: None,
            error: None,
            review: REVIEW,
            transformations: None,
            removed_params: None,
            facts: None,
            source: sources.get(rec.source as usize).map(String::as_str),
            group_source,
            duplicate_of_source,
            kept: &rec.kept,
        }
    }

    /// One row per signature group (needs `groups` at creation), ordered by input and
    /// group id; `sources` as for [`Grouping::row`].
    pub fn group_rows(&self, sources: &[String]) -> Vec<GroupRow> {
        let mut rows: Vec<(RecordRef, GroupRow)> = self
            .sig_states
            .iter()
            .zip(&self.sig_detail)
            .map(|(s, d)| {
                (
                    s.first,
                    GroupRow {
                        group: s.first.line(),
                        group_source: sources.get(s.first.source() as usize).cloned(),
                        signature: d.0.clone(),
                        members: s.members,
                        distinct_keys: s.distinct_keys,
                        classification: if s.distinct_keys > 1 {
                            "review"
                        } else if s.members > 1 {
                            "duplicate"
                        } else {
                            "unique"
                        },
                        sample_lines: d.1.clone(),
                        review: REVIEW,
                    },
                )
            })
            .collect();
        rows.sort_by_key(|r| r.0);
        rows.into_iter().map(|r| r.1).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::outcome_of;

    fn fields(c: &Counted) -> (RecordRef, String, Option<&str>, Option<&str>) {
        (
            c.at,
            format!("{:?}", c.fingerprints),
            c.key.as_deref(),
            c.signature.as_deref(),
        )
    }

    /// Pass one's lean path counts exactly what the `Outcome` path counts.
    #[test]
    fn lean_counting_equals_outcome_counting() {
        let set = urlkey::PolicySet::builtin();
        let inputs = [
            "https://Example.com/a/?utm_source=x&b=2&a=1#f",
            "/path/only?x=1",
            "//scheme-relative/x",
            "mailto:a@b.example",
            "https://u:p@h.example:8080/x/index.html?&&z",
            "http://[::1]/",
            "not a url",
            "",
        ];
        let mut records: Vec<InputRecord> = inputs
            .iter()
            .enumerate()
            .map(|(i, s)| InputRecord {
                line: i as u64 + 1,
                observed: s.to_string(),
                ..InputRecord::default()
            })
            .collect();
        records.push(InputRecord {
            line: 99,
            observed: "bad".into(),
            problem: Some(urlkey::KeyError::new(ErrorCode::InputInvalidUtf8, "x")),
            ..InputRecord::default()
        });
        let mut buf = KeyBuffers::default();
        for id in urlkey::policy::BUILTIN_IDS.iter().copied() {
            let p = set.get(id).unwrap();
            for r in &records {
                for (verify, groups) in [(false, false), (true, true)] {
                    let lean = Counted::key(&p, r, verify, groups, &mut buf);
                    let full = Counted::of(RecordRef::of(r), &outcome_of(&p, r), verify, groups);
                    assert_eq!(fields(&lean), fields(&full), "{id} {:?}", r.observed);
                }
            }
        }
    }
    /// Pass two's lean rows ([`Grouping::lean_row`], what CSV and TSV write) equal the
    /// `Outcome` rows without detail, field for field (tail cells included), for every
    /// builtin policy on the corpus and the inputs above; a record the lean path refuses
    /// takes the `Outcome` row, so only its code must agree.
    #[test]
    fn lean_rows_equal_outcome_rows() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/datasets/ada-url-various-datasets/others"
        );
        let mut lines: Vec<String> = [
            "https://Example.com/a/?utm_source=x&b=2&a=1&gclid=1#f",
            "https://example.com/a/?b=3&a=1",
            "https://example.com/a/?a=1&b=2",
            "/path/only?x=1&fbclid=2",
            "mailto:a@b.example",
            "not a url",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for f in ["kasztp.txt", "userbait.txt"] {
            let text = std::fs::read_to_string(format!("{dir}/{f}")).expect("the corpus");
            lines.extend(text.lines().map(str::to_string));
        }
        assert!(lines.len() > 50_000, "{} corpus lines", lines.len());
        let records: Vec<InputRecord> = lines
            .into_iter()
            .enumerate()
            .map(|(i, s)| InputRecord {
                line: i as u64 + 1,
                observed: s,
                source: (i % 2) as u32,
                kept: vec![format!("k{i}")],
                ..InputRecord::default()
            })
            .collect();
        let sources = ["a".to_string(), "b".to_string()];
        let set = urlkey::PolicySet::builtin();
        for id in urlkey::policy::builtin_variants() {
            let p = set.get(&id).unwrap();
            let mut g = Grouping::new(&id, false, false);
            let mut buf = KeyBuffers::default();
            for r in &records {
                g.insert_counted(Counted::key(&p, r, false, false, &mut buf))
                    .unwrap();
            }
            g.close();
            let (mut lean, mut valid) = (LeanRow::default(), 0);
            for r in &records {
                let o = outcome_of(&p, r);
                let full = g.row(r, &o, false, &sources);
                if lean.key(&p, r) {
                    valid += 1;
                    let row = g.lean_row(r, &lean, &sources);
                    let json = |m: &MapRow<'_>| serde_json::to_string(m).unwrap();
                    assert_eq!(json(&row), json(&full), "{id} {:?}", r.observed);
                    assert_eq!(row.tail(), full.tail(), "{id} {:?}", r.observed);
                } else {
                    assert!(o.key.is_none(), "{id} {:?}", r.observed);
                }
            }
            assert!(valid > 10_000, "{id}: {valid} valid");
        }
    }
}
