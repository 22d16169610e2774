//! Text fragments kept as evidence: the `#:~:text=` directives of each observed URL
//! (parsed by [`urlkey::text_fragment`]), stored per observation at ingest, and checked
//! against the fetched page by verify ([`matching`], `verify::fragments`).
//!
//! A directive is the sentence an answer engine pointed at. No policy keeps it in the key
//! (a fragment never reaches the server); the ledger keeps it beside the observation, and
//! verify says whether the page still shows that text. That is evidence for a person who
//! decides whether the page supports the claim (seed 004, step 6), never the decision.

pub mod matching;

use rusqlite::{params, Connection, Statement};
use urlkey::text_fragment::parse_url;

use crate::error::{LedgerError, Result};

/// The migration that adds the two tables and the view's `text_fragments` column.
/// Appended to `db::MIGRATIONS`; after its SQL, `db` runs [`backfill`] in the same
/// transaction, so that an existing ledger's observations get their directives (the
/// observations themselves are not touched).
pub const MIGRATION: &str = concat!(
    r#"
-- One row per text directive of an observed URL's fragment (`#...:~:text=...&text=...`),
-- in order. Derived from observations.observed_url by urlkey::text_fragment.
CREATE TABLE IF NOT EXISTS text_fragments (
    observation_id               TEXT NOT NULL REFERENCES observations (observation_id),
    n                            INTEGER NOT NULL CHECK (n >= 1),  -- 1 = the first text= directive
    directive                    TEXT NOT NULL,  -- as written: text=..., still percent-encoded
    prefix                       TEXT,           -- the terms, percent-decoded
    text_start                   TEXT,           -- NULL when malformed
    text_end                     TEXT,
    suffix                       TEXT,
    malformed                    TEXT,           -- why (empty-term, too-many-terms, no-start, not-utf8)
    PRIMARY KEY (observation_id, n),
    CHECK ((text_start IS NULL) = (malformed IS NOT NULL))
) STRICT;

-- One row per directive checked by a verification of its observation's key.
CREATE TABLE IF NOT EXISTS text_fragment_checks (
    verification_id              INTEGER NOT NULL
        REFERENCES verifications (verification_id) ON DELETE CASCADE,
    observation_id               TEXT NOT NULL,
    n                            INTEGER NOT NULL,
    page_url                     TEXT NOT NULL,  -- the observed URL as fetched (no fragment)
    variant                      INTEGER,        -- the verification_variants row whose page was read
    result                       TEXT NOT NULL
        CHECK (result IN ('found', 'not-found', 'page-changed', 'not-checked')),
    detail                       TEXT,
    PRIMARY KEY (verification_id, observation_id, n),
    FOREIGN KEY (observation_id, n) REFERENCES text_fragments (observation_id, n)
) STRICT;

CREATE INDEX IF NOT EXISTS text_fragment_checks_by_page
    ON text_fragment_checks (page_url, verification_id);
"#,
    crate::db::view::audit_ledger_view!(8)
);

/// The insert of one directive.
pub const INSERT: &str = "INSERT OR IGNORE INTO text_fragments (observation_id, n, directive, \
    prefix, text_start, text_end, suffix, malformed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

/// Stores the text directives of `observed_url` for its observation (nothing when it has
/// none); returns how many.
pub fn store(
    insert: &mut Statement<'_>,
    observation_id: &str,
    observed_url: &str,
) -> Result<usize> {
    // Cheap test first: most URLs have no directive.
    if !observed_url.contains(urlkey::text_fragment::DELIMITER) {
        return Ok(0);
    }
    let parsed = parse_url(observed_url);
    for (i, d) in parsed.directives.iter().enumerate() {
        let n = i as i64 + 1;
        let done = match d {
            Ok(t) => insert.execute(params![
                observation_id,
                n,
                t.raw,
                t.prefix,
                t.start,
                t.end,
                t.suffix,
                None::<String>
            ]),
            Err(e) => insert.execute(params![
                observation_id,
                n,
                e.raw(),
                None::<String>,
                None::<String>,
                None::<String>,
                None::<String>,
                e.reason()
            ]),
        };
        done.map_err(|e| LedgerError::db("cannot store a text fragment", e))?;
    }
    Ok(parsed.directives.len())
}

/// The directives of every observation stored before the tables existed (run by the
/// migration, inside its transaction).
pub fn backfill(conn: &Connection) -> Result<usize> {
    let mut select = conn.prepare(
        "SELECT observation_id, observed_url FROM observations \
         WHERE instr(observed_url, ':~:') > 0 ORDER BY rowid",
    )?;
    let rows = select
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut insert = conn.prepare(INSERT)?;
    let mut n = 0;
    for (id, url) in rows {
        n += store(&mut insert, &id, &url)?;
    }
    Ok(n)
}

/// One stored directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The observation.
    pub observation_id: String,
    /// Its observed URL, exactly as stored.
    pub observed_url: String,
    /// Its place in the fragment (1 = first).
    pub n: i64,
    /// As written.
    pub directive: String,
    /// The parsed directive, or why it is malformed.
    pub parsed: std::result::Result<urlkey::text_fragment::TextDirective, String>,
}

/// The directives of the observations of a key, in ingest order.
pub fn of_key(conn: &Connection, policy: &str, key: &str) -> Result<Vec<Stored>> {
    let mut st = conn.prepare_cached(
        "SELECT f.observation_id, f.n, f.directive, f.prefix, f.text_start, f.text_end, \
         f.suffix, f.malformed, o.observed_url FROM text_fragments AS f JOIN observations AS o \
         USING (observation_id) WHERE o.normalization_policy_version = ?1 \
         AND o.normalized_key = ?2 ORDER BY o.rowid, f.n",
    )?;
    let rows = st.query_map(params![policy, key], |r| {
        let directive: String = r.get(2)?;
        let start: Option<String> = r.get(4)?;
        let malformed: Option<String> = r.get(7)?;
        let parsed = match start {
            Some(start) => Ok(urlkey::text_fragment::TextDirective {
                raw: directive.clone(),
                prefix: r.get(3)?,
                start,
                end: r.get(5)?,
                suffix: r.get(6)?,
            }),
            None => Err(malformed.unwrap_or_default()),
        };
        Ok(Stored {
            observation_id: r.get(0)?,
            observed_url: r.get(8)?,
            n: r.get(1)?,
            directive,
            parsed,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The text directives of one observation as a person reads them, each with its latest
/// check: `"[The guide] explains [setup]" found`, `text=a,,b malformed (empty-term)`,
/// `"x" not verified`. Empty for a URL without directives, or a ledger read read-only
/// before the tables existed (`serve --ledger` does not migrate).
pub fn described(conn: &Connection, observation_id: &str) -> Result<Vec<String>> {
    let has: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'text_fragments'",
        [],
        |r| r.get(0),
    )?;
    if has == 0 {
        return Ok(Vec::new());
    }
    let mut st = conn.prepare_cached(
        "SELECT f.directive, f.prefix, f.text_start, f.text_end, f.suffix, f.malformed, \
         (SELECT c.result FROM text_fragment_checks AS c WHERE c.observation_id = \
          f.observation_id AND c.n = f.n ORDER BY c.verification_id DESC LIMIT 1) \
         FROM text_fragments AS f WHERE f.observation_id = ?1 ORDER BY f.n",
    )?;
    let rows = st.query_map([observation_id], |r| {
        let directive: String = r.get(0)?;
        let start: Option<String> = r.get(2)?;
        let malformed: Option<String> = r.get(5)?;
        let result: Option<String> = r.get(6)?;
        Ok(match start {
            Some(start) => {
                let d = urlkey::text_fragment::TextDirective {
                    raw: directive,
                    prefix: r.get(1)?,
                    start,
                    end: r.get(3)?,
                    suffix: r.get(4)?,
                };
                format!(
                    "\"{}\" {}",
                    d.display(),
                    result.as_deref().unwrap_or("not verified")
                )
            }
            None => format!("{directive} malformed ({})", malformed.unwrap_or_default()),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

#[cfg(test)]
mod tests;
