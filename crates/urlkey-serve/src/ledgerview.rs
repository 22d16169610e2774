//! The ledger page (`urlkey serve --ledger DB`): the report of `urlkey ledger report
//! --format html` (the measures with their sample, the SVG charts, the top keys, the
//! overlap between answer systems, a comparison of two collections), rendered on the
//! server. The views are plain links. The ledger is opened read-only for each request
//! and shows what is in it at that moment.
//!
//! The review queue (issue 16) is part of the page: merged keys, merges to review first,
//! their variants side by side (status, title, final URL, canonical, content check) with
//! the claims, and a form per merge. The form is sent by the page's external script
//! `/ledger.js` (no inline script; the CSP keeps `form-action 'none'`, so without the
//! script nothing is ever submitted) as a `fetch` POST to `/api/ledger/review` carrying the
//! per-run token in `X-Urlkey-Token`. Only that endpoint opens the ledger read-write, and
//! only through the ledger crate's `review::add` (the code path of `urlkey ledger review
//! add`: same validation, allowed values, reviewer and time fields). Writes are refused
//! unless the server is bound to loopback (`review.writes-refused`) and unless the token is
//! this run's (`review.bad-token`, compared in constant time).
//!
//! - `GET /ledger?by=answer_system,market&publisher=registrable&top=5&top_keys=5`
//! - `GET /ledger?compare=c-2026-11-01&compare=c-2026-11-08`
//! - `GET /ledger?window=2026-11-01..2026-11-07` (a filter; twice: two windows compared)
//! - `GET /api/ledger?...`: the same report as JSON (the `report --format json` shape).
//! - `GET /ledger.css`: the page's style sheet.
//! - `GET /ledger.js`: the review queue's script.
//! - `POST /api/ledger/review`: one decision (JSON), with the `X-Urlkey-Token` header.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Extension, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use std::str::FromStr;
use urlkey_ledger::report::{self, html, GroupBy, PublisherUnit, Report, ReportOptions};

use crate::api::{blocking, read_body, BodyDone};
use crate::error::{json_response, ApiError};
use crate::AppState;

fn no_ledger() -> ApiError {
    ApiError::new(
        "request.not-found",
        "no ledger is served: start the server with `urlkey serve --ledger DB`",
    )
}

fn bad(message: String) -> ApiError {
    ApiError::new("request.invalid-option", message)
}

/// The report options a query string asks for.
fn options(uri: &Uri) -> Result<ReportOptions, ApiError> {
    let mut opts = ReportOptions::default();
    let mut compare = Vec::new();
    for (k, v) in urlkey::parse_form(uri.query().unwrap_or("")) {
        match k.as_str() {
            "by" => {
                for c in v.split(',').filter(|c| !c.is_empty()) {
                    let b = GroupBy::from_str(c).map_err(|_| {
                        bad(format!(
                            "by {c:?}: use answer_system, market, prompt_version or collection"
                        ))
                    })?;
                    opts.by.push(b);
                }
            }
            "publisher" => {
                opts.publisher = PublisherUnit::from_str(&v)
                    .map_err(|_| bad(format!("publisher {v:?}: use host or registrable")))?;
            }
            "top" | "top_keys" => {
                let n: usize = v
                    .parse()
                    .ok()
                    .filter(|n| *n <= 1000)
                    .ok_or_else(|| bad(format!("{k} {v:?}: give a number from 0 to 1000")))?;
                if k == "top" {
                    opts.top = n;
                } else {
                    opts.top_keys = n;
                }
            }
            "compare" => compare.push(v),
            "window" if opts.windows.len() < 2 => opts
                .windows
                .push(report::TimeWindow::parse(&v).map_err(|m| bad(format!("window {m}")))?),
            "policy" => opts.policy = Some(v),
            other => return Err(bad(format!("unknown option {other:?}"))),
        }
    }
    match compare.len() {
        0 => {}
        2 => {
            let mut c = compare.into_iter();
            opts.compare = Some((c.next().unwrap_or_default(), c.next().unwrap_or_default()));
        }
        n => {
            return Err(bad(format!(
                "compare given {n} times: give two collections, compare=A&compare=B"
            )))
        }
    }
    Ok(opts)
}

fn ledger_error(e: urlkey_ledger::LedgerError) -> ApiError {
    match e {
        urlkey_ledger::LedgerError::Usage(m) => bad(m),
        other => ApiError::new("input.unreadable", format!("the ledger: {other}")),
    }
}

/// Reads the ledger (read-only) and builds the report and the collections list.
async fn build(
    path: PathBuf,
    opts: ReportOptions,
    queue: Option<Option<String>>,
) -> Result<(Report, Vec<String>, ReportOptions, String), ApiError> {
    let work = move || -> Result<_, ApiError> {
        let conn = report::open_read_only(&path).map_err(ledger_error)?;
        let r = report::build(&conn, &opts).map_err(ledger_error)?;
        let collections =
            report::collections(&conn, opts.policy.as_deref()).map_err(ledger_error)?;
        let q = match queue {
            Some(token) => review_queue(&conn, token.as_deref()).map_err(ledger_error)?,
            None => String::new(),
        };
        Ok((r, collections, opts, q))
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(r) => r,
        Err(_) => Err(ApiError::internal("the report stopped unexpectedly")),
    }
}

/// A link to `/ledger` with these options.
fn href(opts: &ReportOptions) -> String {
    let mut q: Vec<String> = Vec::new();
    if !opts.by.is_empty() {
        q.push(format!("by={}", report::by_text(&opts.by)));
    }
    if opts.publisher != PublisherUnit::Host {
        q.push(format!("publisher={}", opts.publisher.as_str()));
    }
    if let Some((a, b)) = &opts.compare {
        q.push(format!("compare={}&compare={}", enc(a), enc(b)));
    }
    if let Some(p) = &opts.policy {
        q.push(format!("policy={}", enc(p)));
    }
    if q.is_empty() {
        "/ledger".to_string()
    } else {
        format!("/ledger?{}", q.join("&"))
    }
}

/// Percent-encodes a query value.
fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The links to the other views of the same ledger.
fn nav(opts: &ReportOptions, collections: &[String], file: &str) -> String {
    let base = ReportOptions {
        publisher: opts.publisher,
        policy: opts.policy.clone(),
        ..ReportOptions::default()
    };
    let here = href(opts);
    let link = |o: &ReportOptions, label: &str| {
        let h = href(o);
        let class = if h == here { " class=\"on\"" } else { "" };
        format!(
            "<a href=\"{}\"{class}>{}</a>",
            html::esc(&h),
            html::esc(label)
        )
    };
    let mut views = vec![link(&base, "whole ledger")];
    for (by, label) in [
        (vec![GroupBy::AnswerSystem], "by answer system"),
        (vec![GroupBy::Market], "by market"),
        (vec![GroupBy::PromptVersion], "by prompt-set version"),
        (vec![GroupBy::Collection], "by collection"),
        (
            vec![GroupBy::AnswerSystem, GroupBy::Market],
            "by answer system and market",
        ),
    ] {
        views.push(link(&ReportOptions { by, ..base.clone() }, label));
    }
    let mut units = Vec::new();
    for (u, label) in [
        (PublisherUnit::Host, "publishers as hostnames"),
        (PublisherUnit::Registrable, "as registrable domains"),
    ] {
        units.push(link(
            &ReportOptions {
                publisher: u,
                ..opts.clone()
            },
            label,
        ));
    }
    let mut compares = Vec::new();
    for w in collections.windows(2).take(12) {
        compares.push(link(
            &ReportOptions {
                compare: Some((w[0].clone(), w[1].clone())),
                ..base.clone()
            },
            &format!("{} to {}", w[0], w[1]),
        ));
    }
    let mut h = format!(
        "<p>Ledger <code>{}</code>, opened read-only for the report; only the review \
         queue's form writes, through the ledger's review API.</p>\n\
         <nav class=\"views\" aria-label=\"views\">{}<br>{}",
        html::esc(file),
        views.join(" "),
        units.join(" ")
    );
    if !compares.is_empty() {
        h.push_str("<br>compare collections: ");
        h.push_str(&compares.join(" "));
    }
    h.push_str("</nav>\n");
    h
}

/// `GET /ledger`.
pub(crate) async fn page(State(st): State<Arc<AppState>>, uri: Uri) -> Response {
    let Some(path) = st.ledger.clone() else {
        return no_ledger().into_response();
    };
    let opts = match options(&uri) {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let token = st.writes_allowed().then(|| st.token().to_string());
    match build(path, opts, Some(token)).await {
        Ok((r, collections, opts, queue)) => {
            let nav = nav(&opts, &collections, &file) + &queue;
            match html::page_with(&opts, &r, &html::Style::Link("/ledger.css"), &nav) {
                Ok(body) => {
                    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
                }
                Err(e) => ApiError::internal(e.to_string()).into_response(),
            }
        }
        Err(e) => e.into_response(),
    }
}

/// `GET /api/ledger`: the report as JSON.
pub(crate) async fn json(State(st): State<Arc<AppState>>, uri: Uri) -> Response {
    let Some(path) = st.ledger.clone() else {
        return no_ledger().into_response();
    };
    let opts = match options(&uri) {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    match build(path, opts, None).await {
        Ok((Report::Compare(_, c), _, _, _)) => json_response(StatusCode::OK, &c),
        Ok((Report::Groups(g), _, opts, _)) if opts.by.is_empty() => match g.groups.first() {
            Some(g) => json_response(StatusCode::OK, &g.measures),
            None => json_response(StatusCode::OK, &serde_json::json!({})),
        },
        Ok((Report::Groups(g), _, opts, _)) => json_response(
            StatusCode::OK,
            &report::Grouped {
                by: report::by_text(&opts.by),
                groups: g.groups,
            },
        ),
        Err(e) => e.into_response(),
    }
}

/// `GET /ledger.css`.
pub(crate) async fn css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        format!("{}{QUEUE_CSS}", html::CSS),
    )
        .into_response()
}

/// `GET /ledger.js`: the review queue's script (the page's only script, a file).
pub(crate) async fn js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        LEDGER_JS,
    )
        .into_response()
}

/// The review queue's script.
pub const LEDGER_JS: &str = include_str!("../static/ledger.js");

/// The review queue's style, after the report's.
const QUEUE_CSS: &str = "
#review-queue article { border-top: 1px solid #ccc; margin: 1rem 0; padding-top: .5rem; }
#review-queue article.to-review h3 { color: #8a3b00; }
#review-queue table.variants td, #review-queue table.variants th { vertical-align: top; \
  overflow-wrap: anywhere; max-width: 28rem; }
#review-queue form { margin: .5rem 0; }
#review-queue form label { margin-right: .6rem; white-space: nowrap; }
";

/// Merges shown in the queue at most.
const QUEUE_MAX: usize = 100;

/// One variant of a merged key, as the queue shows it.
struct Variant {
    observation: String,
    url: String,
    status: Option<String>,
    http: Option<i64>,
    title: Option<String>,
    final_url: Option<String>,
    canonical: Option<String>,
    distance: Option<i64>,
    claim: Option<String>,
}

/// The variants of a key: those its latest verification fetched, or (never verified) one
/// observation per distinct observed URL.
fn variants(
    conn: &rusqlite::Connection,
    policy: &str,
    key: &str,
) -> rusqlite::Result<Vec<Variant>> {
    let mut st = conn.prepare(
        "SELECT vv.observation_id, vv.requested_url, vv.verification_status, \
         vv.final_http_status, vv.title, vv.final_url, vv.publisher_canonical, \
         vv.distance_to_first, o.claim \
         FROM verification_variants AS vv \
         JOIN observations AS o ON o.observation_id = vv.observation_id \
         WHERE vv.verification_id = (SELECT max(v.verification_id) FROM verifications AS v \
           WHERE v.normalization_policy_version = ?1 AND v.normalized_key = ?2) \
         ORDER BY vv.variant",
    )?;
    let got: Vec<Variant> = st
        .query_map([policy, key], |r| {
            Ok(Variant {
                observation: r.get(0)?,
                url: r.get(1)?,
                status: r.get(2)?,
                http: r.get(3)?,
                title: r.get(4)?,
                final_url: r.get(5)?,
                canonical: r.get(6)?,
                distance: r.get(7)?,
                claim: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    if !got.is_empty() {
        return Ok(got);
    }
    let mut st = conn.prepare(
        "SELECT observation_id, observed_url, claim FROM observations \
         WHERE normalization_policy_version = ?1 AND normalized_key = ?2 ORDER BY rowid",
    )?;
    let mut seen = std::collections::HashSet::new();
    let all = st
        .query_map([policy, key], |r| {
            Ok(Variant {
                observation: r.get(0)?,
                url: r.get(1)?,
                status: None,
                http: None,
                title: None,
                final_url: None,
                canonical: None,
                distance: None,
                claim: r.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(all
        .into_iter()
        .filter(|v| seen.insert(v.url.clone()))
        .collect())
}

/// The rows of a variants table, one column per variant.
const ROW_LABELS: [&str; 8] = [
    "observed URL",
    "status",
    "HTTP",
    "title",
    "final URL",
    "canonical",
    "text distance to variant 1 (bits of 64)",
    "claim",
];

/// Row `row` of [`ROW_LABELS`] for `v`, escaped (`—` when unknown).
fn cell(v: &Variant, row: usize) -> String {
    let opt = |s: &Option<String>| html::esc(s.as_deref().unwrap_or("—"));
    let num = |n: Option<i64>| n.map_or("—".to_string(), |n| n.to_string());
    match row {
        0 => html::esc(&v.url),
        1 => opt(&v.status),
        2 => num(v.http),
        3 => opt(&v.title),
        4 => opt(&v.final_url),
        5 => opt(&v.canonical),
        6 => num(v.distance),
        _ => opt(&v.claim),
    }
}

fn options_html(name: &str, allowed: &[&str], none: &str) -> String {
    let mut h = format!("<select name=\"{name}\"><option value=\"\">{none}</option>");
    for a in allowed {
        h.push_str(&format!("<option value=\"{a}\">{a}</option>"));
    }
    h.push_str("</select>");
    h
}

/// The review queue: every merged key (merges to review first), its variants side by
/// side, and, when `token` is given (writes allowed), a form per merge.
fn review_queue(
    conn: &rusqlite::Connection,
    token: Option<&str>,
) -> urlkey_ledger::error::Result<String> {
    use urlkey_ledger::review as rv;
    let esc = html::esc;
    let merges = rv::merges(conn)?;
    let to_review = merges.iter().filter(|m| m.to_review).count();
    let mut h = String::from("<section id=\"review-queue\"");
    if let Some(t) = token {
        h.push_str(&format!(" data-token=\"{}\"", esc(t)));
    }
    h.push_str(&format!(
        "><h2>Review queue</h2>\n<p class=\"queue-summary\">{} merged keys, {to_review} to review \
         (a risky merge whose content check is not <code>same</code> and that no one decided).",
        merges.len()
    ));
    if token.is_some() {
        h.push_str(" A decision is recorded as <code>urlkey ledger review add</code> would.</p>\n");
    } else {
        h.push_str(
            " Decisions cannot be recorded here: the server is not bound to a loopback \
             address (use <code>urlkey ledger review add</code>).</p>\n",
        );
    }
    for m in merges.iter().take(QUEUE_MAX) {
        let vs = variants(conn, &m.policy, &m.key)?;
        h.push_str(&format!(
            "<article class=\"merge{}\" data-key=\"{}\">\n<h3><code>{}</code> <small>{}</small></h3>\n\
             <p>{} observations, {} observed URLs; rules: {}; content check: <b class=\"check\">{}</b>; \
             merge decision: <b class=\"decision\">{}</b>{}</p>\n",
            if m.to_review { " to-review" } else { "" },
            esc(&m.key),
            esc(&m.key),
            esc(&m.policy),
            m.observations,
            m.observed_urls,
            esc(&m.rules.join(", ")),
            esc(m.content_check.as_deref().unwrap_or("not verified")),
            esc(m.merge_decision.as_deref().unwrap_or("none")),
            if m.to_review { " — <b>to review</b>" } else { "" },
        ));
        h.push_str("<table class=\"variants\"><tr><th></th>");
        for (i, v) in vs.iter().enumerate() {
            h.push_str(&format!(
                "<th>variant {} <small>{}</small></th>",
                i + 1,
                esc(&v.observation)
            ));
        }
        h.push_str("</tr>\n");
        for (row, label) in ROW_LABELS.iter().enumerate() {
            h.push_str(&format!("<tr><th>{label}</th>"));
            for v in &vs {
                h.push_str(&format!("<td>{}</td>", cell(v, row)));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
        if token.is_some() {
            let mut obs = String::from("<select name=\"observation\">");
            for v in &vs {
                obs.push_str(&format!(
                    "<option value=\"{0}\">{0}</option>",
                    esc(&v.observation)
                ));
            }
            obs.push_str("</select>");
            h.push_str(&format!(
                "<form class=\"review-form\" data-key=\"{}\" data-policy=\"{}\">\
                 <label>merge {}</label> <label>source role {}</label> \
                 <label>claim support of {} {}</label> \
                 <label>reviewer <input name=\"reviewer\" required></label> \
                 <label>note <input name=\"note\"></label> \
                 <button type=\"submit\">Record decision</button> <output></output></form>\n",
                esc(&m.key),
                esc(&m.policy),
                options_html("merge", &rv::MERGE, "no decision"),
                options_html("role", &rv::ROLES, "no decision"),
                obs,
                options_html("claim_support", &rv::CLAIM_SUPPORT, "no decision"),
            ));
        }
        h.push_str("</article>\n");
    }
    if merges.len() > QUEUE_MAX {
        h.push_str(&format!(
            "<p>{} more merged keys: see <code>urlkey ledger merges</code>.</p>\n",
            merges.len() - QUEUE_MAX
        ));
    }
    h.push_str("</section>\n");
    if token.is_some() {
        h.push_str("<script src=\"/ledger.js\" defer></script>\n");
    }
    Ok(h)
}

/// A decision posted by the review queue: the fields of `urlkey ledger review add`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewRequest {
    observation: Option<String>,
    key: Option<String>,
    policy: Option<String>,
    role: Option<String>,
    claim_support: Option<String>,
    merge: Option<String>,
    reviewer: String,
    note: Option<String>,
}

/// Equal in constant time for equal lengths (the token's length is not a secret).
fn same_token(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `POST /api/ledger/review`: records one decision through `urlkey_ledger::review::add`.
pub(crate) async fn review(
    State(st): State<Arc<AppState>>,
    Extension(done): Extension<BodyDone>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Some(path) = st.ledger.clone() else {
        return no_ledger().into_response();
    };
    if !st.writes_allowed() {
        return ApiError::new(
            "review.writes-refused",
            "review decisions are written only when `urlkey serve` is bound to a loopback address: use `urlkey ledger review add`",
        )
        .into_response();
    }
    let given = headers
        .get("x-urlkey-token")
        .map(|v| v.as_bytes())
        .unwrap_or(b"");
    if !same_token(given, st.token().as_bytes()) {
        return ApiError::new(
            "review.bad-token",
            "the X-Urlkey-Token header is missing or wrong: send the decision from this run's ledger page",
        )
        .into_response();
    }
    let work = async move {
        let held = read_body(&st, &headers, &done, body).await?;
        blocking(move || {
            let (req, _permit): (ReviewRequest, _) = held.parse()?;
            let d = urlkey_ledger::review::Decision {
                observation: req.observation,
                key: req.key,
                policy: req.policy,
                role: req.role,
                claim_support: req.claim_support,
                merge: req.merge,
                reviewer: req.reviewer,
                note: req.note,
            };
            let conn = urlkey_ledger::db::open(&path, false).map_err(ledger_error)?;
            let id = urlkey_ledger::review::add(&conn, &d).map_err(ledger_error)?;
            Ok(id)
        })
        .await
    };
    match work.await {
        Ok(id) => json_response(StatusCode::OK, &serde_json::json!({ "review_id": id })),
        Err(e) => e.into_response(),
    }
}
