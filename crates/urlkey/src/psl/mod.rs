//! The Public Suffix List (<https://publicsuffix.org/list/>), ICANN and private sections.
//!
//! A snapshot is embedded (`data/public_suffix_list.dat`, its `VERSION` line is
//! [`PublicSuffixList::version`]); a newer file can be loaded with
//! [`PublicSuffixList::parse`]. Every record that used the list carries its version, so a
//! key can be reproduced.
//!
//! [`PublicSuffixList::registrable_domain`], the hot path of `webkey@1`, does not go through
//! the `publicsuffix` crate: [`PublicSuffixList::parse`] also builds a rule table, the
//! crate's rule tree with its edges in one open-addressing hash table keyed by
//! (parent node, label). A lookup walks the host's labels from the right exactly as the
//! crate's `List::find` walks its tree, without allocating. `lookup()` still uses the
//! crate; `is_icann_tld()` reads a set of the ICANN section's top-level labels, also built
//! at parse time.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use publicsuffix::{List, Psl, Type};

mod table;

use table::RuleTable;

const EMBEDDED: &str = include_str!("../../data/public_suffix_list.dat");

/// A parsed Public Suffix List and its version.
///
/// ```
/// let psl = urlkey::PublicSuffixList::embedded();
/// assert_eq!(psl.version(), urlkey::PublicSuffixList::embedded_version());
/// assert_eq!(psl.registrable_domain("www.example.com"), Some("example.com"));
/// assert!(psl.is_icann_tld("uk") && !psl.is_icann_tld("notatld"));
/// ```
#[derive(Debug, Clone)]
pub struct PublicSuffixList {
    list: Arc<List>,
    table: Arc<RuleTable>,
    /// The last label (in its `xn--` form, lowercase) of every ICANN-section rule.
    icann_tlds: Arc<HashSet<Box<str>>>,
    version: Arc<str>,
}

/// A list file that could not be used; [`PslError::code`] gives its stable code.
///
/// ```
/// let e = urlkey::PublicSuffixList::parse("===BEGIN ICANN DOMAINS===\n!com\n").unwrap_err();
/// assert_eq!(e.code().as_str(), "psl.unparsable");
/// assert!(e.to_string().contains("!com"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PslError {
    /// The text has no `===BEGIN ICANN DOMAINS===` line.
    NotAList,
    /// The `publicsuffix` crate refused the text (its message).
    Unparsable(String),
    /// A rule that is not a domain name (IDNA refused it).
    InvalidRule(String),
    /// An exception rule (`!x`) of a single label.
    ExceptionAtFirstLabel(String),
    /// A rule with an empty label (`a..b`).
    EmptyLabel(String),
}

impl std::fmt::Display for PslError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PslError::NotAList => {
                f.write_str("not a Public Suffix List file: no '===BEGIN ICANN DOMAINS===' line")
            }
            PslError::Unparsable(e) => write!(f, "the Public Suffix List does not parse: {e}"),
            PslError::InvalidRule(r) => write!(f, "invalid rule in the Public Suffix List: {r}"),
            PslError::ExceptionAtFirstLabel(r) => write!(
                f,
                "exception rule at the first label in the Public Suffix List: {r}"
            ),
            PslError::EmptyLabel(r) => {
                write!(f, "empty label in a rule of the Public Suffix List: {r}")
            }
        }
    }
}
impl std::error::Error for PslError {}

impl PslError {
    /// The stable code, one per variant (`psl.not-a-list`, `psl.unparsable`,
    /// `psl.invalid-rule`, `psl.exception-at-first-label`, `psl.empty-label`).
    ///
    /// ```
    /// let e = urlkey::PublicSuffixList::parse("com\n").unwrap_err();
    /// assert_eq!(e.code(), urlkey::ErrorCode::PslNotAList);
    /// assert_eq!(e.code().as_str(), "psl.not-a-list");
    /// ```
    pub const fn code(&self) -> crate::ErrorCode {
        use crate::ErrorCode;
        match self {
            PslError::NotAList => ErrorCode::PslNotAList,
            PslError::Unparsable(_) => ErrorCode::PslUnparsable,
            PslError::InvalidRule(_) => ErrorCode::PslInvalidRule,
            PslError::ExceptionAtFirstLabel(_) => ErrorCode::PslExceptionAtFirstLabel,
            PslError::EmptyLabel(_) => ErrorCode::PslEmptyLabel,
        }
    }
}

/// Which section of the list a suffix comes from.
///
/// ```
/// use urlkey::psl::Section;
/// let psl = urlkey::PublicSuffixList::embedded_static();
/// assert_eq!(psl.lookup("example.co.uk").unwrap().section, Section::Icann);
/// assert_eq!(psl.lookup("someone.github.io").unwrap().section, Section::Private);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    /// The ICANN section (top-level domains and their registries' rules).
    Icann,
    /// The private section (suffixes that companies operate, `github.io`, ...).
    Private,
    /// No rule matched: the default `*` rule of the algorithm.
    Default,
}

/// What the list says of a host name.
///
/// ```
/// let info = urlkey::PublicSuffixList::embedded_static().lookup("co.uk").unwrap();
/// assert_eq!(info.suffix, "co.uk");
/// assert_eq!(info.registrable_domain, None); // a public suffix itself
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SuffixInfo {
    /// The public suffix.
    pub suffix: String,
    /// The registrable domain: the suffix plus one label, if the name has one.
    pub registrable_domain: Option<String>,
    /// The section of the rule that matched.
    pub section: Section,
}

impl PublicSuffixList {
    /// The snapshot compiled into this build, parsed once per process.
    ///
    /// ```
    /// let psl = urlkey::PublicSuffixList::embedded();
    /// assert_eq!(psl.registrable_domain("a.b.example.co.uk"), Some("example.co.uk"));
    /// ```
    pub fn embedded() -> PublicSuffixList {
        Self::embedded_static().clone()
    }

    /// The embedded snapshot, parsed on first use (a few milliseconds), shared by every policy.
    ///
    /// ```
    /// let psl = urlkey::PublicSuffixList::embedded_static();
    /// assert!(std::ptr::eq(psl, urlkey::PublicSuffixList::embedded_static()));
    /// ```
    pub fn embedded_static() -> &'static PublicSuffixList {
        static LIST: OnceLock<PublicSuffixList> = OnceLock::new();
        LIST.get_or_init(|| {
            PublicSuffixList::parse(EMBEDDED).expect("the embedded Public Suffix List parses")
        })
    }

    /// The embedded snapshot's version, read without parsing the list.
    ///
    /// ```
    /// assert_eq!(urlkey::PublicSuffixList::embedded_version(), "2026-10-22_08-36-41_UTC");
    /// ```
    pub fn embedded_version() -> &'static str {
        EMBEDDED
            .lines()
            .take(50)
            .find_map(|l| l.strip_prefix("// VERSION:"))
            .map_or("unversioned", str::trim)
    }

    /// Parses a list in the published format. The version is taken from its
    /// `// VERSION:` line, or else is `unversioned-<16 hex digits of a hash of the text>`.
    ///
    /// ```
    /// let text = "// ===BEGIN ICANN DOMAINS===\nexample\n*.wild.example\n";
    /// let psl = urlkey::PublicSuffixList::parse(text).unwrap();
    /// assert!(psl.version().starts_with("unversioned-"));
    /// assert_eq!(psl.registrable_domain("www.shop.example"), Some("shop.example"));
    /// assert_eq!(psl.registrable_domain("a.b.wild.example"), Some("a.b.wild.example"));
    /// assert!(urlkey::PublicSuffixList::parse("not a list").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<PublicSuffixList, PslError> {
        if !text.contains("===BEGIN ICANN DOMAINS===") {
            return Err(PslError::NotAList);
        }
        let list: List = text
            .parse()
            .map_err(|e: publicsuffix::Error| PslError::Unparsable(e.to_string()))?;
        let table = RuleTable::build(text)?;
        let icann_tlds = icann_tlds(text);
        let version = text
            .lines()
            .take(50)
            .find_map(|l| l.strip_prefix("// VERSION:"))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| format!("unversioned-{:016x}", fnv1a(text.as_bytes())));
        Ok(PublicSuffixList {
            list: Arc::new(list),
            table: Arc::new(table),
            icann_tlds: Arc::new(icann_tlds),
            version: version.into(),
        })
    }

    /// The list's version (`2026-10-22_08-36-41_UTC` for the embedded snapshot).
    ///
    /// ```
    /// let psl = urlkey::PublicSuffixList::parse("// VERSION: 2026-01-01\n// ===BEGIN ICANN DOMAINS===\ncom\n").unwrap();
    /// assert_eq!(psl.version(), "2026-01-01");
    /// ```
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Looks up a lowercase ASCII host name (IDNA already applied, no root dot).
    /// Returns `None` for an empty name or one with empty labels.
    ///
    /// ```
    /// let psl = urlkey::PublicSuffixList::embedded();
    /// let info = psl.lookup("news.example.com.au").unwrap();
    /// assert_eq!(info.suffix, "com.au");
    /// assert_eq!(info.registrable_domain.as_deref(), Some("example.com.au"));
    /// ```
    pub fn lookup(&self, host: &str) -> Option<SuffixInfo> {
        if host.is_empty() || host.split('.').any(str::is_empty) {
            return None;
        }
        let suffix = self.list.suffix(host.as_bytes())?;
        let section = if !suffix.is_known() {
            Section::Default
        } else {
            match suffix.typ() {
                Some(Type::Private) => Section::Private,
                _ => Section::Icann,
            }
        };
        let suffix_str = std::str::from_utf8(suffix.as_bytes()).ok()?.to_string();
        let registrable_domain = self
            .list
            .domain(host.as_bytes())
            .and_then(|d| std::str::from_utf8(d.as_bytes()).ok().map(str::to_string));
        Some(SuffixInfo {
            suffix: suffix_str,
            registrable_domain,
            section,
        })
    }

    /// The registrable domain of a lowercase ASCII host, without allocating the rest of
    /// [`SuffixInfo`]. `None` when the name is a public suffix itself, or is empty or has
    /// an empty label. A name whose top-level label has no rule is under the default `*`
    /// rule (`x.unknowntld` gives `x.unknowntld`, `localhost` gives `None`).
    ///
    /// The same answer as the `publicsuffix` crate's `List::domain` behind the empty-label
    /// guard (`tests/psl_fast.rs` checks it on the official test vectors, every rule of the
    /// list, the whole corpus and generated names), from a rule table built at parse time:
    /// no allocation, and about 180 instructions for `www.example.com`, 260 for
    /// `a.b.example.co.uk` (callgrind; the crate took 1,300 and 1,840).
    ///
    /// ```
    /// let psl = urlkey::PublicSuffixList::embedded_static();
    /// assert_eq!(psl.registrable_domain("www.bbc.co.uk"), Some("bbc.co.uk"));
    /// assert_eq!(psl.registrable_domain("x.unknowntld"), Some("x.unknowntld"));
    /// assert_eq!(psl.registrable_domain("co.uk"), None);
    /// ```
    pub fn registrable_domain<'h>(&self, host: &'h str) -> Option<&'h str> {
        // `start` follows a '.' (or is 0), so it is a char boundary.
        host.get(self.registrable_start(host)?..)
    }

    /// Where [`Self::registrable_domain`] starts in `host`: the registrable domain is
    /// always the host's tail, so a caller that keeps the host can cut it there instead
    /// of comparing the two.
    #[inline]
    pub(crate) fn registrable_start(&self, host: &str) -> Option<usize> {
        self.table.registrable_start(host.as_bytes())
    }

    /// True when `label` is a top-level domain with a rule in the ICANN section: the last
    /// label of some rule there. A country whose registry lists only second-level rules
    /// (`co.za`, `*.ck`, `com.np`: `za`, `ck`, `er`, `fk`, `jm`, `mm`, `np`, `pg` in the
    /// embedded list) has no rule of the label alone and is a top-level domain all the same.
    ///
    /// ```
    /// let psl = urlkey::PublicSuffixList::embedded_static();
    /// assert!(psl.is_icann_tld("com") && psl.is_icann_tld("za"));
    /// assert!(!psl.is_icann_tld("txt"));
    /// ```
    pub fn is_icann_tld(&self, label: &str) -> bool {
        if label.is_empty() || label.contains('.') {
            return false;
        }
        self.icann_tlds
            .contains(label.to_ascii_lowercase().as_str())
    }
}

/// The last label of every rule of the ICANN section (from its `BEGIN` marker to its `END`
/// marker, or the private section's `BEGIN`, or the end of the text), lowercase, in its
/// `xn--` form. A rule is the first word of a line that is not a comment (the list's
/// format: <https://github.com/publicsuffix/list/wiki/Format>).
fn icann_tlds(text: &str) -> HashSet<Box<str>> {
    let mut out = HashSet::new();
    let Some(begin) = text.find("===BEGIN ICANN DOMAINS===") else {
        return out;
    };
    let section = &text[begin..];
    let end = ["===END ICANN DOMAINS===", "===BEGIN PRIVATE DOMAINS==="]
        .iter()
        .filter_map(|m| section.find(m))
        .min()
        .unwrap_or(section.len());
    // The first line holds the marker.
    for line in section[..end].lines().skip(1) {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let Some(rule) = line.split_whitespace().next() else {
            continue;
        };
        let rule = rule.strip_prefix('!').unwrap_or(rule);
        let last = rule.rsplit('.').next().unwrap_or(rule);
        if last.is_empty() || last == "*" {
            continue;
        }
        let ascii = if last.is_ascii() {
            last.to_ascii_lowercase()
        } else {
            match idna::domain_to_ascii(last) {
                Ok(a) => a,
                Err(_) => continue,
            }
        };
        out.insert(ascii.into_boxed_str());
    }
    out
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_list_has_version_and_sections() {
        let psl = PublicSuffixList::embedded();
        assert_eq!(psl.version(), "2026-10-22_08-36-41_UTC");
        assert_eq!(PublicSuffixList::embedded_version(), psl.version());
        let gh = psl.lookup("alice.github.io").unwrap();
        assert_eq!(gh.section, Section::Private);
        assert_eq!(gh.registrable_domain.as_deref(), Some("alice.github.io"));
        let au = psl.lookup("www.example.com.au").unwrap();
        assert_eq!(au.section, Section::Icann);
        assert_eq!(au.registrable_domain.as_deref(), Some("example.com.au"));
        assert_eq!(psl.lookup("com.au").unwrap().registrable_domain, None);
        assert_eq!(
            psl.lookup("x.unknowntld").unwrap().section,
            Section::Default
        );
        assert_eq!(
            psl.registrable_domain("a.b.example.co.uk"),
            Some("example.co.uk")
        );
        assert_eq!(psl.registrable_domain("localhost"), None);
        assert_eq!(psl.lookup("a..b"), None);
    }

    #[test]
    fn icann_tlds() {
        let psl = PublicSuffixList::embedded();
        assert!(psl.is_icann_tld("com"));
        assert!(psl.is_icann_tld("COM"));
        assert!(!psl.is_icann_tld("txt"));
        assert!(!psl.is_icann_tld("smith"));
        assert!(psl.is_icann_tld("io"));
        // Top-level domains whose registries list only rules below them.
        for tld in ["za", "ck", "er", "fk", "jm", "mm", "np", "pg", "ZA"] {
            assert!(psl.is_icann_tld(tld), "{tld}");
        }
        // Unicode rules are read in their xn-- form.
        assert!(psl.is_icann_tld("xn--p1ai"));
        // A label of the private section only is not an ICANN top-level domain.
        let custom = PublicSuffixList::parse(
            "// ===BEGIN ICANN DOMAINS===\nco.za\n*.ck\n!www.ck\n// ===END ICANN DOMAINS===\n\
             // ===BEGIN PRIVATE DOMAINS===\nexample.privtld\n// ===END PRIVATE DOMAINS===\n",
        )
        .unwrap();
        assert!(custom.is_icann_tld("za") && custom.is_icann_tld("ck"));
        assert!(!custom.is_icann_tld("privtld"));
        assert!(!custom.is_icann_tld("co") && !custom.is_icann_tld("www"));
    }

    #[test]
    fn rejects_a_file_that_is_not_a_list() {
        assert!(PublicSuffixList::parse("hello").is_err());
        let custom = "// ===BEGIN ICANN DOMAINS===\ntest\n// ===END ICANN DOMAINS===\n";
        let l = PublicSuffixList::parse(custom).unwrap();
        assert!(l.version().starts_with("unversioned-"));
        assert_eq!(l.registrable_domain("a.b.test"), Some("b.test"));
    }
}
