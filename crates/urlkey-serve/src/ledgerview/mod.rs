//! The ledger page (`urlkey serve --ledger DB`): the report of `urlkey ledger report
//! --format html` (the measures with their sample, the SVG charts, the top keys, the
//! overlap between answer systems, a comparison of two collections), rendered on the
//! server, followed by the review queue ([`queue`]). The views are plain links. The ledger
//! is opened read-only for each request and shows what is in it at that moment.
//!
//! The queue's form is sent by the page's external script `/ledger.js` (no inline
//! script; the CSP keeps `form-action 'none'`, so without the script nothing is ever
//! submitted) as a `fetch` POST to `/api/ledger/review` (`reviewview.rs`) carrying
//! the per-run token in `X-Urlkey-Token`.
//!
//! - `GET /ledger?by=answer_system,market&publisher=registrable&top=5&top_keys=5`
//! - `GET /ledger?compare=c-2026-11-01&compare=c-2026-11-08`
//! - `GET /ledger?window=2026-11-01..2026-11-07` (a filter; twice: two windows compared)
//! - `GET /ledger?queue_page=2&open=KEY&spellings_page=3`: the review queue's page of keys
//!   and one key's "show all" list on its page (with any of the report's options).
//! - `GET /api/ledger?...`: the same report as JSON (the `report --format json` shape).
//! - `GET /ledger.css`: the page's style sheet.
//! - `GET /ledger.js`: the review queue's script.

mod queue;

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use urlkey_ledger::report::{self, html, GroupBy, PublisherUnit, Report, ReportOptions};

use crate::error::{json_response, ApiError};
use crate::state::AppState;
use queue::{review_queue, QueueView, QUEUE_CSS};

/// The `by` values of a query, by the column names the JSON report gives them.
const GROUP_BYS: [GroupBy; 4] = [
    GroupBy::AnswerSystem,
    GroupBy::Market,
    GroupBy::PromptVersion,
    GroupBy::Collection,
];

/// The `publisher` values of a query.
const PUBLISHER_UNITS: [PublisherUnit; 2] = [PublisherUnit::Host, PublisherUnit::Registrable];

fn bad(message: String) -> ApiError {
    ApiError::new("request.invalid-option", message)
}

/// A page number of the queue (`queue_page`, `spellings_page`), from 1.
fn page_number(k: &str, v: &str) -> Result<usize, ApiError> {
    v.parse()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| bad(format!("{k} {v:?}: give a page number from 1")))
}

/// The review queue's part of a query string (`queue_page`, `open`, `spellings_page`),
/// and the rest of it: the report's options.
fn queue_view(uri: &Uri) -> Result<(QueueView, Vec<(String, String)>), ApiError> {
    let mut view = QueueView {
        page: 1,
        spellings_page: 1,
        ..QueueView::default()
    };
    let mut rest = Vec::new();
    for (k, v) in urlkey::parse_form(uri.query().unwrap_or("")) {
        match k.as_str() {
            "queue_page" => view.page = page_number(&k, &v)?,
            "spellings_page" => view.spellings_page = page_number(&k, &v)?,
            "open" => view.open = Some(v),
            _ => rest.push((k, v)),
        }
    }
    view.report_query = rest
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&");
    Ok((view, rest))
}

/// The report options a query string asks for.
fn options(uri: &Uri) -> Result<ReportOptions, ApiError> {
    options_of(urlkey::parse_form(uri.query().unwrap_or("")))
}

/// The report options of a query's pairs.
fn options_of(pairs: Vec<(String, String)>) -> Result<ReportOptions, ApiError> {
    let mut opts = ReportOptions::default();
    let mut compare = Vec::new();
    for (k, v) in pairs {
        match k.as_str() {
            "by" => {
                for c in v.split(',').filter(|c| !c.is_empty()) {
                    let b = GROUP_BYS
                        .into_iter()
                        .find(|b| b.column() == c)
                        .ok_or_else(|| {
                            bad(format!(
                                "by {c:?}: use answer_system, market, prompt_version or collection"
                            ))
                        })?;
                    opts.by.push(b);
                }
            }
            "publisher" => {
                opts.publisher = PUBLISHER_UNITS
                    .into_iter()
                    .find(|u| u.as_str() == v)
                    .ok_or_else(|| bad(format!("publisher {v:?}: use host or registrable")))?;
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

/// Reads the ledger (read-only) and builds the report and the collections list.
async fn build(
    path: PathBuf,
    opts: ReportOptions,
    queue: Option<(Option<String>, QueueView)>,
) -> Result<(Report, Vec<String>, ReportOptions, String), ApiError> {
    let work = move || -> Result<_, ApiError> {
        let conn = report::open_read_only(&path).map_err(ApiError::ledger)?;
        let r = report::build(&conn, &opts).map_err(ApiError::ledger)?;
        let collections =
            report::collections(&conn, opts.policy.as_deref()).map_err(ApiError::ledger)?;
        let q = match queue {
            Some((token, view)) => {
                review_queue(&conn, token.as_deref(), &view).map_err(ApiError::ledger)?
            }
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
pub(super) fn enc(s: &str) -> String {
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
    h.push_str("<br><a href=\"#review-queue\">the review queue</a> (after the report)");
    h.push_str("</nav>\n");
    h
}

/// `GET /ledger`.
pub(crate) async fn page(State(st): State<Arc<AppState>>, uri: Uri) -> Response {
    let Some(path) = st.ledger.clone() else {
        return ApiError::no_ledger().into_response();
    };
    let (view, rest) = match queue_view(&uri) {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let opts = match options_of(rest) {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let token = st.writes_allowed().then(|| st.token().to_string());
    match build(path, opts, Some((token, view))).await {
        Ok((r, collections, opts, queue)) => {
            let nav = nav(&opts, &collections, &file);
            let style = html::Style::Link("/ledger.css");
            match html::page_with(&opts, &r, &style, &nav, &queue) {
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
        return ApiError::no_ledger().into_response();
    };
    let opts = match options(&uri) {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    match build(path, opts, None).await {
        Ok((r, _, opts, _)) => json_response(StatusCode::OK, &report::JsonReport::of(&r, &opts.by)),
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
pub const LEDGER_JS: &str = include_str!("../../static/ledger.js");
