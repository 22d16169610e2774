//! `urlkey serve` flags: the command line of [`urlkey_serve::ServeOptions`], which checks
//! them ([`urlkey_serve::ServeOptions::config`]).

use std::path::PathBuf;

use clap::Args;
use urlkey_serve::{
    ServeOptions, Setting, SettingProblem, DEFAULT_ADDR, DEFAULT_BODY_TIMEOUT_SECS,
    DEFAULT_HEADER_TIMEOUT_SECS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_HELD_BYTES,
};

/// `urlkey serve` flags.
#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:
  urlkey serve
  urlkey serve --addr 127.0.0.1:0
  urlkey serve --ledger citations.sqlite
More: docs/cli.md (\"serve and its JSON API\"), docs/security.md.")]
pub struct ServeArgs {
    /// The address to listen on. Loopback by default; another address is warned about.
    /// Port 0 picks a free port (the URL printed says which).
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// The largest request body accepted, in bytes; a larger one gets 413.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Worker threads for mapping (0 = every core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Seconds a connection has to send a complete request head; an idle keep-alive
    /// connection is closed after as long.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_HEADER_TIMEOUT_SECS)]
    pub header_timeout: u64,
    /// Seconds a request has to send its whole body (408 after that).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_BODY_TIMEOUT_SECS)]
    pub body_timeout: u64,
    /// Open connections at most; more wait to be accepted. Lowered to fit under the
    /// process's file-descriptor limit (`ulimit -n`).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Request-body bytes held at once across all requests; a body that does not fit gets
    /// 503 with Retry-After.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_HELD_BYTES)]
    pub max_held_bytes: usize,
    /// Also serve this citation ledger (made by `urlkey ledger`) at /ledger: its report,
    /// charts and top keys. The ledger is read, never migrated; the one write is a review
    /// decision sent from the page on a loopback address with the page's token.
    #[arg(long, value_name = "DB")]
    pub ledger: Option<PathBuf>,
}

impl ServeArgs {
    /// The server settings these flags ask for, checked by the server (a setting it cannot
    /// honour is a usage error, exit 2, before anything starts).
    pub fn config(&self) -> Result<urlkey_serve::Config, urlkey_serve::ServeError> {
        self.clone().options().config()
    }

    /// The options these flags ask for (checked by the server).
    pub fn options(self) -> ServeOptions {
        ServeOptions {
            addr: self.addr,
            max_body_bytes: self.max_body_bytes,
            threads: self.threads,
            header_timeout_secs: self.header_timeout,
            body_timeout_secs: self.body_timeout,
            max_connections: self.max_connections,
            max_held_bytes: self.max_held_bytes,
            ledger: self.ledger,
        }
    }
}

/// The flag of a server setting.
pub fn flag_of(setting: Setting) -> &'static str {
    match setting {
        Setting::Addr => "--addr",
        Setting::MaxBodyBytes => "--max-body-bytes",
        Setting::HeaderTimeout => "--header-timeout",
        Setting::BodyTimeout => "--body-timeout",
        Setting::MaxConnections => "--max-connections",
        Setting::MaxHeldBytes => "--max-held-bytes",
        // A setting this command line does not know yet: the server's own words.
        _ => "a setting",
    }
}

/// Why the server refused a setting, in the command line's words (its flag).
pub fn setting_advice(setting: Setting, problem: &SettingProblem) -> String {
    let flag = flag_of(setting);
    match problem {
        SettingProblem::Zero => match setting {
            Setting::HeaderTimeout | Setting::BodyTimeout => {
                format!("{flag} must be at least 1 (seconds)")
            }
            _ => format!("{flag} must be at least 1"),
        },
        SettingProblem::BelowLargestBody { held, body } => format!(
            "{flag} ({held}) must be at least {} ({body}): raise the first or lower the second",
            flag_of(Setting::MaxBodyBytes)
        ),
        SettingProblem::Unresolvable { addr, detail } => {
            format!("{flag} {addr:?}: {detail} (use HOST:PORT, e.g. 127.0.0.1:8080)")
        }
        SettingProblem::NoAddress { addr } => {
            format!("{flag} {addr:?}: the name resolves to no address")
        }
        other => format!("{flag}: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::ServeArgs;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    /// `urlkey serve` with no flag asks for the server's defaults, loopback included.
    #[test]
    fn no_flag_is_the_servers_defaults_on_loopback() {
        let options = Cli::parse_from(["urlkey-serve"]).serve.options();
        assert_eq!(options, urlkey_serve::ServeOptions::default());
        let addr = urlkey_serve::resolve_addr(&options.addr).unwrap();
        assert!(addr.ip().is_loopback(), "{addr}");
        assert_eq!(addr.to_string(), "127.0.0.1:8080");
    }

    #[test]
    fn every_flag_reaches_its_option() {
        let options = Cli::parse_from([
            "urlkey-serve",
            "--addr",
            "127.0.0.1:0",
            "--max-body-bytes",
            "5",
            "--threads",
            "2",
            "--header-timeout",
            "3",
            "--body-timeout",
            "4",
            "--max-connections",
            "6",
            "--max-held-bytes",
            "7",
            "--ledger",
            "l.db",
        ])
        .serve
        .options();
        assert_eq!(
            options,
            urlkey_serve::ServeOptions {
                addr: "127.0.0.1:0".into(),
                max_body_bytes: 5,
                threads: 2,
                header_timeout_secs: 3,
                body_timeout_secs: 4,
                max_connections: 6,
                max_held_bytes: 7,
                ledger: Some("l.db".into()),
            }
        );
    }

    /// The server words a refused setting by what it is, never by a flag; the command
    /// line's words name the flag, as they did when the server named it.
    #[test]
    fn refused_settings_name_the_flag_here_and_none_in_the_server() {
        let refused = |args: &[&str]| {
            let mut argv = vec!["urlkey-serve"];
            argv.extend_from_slice(args);
            match Cli::parse_from(argv).serve.config() {
                Err(urlkey_serve::ServeError::Setting { setting, problem }) => {
                    let server = urlkey_serve::ServeError::Setting {
                        setting,
                        problem: problem.clone(),
                    }
                    .to_string();
                    assert!(!server.contains("--"), "{server}");
                    super::setting_advice(setting, &problem)
                }
                other => panic!("{args:?}: {other:?}"),
            }
        };
        assert_eq!(
            refused(&["--max-connections", "0"]),
            "--max-connections must be at least 1"
        );
        assert_eq!(
            refused(&["--max-body-bytes", "0"]),
            "--max-body-bytes must be at least 1"
        );
        assert_eq!(
            refused(&["--header-timeout", "0"]),
            "--header-timeout must be at least 1 (seconds)"
        );
        assert_eq!(
            refused(&["--body-timeout", "0"]),
            "--body-timeout must be at least 1 (seconds)"
        );
        assert_eq!(
            refused(&["--max-held-bytes", "5", "--max-body-bytes", "9"]),
            "--max-held-bytes (5) must be at least --max-body-bytes (9): raise the first or lower the second"
        );
        match urlkey_serve::resolve_addr("no port here") {
            Err(e @ urlkey_serve::ServeError::Setting { setting, .. }) => {
                assert!(!e.to_string().contains("--"), "{e}");
                let urlkey_serve::ServeError::Setting { problem, .. } = &e else {
                    unreachable!()
                };
                let words = super::setting_advice(setting, problem);
                assert!(words.starts_with("--addr \"no port here\": "), "{words}");
            }
            other => panic!("{other:?}"),
        }
    }
}
