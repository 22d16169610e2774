//! What pass one keeps of a record ([`Counted`]), made on a worker thread so that the
//! thread that owns the grouping only inserts, and why a record cannot be counted.

use urlkey::internals::PolicyInternals;
use urlkey::{ErrorCode, Outcome, Policy};

use super::fingerprint::{record_fingerprints, Fingerprint};
use crate::input::{InputRecord, RecordRef};
use crate::rows::LeanRow;

/// Two different keys with one fingerprint (only detectable with `--verify-fingerprints`).
#[derive(Debug)]
pub struct FingerprintCollision {
    /// The first key.
    pub first: String,
    /// The second key.
    pub second: String,
}

/// Why a record could not be counted.
#[derive(Debug)]
pub enum CountError {
    /// Two keys share a fingerprint.
    Collision(FingerprintCollision),
    /// More distinct keys than one run counts ([`super::MAX_STATES`]).
    TooManyKeys,
}

/// What pass one keeps of a record, computed on a worker thread so that the thread that
/// owns the table only inserts.
#[derive(Debug, Clone)]
pub struct Counted {
    pub(super) at: RecordRef,
    pub(super) fingerprints: Result<(Fingerprint, Fingerprint), Option<ErrorCode>>,
    pub(super) key: Option<Box<str>>,
    pub(super) signature: Option<Box<str>>,
}

impl Counted {
    /// The fingerprints of a record's key and signature (or its error code); the key's
    /// text only when `verify`, the signature's only when `groups`.
    pub fn of(at: RecordRef, o: &Outcome, verify: bool, groups: bool) -> Self {
        match (o.key.as_deref(), o.signature.as_deref()) {
            (Some(key), Some(sig)) => Counted {
                at,
                fingerprints: Ok(record_fingerprints(key, sig)),
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
                .map(|()| record_fingerprints(&buf.key, &buf.signature))
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

impl Counted {
    /// What pass one counts of the valid record `r` that `lean` keyed ([`LeanRow::key`]):
    /// as [`Counted::key`] gives it, the key's text only when `verify`, no signature text.
    pub(crate) fn lean(lean: &LeanRow, r: &InputRecord, verify: bool) -> Self {
        let (key, signature, _) = lean.parts();
        Counted {
            at: RecordRef::of(r),
            fingerprints: Ok(record_fingerprints(key, signature)),
            key: verify.then(|| key.into()),
            signature: None,
        }
    }
}
