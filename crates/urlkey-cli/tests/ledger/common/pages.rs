//! Pages for the content comparison tests: variants of one key that are the
//! same page, the same article with its date line changed, two different pages, a 200
//! challenge page. All synthetic.

use super::response;

/// About 150 words of a synthetic article.
const ARTICLE: &str = "Comparison keys let an audit count one page once even when answers \
cite it with analytics parameters, fragments or a trailing slash. The observed URL is kept \
as evidence beside the key, and a later verification records what the server answered. \
When two observed URLs share a key because a rule removed a trailing slash or sorted the \
parameters, the server may still serve two different documents, so the ledger fetches \
every variant and compares the visible text of the pages. Equal text confirms the merge; \
nearly equal text, such as the same article with a new date line, is similar; anything \
else is different and waits for a person to decide whether the key should be split. A \
timeout or a challenge page is no finding at all, and the comparison stays unresolved \
until a later run succeeds. Reviewers also record the role of each source and whether \
the page supports the claim that cited it, and every decision is kept with its author \
and time so that the history can be audited later.";

/// Another synthetic page, unrelated to the article.
const OTHER: &str = "Quarterly figures for the synthetic research programme: forty two \
sites were sampled across three regions, with rainfall, soil temperature and crop height \
measured every morning. The tables below list the station codes, the instruments used and \
the calibration dates. Station seven was closed for maintenance in the second month, and \
its readings were interpolated from the two nearest stations. The appendix explains the \
interpolation and lists every missing reading by date. Contact the programme office for \
the raw files, which are released under an open licence once the review period ends.";

fn page(title: &str, first_line: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title><style>p {{ margin: 0 }}</style>\
         <script>var synthetic = \"{first_line}\";</script></head><body><h1>{title}</h1>\
         <p class=date>{first_line}</p><p>{body}</p></body></html>"
    )
}

/// The response for `path`, when it is one of these pages.
pub fn variant_page(path: &str) -> Option<Vec<u8>> {
    let html = ("Content-Type", "text/html; charset=utf-8".to_string());
    if let Some(p) = risky_family(path) {
        return Some(response("200 OK", &[html], &p));
    }
    let p = match path {
        // Same: one page under two paths (and with a tracking parameter).
        "/article" | "/article/" | "/article?utm_source=synthetic" => {
            page("Synthetic article", "Updated 1 March 2026", ARTICLE)
        }
        // Similar: the same article, its date line changed (and different script text).
        "/dated" => page("Synthetic article", "Updated 1 March 2026", ARTICLE),
        "/dated/" => page(
            "Synthetic article",
            "Updated 9 April 2026 by the desk",
            ARTICLE,
        ),
        // Different: two pages.
        "/report" => page("Synthetic article", "Updated 1 March 2026", ARTICLE),
        "/report/" => page("Programme figures", "Published 2 March 2026", OTHER),
        // A variant with no finding.
        "/flaky" => page("Synthetic article", "Updated 1 March 2026", ARTICLE),
        "/flaky/" => {
            return Some(response(
                "503 Service Unavailable",
                &[("Retry-After", "60".to_string())],
                "busy",
            ))
        }
        // A variant that redirects to a private address.
        "/inside" => page("Synthetic article", "Updated 1 March 2026", ARTICLE),
        "/inside/" => {
            return Some(response(
                "302 Found",
                &[("Location", "http://10.0.0.1/inside".to_string())],
                "",
            ))
        }
        // A 200 that is a challenge page.
        "/moment" => "<!doctype html><html><head><title>Just a moment...</title></head>\
                      <body><div id=\"cf-chl-widget\"></div><p>Checking your browser.</p>\
                      </body></html>"
            .to_string(),
        _ => return None,
    };
    Some(response("200 OK", &[html], &p))
}

/// Keys of the risky-spelling tests (`risky_spellings.rs`), whatever the query: the same
/// article everywhere except one risky spelling of each family.
fn risky_family(path: &str) -> Option<String> {
    let (base, query) = path.split_once('?').unwrap_or((path, ""));
    let article = || page("Synthetic article", "Updated 1 March 2026", ARTICLE);
    let other = || page("Programme figures", "Published 2 March 2026", OTHER);
    Some(match base {
        // The key: the trailing-slash spelling is another page.
        "/seven" => article(),
        "/seven/" => other(),
        // Two risky rules: the slash spelling is the same page, the unsorted query another.
        "/two" if query == "b=2&a=1" => other(),
        "/two" | "/two/" => article(),
        // One page under every spelling.
        "/alike" | "/alike/" => article(),
        _ => return None,
    })
}
