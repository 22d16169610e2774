//! `ledger verify`: network verification after normalization. For each key not yet
//! verified (or verified before `--older-than`), fetch distinct observed URLs of the key
//! (its spellings, up to `--max-variants`: the first observation's, one on each side of
//! every risky rule that merged the key, then the first others; [`risky`]) and record the
//! result and every hop, what each body holds, and the comparison of the spellings'
//! content ([`content`], [`variants`]). Keys merged by a risky rule are verified first. A
//! key whose risky rules were not all compared is `partial`, never `same`. Nothing about
//! the observation changes: verification rows are added beside it.

pub mod canonical;
pub mod content;
pub mod fetch;
pub mod fragments;
/// Where verify may connect: the SSRF guard of `urlkey-fetch`.
pub use urlkey_fetch::guard;
pub mod risky;
pub mod variants;

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{params, Connection};

use crate::error::{LedgerError, Result};
use crate::words::{Hint, Words};
pub use fetch::{FetchConfig, Fetcher, Hop, Status, Verification};
pub use guard::NetworkScope;

/// A key to verify, and the observation whose URL is fetched for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The policy id.
    pub policy: String,
    /// The normalized key.
    pub key: String,
    /// The first observation (in ingest order) with this key.
    pub observation_id: String,
    /// Its observed URL, exactly as stored.
    pub observed_url: String,
    /// The spellings fetched (distinct observed URLs as fetched: no fragment, no
    /// userinfo), each with the first observation that has it, in ingest order; at most
    /// `--max-variants`, chosen by [`risky::choose`]. The first is `observation_id`'s.
    pub variants: Vec<(String, String)>,
    /// The risky rules behind each of `variants`.
    pub variant_rules: Vec<BTreeSet<String>>,
    /// Distinct observed URLs of the key (as fetched) in all.
    pub variants_total: usize,
    /// Merged by a risky rule (verified first).
    pub risky: bool,
    /// The risky rules that merged the key's spellings.
    pub risky_rules: Vec<risky::RiskyRule>,
    /// The variant limit the spellings were chosen with.
    pub max_variants: usize,
    /// The text directives of the key's observations, checked on the pages fetched
    /// ([`fragments`]).
    pub fragments: Vec<crate::fragments::Stored>,
}

/// Options of a verify run.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Verify at most this many keys.
    pub limit: Option<usize>,
    /// Keys verified at once.
    pub concurrency: usize,
    /// Re-verify keys whose latest verification is older than this many seconds.
    pub older_than: Option<u64>,
    /// The fetch settings.
    pub fetch: FetchConfig,
    /// List the targets without fetching.
    pub dry_run: bool,
    /// Distinct observed URLs fetched per key, at most (1: the first observation's only).
    pub max_variants: usize,
}

/// The default `--max-variants`.
pub const DEFAULT_MAX_VARIANTS: usize = 5;

/// Counts per class.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifySummary {
    /// Keys verified.
    pub total: usize,
    /// `verified`
    pub verified: usize,
    /// `redirected`
    pub redirected: usize,
    /// `not-found`
    pub not_found: usize,
    /// `error`
    pub error: usize,
    /// `unresolved`
    pub unresolved: usize,
}

impl VerifySummary {
    fn add(&mut self, s: Status) {
        self.total += 1;
        match s {
            Status::Verified => self.verified += 1,
            Status::Redirected => self.redirected += 1,
            Status::NotFound => self.not_found += 1,
            Status::Error => self.error += 1,
            Status::Unresolved => self.unresolved += 1,
        }
    }
}

/// The keys due for verification: risky merges first, then in the order their first
/// observation was ingested; at most `--limit` of them.
pub fn select_targets(conn: &Connection, opts: &VerifyOptions) -> Result<Vec<Target>> {
    Ok(select_due(conn, opts)?.0)
}

/// [`select_targets`], and how many keys are due in all (before `--limit`).
pub fn select_due(conn: &Connection, opts: &VerifyOptions) -> Result<(Vec<Target>, usize)> {
    let cutoff = opts.older_than.map(crate::timefmt::millis_ago);
    let mut stmt = conn.prepare(
        "SELECT o.normalization_policy_version, o.normalized_key, o.observation_id, o.observed_url \
         FROM observations AS o \
         WHERE o.normalized_key IS NOT NULL \
           AND o.rowid = (SELECT min(o2.rowid) FROM observations AS o2 \
                          WHERE o2.normalization_policy_version = o.normalization_policy_version \
                            AND o2.normalized_key = o.normalized_key) \
           AND NOT EXISTS (SELECT 1 FROM verifications AS v \
                           WHERE v.normalization_policy_version = o.normalization_policy_version \
                             AND v.normalized_key = o.normalized_key \
                             AND (?1 IS NULL OR v.finished_at > ?1)) \
         ORDER BY o.rowid",
    )?;
    let max = opts.max_variants.max(1);
    let rows = stmt.query_map(params![cutoff], |r| {
        Ok(Target {
            policy: r.get(0)?,
            key: r.get(1)?,
            observation_id: r.get(2)?,
            observed_url: r.get(3)?,
            variants: Vec::new(),
            variant_rules: Vec::new(),
            variants_total: 0,
            risky: false,
            risky_rules: Vec::new(),
            max_variants: max,
            fragments: Vec::new(),
        })
    })?;
    let mut targets = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    for t in &mut targets {
        let (spellings, risky_merge) = spellings(conn, &t.policy, &t.key)?;
        t.variants_total = spellings.len();
        t.risky_rules = risky::risky_rules(&spellings);
        for i in risky::choose(&spellings, &t.risky_rules, max) {
            let s = &spellings[i];
            t.variants
                .push((s.observation_id.clone(), s.observed_url.clone()));
            t.variant_rules.push(s.risky_rules.clone());
        }
        t.risky = risky_merge;
        t.fragments = crate::fragments::of_key(conn, &t.policy, &t.key)?;
    }
    // Keys merged by a risky rule first (the seed document's "Verification after
    // normalization": compare page content before merging keys of a risky transformation); ingest order otherwise.
    targets.sort_by_key(|t| !t.risky);
    let due = targets.len();
    if let Some(limit) = opts.limit {
        targets.truncate(limit);
    }
    Ok((targets, due))
}

/// The spellings of a key (distinct observed URLs as fetched), in ingest order, each with
/// its first observation and the risky rules behind it; and whether the key is a risky
/// merge as `ledger merges` says ([`crate::review::merges`]: more than one distinct
/// observed URL, and a risky rule changed one of its observations).
pub fn spellings(
    conn: &Connection,
    policy: &str,
    key: &str,
) -> Result<(Vec<risky::Spelling>, bool)> {
    /// Of a transformation, the rule's name only (the rest is skipped unread).
    #[derive(serde::Deserialize)]
    struct Applied {
        rule: Option<String>,
    }
    let mut st = conn.prepare_cached(
        "SELECT observation_id, observed_url, transformations FROM observations \
         WHERE normalization_policy_version = ?1 AND normalized_key = ?2 ORDER BY rowid",
    )?;
    let all = st
        .query_map(params![policy, key], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut out: Vec<(String, risky::Spelling)> = Vec::new();
    let mut observed: BTreeSet<&str> = BTreeSet::new();
    for (id, url, trans) in &all {
        observed.insert(url);
        let applied: Vec<Applied> = trans
            .as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default();
        let rules = applied
            .into_iter()
            .filter_map(|a| a.rule)
            .filter(|n| urlkey::risk::risk_of(n) == Some(urlkey::risk::RiskClass::Risky));
        let fetched = crate::spelling::as_fetched(url);
        match out.iter_mut().find(|(f, _)| *f == fetched) {
            Some((_, s)) => s.risky_rules.extend(rules),
            None => out.push((
                fetched,
                risky::Spelling {
                    observation_id: id.clone(),
                    observed_url: url.clone(),
                    risky_rules: rules.collect(),
                },
            )),
        }
    }
    let risky_merge = observed.len() > 1 && out.iter().any(|(_, s)| !s.risky_rules.is_empty());
    Ok((out.into_iter().map(|(_, s)| s).collect(), risky_merge))
}

/// The content check of a key's fetched spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCheck {
    /// The check.
    pub check: variants::ContentCheck,
    /// Why, in one line.
    pub detail: String,
    /// Spellings compared (their fetch gave a finding, [`risky::compared`]).
    pub compared: usize,
    /// The risky rules not compared, each with why (empty unless `partial`).
    pub not_compared: Vec<String>,
}

/// [`variants::compare`] of a key's fetched spellings, except that a key whose risky rules
/// were not all compared is [`variants::ContentCheck::Partial`] (never `same`), its detail
/// naming what was not compared, then what the others gave.
pub fn key_check(t: &Target, vs: &[Verification]) -> KeyCheck {
    let (check, detail) = variants::compare(vs);
    let compared = vs.iter().filter(|v| risky::compared(v)).count();
    let missing = risky::not_compared(&t.risky_rules, &t.variant_rules, vs, t.max_variants);
    if missing.is_empty() {
        return KeyCheck {
            check,
            detail,
            compared,
            not_compared: missing,
        };
    }
    let detail = format!(
        "risky spellings not compared: {}. {compared} of {} spellings compared ({} fetched), \
         those give {}: {detail}",
        missing.join("; "),
        t.variants_total,
        vs.len(),
        check.as_str()
    );
    KeyCheck {
        check: variants::ContentCheck::Partial,
        detail,
        compared,
        not_compared: missing,
    }
}

/// Stores one verification and its hops in one transaction; returns its id.
pub fn store(
    conn: &mut Connection,
    t: &Target,
    vs: &[Verification],
    scope: NetworkScope,
) -> Result<i64> {
    Ok(store_with_fragments(conn, t, vs, scope)?.0)
}

/// [`store`], with the text fragment checks of the key's observations
/// ([`fragments::check`]); returns the id and the checks' results as stored.
pub fn store_with_fragments(
    conn: &mut Connection,
    t: &Target,
    vs: &[Verification],
    scope: NetworkScope,
) -> Result<(i64, Vec<fragments::FragmentCheck>)> {
    let Some(v) = vs.first() else {
        return Err(LedgerError::other("a verification without a fetch".into()));
    };
    let kc = key_check(t, vs);
    let (check, check_detail, compared) = (kc.check, kc.detail, kc.compared);
    let tx = conn
        .transaction()
        .map_err(|e| LedgerError::db("cannot start a transaction", e))?;
    tx.execute(
        "INSERT INTO verifications (normalization_policy_version, normalized_key, observation_id, \
         requested_url, credentials_removed, started_at, finished_at, verification_status, reason, \
         detail, final_url, final_http_status, redirect_count, canonical_html, \
         canonical_link_header, publisher_canonical, body_bytes_read, body_truncated, user_agent, \
         network_scope, content_check, content_detail, variants_fetched, variants_total, \
         variants_compared) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, \
         ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
        params![
            t.policy,
            t.key,
            t.observation_id,
            v.requested_url,
            v.credentials_removed,
            v.started_at,
            v.finished_at,
            v.status.as_str(),
            v.reason,
            v.detail,
            v.final_url,
            v.final_http_status,
            v.redirect_count as i64,
            v.canonical_html,
            v.canonical_link_header,
            v.publisher_canonical(),
            i64::try_from(v.body_bytes_read).unwrap_or(i64::MAX),
            v.body_truncated,
            fetch::user_agent(),
            scope.as_str(),
            check.as_str(),
            check_detail,
            vs.len() as i64,
            t.variants_total as i64,
            compared as i64,
        ],
    )
    .map_err(|e| LedgerError::db("cannot store a verification", e))?;
    let id = tx.last_insert_rowid();
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO verification_hops (verification_id, hop, url, started_at, elapsed_ms, \
                 outcome, remote_addr, http_status, location, next_url, retry_after, content_type, \
                 detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )
            .map_err(|e| LedgerError::db("cannot prepare the hop insert", e))?;
        for (i, h) in v.hops.iter().enumerate() {
            ins.execute(params![
                id,
                i as i64,
                h.url,
                h.started_at,
                h.elapsed_ms.map(|m| i64::try_from(m).unwrap_or(i64::MAX)),
                h.outcome,
                h.remote_addr,
                h.http_status,
                h.location,
                h.next_url,
                h.retry_after,
                h.content_type,
                h.detail,
            ])
            .map_err(|e| LedgerError::db("cannot store a hop", e))?;
        }
        store_variants(&tx, id, t, vs)?;
    }
    let checks = fragments::store(&tx, id, &fragments::check(t, vs))?;
    tx.commit()
        .map_err(|e| LedgerError::db("cannot commit a verification", e))?;
    Ok((id, checks))
}

/// One row of `verification_variants` per fetch of the key's variants.
fn store_variants(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    t: &Target,
    vs: &[Verification],
) -> Result<()> {
    let mut ins = tx
        .prepare(
            "INSERT INTO verification_variants (verification_id, variant, observation_id, \
             requested_url, started_at, finished_at, verification_status, reason, detail, \
             final_url, final_http_status, redirect_count, publisher_canonical, content_type, \
             body_bytes_read, body_truncated, body_sha256, title, text_sha256, text_simhash, \
             text_words, distance_to_first, hops) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, \
             ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
        )
        .map_err(|e| LedgerError::db("cannot prepare the variant insert", e))?;
    let first_hash = vs
        .first()
        .and_then(|v| v.content.as_ref())
        .and_then(|c| c.simhash);
    for (i, (v, (obs, _))) in vs.iter().zip(&t.variants).enumerate() {
        let c = v.content.as_ref();
        let hops: Vec<serde_json::Value> = v
            .hops
            .iter()
            .map(|h| {
                serde_json::json!({
                    "url": h.url, "started_at": h.started_at, "elapsed_ms": h.elapsed_ms,
                    "outcome": h.outcome, "remote_addr": h.remote_addr,
                    "http_status": h.http_status, "location": h.location,
                    "next_url": h.next_url, "retry_after": h.retry_after,
                    "content_type": h.content_type, "detail": h.detail,
                })
            })
            .collect();
        let simhash = c.and_then(|c| c.simhash);
        ins.execute(params![
            id,
            i as i64,
            obs,
            v.requested_url,
            v.started_at,
            v.finished_at,
            v.status.as_str(),
            v.reason,
            v.detail,
            v.final_url,
            v.final_http_status,
            v.redirect_count as i64,
            v.publisher_canonical(),
            c.and_then(|c| c.content_type.clone())
                .or_else(|| v.hops.last().and_then(|h| h.content_type.clone())),
            i64::try_from(v.body_bytes_read).unwrap_or(i64::MAX),
            v.body_truncated,
            c.map(|c| c.sha256.clone()),
            c.and_then(|c| c.title.clone()),
            c.and_then(|c| c.text_sha256.clone()),
            simhash.map(|h| format!("{h:016x}")),
            c.and_then(|c| c.words)
                .map(|w| i64::try_from(w).unwrap_or(i64::MAX)),
            match (first_hash, simhash) {
                (Some(a), Some(b)) => Some(i64::from(content::distance(a, b))),
                _ => None,
            },
            serde_json::Value::Array(hops).to_string(),
        ])
        .map_err(|e| LedgerError::db("cannot store a variant", e))?;
    }
    Ok(())
}

/// Runs verification and writes one line per key, then a summary.
pub fn run(
    conn: &mut Connection,
    opts: &VerifyOptions,
    out: &mut dyn Write,
    words: &dyn Words,
) -> Result<VerifySummary> {
    let (targets, due) = select_due(conn, opts)?;
    let scope = opts.fetch.scope;
    if opts.dry_run {
        for t in &targets {
            writeln!(
                out,
                "would verify {} ({}) via {}: {}{}",
                t.key,
                t.policy,
                t.observation_id,
                t.observed_url,
                if t.risky { "  [risky merge]" } else { "" }
            )?;
            for ((id, url), rules) in t.variants.iter().zip(&t.variant_rules).skip(1) {
                let behind = if rules.is_empty() {
                    String::new()
                } else {
                    format!(
                        "  [{}]",
                        rules.iter().cloned().collect::<Vec<_>>().join(", ")
                    )
                };
                writeln!(out, "    and variant {url} (via {id}){behind}")?;
            }
            if t.variants.len() < t.variants_total {
                writeln!(
                    out,
                    "    ({} of {} spellings would be fetched)",
                    t.variants.len(),
                    t.variants_total
                )?;
            }
        }
        if targets.len() < due {
            writeln!(
                out,
                "{due} keys due for verification ({} listed: the limit)",
                targets.len()
            )?;
        } else {
            writeln!(out, "{due} keys due for verification")?;
        }
        return Ok(VerifySummary::default());
    }
    if targets.is_empty() {
        let hint = Hint::NothingToVerify {
            older_than: opts.older_than.is_some(),
        };
        writeln!(out, "{}", words.hint(hint))?;
        return Ok(VerifySummary::default());
    }
    let fetcher = Arc::new(Fetcher::with_words(opts.fetch.clone(), words)?);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LedgerError::other(format!("cannot start the async runtime: {e}")))?;
    let concurrency = opts.concurrency.max(1);
    let mut summary = VerifySummary::default();
    rt.block_on(async {
        let sem = Arc::new(tokio::sync::Semaphore::new(concurrency));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Target, Vec<Verification>)>();
        for t in targets {
            let sem = Arc::clone(&sem);
            let fetcher = Arc::clone(&fetcher);
            let tx = tx.clone();
            tokio::spawn(async move {
                let Ok(_permit) = sem.acquire_owned().await else {
                    return;
                };
                // The variants of one key one after the other (they share a host, and
                // its per-host delay, as a rule).
                let mut vs = Vec::with_capacity(t.variants.len());
                // A page's text is kept only for a key with text directives to check.
                let keep_text = !t.fragments.is_empty();
                for (_, url) in &t.variants {
                    vs.push(fetcher.verify_keeping_text(url, keep_text).await);
                }
                let _ = tx.send((t, vs));
            });
        }
        drop(tx);
        while let Some((t, vs)) = rx.recv().await {
            let (_, fragment_checks) = store_with_fragments(conn, &t, &vs, scope)?;
            let v = &vs[0];
            summary.add(v.status);
            let status = v
                .final_http_status
                .map(|s| s.to_string())
                .unwrap_or_else(|| "-".to_string());
            let mut line = format!("{:<10} {:>3}  {}", v.status.as_str(), status, t.key);
            if v.redirect_count > 0 {
                if let Some(last) = v.hops.last() {
                    let n = v.redirect_count;
                    let plural = if n == 1 { "" } else { "s" };
                    line.push_str(&format!(" -> {} ({n} redirect{plural})", last.url));
                }
            }
            if let Some(c) = v.publisher_canonical() {
                line.push_str(&format!("  canonical: {c}"));
            }
            if v.reason != "ok" {
                line.push_str(&format!("  [{}]", v.reason));
            }
            let kc = key_check(&t, &vs);
            line.push_str(&format!("  content: {}", kc.check.as_str()));
            if kc.check == variants::ContentCheck::NotFetched {
                line.push_str(&format!(" ({})", variants::not_fetched_reason(&vs)));
            }
            if t.variants_total > 1 {
                line.push_str(&format!(
                    " ({} of {} spellings compared)",
                    kc.compared, t.variants_total
                ));
            }
            if !kc.not_compared.is_empty() {
                line.push_str(&format!("  not compared: {}", kc.not_compared.join("; ")));
            }
            if !fragment_checks.is_empty() {
                line.push_str(&format!(
                    "  text fragments: {}",
                    fragments::summary(&fragment_checks)
                ));
            }
            writeln!(out, "{line}")?;
        }
        Ok::<(), LedgerError>(())
    })?;
    writeln!(
        out,
        "{} keys checked: {} verified, {} redirected, {} not-found, {} error, {} unresolved \
         (unresolved is no proof that a URL is invalid)",
        summary.total,
        summary.verified,
        summary.redirected,
        summary.not_found,
        summary.error,
        summary.unresolved
    )?;
    Ok(summary)
}

/// The default per-request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
