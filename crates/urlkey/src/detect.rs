//! Does a piece of text look like a web address? docs/policies.md, "Inspecting one URL".
//!
//! The rule: text is taken as a web address "when it has `://`, starts with `www.`, or is
//! a bare domain (optionally with port, path, query, fragment) whose last label is a
//! top-level domain with a rule in the list's ICANN section, so `notes.txt`, `1.5` and
//! `John.Smith` are not taken."
//!
//! Where that rule is silent, this module decides:
//!
//! - The text is trimmed of white space (Unicode `White_Space`) first; white space left
//!   inside makes the answer `false`, whichever of the three rules would apply.
//! - `://` may appear anywhere (the seed's "has"), and `www.` is matched ignoring ASCII
//!   case; nothing else is checked for those two.
//! - The host (the text up to the first `:`, `/`, `?` or `#`) is read as the URL
//!   Standard's host parser reads it, so that the answer agrees with the parser's: a host
//!   that is not ASCII goes through UTS #46 first, with the Standard's settings
//!   (<https://url.spec.whatwg.org/#concept-domain-to-ascii>, as `idna` implements it), so
//!   full-width letters are mapped (`ｅｘａｍｐｌｅ．ｃｏｍ`), the dots UTS #46 maps to
//!   U+002E separate labels (`example。com`, U+3002, U+FF0E, U+FF61), and Unicode labels
//!   become their `xn--` form. A host that UTS #46 refuses, or over the 4096-unit host
//!   limit, is not taken. ASCII hosts are never run through UTS #46, as the Standard says.
//! - A bare domain is then two or more labels separated by `.`, with one optional root
//!   `.` at the end. A label is one or more ASCII letters, digits and hyphens and does not
//!   start or end with `-`. No length limits are checked.
//! - The last label must be a top-level domain of the ICANN section
//!   ([`PublicSuffixList::is_icann_tld`], ASCII case-insensitive): the last label of some
//!   rule there, so `example.co.za` is taken although the list has no rule `za` (only
//!   `co.za`, ...). It is looked up in its `xn--` form after the mapping: so `bücher.de`,
//!   `пример.рф`, `example.中国` and their `xn--` forms are taken alike.
//! - The host may be followed by `:port` (1 to 5 digits, at most 65535), then by
//!   anything that starts with `/`, `?` or `#`. An empty port (`example.com:`) is not a
//!   port. Anything else after the host (`@`, `_`, `\`, ...) makes the answer `false`.
//! - Known cost of the seed's rule: a file name whose extension is also a country code
//!   (`readme.md`, `setup.py`, `main.rs`) is taken.

use crate::psl::PublicSuffixList;

/// True when `text` looks like a web address (docs/policies.md, "Inspecting one URL";
/// see the [module documentation](self) for the details): it has `://`, starts with
/// `www.`, or is a bare domain, optionally followed by `:port`, a path, a query and a
/// fragment, whose last label is an ICANN top-level domain.
///
/// ```
/// use urlkey::{detect::looks_like_web_address, PublicSuffixList};
/// let psl = PublicSuffixList::embedded();
/// assert!(looks_like_web_address("example.com:8080/x?y#z", &psl));
/// assert!(looks_like_web_address("www.foo", &psl));
/// assert!(looks_like_web_address("https://x", &psl));
/// assert!(!looks_like_web_address("notes.txt", &psl));
/// assert!(!looks_like_web_address("John.Smith", &psl));
/// ```
pub fn looks_like_web_address(text: &str, psl: &PublicSuffixList) -> bool {
    let text = text.trim();
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        return false;
    }
    if text.contains("://") {
        return true;
    }
    if text
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("www."))
    {
        return true;
    }
    is_bare_domain(text, psl)
}

/// A bare domain with an ICANN top-level domain, then optionally `:port` and a path,
/// query or fragment.
fn is_bare_domain(text: &str, psl: &PublicSuffixList) -> bool {
    let end = text.find([':', '/', '?', '#']).unwrap_or(text.len());
    let (host, rest) = text.split_at(end);
    if let Some(after_colon) = rest.strip_prefix(':') {
        let digits = after_colon
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after_colon.len());
        let (port, tail) = after_colon.split_at(digits);
        if !(1..=5).contains(&port.len()) || port.parse::<u32>().map_or(true, |p| p > 65535) {
            return false;
        }
        if !(tail.is_empty() || tail.starts_with(['/', '?', '#'])) {
            return false;
        }
    }
    let Some(host) = ascii_host(host) else {
        return false;
    };
    let host = host.strip_suffix('.').unwrap_or(&host);
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 || !labels.iter().all(|l| is_label(l)) {
        return false;
    }
    psl.is_icann_tld(labels[labels.len() - 1])
}

/// The host as the host parser would hand it on: ASCII as written, anything else through
/// UTS #46 (the Standard's domain to ASCII, `beStrict` false, with its forbidden domain
/// code points). `None` when UTS #46 refuses it or it is over the 4096-unit host limit.
fn ascii_host(host: &str) -> Option<std::borrow::Cow<'_, str>> {
    if host.is_ascii() {
        return Some(host.into());
    }
    if host.encode_utf16().count() > crate::web::MAX_NON_ASCII_HOST_UTF16 {
        return None;
    }
    idna::domain_to_ascii_cow(host.as_bytes(), idna::AsciiDenyList::URL).ok()
}

/// One or more ASCII letters, digits or hyphens, not starting or ending with `-`.
fn is_label(label: &str) -> bool {
    !label.is_empty()
        && !label.starts_with('-')
        && !label.ends_with('-')
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is(text: &str) -> bool {
        looks_like_web_address(text, &PublicSuffixList::embedded())
    }

    #[test]
    fn seed_and_brief_examples() {
        // The rule's own examples: not taken.
        assert!(!is("notes.txt")); // "txt" is not a top-level domain
        assert!(!is("1.5")); // "5" is not a top-level domain
        assert!(!is("John.Smith")); // "smith" is not a top-level domain
                                    // Taken.
        assert!(is("example.com"));
        assert!(is("example.com:8080/x?y#z")); // port, path, query, fragment
        assert!(is("EXAMPLE.COM")); // top-level domain ignores ASCII case
        assert!(is("www.foo")); // starts with "www.": no top-level domain check
        assert!(is("https://x")); // has "://"
    }

    #[test]
    fn more_cases() {
        // The "://" and "www." rules.
        assert!(is("ftp://files.example")); // any scheme with "://"
        assert!(is("WWW.Example")); // "www." ignores ASCII case
        assert!(is("  https://example.com/a  ")); // trimmed first
        assert!(!is("see https://example.com")); // white space inside
        assert!(!is("www")); // no dot
        assert!(!is("wwwexample.com.x")); // no "www.", and "x" is no TLD
        assert!(!is("mailto:jo@example.com")); // no "://"; "mailto" is a single label
        assert!(!is("")); // empty
        assert!(!is("   ")); // only white space

        // Bare domains.
        assert!(is("\t example.com \n")); // surrounding white space is trimmed
        assert!(is("a.io")); // short names are fine
        assert!(is("news.bbc.co.uk/sport")); // many labels, path
        assert!(is("example.com.")); // root dot
        assert!(is("example.com./path")); // root dot before a path
        assert!(is("example.com?q=1")); // query right after the host
        assert!(is("example.com#top")); // fragment right after the host
        assert!(is("example.com/")); // bare slash
        assert!(is("my-site.org")); // hyphen inside a label
        assert!(is("example.com:65535")); // highest port
        assert!(is("readme.md")); // known cost: "md" is Moldova's TLD
        assert!(!is("example.com:65536")); // port out of range
        assert!(!is("example.com:")); // empty port
        assert!(!is("example.com:80x")); // port followed by something else
        assert!(!is("localhost:3000")); // single label
        assert!(!is("com")); // a TLD alone is a single label
        assert!(!is(".com")); // empty first label
        assert!(!is("example..com")); // empty label
        assert!(!is("example.com..")); // only one root dot
        assert!(!is("-example.com")); // label starts with '-'
        assert!(!is("example-.com")); // label ends with '-'
        assert!(!is("ex_ample.com")); // '_' is not a label character
        assert!(!is("jo@example.com")); // an email address: '@' is not allowed
        assert!(!is("example.com\\path")); // '\' after the host
        assert!(!is("v1.2.3")); // "3" is not a TLD
        assert!(!is("e.g.")); // "g" is not a TLD
        assert!(!is("node.js")); // "js" is not a TLD
        assert!(!is("192.168.0.1")); // an IPv4 address has no TLD
        assert!(!is("example.com foo")); // white space inside
        assert!(!is("example.com\u{a0}x")); // no-break space inside
        assert!(!is("example.notatld")); // unknown TLD
        assert!(is("example.co.za")); // "za" has rules (co.za, ...) but no rule of its own
        assert!(is("google.com.jm")); // likewise "jm"
        assert!(is("example.ck")); // "*.ck" is a rule of the top-level domain "ck"
    }

    #[test]
    fn non_ascii() {
        assert!(is("bücher.de")); // Unicode label, ASCII ICANN TLD
        assert!(is("例え.jp/パス")); // Unicode label and path
        assert!(is("Bücher.DE")); // TLD case
        assert!(is("пример.рф")); // a Unicode TLD is looked up in its xn-- form
        assert!(!is("bücher.dé")); // not an ICANN TLD
        assert!(is("例え。jp")); // UTS #46 maps U+3002 to U+002E, as the host parser does
    }

    #[test]
    fn punycode_tld_is_looked_up_as_written() {
        // The embedded list is read in its xn-- form, so the punycode TLD is found as
        // written, and its Unicode form once UTS #46 has mapped it...
        let embedded = PublicSuffixList::embedded();
        assert!(embedded.is_icann_tld("xn--p1ai"));
        assert!(is("xn--e1afmkfd.xn--p1ai") && is("пример.рф"));
        // ...and in a list that writes it so.
        let custom = PublicSuffixList::parse(
            "// ===BEGIN ICANN DOMAINS===\nxn--p1ai\n// ===END ICANN DOMAINS===\n",
        )
        .unwrap();
        assert!(looks_like_web_address("xn--e1afmkfd.xn--p1ai", &custom));
        assert!(looks_like_web_address("XN--E1AFMKFD.XN--P1AI", &custom));
        assert!(looks_like_web_address("ПРИМЕР.РФ", &custom));
        assert!(!looks_like_web_address("example.com", &custom)); // not in that list
    }
}
