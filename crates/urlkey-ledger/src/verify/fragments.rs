//! The text fragment check of a verification: each text directive of the key's
//! observations ([`crate::fragments`]) looked for in the page its observation's spelling
//! gave ([`crate::fragments::matching`]). Evidence for a person deciding whether the page
//! supports the claim, never the decision: nothing is marked supported or unsupported.
//!
//! The page read is that of the observation's own spelling (its observed URL as fetched)
//! when verify fetched it; else, when the variant limit left it out, variant 0's (the
//! key's first observation's), which the key says is the same page; the row names the
//! variant. Results:
//!
//! - `found`: the text is on the page;
//! - `not-found`: the page was read whole and the text is not on it, and no earlier
//!   verification found it on the same page URL;
//! - `page-changed`: not on the page now, but an earlier verification found the same
//!   directive on the same page URL;
//! - `not-checked`: no page text to read: the fetch got no 2xx page (refused, failed, an
//!   HTTP error), the verification is unresolved (a challenge page, a 403, 429, 503), the
//!   page is not HTML, or the text was not in the part read before the body cap.
//!
//! A malformed directive is not checked (it has no text); the report counts it apart.

use rusqlite::{params, Transaction};

use super::fetch::{Status, Verification};
use super::Target;
use crate::error::{LedgerError, Result};
use crate::fragments::matching::find;

/// The result of one directive's check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragmentCheck {
    /// On the page.
    Found,
    /// Not on the page, never found there before.
    NotFound,
    /// Not on the page, found there by an earlier verification.
    PageChanged,
    /// No page text to read.
    NotChecked,
}

impl FragmentCheck {
    /// As stored and reported.
    pub fn as_str(self) -> &'static str {
        match self {
            FragmentCheck::Found => "found",
            FragmentCheck::NotFound => "not-found",
            FragmentCheck::PageChanged => "page-changed",
            FragmentCheck::NotChecked => "not-checked",
        }
    }
}

/// One directive's check, before `page-changed` is known (it needs the stored checks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The observation.
    pub observation_id: String,
    /// The directive's place in its fragment.
    pub n: i64,
    /// The directive as written.
    pub directive: String,
    /// The variant whose page was read (None when the key had no fetch).
    pub variant: Option<usize>,
    /// That variant's requested URL.
    pub page_url: String,
    /// Found, not found, or not checked.
    pub result: FragmentCheck,
    /// Why, when it was not checked, or which page was read.
    pub detail: Option<String>,
}

/// Checks every well-formed directive of the target's observations on the pages fetched.
pub fn check(t: &Target, vs: &[Verification]) -> Vec<Checked> {
    let mut out = Vec::new();
    for f in &t.fragments {
        let Ok(d) = &f.parsed else { continue };
        let own = crate::spelling::as_fetched(&f.observed_url);
        let fetched = t
            .variants
            .iter()
            .position(|(_, url)| crate::spelling::as_fetched(url) == own);
        let (i, mut detail) = match fetched {
            Some(i) => (i, None),
            None => (
                0,
                Some(format!(
                    "its spelling {own} was not fetched (the variant limit): read variant 0's page"
                )),
            ),
        };
        let Some(v) = vs.get(i) else { continue };
        let (result, why) = match (&v.content, v.status) {
            (None, _) => (
                FragmentCheck::NotChecked,
                Some(format!("no page was read: {}", v.reason)),
            ),
            (Some(_), Status::Unresolved) => (
                FragmentCheck::NotChecked,
                Some(format!("the verification is unresolved: {}", v.reason)),
            ),
            (Some(c), _) => match &c.page_text {
                None => (
                    FragmentCheck::NotChecked,
                    Some(format!(
                        "not an HTML page ({})",
                        c.content_type.as_deref().unwrap_or("no content type")
                    )),
                ),
                Some(text) if find(text, d) => (FragmentCheck::Found, None),
                Some(_) if v.body_truncated => (
                    FragmentCheck::NotChecked,
                    Some(format!(
                        "not in the first {} bytes, where reading stopped (the body cap)",
                        v.body_bytes_read
                    )),
                ),
                Some(_) => (FragmentCheck::NotFound, None),
            },
        };
        if let Some(w) = why {
            detail = Some(match detail {
                Some(d) => format!("{d}; {w}"),
                None => w,
            });
        }
        out.push(Checked {
            observation_id: f.observation_id.clone(),
            n: f.n,
            directive: f.directive.clone(),
            variant: Some(i),
            page_url: v.requested_url.clone(),
            result,
            detail,
        });
    }
    out
}

/// Stores the checks of verification `id`, a `not-found` becoming `page-changed` when an
/// earlier verification found the same directive on the same page URL. Returns the
/// results as stored.
pub fn store(tx: &Transaction<'_>, id: i64, checks: &[Checked]) -> Result<Vec<FragmentCheck>> {
    let mut earlier = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM text_fragment_checks AS c \
             JOIN text_fragments AS f USING (observation_id, n) \
             WHERE c.page_url = ?1 AND f.directive = ?2 AND c.result = 'found' \
               AND c.verification_id < ?3)",
        )
        .map_err(|e| LedgerError::db("cannot prepare the text fragment lookup", e))?;
    let mut ins = tx
        .prepare_cached(
            "INSERT INTO text_fragment_checks (verification_id, observation_id, n, page_url, \
             variant, result, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .map_err(|e| LedgerError::db("cannot prepare the text fragment insert", e))?;
    let mut out = Vec::with_capacity(checks.len());
    for c in checks {
        let mut result = c.result;
        let mut detail = c.detail.clone();
        if result == FragmentCheck::NotFound {
            let before: bool = earlier
                .query_row(params![c.page_url, c.directive, id], |r| r.get(0))
                .map_err(|e| LedgerError::db("cannot read earlier text fragment checks", e))?;
            if before {
                result = FragmentCheck::PageChanged;
                detail.get_or_insert_with(|| {
                    "found on this page URL by an earlier verification, not now".into()
                });
            }
        }
        ins.execute(params![
            id,
            c.observation_id,
            c.n,
            c.page_url,
            c.variant.map(|v| v as i64),
            result.as_str(),
            detail,
        ])
        .map_err(|e| LedgerError::db("cannot store a text fragment check", e))?;
        out.push(result);
    }
    Ok(out)
}

/// `found 2, not-found 1` for verify's line (results in a fixed order, zeros left out).
pub fn summary(results: &[FragmentCheck]) -> String {
    [
        FragmentCheck::Found,
        FragmentCheck::NotFound,
        FragmentCheck::PageChanged,
        FragmentCheck::NotChecked,
    ]
    .iter()
    .filter_map(|r| {
        let n = results.iter().filter(|x| *x == r).count();
        (n > 0).then(|| format!("{} {n}", r.as_str()))
    })
    .collect::<Vec<_>>()
    .join(", ")
}
