//! Bits of what a URL has that a rule needs before it can change anything
//! ([`super::Step::needs`], [`present`]): a policy ORs its rules' needs once, and the lean
//! key path skips a whole rule list when the URL has none of them. Most URLs have no query,
//! fragment, credentials, `//` or non-root final `/`, so the loop, its per-rule dispatch
//! and its calls go for a few tests of fields.

use crate::policy::parts::Parts;

/// A query (`?`).
pub const QUERY: u16 = 1;
/// A fragment (`#`).
pub const FRAGMENT: u16 = 1 << 1;
/// Credentials.
pub const USERINFO: u16 = 1 << 2;
/// A hierarchical path that ends with `/`.
pub const FINAL_SLASH: u16 = 1 << 3;
/// A hierarchical path of more than `/` alone that ends with `/`.
pub const NON_ROOT_FINAL_SLASH: u16 = 1 << 4;
/// A hierarchical path with `//` in it.
pub const DOUBLE_SLASH: u16 = 1 << 5;
/// Every URL (a rule with no cheaper test of its own here).
pub const ALWAYS: u16 = 1 << 15;

/// The need bits `p` has, of those in `wanted` ([`DOUBLE_SLASH`] reads the
/// path, so it is looked for only when wanted). Tests of fields, no branch each.
#[inline]
pub(crate) fn present(p: &Parts<'_>, wanted: u16) -> u16 {
    let path = p.path.as_bytes();
    let hier = !p.opaque_path;
    let final_slash = hier && path.last() == Some(&b'/');
    let bit = |on: bool, need: u16| u16::from(on) * need;
    let mut has = ALWAYS
        | bit(p.query.is_some(), QUERY)
        | bit(p.fragment.is_some(), FRAGMENT)
        | bit(!p.userinfo.is_empty(), USERINFO)
        | bit(final_slash, FINAL_SLASH)
        | bit(final_slash && path.len() > 1, NON_ROOT_FINAL_SLASH);
    if wanted & DOUBLE_SLASH != 0 && hier && has_double_slash(path) {
        has |= DOUBLE_SLASH;
    }
    has
}

/// True when `b` has two `/` in a row (`windows(2).any(|w| w == b"//")`), eight bytes at a
/// time: windows 7 bytes apart, so that every pair of neighbours is inside one window.
fn has_double_slash(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // Exact per byte (no borrow between bytes): the high bit of each `/` byte.
    let slashes = |w: u64| {
        let x = w ^ (ONES * u64::from(b'/'));
        !(((x & LOW7) + LOW7) | x) & !LOW7
    };
    // The high bit of each `/` followed by a `/`.
    let pairs = |w: u64| {
        let s = slashes(w);
        s & (s >> 8)
    };
    if b.len() < 8 {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        return pairs(u64::from_le_bytes(w)) != 0;
    }
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(w)
    };
    // No early return: a `//` is rare, and the loop's exit is then its only branch.
    let (mut i, mut found) = (0, 0);
    while i + 8 < b.len() {
        found |= pairs(word(i));
        i += 7;
    }
    (found | pairs(word(b.len() - 8))) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_slash_word_test_equals_the_byte_test() {
        // `\xaf` differs from `/` in its high bit only: the per-byte test must be exact.
        let alphabet = [b'/', b'a', 0xaf];
        let mut checked = 0;
        for len in 0..=10u32 {
            for mut n in 0..3usize.pow(len) {
                let mut b = Vec::with_capacity(len as usize);
                for _ in 0..len {
                    b.push(alphabet[n % 3]);
                    n /= 3;
                }
                let want = b.windows(2).any(|w| w == b"//");
                assert_eq!(has_double_slash(&b), want, "{b:?}");
                checked += 1;
            }
        }
        assert!(checked > 80_000);
        for len in 0..40 {
            for at in 0..len {
                let mut b = vec![b'a'; len];
                b[at] = b'/';
                assert!(!has_double_slash(&b));
                if at + 1 < len {
                    b[at + 1] = b'/';
                    assert!(has_double_slash(&b), "{len} {at}");
                }
            }
        }
    }
}
