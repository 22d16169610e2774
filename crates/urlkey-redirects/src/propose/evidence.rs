//! The evidence `propose` names for a target: one table ([`EVIDENCE`]), listed by
//! `urlkey redirects evidence` and docs/redirects.md (a test compares them).
//!
//! The table's order is the order of strength: a target is ranked by its strongest
//! evidence first, and its score is that evidence's points plus a bounded bonus for the
//! rest ([`score`]), so that no pile of weak evidence outranks one piece of stronger
//! evidence.

/// One kind of evidence that an old URL's content now lives at a new URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvidenceKind {
    /// The new inventory has the old URL exactly: nothing to redirect.
    Served,
    /// The two URLs have the same key under the run's policy.
    SameKey,
    /// The two URLs have the same key under the looser builtin ([`super::LOOSE_POLICY`]).
    SameKeyLoose,
    /// The same path once case, host, scheme, the last segment's page extension, a
    /// default document and a trailing slash are set aside.
    SamePath,
    /// Both pages have the same title (normalized).
    SameTitle,
    /// The last path segment is the same without its page extension (`.html`, `.php`, ...).
    SameStem,
    /// The last path segment is the same (ignoring case), whatever folder it is in.
    SameLastSegment,
    /// The paths share most of their words.
    SharedTokens,
}

/// One row of the evidence table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvidenceInfo {
    /// The kind.
    pub kind: EvidenceKind,
    /// Its name in rows (`evidence` column) and in `urlkey redirects evidence`.
    pub name: &'static str,
    /// Its points: a target's score starts from its strongest evidence's points.
    /// `shared-tokens` scales its points by the similarity (0 to 1).
    pub points: u32,
    /// What it means.
    pub meaning: &'static str,
}

/// Every kind, strongest first (the ranking's order).
pub const EVIDENCE: &[EvidenceInfo] = &[
    EvidenceInfo {
        kind: EvidenceKind::Served,
        name: "served",
        points: 100,
        meaning: "the new inventory has this exact URL (no redirect needed)",
    },
    EvidenceInfo {
        kind: EvidenceKind::SameKey,
        name: "same-key",
        points: 90,
        meaning: "the same key under the run's policy",
    },
    EvidenceInfo {
        kind: EvidenceKind::SameKeyLoose,
        name: "same-key-loose",
        points: 80,
        meaning: "the same key under webkey@1, the loosest builtin (registrable domain, path case, default documents, trailing slash); not given when the run's policy is webkey@1",
    },
    EvidenceInfo {
        kind: EvidenceKind::SamePath,
        name: "same-path",
        points: 70,
        meaning: "the same path and query ignoring the host, the scheme, case, a trailing slash, a default document (index.*, default.*) and the last segment's page extension (.html .htm .php .asp .aspx .jsp .cfm .shtml ...)",
    },
    EvidenceInfo {
        kind: EvidenceKind::SameTitle,
        name: "same-title",
        points: 60,
        meaning: "the same title (when both inventories have titles), ignoring case, spacing and a site name after the last separator (a bar, hyphen or dash between spaces)",
    },
    EvidenceInfo {
        kind: EvidenceKind::SameStem,
        name: "same-stem",
        points: 50,
        meaning: "the same last path segment without its page extension (.html .php ...), ignoring case, in any folder: a moved page",
    },
    EvidenceInfo {
        kind: EvidenceKind::SameLastSegment,
        name: "same-last-segment",
        points: 40,
        meaning: "the same last path segment, ignoring case, in any folder: a moved page (the detail names both folders)",
    },
    EvidenceInfo {
        kind: EvidenceKind::SharedTokens,
        name: "shared-tokens",
        points: 30,
        meaning: "the paths share words (split on / - _ . and other punctuation, lowercased): at least 2 shared and a Jaccard similarity of at least 0.3; points are 30 times the similarity",
    },
];

impl EvidenceKind {
    /// Its row of [`EVIDENCE`].
    pub fn info(self) -> &'static EvidenceInfo {
        // Every kind has its row (`every_kind_has_one_row`); the first row is a safe default.
        EVIDENCE
            .iter()
            .find(|e| e.kind == self)
            .unwrap_or(&EVIDENCE[0])
    }

    /// The name in rows.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The kind of that name.
    pub fn parse(name: &str) -> Option<EvidenceKind> {
        EVIDENCE.iter().find(|e| e.name == name).map(|e| e.kind)
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

/// The points of one piece of evidence: the table's, scaled by `similarity` for
/// `shared-tokens`.
pub fn points(kind: EvidenceKind, similarity: f64) -> f64 {
    let p = f64::from(kind.info().points);
    if kind == EvidenceKind::SharedTokens {
        p * similarity
    } else {
        p
    }
}

/// The score of a target from its evidence (strongest first): the strongest one's points,
/// plus 1 for each other named kind, plus the token similarity (0 to 1) when
/// `shared-tokens` is there but not the strongest. The bonus is at most 7, less than the
/// 10 points between two kinds, so a target with stronger evidence always ranks first.
/// Rounded to 2 decimals.
pub fn score(evidence: &[EvidenceKind], similarity: f64) -> f64 {
    let Some(&first) = evidence.first() else {
        return 0.0;
    };
    let mut s = points(first, similarity);
    for &k in &evidence[1..] {
        s += if k == EvidenceKind::SharedTokens {
            similarity
        } else {
            1.0
        };
    }
    (s * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [EvidenceKind; 8] = [
        EvidenceKind::Served,
        EvidenceKind::SameKey,
        EvidenceKind::SameKeyLoose,
        EvidenceKind::SamePath,
        EvidenceKind::SameTitle,
        EvidenceKind::SameStem,
        EvidenceKind::SameLastSegment,
        EvidenceKind::SharedTokens,
    ];

    #[test]
    fn every_kind_has_one_row_in_the_order_of_strength() {
        assert_eq!(EVIDENCE.len(), ALL.len());
        for (row, kind) in EVIDENCE.iter().zip(ALL) {
            assert_eq!(row.kind, kind);
            assert_eq!(EvidenceKind::parse(row.name), Some(kind));
        }
        // Strongest first, 10 points apart: the bonus (at most 6 kinds + a similarity
        // below 1) never lifts a target over the next kind.
        for w in EVIDENCE.windows(2) {
            assert!(w[0].kind < w[1].kind);
            assert_eq!(w[0].points, w[1].points + 10, "{}", w[0].name);
        }
    }

    #[test]
    fn the_bonus_never_crosses_a_kind() {
        let weaker: Vec<EvidenceKind> = ALL[4..].to_vec();
        let piled = score(&weaker, 0.99);
        assert!(piled < score(&[EvidenceKind::SamePath], 0.0), "{piled}");
        assert_eq!(
            score(&[EvidenceKind::SameStem, EvidenceKind::SharedTokens], 0.75),
            50.75
        );
        assert_eq!(score(&[EvidenceKind::SharedTokens], 0.5), 15.0);
        assert_eq!(score(&[], 1.0), 0.0);
    }
}
