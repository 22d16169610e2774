//! IIS URL Rewrite: a `<rewriteMaps>` section, one `rewriteMap` per status the map uses
//! (a rule's `redirectType` is fixed, so each status has its map and its rule, which the
//! file's comment gives). Keys are looked up with `{UNENCODED_URL}`, the path and query
//! as the browser sent them; a rewriteMap ignores case by default. Attribute values are
//! XML-escaped. URL Rewrite's redirect types are 301, 302, 303 and 307: a 308 row is
//! refused.

use std::fmt::Write as _;

#[cfg(test)]
use super::Entry;
use super::{statuses, ProblemKind, Rule};

/// URL Rewrite's `redirectType` for a status.
fn redirect_type(status: u16) -> Option<&'static str> {
    match status {
        301 => Some("Permanent"),
        302 => Some("Found"),
        303 => Some("SeeOther"),
        307 => Some("Temporary"),
        _ => None,
    }
}

pub(super) fn refuse(rule: &Rule) -> Option<(ProblemKind, String)> {
    redirect_type(rule.status).is_none().then(|| {
        (
            ProblemKind::Status,
            format!(
                "IIS URL Rewrite cannot send {} (it sends 301, 302, 303, 307)",
                rule.status
            ),
        )
    })
}

fn map_name(status: u16) -> String {
    format!("urlkey_redirects_{status}")
}

/// The `<rule>` elements, one per status.
fn setup_lines(statuses: &[u16]) -> Vec<String> {
    statuses
        .iter()
        .filter_map(|&s| {
            let t = redirect_type(s)?;
            Some(format!(
                "<rule name=\"urlkey redirects {s}\" stopProcessing=\"true\"><match url=\".*\" /><conditions><add input=\"{{{m}:{{UNENCODED_URL}}}}\" pattern=\"(.+)\" /></conditions><action type=\"Redirect\" url=\"{{C:1}}\" appendQueryString=\"false\" redirectType=\"{t}\" /></rule>",
                m = map_name(s)
            ))
        })
        .collect()
}

/// An attribute value: the five XML escapes.
fn escape(s: &str) -> String {
    let mut e = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => e.push_str("&amp;"),
            '<' => e.push_str("&lt;"),
            '>' => e.push_str("&gt;"),
            '"' => e.push_str("&quot;"),
            '\'' => e.push_str("&apos;"),
            c => e.push(c),
        }
    }
    e
}

pub(super) fn write(rules: &[Rule]) -> (String, Vec<String>) {
    let used = statuses(rules);
    let setup = setup_lines(&used);
    let mut t = String::new();
    let _ = writeln!(
        t,
        "<!-- urlkey redirects compile: {} redirects for IIS URL Rewrite.",
        rules.len()
    );
    t.push_str(
        "     Paste this section into web.config's <system.webServer><rewrite>, or keep it in its\n     \
         own file named by <rewriteMaps configSource=\"FILE\" />, and add to <rules>:\n",
    );
    for l in &setup {
        let _ = writeln!(t, "     {l}");
    }
    t.push_str("-->\n<rewriteMaps>\n");
    for s in used {
        let _ = writeln!(t, "  <rewriteMap name=\"{}\">", map_name(s));
        for r in rules.iter().filter(|r| r.status == s) {
            let _ = writeln!(
                t,
                "    <add key=\"{}\" value=\"{}\" />",
                escape(&r.source.path_query()),
                escape(&r.target)
            );
        }
        t.push_str("  </rewriteMap>\n");
    }
    t.push_str("</rewriteMaps>\n");
    (t, setup)
}

/// Reads the section back with an XML parser (quick-xml), the maps' statuses from their
/// names.
#[cfg(test)]
pub(super) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut out = Vec::new();
    let mut status: Option<u16> = None;
    let attr = |e: &quick_xml::events::BytesStart, name: &str| -> Result<String, String> {
        for a in e.attributes() {
            let a = a.map_err(|e| e.to_string())?;
            if a.key.as_ref() == name {
                return a
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .map(|v| v.into_owned())
                    .map_err(|e| e.to_string());
            }
        }
        Err(format!("no attribute {}", name))
    };
    loop {
        match reader.read_event().map_err(|e| e.to_string())? {
            Event::Eof => break,
            Event::Start(e) if e.name().as_ref() == "rewriteMap" => {
                let name = attr(&e, "name")?;
                status = name
                    .strip_prefix("urlkey_redirects_")
                    .and_then(|s| s.parse().ok());
            }
            Event::Empty(e) if e.name().as_ref() == "add" => out.push(Entry {
                source: attr(&e, "key")?,
                target: attr(&e, "value")?,
                status: status.ok_or("an <add> outside a map")?,
            }),
            _ => {}
        }
    }
    Ok(out)
}
