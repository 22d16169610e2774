//! The one table of the report's measures: each measure's name, its place in the JSON,
//! its CSV columns, its label for people, and how it is shown. Every format loops over
//! [`MEASURES`]: the CSV writes their columns in the table's order (a contract: scripts read
//! the CSV by position, so a new measure goes last); the text, Markdown and HTML reports
//! write the rows of each [`Group`] from it and call their own writer for each [`Section`]
//! (a `match` the compiler checks in every format). The JSON is the [`Measures`] struct as
//! serde writes it; a test checks that every measure is at its `json` path.

use std::collections::BTreeMap;

use super::Measures;

/// How a measure is shown.
#[derive(Clone, Copy)]
pub enum Shown {
    /// A count (of observations, keys or publishers): an integer.
    Count(fn(&Measures) -> u64),
    /// A share, 4 places, printed with its denominator (`of`: valid observations).
    Share {
        /// The share.
        value: fn(&Measures) -> f64,
        /// Its denominator.
        of: fn(&Measures) -> u64,
    },
    /// A figure with no denominator (HHI), 4 places.
    Index(fn(&Measures) -> f64),
    /// Valid observations per value (`row` names one value's row: `source_role=evidence`).
    PerValue {
        /// The counts by value.
        of: fn(&Measures) -> &BTreeMap<String, u64>,
        /// The row name's prefix.
        row: &'static str,
    },
    /// A statement or a list, with its own writer in each format.
    Section(Section),
}

/// The measures every format writes with a writer of its own (tables, sentences).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The sample the figures describe.
    Sample,
    /// Hostnames or registrable domains.
    PublisherUnit,
    /// The top publishers.
    TopPublishers,
    /// The top URL keys.
    TopKeys,
    /// What pairs of answer systems both cite.
    Overlap,
    /// The merges to review.
    MergesToReview,
    /// The top keys with splits applied.
    TopKeysWithSplits,
    /// Run-to-run stability, per answer system.
    Stability,
    /// The text fragment figures per answer system.
    TextFragmentsBySystem,
}

/// Where a scalar measure sits in the reports for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// The counts at the top of each report.
    Counts,
    /// How concentrated the valid observations are (shares and the HHI).
    Concentration,
    /// What people decided and verify compared: shown to people only when there is any
    /// ([`super::review::ReviewFigures::has_any`]); always in the CSV and the JSON.
    Review,
    /// What normalization changed and where the keys come from
    /// ([`super::normalization`]): shown in every report.
    Normalization,
    /// Text directives and verify's checks of them: shown to people only when some
    /// observation has one ([`super::fragments::TextFragmentFigures::has_any`]); always
    /// in the CSV and the JSON.
    TextFragments,
    /// A [`Shown::Section`].
    Section,
}

/// One measure of the report.
pub struct Measure {
    /// Its stable name: the HTML's `data-measure`, the scalar's CSV column.
    pub name: &'static str,
    /// Its path in the JSON report (`concentration.hhi`).
    pub json: &'static str,
    /// Its CSV columns, in order (none: the CSV states it in another measure's columns).
    pub csv: &'static [&'static str],
    /// What people call it; `{unit}` is the publisher noun, `{publishers}` the number of
    /// publishers ([`Measure::label`]).
    pub label: &'static str,
    /// What the text and the HTML table add in brackets after the label.
    pub note: Option<&'static str>,
    /// The name in the text report's one-line summaries (`top1`, `source role`).
    pub short: &'static str,
    /// Where it sits.
    pub group: Group,
    /// Its value and how it is shown.
    pub shown: Shown,
    /// Among the HTML page's headline figures.
    pub headline: bool,
}

impl Measure {
    /// The label with its placeholders filled in for `m`.
    pub fn label(&self, m: &Measures) -> String {
        self.label
            .replace("{unit}", m.publisher_unit.noun())
            .replace("{publishers}", &m.concentration.publishers.to_string())
    }

    /// The label and its note: `observations (invalid URLs included)`.
    pub fn label_noted(&self, m: &Measures) -> String {
        match self.note {
            Some(n) => format!("{} ({n})", self.label(m)),
            None => self.label(m),
        }
    }

    /// The measures of a group, in the table's order.
    pub fn of(group: Group) -> impl Iterator<Item = &'static Measure> {
        MEASURES.iter().filter(move |x| x.group == group)
    }
}

/// A scalar measure: a count or a share, with the defaults every scalar shares.
const fn scalar(
    name: &'static str,
    json: &'static str,
    csv: &'static [&'static str],
    label: &'static str,
    group: Group,
    shown: Shown,
) -> Measure {
    Measure {
        name,
        json,
        csv,
        label,
        note: None,
        short: label,
        group,
        shown,
        headline: false,
    }
}

/// A section: its CSV columns and its JSON path.
const fn section(
    name: &'static str,
    json: &'static str,
    csv: &'static [&'static str],
    s: Section,
) -> Measure {
    Measure {
        name,
        json,
        csv,
        label: name,
        note: None,
        short: name,
        group: Group::Section,
        shown: Shown::Section(s),
        headline: false,
    }
}

/// Every measure, in the CSV's column order (new measures go last).
pub const MEASURES: &[Measure] = &[
    Measure {
        note: Some("invalid URLs included"),
        headline: true,
        ..scalar(
            "observations",
            "observations",
            &["observations"],
            "observations",
            Group::Counts,
            Shown::Count(|m| m.observations),
        )
    },
    Measure {
        note: Some("URL has a key"),
        headline: true,
        ..scalar(
            "valid_observations",
            "valid_observations",
            &["valid_observations"],
            "valid observations",
            Group::Counts,
            Shown::Count(|m| m.valid_observations),
        )
    },
    Measure {
        note: Some("kept, with error code"),
        ..scalar(
            "invalid_observations",
            "invalid_observations",
            &["invalid_observations"],
            "invalid observations",
            Group::Counts,
            Shown::Count(|m| m.invalid_observations),
        )
    },
    Measure {
        headline: true,
        ..scalar(
            "unique_keys",
            "unique_keys",
            &["unique_keys"],
            "unique URL keys",
            Group::Counts,
            Shown::Count(|m| m.unique_keys),
        )
    },
    Measure {
        headline: true,
        ..scalar(
            "unique_publishers",
            "unique_publishers",
            &["unique_publishers"],
            "unique {unit}",
            Group::Counts,
            Shown::Count(|m| m.unique_publishers),
        )
    },
    // The CSV states it as `top_publisher_share` (empty without publishers).
    Measure {
        short: "top1",
        headline: true,
        ..scalar(
            "top1_share",
            "concentration.top1_share",
            &[],
            "top-1 publisher share",
            Group::Concentration,
            Shown::Share {
                value: |m| m.concentration.top1_share,
                of: |m| m.concentration.valid_observations,
            },
        )
    },
    section(
        "top_publishers",
        "top_publishers",
        &[
            "top_publisher",
            "top_publisher_observations",
            "top_publisher_share",
            "top_publishers",
        ],
        Section::TopPublishers,
    ),
    section(
        "sample",
        "sample",
        &[
            "prompt_versions",
            "answer_systems",
            "markets",
            "window_from",
            "window_to",
        ],
        Section::Sample,
    ),
    Measure {
        short: "top5",
        ..scalar(
            "top5_share",
            "concentration.top5_share",
            &["top5_share"],
            "top-5 publishers share",
            Group::Concentration,
            Shown::Share {
                value: |m| m.concentration.top5_share,
                of: |m| m.concentration.valid_observations,
            },
        )
    },
    Measure {
        short: "HHI",
        ..scalar(
            "hhi",
            "concentration.hhi",
            &["hhi"],
            "HHI over {publishers} publishers",
            Group::Concentration,
            Shown::Index(|m| m.concentration.hhi),
        )
    },
    section(
        "publisher_unit",
        "publisher_unit",
        &["publisher_unit"],
        Section::PublisherUnit,
    ),
    section("top_keys", "top_keys", &["top_keys"], Section::TopKeys),
    section("overlap", "overlap", &["overlap"], Section::Overlap),
    Measure {
        short: "source role",
        ..scalar(
            "source_roles",
            "review.observations_by_source_role",
            &["source_roles"],
            "valid observations, source role",
            Group::Review,
            Shown::PerValue {
                of: |m| &m.review.observations_by_source_role,
                row: "source_role",
            },
        )
    },
    Measure {
        short: "claim support",
        ..scalar(
            "claim_support",
            "review.claim_support",
            &["claim_support"],
            "valid observations, claim support",
            Group::Review,
            Shown::PerValue {
                of: |m| &m.review.claim_support,
                row: "claim_support",
            },
        )
    },
    Measure {
        headline: true,
        ..scalar(
            "merges_to_review",
            "review.merges_to_review",
            &["merges_to_review"],
            "merges to review",
            Group::Review,
            Shown::Count(|m| m.review.merges_to_review),
        )
    },
    scalar(
        "split_keys",
        "review.split_keys",
        &["split_keys"],
        "keys split by a person",
        Group::Review,
        Shown::Count(|m| m.review.split_keys),
    ),
    scalar(
        "unique_keys_with_splits",
        "review.unique_keys_with_splits",
        &["unique_keys_with_splits"],
        "unique URL keys with splits applied",
        Group::Review,
        Shown::Count(|m| m.review.unique_keys_with_splits),
    ),
    section(
        "merges_to_review_list",
        "review.merges_to_review_list",
        &["merges_to_review_list"],
        Section::MergesToReview,
    ),
    section(
        "top_keys_with_splits",
        "review.top_keys_with_splits",
        &["top_keys_with_splits"],
        Section::TopKeysWithSplits,
    ),
    scalar(
        "observed_urls",
        "normalization.observed_urls",
        &["observed_urls"],
        "distinct observed URLs (of the valid observations)",
        Group::Normalization,
        Shown::Count(|m| m.normalization.observed_urls),
    ),
    scalar(
        "merged_keys",
        "normalization.merged_keys",
        &["merged_keys"],
        "URL keys that merged 2 or more observed URLs",
        Group::Normalization,
        Shown::Count(|m| m.normalization.merged_keys),
    ),
    scalar(
        "observed_urls_merged",
        "normalization.observed_urls_merged",
        &["observed_urls_merged"],
        "observed URLs merged (distinct observed URLs minus unique URL keys)",
        Group::Normalization,
        Shown::Count(|m| m.normalization.observed_urls_merged),
    ),
    Measure {
        short: "by rule",
        ..scalar(
            "merged_by_rule",
            "normalization.merged_by_rule",
            &["merged_by_rule"],
            "observed URLs of merged keys, by rule",
            Group::Normalization,
            Shown::PerValue {
                of: |m| &m.normalization.merged_by_rule,
                row: "rule",
            },
        )
    },
    Measure {
        short: "by removed parameter",
        ..scalar(
            "merged_by_removed_param",
            "normalization.merged_by_removed_param",
            &["merged_by_removed_param"],
            "observed URLs of merged keys, by removed parameter",
            Group::Normalization,
            Shown::PerValue {
                of: |m| &m.normalization.merged_by_removed_param,
                row: "removed_param",
            },
        )
    },
    scalar(
        "keyed_at_ingest",
        "normalization.keyed_at_ingest",
        &["keyed_at_ingest"],
        "observations keyed at ingest",
        Group::Normalization,
        Shown::Count(|m| m.normalization.keyed_at_ingest),
    ),
    scalar(
        "rekeyed",
        "normalization.rekeyed",
        &["rekeyed"],
        "observations keyed by a rekey",
        Group::Normalization,
        Shown::Count(|m| m.normalization.rekeyed),
    ),
    section(
        "stability",
        "stability",
        &[
            "stability",
            "stability_keys_come_and_go",
            "stability_publishers_come_and_go",
        ],
        Section::Stability,
    ),
    Measure {
        short: "observations",
        ..scalar(
            "text_fragment_observations",
            "text_fragments.observations",
            &["text_fragment_observations"],
            "observations with text fragments",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.observations),
        )
    },
    Measure {
        short: "directives",
        ..scalar(
            "text_fragment_directives",
            "text_fragments.directives",
            &["text_fragment_directives"],
            "text directives",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.directives),
        )
    },
    Measure {
        short: "found",
        ..scalar(
            "text_fragments_found",
            "text_fragments.found",
            &["text_fragments_found"],
            "text directives found on the page",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.found),
        )
    },
    Measure {
        short: "not-found",
        ..scalar(
            "text_fragments_not_found",
            "text_fragments.not_found",
            &["text_fragments_not_found"],
            "text directives not found",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.not_found),
        )
    },
    Measure {
        short: "page-changed",
        ..scalar(
            "text_fragments_page_changed",
            "text_fragments.page_changed",
            &["text_fragments_page_changed"],
            "text directives found before, not now (page changed)",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.page_changed),
        )
    },
    Measure {
        short: "not-checked",
        ..scalar(
            "text_fragments_not_checked",
            "text_fragments.not_checked",
            &["text_fragments_not_checked"],
            "text directives not checked (no page text)",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.not_checked),
        )
    },
    Measure {
        short: "unverified",
        ..scalar(
            "text_fragments_unverified",
            "text_fragments.unverified",
            &["text_fragments_unverified"],
            "text directives not verified yet",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.unverified),
        )
    },
    Measure {
        short: "malformed",
        ..scalar(
            "text_fragments_malformed",
            "text_fragments.malformed",
            &["text_fragments_malformed"],
            "malformed text directives",
            Group::TextFragments,
            Shown::Count(|m| m.text_fragments.all.malformed),
        )
    },
    section(
        "text_fragments_by_answer_system",
        "text_fragments.by_answer_system",
        &["text_fragments_by_answer_system"],
        Section::TextFragmentsBySystem,
    ),
];

/// The JSON fields that are no measure of their own: the denominators stated beside the
/// shares.
pub const JSON_DENOMINATORS: &[&str] = &[
    "concentration.valid_observations",
    "concentration.publishers",
];

impl Measure {
    /// A scalar's value as every format prints it: an integer, or 4 decimal places; a
    /// per-value count as `value n, value n` (empty for a section).
    pub fn text(&self, m: &Measures) -> String {
        match self.shown {
            Shown::Count(v) => v(m).to_string(),
            Shown::Share { value: v, .. } | Shown::Index(v) => format!("{:.4}", v(m)),
            Shown::PerValue { of, .. } => of(m)
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
            Shown::Section(_) => String::new(),
        }
    }
}

#[cfg(test)]
mod tests;
