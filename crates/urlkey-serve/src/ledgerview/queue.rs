//! The review queue of the ledger page: every merged key (merges to review first), its
//! variants side by side (status, title, final URL, canonical, content check) with the
//! claims, and, when writes are allowed, a form per merge that `/ledger.js` sends to
//! `POST /api/ledger/review` (`reviewview.rs`).

use urlkey_ledger::report::html;

/// The review queue's style, after the report's.
pub(super) const QUEUE_CSS: &str = "
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
pub(super) fn review_queue(
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
