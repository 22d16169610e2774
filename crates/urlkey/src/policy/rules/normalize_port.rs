//! `normalize-port`: the port as its decimal value, the scheme's default (http and ws 80,
//! https and wss 443, ftp 21) removed. Lossless: the URL Standard's parser does the same
//! (<https://url.spec.whatwg.org/#port-state>, with the special schemes' default ports of
//! <https://url.spec.whatwg.org/#default-port>); `document@1`, which does not run that parser,
//! runs this rule.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::edit::replace;
use super::step::{Example, RiskClass, Step};

/// The `normalize-port` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct NormalizePort;

impl Step for NormalizePort {
    const NAME: &'static str = "normalize-port";
    const RISK: RiskClass = RiskClass::Lossless;
    const EXAMPLE: Example = Example {
        parser: "document",
        before: "https://a.example:443/x",
        after: "https://a.example/x",
    };

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        !p.port.is_empty()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if p.port.is_empty() {
            return;
        }
        let Ok(value) = p.port.parse::<u32>() else {
            return;
        };
        let default = match p.scheme.to_ascii_lowercase().as_str() {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            "ftp" => Some(21),
            _ => None,
        };
        let new = if default == Some(value) {
            String::new()
        } else {
            value.to_string()
        };
        if new != p.port {
            replace(
                &mut p.port,
                Cow::Owned(new),
                Self::NAME,
                Component::Port,
                log,
            );
        }
    }
}
