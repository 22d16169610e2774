//! The text fragment figures of a sample: how many observations cite a page with a
//! `#:~:text=` directive, and what verify's latest check of each directive found
//! ([`crate::verify::fragments`]). Evidence for a person deciding whether the page
//! supports the claim; nothing here is a decision.

use std::collections::{BTreeMap, HashMap};

use rusqlite::Connection;
use serde::Serialize;

use crate::error::Result;

/// One directive's latest state, as counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Found,
    NotFound,
    PageChanged,
    NotChecked,
    /// No check yet: the key was never verified since the observation was stored, or
    /// the URL has no key.
    Unverified,
    /// The directive has no text to check.
    Malformed,
}

/// Every directive's state, by observation (in the fragment's order).
#[derive(Debug, Default)]
pub(super) struct States(HashMap<String, Vec<State>>);

impl States {
    /// Reads the directives and their latest checks. A ledger read read-only before
    /// the text fragments' tables existed (`serve --ledger` does not migrate) has none.
    pub fn load(conn: &Connection) -> Result<States> {
        let mut s = States::default();
        let has: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'text_fragments'",
            [],
            |r| r.get(0),
        )?;
        if has == 0 {
            return Ok(s);
        }
        let mut st = conn.prepare(
            "SELECT f.observation_id, f.malformed IS NOT NULL, \
             (SELECT c.result FROM text_fragment_checks AS c \
              WHERE c.observation_id = f.observation_id AND c.n = f.n \
              ORDER BY c.verification_id DESC LIMIT 1) \
             FROM text_fragments AS f ORDER BY f.observation_id, f.n",
        )?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let id: String = r.get(0)?;
            let malformed: bool = r.get(1)?;
            let result: Option<String> = r.get(2)?;
            let state = match (malformed, result.as_deref()) {
                (true, _) => State::Malformed,
                (_, Some("found")) => State::Found,
                (_, Some("not-found")) => State::NotFound,
                (_, Some("page-changed")) => State::PageChanged,
                (_, Some(_)) => State::NotChecked,
                (_, None) => State::Unverified,
            };
            s.0.entry(id).or_default().push(state);
        }
        Ok(s)
    }
}

/// Counts of one sample (or one answer system of it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FragmentCounts {
    /// Observations whose URL has at least one text directive (invalid URLs included).
    pub observations: u64,
    /// Their text directives: `found + not_found + page_changed + not_checked +
    /// unverified + malformed`.
    pub directives: u64,
    /// The latest check found the text on the page.
    pub found: u64,
    /// The latest check read the page and did not find the text, which no check found
    /// there before.
    pub not_found: u64,
    /// The latest check did not find the text, which an earlier check found on the same
    /// page URL.
    pub page_changed: u64,
    /// The latest check had no page text to read (no 2xx page, unresolved, not HTML, the
    /// body cap).
    pub not_checked: u64,
    /// Never checked: the key was not verified since the observation was stored, or the
    /// URL has no key.
    pub unverified: u64,
    /// Malformed directives (nothing to check).
    pub malformed: u64,
}

impl FragmentCounts {
    fn add(&mut self, states: &[State]) {
        self.observations += 1;
        for s in states {
            self.directives += 1;
            *match s {
                State::Found => &mut self.found,
                State::NotFound => &mut self.not_found,
                State::PageChanged => &mut self.page_changed,
                State::NotChecked => &mut self.not_checked,
                State::Unverified => &mut self.unverified,
                State::Malformed => &mut self.malformed,
            } += 1;
        }
    }

    /// `observations 3, directives 4, found 2, ...`, as the CSV and the lists write it.
    pub fn text(&self) -> String {
        format!(
            "observations {}, directives {}, found {}, not-found {}, page-changed {}, \
             not-checked {}, unverified {}, malformed {}",
            self.observations,
            self.directives,
            self.found,
            self.not_found,
            self.page_changed,
            self.not_checked,
            self.unverified,
            self.malformed
        )
    }
}

/// The text fragment figures of a sample: its counts, and the same per answer system.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TextFragmentFigures {
    /// The whole sample.
    #[serde(flatten)]
    pub all: FragmentCounts,
    /// Per answer system of the sample that has observations with text fragments.
    pub by_answer_system: BTreeMap<String, FragmentCounts>,
}

impl TextFragmentFigures {
    /// True when some observation of the sample has a text directive: the reports for
    /// people show the figures only then (the CSV and the JSON always have them).
    pub fn has_any(&self) -> bool {
        self.all.observations > 0
    }

    /// The `by_answer_system` list in one line: `sys: observations 1, ...; ...`.
    pub fn by_system_text(&self) -> Vec<String> {
        self.by_answer_system
            .iter()
            .map(|(s, c)| format!("{s}: {}", c.text()))
            .collect()
    }
}

/// The figures of the observations `rows` (observation id, answer system).
pub(super) fn figures(rows: &[(&str, &str)], states: &States) -> TextFragmentFigures {
    let mut f = TextFragmentFigures::default();
    for (id, system) in rows {
        if let Some(s) = states.0.get(*id) {
            f.all.add(s);
            f.by_answer_system
                .entry((*system).to_string())
                .or_default()
                .add(s);
        }
    }
    f
}

/// The caveat the reports for people print under the figures.
pub const CAVEAT: &str = "A text fragment is the text an answer engine linked to; found means \
    that text is on the page verify fetched, not that the page supports the answer's claim: \
    a person decides that.";
