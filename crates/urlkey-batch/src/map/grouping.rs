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
}

impl BuildHasher for FingerprintHasher {
    type Hasher = FingerprintHasher;
    fn build_hasher(&self) -> FingerprintHasher {
        FingerprintHasher(0)
    }
}

#[derive(Clone, Copy)]
struct KeyState {
    count: u64,
    first: RecordRef,
    signature: Fingerprint,
}

#[derive(Clone)]
struct SigState {
    distinct_keys: u64,
    members: u64,
    first: RecordRef,
    /// Only with `--groups`: the signature's text and up to five member lines.
    detail: Option<Box<(String, Vec<u64>)>>,
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

/// The state of pass one.
pub struct Grouping {
    keys: HashMap<Fingerprint, KeyState, FingerprintHasher>,
    sigs: HashMap<Fingerprint, SigState, FingerprintHasher>,
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
        let sig_state = self.sigs.entry(sf).or_insert_with(|| SigState {
            distinct_keys: 0,
            members: 0,
            first: at,
            detail: c.signature.map(|s| Box::new((s.into_string(), Vec::new()))),
        });
        sig_state.members += 1;
        if let Some(d) = &mut sig_state.detail {
            if d.1.len() < 5 {
                d.1.push(at.line());
            }
        }
        match self.keys.entry(kf) {
            hashbrown::hash_map::Entry::Occupied(mut e) => e.get_mut().count += 1,
            hashbrown::hash_map::Entry::Vacant(e) => {
                e.insert(KeyState {
                    count: 1,
                    first: at,
                    signature: sf,
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
        self.summary.review_groups =
            self.sigs.values().filter(|s| s.distinct_keys > 1).count() as u64;
        self.summary.duplicate_groups = self
            .keys
            .values()
            .filter(|k| {
                k.count > 1
                    && self
                        .sigs
                        .get(&k.signature)
                        .is_some_and(|s| s.distinct_keys == 1)
            })
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
        let (mut group, mut duplicate_of, mut duplicates, mut variants) = (None, None, None, None);
        let name = |r: RecordRef| sources.get(r.source() as usize).map(String::as_str);
        let (mut group_source, mut duplicate_of_source) = (None, None);
        let classification = match (o.key.as_deref(), o.signature.as_deref()) {
            (Some(key), Some(sig)) => {
                let k = self.keys.get(&fingerprint(key)).copied();
                let s = self.sigs.get(&fingerprint(sig));
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
            _ => Classification::Invalid,
        };
        MapRow {
            line: rec.line,
            observed: &rec.observed,
            status: if o.is_valid() { "ok" } else { "invalid" },
            key: o.key.as_deref(),
            signature: o.signature.as_deref(),
            group,
            duplicate_of,
            duplicates,
            variants,
            classification: classification.as_str(),
            removed_tracking: join_names(&o.removed_params),
            error_code: o.error.as_ref().map(|e| e.code.as_str()),
            error: o.error.as_ref().map(|e| e.message.as_str()),
            review: REVIEW,
            transformations: with_detail.then_some(&o.transformations[..]),
            removed_params: with_detail.then_some(&o.removed_params[..]),
            facts: with_detail.then_some(&o.facts[..]),
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
            .sigs
            .values()
            .filter_map(|s| {
                let d = s.detail.as_ref()?;
                Some((
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
                ))
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
}
