//! The shape every command's after-help text has, so that `--help` ends the same way
//! everywhere (as `urlkey ledger --help` did first): notes, if any, then a block
//!
//! ```text
//! Examples:
//!   urlkey ...
//!   urlkey ...
//! More: docs/....md
//! ```
//!
//! with two or three examples and at most one `More:` line. `urlkey man` reads the same
//! parts to write its NOTES, EXAMPLES and SEE ALSO sections; a test in `tests/help.rs`
//! holds every command of the tree to the shape and parses every example with clap.

/// The line that opens the examples.
pub const EXAMPLES: &str = "Examples:";
/// What each example starts with, after its two spaces of indent.
pub const PROGRAM: &str = "urlkey ";
/// What the last line starts with, when there is one.
pub const MORE: &str = "More: ";

/// A command's after-help text in its parts.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AfterHelp<'a> {
    /// The lines before the examples (blank lines at their end left out).
    pub notes: Vec<&'a str>,
    /// Each example without its indent (a trailing `# comment` kept).
    pub examples: Vec<&'a str>,
    /// The `More:` line, whole.
    pub more: Option<&'a str>,
}

/// Splits an after-help text, or says which line breaks the shape.
pub fn parse(text: &str) -> Result<AfterHelp<'_>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().rposition(|l| *l == EXAMPLES) else {
        return Err(format!("no {EXAMPLES:?} line"));
    };
    let mut notes = lines[..start].to_vec();
    while notes.last().is_some_and(|l| l.trim().is_empty()) {
        notes.pop();
    }
    let mut parts = AfterHelp {
        notes,
        ..AfterHelp::default()
    };
    let rest = &lines[start + 1..];
    for (i, line) in rest.iter().enumerate() {
        if let Some(example) = line.strip_prefix("  ").filter(|l| l.starts_with(PROGRAM)) {
            parts.examples.push(example);
        } else if line.starts_with(MORE) && i + 1 == rest.len() {
            parts.more = Some(line);
        } else {
            return Err(format!(
                "after {EXAMPLES:?}, {line:?} is neither an example (\"  {PROGRAM}...\") nor \
                 the last line ({MORE:?})"
            ));
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_refusals() {
        let p = parse("Notes.\n\nExamples:\n  urlkey a\n  urlkey b  # c\nMore: docs/x.md")
            .expect("the shape");
        assert_eq!(p.notes, ["Notes."]);
        assert_eq!(p.examples, ["urlkey a", "urlkey b  # c"]);
        assert_eq!(p.more, Some("More: docs/x.md"));
        assert!(parse("Examples:\n  urlkey a\nMore: x\n  urlkey b").is_err());
        assert!(parse("Examples:\n  if urlkey a; then :; fi").is_err());
        assert!(parse("Examples:\n  urlkey a\nsome prose").is_err());
        assert!(parse("  urlkey a").is_err());
    }
}
