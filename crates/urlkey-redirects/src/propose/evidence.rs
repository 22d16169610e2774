//! The evidence `propose` names for a target: one table, listed by
//! `urlkey redirects evidence` and docs/redirects.md.

/// One kind of evidence that an old URL's content now lives at a new URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvidenceKind {
    /// The new inventory has the old URL exactly: nothing to redirect.
    Served,
    /// The two URLs have the same key under the run's policy.
    SameKey,
}

/// Each kind: the kind, its name in rows, what it means.
pub const EVIDENCE: &[(EvidenceKind, &str, &str)] = &[
    (
        EvidenceKind::Served,
        "served",
        "the new inventory has this exact URL",
    ),
    (
        EvidenceKind::SameKey,
        "same-key",
        "the same key under the run's policy",
    ),
];

impl EvidenceKind {
    /// The name in rows.
    pub fn name(self) -> &'static str {
        EVIDENCE
            .iter()
            .find(|(k, _, _)| *k == self)
            .map_or("", |(_, n, _)| n)
    }
}

/// One piece of evidence for a target.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// Its kind.
    pub kind: EvidenceKind,
    /// What was found, for a person (`"the same key under webkey@1"`, a similarity).
    pub detail: String,
}
