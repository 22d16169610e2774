//! `ledger verify`: network verification after normalization. For each key not yet
//! verified (or verified before `--older-than`), fetch the observed URL of the key's
//! first observation and record the result and every hop. Nothing about the observation
//! changes: verification rows are added beside it.

pub mod canonical;
pub mod fetch;
pub mod guard;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{params, Connection};

use crate::error::{LedgerError, Result};
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
}

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

/// The keys due for verification, in the order their first observation was ingested.
pub fn select_targets(conn: &Connection, opts: &VerifyOptions) -> Result<Vec<Target>> {
    let cutoff = opts.older_than.map(crate::timefmt::millis_ago);
    let limit = opts
        .limit
        .map(|l| i64::try_from(l).unwrap_or(i64::MAX))
        .unwrap_or(-1);
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
         ORDER BY o.rowid LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![cutoff, limit], |r| {
        Ok(Target {
            policy: r.get(0)?,
            key: r.get(1)?,
            observation_id: r.get(2)?,
            observed_url: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Stores one verification and its hops in one transaction; returns its id.
pub fn store(
    conn: &mut Connection,
    t: &Target,
    v: &Verification,
    scope: NetworkScope,
) -> Result<i64> {
    let tx = conn
        .transaction()
        .map_err(|e| LedgerError::db("cannot start a transaction", e))?;
    tx.execute(
        "INSERT INTO verifications (normalization_policy_version, normalized_key, observation_id, \
         requested_url, credentials_removed, started_at, finished_at, verification_status, reason, \
         detail, final_url, final_http_status, redirect_count, canonical_html, \
         canonical_link_header, publisher_canonical, body_bytes_read, body_truncated, user_agent, \
         network_scope) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, \
         ?19, ?20)",
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
    }
    tx.commit()
        .map_err(|e| LedgerError::db("cannot commit a verification", e))?;
    Ok(id)
}

/// Runs verification and writes one line per key, then a summary.
pub fn run(
    conn: &mut Connection,
    opts: &VerifyOptions,
    out: &mut dyn Write,
) -> Result<VerifySummary> {
    let targets = select_targets(conn, opts)?;
    let scope = opts.fetch.scope;
    if opts.dry_run {
        for t in &targets {
            writeln!(
                out,
                "would verify {} ({}) via {}: {}",
                t.key, t.policy, t.observation_id, t.observed_url
            )?;
        }
        writeln!(out, "{} keys due for verification", targets.len())?;
        return Ok(VerifySummary::default());
    }
    if targets.is_empty() {
        writeln!(
            out,
            "nothing to verify: every key has a verification{} (use --older-than to re-verify)",
            if opts.older_than.is_some() {
                " newer than --older-than"
            } else {
                ""
            }
        )?;
        return Ok(VerifySummary::default());
    }
    let fetcher = Arc::new(Fetcher::new(opts.fetch.clone()).map_err(LedgerError::Other)?);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LedgerError::Other(format!("cannot start the async runtime: {e}")))?;
    let concurrency = opts.concurrency.max(1);
    let mut summary = VerifySummary::default();
    rt.block_on(async {
        let sem = Arc::new(tokio::sync::Semaphore::new(concurrency));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Target, Verification)>();
        for t in targets {
            let sem = Arc::clone(&sem);
            let fetcher = Arc::clone(&fetcher);
            let tx = tx.clone();
            tokio::spawn(async move {
                let Ok(_permit) = sem.acquire_owned().await else {
                    return;
                };
                let v = fetcher.verify(&t.observed_url).await;
                let _ = tx.send((t, v));
            });
        }
        drop(tx);
        while let Some((t, v)) = rx.recv().await {
            store(conn, &t, &v, scope)?;
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
