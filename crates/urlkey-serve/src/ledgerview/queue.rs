//! The review queue of the ledger page: every merged key (merges to review first), a page
//! of [`KEYS_PER_PAGE`] keys at a time, each key's spellings as rows (status, title, final
//! URL, canonical, content check, claim), the first [`SPELLINGS_FOLDED`] shown and the
//! rest folded behind "show all N spellings" (itself paged by [`SPELLINGS_PER_PAGE`]),
//! and, when writes are allowed, a form per merge that `/ledger.js` sends to
//! `POST /api/ledger/review` (`reviewview.rs`). A ledger of 50,000 citations has keys
//! with hundreds of spellings and thousands of merges: one column per spelling, or every
//! key on one page, drew a page of 13,474 x 116,194 px.

use urlkey_ledger::report::html;
use urlkey_ledger::review::{variants, Variant};

/// The review queue's style, after the report's.
pub(super) const QUEUE_CSS: &str = "
#review-queue article { border-top: 1px solid #ccc; margin: 1rem 0; padding-top: .5rem; }
#review-queue article.to-review h3 { color: #8a3b00; }
#review-queue table.variants { width: 100%; table-layout: fixed; }
#review-queue table.variants td, #review-queue table.variants th { vertical-align: top; \
  overflow-wrap: anywhere; }
#review-queue table.variants col.n { width: 5.5rem; }
#review-queue table.variants col.s { width: 6rem; }
#review-queue table.variants col.h { width: 4rem; }
#review-queue table.variants col.u { width: 22%; }
#review-queue details.all-spellings { margin: .3rem 0 .6rem; }
#review-queue details.all-spellings summary { cursor: pointer; color: #0b5cad; }
#review-queue nav.queue-pages, #review-queue .spelling-pages { margin: .6rem 0; }
#review-queue nav.queue-pages a, #review-queue .spelling-pages a { margin-left: .6rem; }
#review-queue form { margin: .5rem 0; }
#review-queue form label { margin-right: .6rem; white-space: nowrap; }
#review-queue form select { max-width: 24rem; }
";

/// Merged keys on one page of the queue.
pub(super) const KEYS_PER_PAGE: usize = 50;
/// Spellings of a key shown before "show all".
pub(super) const SPELLINGS_FOLDED: usize = 5;
/// Spellings on one page of "show all".
pub(super) const SPELLINGS_PER_PAGE: usize = 50;

/// Which part of the queue a request asks for (`queue_page`, `open`, `spellings_page` in
/// the query; pages count from 1, a page past the end shows the last one).
#[derive(Debug, Clone, Default)]
pub(super) struct QueueView {
    /// The page of keys.
    pub page: usize,
    /// The key whose "show all" list is open.
    pub open: Option<String>,
    /// The page of that key's spellings.
    pub spellings_page: usize,
    /// The report's own query (`by=...&compare=...`), kept in the queue's links.
    pub report_query: String,
}

impl QueueView {
    /// A link to this view of the queue with `page`, `open` and `spellings_page`.
    fn href(&self, page: usize, open: Option<(&str, usize)>, anchor: &str) -> String {
        let mut q = Vec::new();
        if !self.report_query.is_empty() {
            q.push(self.report_query.clone());
        }
        q.push(format!("queue_page={page}"));
        if let Some((key, sp)) = open {
            q.push(format!("open={}&spellings_page={sp}", super::enc(key)));
        }
        html::esc(&format!("/ledger?{}#{anchor}", q.join("&")))
    }
}

/// The columns of a spellings table, one row per spelling.
const COLUMNS: [(&str, &str); 9] = [
    ("spelling", "n"),
    ("observed URL", "u"),
    ("status", "s"),
    ("HTTP", "h"),
    ("title", ""),
    ("final URL", "u"),
    ("canonical", ""),
    (
        "<abbr title=\"text distance to variant 1, in bits of 64\">distance</abbr>",
        "s",
    ),
    ("claim", ""),
];

/// One spelling as a table row (`—` when unknown; every value is text, whatever the
/// state: a status this page does not know is shown as it is stored).
fn row(i: usize, v: &Variant) -> String {
    let esc = html::esc;
    let opt = |s: &Option<String>| esc(s.as_deref().unwrap_or("—"));
    let num = |n: Option<i64>| n.map_or("—".to_string(), |n| n.to_string());
    // The text the answer linked to (`#:~:text=`), beside the URL, with verify's latest
    // check of it: evidence for the claim support decision, not the decision.
    let fragments: String = v
        .text_fragments
        .iter()
        .map(|f| format!("<br><small data-text-fragment>text: {}</small>", esc(f)))
        .collect();
    format!(
        "<tr data-observation=\"{}\"><th>variant {} <small>{}</small></th><td>{}{fragments}</td>\
         <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        esc(&v.observation),
        i + 1,
        esc(&v.observation),
        esc(&v.url),
        opt(&v.status),
        num(v.http),
        opt(&v.title),
        opt(&v.final_url),
        opt(&v.canonical),
        num(v.distance),
        opt(&v.claim),
    )
}

/// A table of the spellings `vs[from..to]`, numbered from `from + 1`.
fn spellings_table(vs: &[Variant], from: usize, to: usize, class: &str) -> String {
    let mut h = format!("<table class=\"variants {class}\"><colgroup>");
    for (_, c) in COLUMNS {
        if c.is_empty() {
            h.push_str("<col>");
        } else {
            h.push_str(&format!("<col class=\"{c}\">"));
        }
    }
    h.push_str("</colgroup><thead><tr>");
    for (label, _) in COLUMNS {
        h.push_str(&format!("<th scope=\"col\">{label}</th>"));
    }
    h.push_str("</tr></thead><tbody>\n");
    for (i, v) in vs.iter().enumerate().take(to).skip(from) {
        h.push_str(&row(i, v));
    }
    h.push_str("</tbody></table>\n");
    h
}

/// `12,345`: counts as people read them.
fn count(n: usize) -> String {
    html::thousands(n as u64)
}

/// A key's spellings: the first [`SPELLINGS_FOLDED`], then the rest behind "show all N
/// spellings", a page of [`SPELLINGS_PER_PAGE`] at a time.
fn spellings(view: &QueueView, key: &str, anchor: &str, vs: &[Variant]) -> String {
    let n = vs.len();
    let mut h = spellings_table(vs, 0, n.min(SPELLINGS_FOLDED), "first");
    if n <= SPELLINGS_FOLDED {
        return h;
    }
    let pages = n.div_ceil(SPELLINGS_PER_PAGE);
    let opened = view.open.as_deref() == Some(key);
    let page = if opened {
        view.spellings_page.clamp(1, pages)
    } else {
        1
    };
    let from = (page - 1) * SPELLINGS_PER_PAGE;
    let to = (from + SPELLINGS_PER_PAGE).min(n);
    h.push_str(&format!(
        "<details class=\"all-spellings\"{}><summary>show all {} spellings</summary>\n",
        if opened { " open" } else { "" },
        count(n)
    ));
    h.push_str(&spellings_table(vs, from, to, "all"));
    if pages > 1 {
        h.push_str(&format!(
            "<p class=\"spelling-pages\" data-page=\"{page}\" data-pages=\"{pages}\">spellings {}–{} of {}",
            count(from + 1),
            count(to),
            count(n)
        ));
        if page > 1 {
            h.push_str(&format!(
                "<a href=\"{}\">previous spellings</a>",
                view.href(view.page, Some((key, page - 1)), anchor)
            ));
        }
        if page < pages {
            h.push_str(&format!(
                "<a href=\"{}\">next spellings</a>",
                view.href(view.page, Some((key, page + 1)), anchor)
            ));
        }
        h.push_str("</p>\n");
    }
    h.push_str("</details>\n");
    h
}

/// The queue's page links: keys `first`–`last` of `total`, previous and next.
fn pager(view: &QueueView, page: usize, pages: usize, total: usize) -> String {
    let from = (page - 1) * KEYS_PER_PAGE;
    let to = (from + KEYS_PER_PAGE).min(total);
    let mut h = format!(
        "<nav class=\"queue-pages\" aria-label=\"review queue pages\" data-page=\"{page}\" \
         data-pages=\"{pages}\" data-total=\"{total}\">Keys {}–{} of {} · page {page} of {pages}",
        count(if total == 0 { 0 } else { from + 1 }),
        count(to),
        count(total)
    );
    if page > 1 {
        h.push_str(&format!(
            "<a href=\"{}\" rel=\"prev\">previous keys</a>",
            view.href(page - 1, None, "review-queue")
        ));
    }
    if page < pages {
        h.push_str(&format!(
            "<a href=\"{}\" rel=\"next\">next keys</a>",
            view.href(page + 1, None, "review-queue")
        ));
    }
    h.push_str("</nav>\n");
    h
}

fn options_html(name: &str, allowed: &[&str], none: &str) -> String {
    let mut h = format!("<select name=\"{name}\"><option value=\"\">{none}</option>");
    for a in allowed {
        h.push_str(&format!("<option value=\"{a}\">{a}</option>"));
    }
    h.push_str("</select>");
    h
}

/// The review queue: one page of merged keys (merges to review first), each key's
/// spellings as rows, and, when `token` is given (writes allowed), a form per merge.
pub(super) fn review_queue(
    conn: &rusqlite::Connection,
    token: Option<&str>,
    view: &QueueView,
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
        "><h2>Review queue</h2>\n<p class=\"queue-summary\">{} merged keys, {} to review \
         (a risky merge whose content check is not <code>same</code> and that no one decided).",
        count(merges.len()),
        count(to_review)
    ));
    if token.is_some() {
        h.push_str(" A decision is recorded as <code>urlkey ledger review add</code> would.</p>\n");
    } else {
        h.push_str(
            " Decisions cannot be recorded here: the server is not bound to a loopback \
             address (use <code>urlkey ledger review add</code>).</p>\n",
        );
    }
    let pages = merges.len().div_ceil(KEYS_PER_PAGE).max(1);
    let page = view.page.clamp(1, pages);
    let nav = pager(view, page, pages, merges.len());
    h.push_str(&nav);
    let first = (page - 1) * KEYS_PER_PAGE;
    for (i, m) in merges.iter().enumerate().skip(first).take(KEYS_PER_PAGE) {
        let vs = variants(conn, &m.policy, &m.key)?;
        let anchor = format!("k-{}", i + 1);
        h.push_str(&format!(
            "<article class=\"merge{}\" id=\"{anchor}\" data-key=\"{}\" data-spellings=\"{}\">\n\
             <h3><code>{}</code> <small>{}</small></h3>\n\
             <p>{} observations, {} observed URLs; rules: {}; content check: <b class=\"check\">{}</b>; \
             merge decision: <b class=\"decision\">{}</b>{}</p>\n",
            if m.to_review { " to-review" } else { "" },
            esc(&m.key),
            vs.len(),
            esc(&m.key),
            esc(&m.policy),
            m.observations,
            m.observed_urls,
            esc(&m.rules.join(", ")),
            esc(m.content_check.as_deref().unwrap_or("not verified")),
            esc(m.merge_decision.as_deref().unwrap_or("none")),
            if m.to_review { " — <b>to review</b>" } else { "" },
        ));
        h.push_str(&spellings(view, &m.key, &anchor, &vs));
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
    if pages > 1 {
        h.push_str(&nav);
    }
    h.push_str("</section>\n");
    if token.is_some() {
        h.push_str("<script src=\"/ledger.js\" defer></script>\n");
    }
    Ok(h)
}
