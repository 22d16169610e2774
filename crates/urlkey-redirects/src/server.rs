//! The servers a map is checked and compiled for.

use std::fmt;

/// A server (or hosting platform) that runs a redirect map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Server {
    /// nginx: a `map` block (keys matched without regard to ASCII case).
    Nginx,
    /// Apache httpd: a `RewriteMap` text file and mod_rewrite lines.
    Apache,
    /// Netlify: a `_redirects` file.
    Netlify,
    /// Cloudflare Bulk Redirects: a list's CSV.
    Cloudflare,
    /// Vercel: bulk redirects JSON.
    Vercel,
    /// IIS URL Rewrite: a `rewriteMap`.
    Iis,
}

impl Server {
    /// Every server, in the order docs and `--help` list them.
    pub const ALL: [Server; 6] = [
        Server::Nginx,
        Server::Apache,
        Server::Netlify,
        Server::Cloudflare,
        Server::Vercel,
        Server::Iis,
    ];

    /// The name on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Server::Nginx => "nginx",
            Server::Apache => "apache",
            Server::Netlify => "netlify",
            Server::Cloudflare => "cloudflare",
            Server::Vercel => "vercel",
            Server::Iis => "iis",
        }
    }

    /// The server of that name.
    ///
    /// ```
    /// use urlkey_redirects::Server;
    /// assert_eq!(Server::parse("nginx"), Some(Server::Nginx));
    /// assert_eq!(Server::parse("caddy"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Server> {
        Server::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
