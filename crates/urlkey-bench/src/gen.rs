//! `urlkey-bench gen`: a deterministic generator of large URL lists with a known number
//! of distinct `mapper@1` keys and a known review structure, for measuring `urlkey map`
//! (docs/benchmarks.md, "The generated input").
//!
//! # How it works (the numbers are exact, not statistical)
//!
//! 1. **Base pool.** Every web line of the corpus (kasztp + userbait) is keyed with
//!    `mapper@1`. A line becomes a *base* when its key is valid, absolute http(s), a fixed
//!    point (`key(key) == key`), has an ASCII domain host, no empty query piece, no
//!    parameter named `rv` and no path containing `/_g`. Bases are deduplicated on
//!    host + port + path without trailing `/` + sorted parameter names, so no two bases
//!    can produce the same key or signature below.
//! 2. **Distinct keys.** Keys are numbered `0..M`. With
//!    `R = floor(M * share / 100 / size) * size`, keys `0..R` form review groups of `size` keys (`--review-size`): key `k`
//!    is member `k % size` of signature group `k / size`, and differs from its group's
//!    other members only by the value of one added parameter `rv=<member>` (same host,
//!    path and parameter names, so the same signature, distinct values: `review`). Keys
//!    `R..M` are alone in their signature group (`s = R/size + (k - R)`).
//!    Signature group `s` uses base `b = s mod B` (B bases) and *generation*
//!    `t = s div B`: `t = 0` is the base's path, `t = 1` the path with its trailing slash
//!    toggled (`/` becomes `/_g1`), `t >= 2` the path without trailing `/` plus `/_g<t>`.
//!    Under `mapper@1` (which keeps trailing slashes), distinct `(b, t, member)` give
//!    distinct keys, so there are exactly M keys, `R/size + (M - R)` signature groups and
//!    `R/size` review groups.
//! 3. **Lines.** Line `i` (`0..N`) takes a new key with probability
//!    `(M - new_so_far) / (N - i)` (selection sampling: exactly M new keys, spread over
//!    the file), otherwise repeats a key already used, chosen uniformly. New key number
//!    `n` is key `(a*n + c) mod M` for an `a` coprime with M, so review members and
//!    singletons are interleaved. So N - M lines are duplicates of earlier keys.
//! 4. **Noise** (only changes that keep the `mapper@1` key): scheme letter case (10 % of
//!    lines), host letter case (20 %), the explicit default port `:80`/`:443` (5 %), one
//!    path `/` doubled (5 %), 1-3 tracking parameters (`utm_*`, `gclid`, `fbclid`,
//!    `msclkid`, `mc_cid`) inserted at random places (30 %), parameters shuffled (30 %
//!    of lines with two or more), a fragment (15 %). Trailing-slash changes alter a
//!    `mapper@1` key, so they are used for distinct keys (generation 1), not as noise.
//!
//! Every random choice comes from SplitMix64 seeded with `--seed`, per line, so the output
//! depends only on (N, M, seed, share, size) and the corpus.

use std::collections::HashSet;
use std::io::Write;

use crate::corpus::{Corpus, Kind};
use crate::rng::Rng;

/// Generator settings.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// Lines to write (N).
    pub lines: u64,
    /// Distinct `mapper@1` keys (M), `1..=N`.
    pub distinct: u64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Percent of the distinct keys that sit in review groups.
    pub review_share: u64,
    /// Keys per review group (at least 2).
    pub review_size: u64,
    /// Apply the key-preserving noise.
    pub noise: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            lines: 1_000_000,
            distinct: 500_000,
            seed: 1,
            review_share: 20,
            review_size: 4,
            noise: true,
        }
    }
}

/// One base URL, split from its `mapper@1` key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// `http` or `https`.
    pub scheme: String,
    /// The host (lowercase ASCII).
    pub host: String,
    /// The port, empty when default.
    pub port: String,
    /// The path.
    pub path: String,
    /// The raw query pieces, in key order.
    pub params: Vec<String>,
}

/// What the generated file must give under `urlkey map` (mapper@1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    /// Lines written (all are records; none is blank or a comment).
    pub lines: u64,
    /// Distinct keys.
    pub distinct_keys: u64,
    /// Distinct signatures.
    pub signature_groups: u64,
    /// Signature groups with more than one key.
    pub review_groups: u64,
    /// Keys of singleton signature groups that occur more than once.
    pub duplicate_groups: u64,
    /// Bases in the pool.
    pub bases: u64,
}

/// The base pool from the corpus web lines (step 1 of the module docs).
pub fn base_pool(corpus: &Corpus) -> Vec<Base> {
    let mapper = urlkey::PolicySet::builtin()
        .get("mapper@1")
        .expect("mapper@1 is builtin");
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for line in corpus.of_kind(Kind::Web) {
        let o = mapper.key(&line);
        let Some(key) = o.key else { continue };
        if mapper.key(&key).key.as_deref() != Some(key.as_str()) {
            continue;
        }
        let Some(base) = split_key(&key) else {
            continue;
        };
        let mut names: Vec<&str> = base
            .params
            .iter()
            .map(|p| p.split_once('=').map_or(p.as_str(), |(n, _)| n))
            .collect();
        names.sort_unstable();
        names.dedup();
        let norm = format!(
            "{}:{}{}?{}",
            base.host,
            base.port,
            base.path.trim_end_matches('/'),
            names.join("&")
        );
        if seen.insert(norm) {
            out.push(base);
        }
    }
    out
}

/// Splits an absolute `mapper@1` key; `None` when it does not qualify as a base.
fn split_key(key: &str) -> Option<Base> {
    let (scheme, rest) = key.split_once("://")?;
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let auth_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..auth_end];
    if authority.is_empty() || authority.contains(['@', '[']) || !authority.is_ascii() {
        return None;
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, p),
        None => (authority, ""),
    };
    let after = &rest[auth_end..];
    let (path, query) = match after.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (after, None),
    };
    if path.is_empty() || !path.starts_with('/') || path.contains("/_g") || path.contains('#') {
        return None;
    }
    let params: Vec<String> = match query {
        Some(q) => q.split('&').map(str::to_string).collect(),
        None => Vec::new(),
    };
    if params.iter().any(|p| {
        let name = p.split_once('=').map_or(p.as_str(), |(n, _)| n);
        p.is_empty() || name.eq_ignore_ascii_case("rv")
    }) {
        return None;
    }
    Some(Base {
        scheme: scheme.to_string(),
        host: host.to_string(),
        port: port.to_string(),
        path: path.to_string(),
        params,
    })
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Tracking parameters that `mapper@1` (registry@1), `citation@1` and `webkey@1` remove.
const TRACKING: [&str; 7] = [
    "utm_source=newsletter",
    "utm_medium=email",
    "utm_campaign=spring",
    "gclid=Cj0KCQjw",
    "fbclid=IwAR2x",
    "msclkid=7f3a9c",
    "mc_cid=4e1d2b",
];

/// The layout of the distinct keys.
struct Layout {
    m: u64,
    review_keys: u64,
    size: u64,
    bases: u64,
    a: u64,
    c: u64,
}

impl Layout {
    fn new(o: &GenOptions, bases: u64) -> Layout {
        let m = o.distinct;
        let size = o.review_size.max(2);
        let review_keys = (u128::from(m) * u128::from(o.review_share.min(100)) / 100) as u64;
        let review_keys = review_keys / size * size;
        let mut r = Rng::for_item(o.seed, 0xA11, 0);
        let mut a = if m > 1 { 1 + r.below(m - 1) } else { 1 };
        while m > 1 && gcd(a, m) != 1 {
            a = if a + 1 >= m { 1 } else { a + 1 };
        }
        let c = if m > 0 { r.below(m) } else { 0 };
        Layout {
            m,
            review_keys,
            size,
            bases,
            a,
            c,
        }
    }

    /// Key number for the `n`-th new key.
    fn key_of(&self, n: u64) -> u64 {
        ((u128::from(self.a) * u128::from(n) + u128::from(self.c)) % u128::from(self.m)) as u64
    }

    /// (signature group, review member) of key `k`.
    fn group_of(&self, k: u64) -> (u64, Option<u64>) {
        if k < self.review_keys {
            (k / self.size, Some(k % self.size))
        } else {
            (self.review_keys / self.size + (k - self.review_keys), None)
        }
    }

    fn review_groups(&self) -> u64 {
        self.review_keys / self.size
    }

    fn signature_groups(&self) -> u64 {
        self.review_groups() + (self.m - self.review_keys)
    }
}

/// Writes N lines to `out`; returns what `urlkey map --policy mapper@1` must report.
pub fn generate(o: &GenOptions, bases: &[Base], out: &mut dyn Write) -> std::io::Result<Expected> {
    assert!(!bases.is_empty(), "the base pool is empty");
    assert!(
        o.distinct >= 1 && o.distinct <= o.lines,
        "need 1 <= distinct <= lines"
    );
    let layout = Layout::new(o, bases.len() as u64);
    let mut counts: Vec<u32> = vec![0; o.distinct as usize];
    let mut sel = Rng::for_item(o.seed, 0x5E1, 0);
    let mut new_keys = 0u64;
    let mut line = String::with_capacity(512);
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    for i in 0..o.lines {
        let remaining = o.lines - i;
        let need = o.distinct - new_keys;
        let k = if new_keys == 0 || sel.below(remaining) < need {
            new_keys += 1;
            layout.key_of(new_keys - 1)
        } else {
            layout.key_of(sel.below(new_keys))
        };
        counts[k as usize] = counts[k as usize].saturating_add(1);
        let (s, member) = layout.group_of(k);
        let base = &bases[(s % layout.bases) as usize];
        let generation = s / layout.bases;
        let mut rng = Rng::for_item(o.seed, 0x11E, i);
        line.clear();
        write_url(&mut line, base, generation, member, o.noise, &mut rng);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        if buf.len() >= (1 << 20) - 8192 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()?;
    debug_assert_eq!(new_keys, o.distinct);
    let duplicate_groups = counts
        .iter()
        .enumerate()
        .filter(|&(k, &c)| c > 1 && layout.group_of(k as u64).1.is_none())
        .count() as u64;
    Ok(Expected {
        lines: o.lines,
        distinct_keys: o.distinct,
        signature_groups: layout.signature_groups(),
        review_groups: layout.review_groups(),
        duplicate_groups,
        bases: bases.len() as u64,
    })
}

/// The path of generation `t` of a base path (step 2 of the module docs).
fn generation_path(path: &str, t: u64) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    match t {
        0 => Cow::Borrowed(path),
        1 if path == "/" => Cow::Borrowed("/_g1"),
        1 => match path.strip_suffix('/') {
            Some(p) => Cow::Borrowed(p),
            None => Cow::Owned(format!("{path}/")),
        },
        t => Cow::Owned(format!("{}/_g{t}", path.trim_end_matches('/'))),
    }
}

fn push_mixed_case(out: &mut String, s: &str, rng: &mut Rng) {
    for c in s.chars() {
        if c.is_ascii_lowercase() && rng.chance(50) {
            out.push(c.to_ascii_uppercase());
        } else {
            out.push(c);
        }
    }
}

/// One line: the URL of key (base, generation, member), with noise.
fn write_url(
    out: &mut String,
    base: &Base,
    generation: u64,
    member: Option<u64>,
    noise: bool,
    rng: &mut Rng,
) {
    use std::fmt::Write as _;
    let path = generation_path(&base.path, generation);
    // Scheme.
    if noise && rng.chance(10) {
        push_mixed_case(out, &base.scheme, rng);
    } else {
        out.push_str(&base.scheme);
    }
    out.push_str("://");
    // Host and port.
    if noise && rng.chance(20) {
        push_mixed_case(out, &base.host, rng);
    } else {
        out.push_str(&base.host);
    }
    if !base.port.is_empty() {
        out.push(':');
        out.push_str(&base.port);
    } else if noise && rng.chance(5) {
        out.push_str(if base.scheme == "https" {
            ":443"
        } else {
            ":80"
        });
    }
    // Path.
    if noise && rng.chance(5) {
        let slashes = path.bytes().filter(|&b| b == b'/').count() as u64;
        let pick = rng.below(slashes.max(1));
        let mut seen = 0;
        for c in path.chars() {
            out.push(c);
            if c == '/' {
                if seen == pick {
                    out.push('/');
                }
                seen += 1;
            }
        }
    } else {
        out.push_str(&path);
    }
    // Query.
    let mut params: Vec<std::borrow::Cow<'_, str>> =
        base.params.iter().map(|p| p.as_str().into()).collect();
    if let Some(m) = member {
        params.push(format!("rv={m}").into());
    }
    if noise && rng.chance(30) {
        let n = 1 + rng.below(3);
        for _ in 0..n {
            let t = TRACKING[rng.below(TRACKING.len() as u64) as usize];
            let at = rng.below(params.len() as u64 + 1) as usize;
            params.insert(at, t.into());
        }
    }
    if noise && params.len() >= 2 && rng.chance(30) {
        for i in (1..params.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            params.swap(i, j);
        }
    }
    if !params.is_empty() {
        out.push('?');
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            out.push_str(p);
        }
    }
    if noise && rng.chance(15) {
        let _ = write!(out, "#section-{}", rng.below(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_paths_are_distinct() {
        assert_eq!(generation_path("/", 1), "/_g1");
        assert_eq!(generation_path("/a/", 1), "/a");
        assert_eq!(generation_path("/a", 1), "/a/");
        assert_eq!(generation_path("/a/", 3), "/a/_g3");
        assert_eq!(generation_path("/", 2), "/_g2");
    }

    #[test]
    fn layout_is_a_permutation() {
        let o = GenOptions {
            lines: 100,
            distinct: 60,
            ..GenOptions::default()
        };
        let l = Layout::new(&o, 7);
        let mut seen: Vec<u64> = (0..60).map(|n| l.key_of(n)).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..60).collect::<Vec<_>>());
        assert_eq!(l.review_keys, 12);
        assert_eq!(l.review_groups(), 3);
        assert_eq!(l.signature_groups(), 3 + 48);
    }

    /// The generated file has exactly the promised mapper@1 structure (needs the corpus).
    #[test]
    fn generated_keys_are_exact() {
        let Ok(corpus) = Corpus::load_default() else {
            eprintln!("corpus not found; skipped");
            return;
        };
        let bases = base_pool(&corpus);
        // Small pool, so generations >= 2 are exercised too.
        let bases = &bases[..500];
        let o = GenOptions {
            lines: 6_000,
            distinct: 2_500,
            seed: 7,
            ..GenOptions::default()
        };
        let mut out = Vec::new();
        let exp = generate(&o, bases, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mapper = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
        let mut keys = std::collections::HashMap::<String, (u64, String)>::new();
        let mut sigs = std::collections::HashMap::<String, HashSet<String>>::new();
        let mut n = 0;
        for l in text.lines() {
            n += 1;
            let o = mapper.key(l);
            let key = o.key.unwrap_or_else(|| panic!("invalid: {l}"));
            let sig = o.signature.unwrap();
            keys.entry(key.clone()).or_insert((0, sig.clone())).0 += 1;
            sigs.entry(sig).or_default().insert(key);
        }
        assert_eq!(n, exp.lines);
        assert_eq!(keys.len() as u64, exp.distinct_keys);
        assert_eq!(sigs.len() as u64, exp.signature_groups);
        assert_eq!(
            sigs.values().filter(|s| s.len() > 1).count() as u64,
            exp.review_groups
        );
        let dup = keys
            .values()
            .filter(|(c, s)| *c > 1 && sigs[s].len() == 1)
            .count() as u64;
        assert_eq!(dup, exp.duplicate_groups);
    }
}
