//! The compiled rule table: the `publicsuffix` crate's rule tree flattened into one
//! open-addressing hash table, for [`super::PublicSuffixList::registrable_domain`], the hot
//! path of `webkey@1`. Built by [`RuleTable::build`] from the list's text; read without
//! allocating.

use super::PslError;

/// No node: the empty slot's `child`, and a node without a `*` child.
const NO_NODE: u32 = 0;
/// The root of the rule tree (node 0; it is never anyone's child, so 0 can mean "none").
const ROOT: u32 = 0;

/// A rule (normal or wildcard) ends at the node: in [`Slot::flags`], of the edge's child.
const RULE: u32 = 1;
/// An exception rule (`!www.ck`) ends at the node.
const EXCEPTION: u32 = 2;
/// The node has a `*` child.
const HAS_WILDCARD: u32 = 4;

/// One edge of the rule tree, `parent --label--> child`, in the open-addressing table.
/// `key` is the label itself for labels of up to 8 bytes ([`short_key`] is injective for a
/// given length), else a hash of it ([`long_key`]; then the bytes are compared too). `tag`
/// is the parent node and the label's length; `flags` are the child's.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u64,
    tag: u64,
    /// [`NO_NODE`] marks an empty slot.
    child: u32,
    flags: u32,
}

#[inline(always)]
fn tag(parent: u32, len: usize) -> u64 {
    u64::from(parent) << 32 | len as u64
}

/// The `publicsuffix` crate's rule tree (`List`), flattened for [`PublicSuffixList::
/// registrable_domain`]: the same nodes and edges, built from the same lines in the same
/// order (each rule and its `idna::domain_to_ascii` form, the later of two equal rules
/// winning), with every edge in one linear-probing hash table (load at most 1/2) keyed by
/// (parent node, label). A step of the walk costs one hash of the label and usually one
/// probe; nothing is allocated.
pub(super) struct RuleTable {
    slots: Box<[Slot]>,
    mask: usize,
    edges: usize,
    /// Each node's flags ([`RULE`], [`EXCEPTION`], [`HAS_WILDCARD`]), copied into the slots
    /// of the edges to it once the table is built.
    node_flags: Vec<u32>,
    /// Where each node's label starts in `labels`.
    node_label: Vec<u32>,
    labels: Vec<u8>,
}

impl std::fmt::Debug for RuleTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleTable")
            .field("nodes", &self.node_flags.len())
            .field("edges", &self.edges)
            .field("slots", &self.slots.len())
            .field("label_bytes", &self.labels.len())
            .finish()
    }
}

/// The multiplier of the mixing steps (from `rustc-hash` 2).
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// A 128-bit multiply folded to 64 bits: every input bit reaches every output bit.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

#[inline(always)]
fn read_u32(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]))
}

/// A label of 1 to 8 bytes as 64 bits: its bytes, little-endian, zero above (read as the
/// first and last 4 bytes, which overlap, or the first, middle and last byte), so that
/// equal lengths and equal keys mean equal labels.
#[inline(always)]
fn short_key(label: &[u8]) -> u64 {
    let n = label.len();
    debug_assert!((1..=8).contains(&n));
    if n >= 4 {
        read_u32(label, 0) | read_u32(label, n - 4) << (8 * (n - 4))
    } else {
        u64::from(label[0])
            | u64::from(label[n / 2]) << (8 * (n / 2))
            | u64::from(label[n - 1]) << (8 * (n - 1))
    }
}

/// A hash of a label of more than 8 bytes: eight bytes at a time, the last eight
/// overlapping the ones before.
#[inline(never)]
fn long_key(label: &[u8]) -> u64 {
    let n = label.len();
    let mut h = n as u64;
    let mut i = 0;
    while i + 8 < n {
        h = fold_mul(h ^ read_u64(label, i), K);
        i += 8;
    }
    fold_mul(h ^ read_u64(label, n - 8), K)
}

/// The key of any label ([`short_key`] or [`long_key`]); 0 for the empty label, which
/// no rule has.
#[inline(always)]
fn label_key(label: &[u8]) -> u64 {
    match label.len() {
        0 => 0,
        1..=8 => short_key(label),
        _ => long_key(label),
    }
}

/// The table index hash of an edge.
#[inline(always)]
fn edge_hash(tag: u64, key: u64) -> u64 {
    fold_mul(key ^ tag, K)
}

/// The high bit of each byte of `w` that equals `byte` (little-endian). Exact: `t` has a
/// byte's high bit set iff the byte differs, with no carry between bytes.
#[inline(always)]
fn bytes_equal(w: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = w ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    let t = ((x & LOW7).wrapping_add(LOW7)) | x;
    !t & !LOW7
}

/// One bit per byte of `w` (bit i for byte i), set where the byte is '.': the multiply
/// gathers the eight high bits into the top byte (the other partial products land below
/// bit 56 at distinct positions, or above bit 63).
#[inline(always)]
fn dots8(w: u64) -> u64 {
    bytes_equal(w, b'.').wrapping_mul(0x0002_0408_1020_4081) >> 56
}

/// The position of the first '\n' in `b` from `from` on, or `b.len()`.
fn line_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while i + 8 <= b.len() {
        let nl = bytes_equal(read_u64(b, i), b'\n');
        if nl != 0 {
            return i + (nl.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p)
}

#[inline(always)]
fn read_u64(b: &[u8], at: usize) -> u64 {
    let w: [u8; 8] = b[at..at + 8].try_into().expect("8 bytes");
    u64::from_le_bytes(w)
}

/// Bit i set where `b[i]` is '.', for a name of 1 to 64 bytes: eight bytes at a time, the
/// last (or only) eight overlapping the ones before.
#[inline(always)]
fn dot_mask(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!((1..=64).contains(&n));
    if n >= 8 {
        let mut m = dots8(read_u64(b, 0)) | dots8(read_u64(b, n - 8)) << (n - 8);
        if n > 16 {
            m |= dots8(read_u64(b, 8)) << 8;
            let mut i = 16;
            while i + 8 < n {
                m |= dots8(read_u64(b, i)) << i;
                i += 8;
            }
        }
        m
    } else if n >= 4 {
        let m = dots8(read_u32(b, 0) | read_u32(b, n - 4) << 32);
        (m & 0xf) | (m >> 4) << (n - 4)
    } else {
        let mut m = 0;
        for (i, &c) in b.iter().enumerate() {
            m |= u64::from(c == b'.') << i;
        }
        m
    }
}

/// The start of the label that ends before the highest dot of `dots` (0 when none).
#[inline(always)]
fn after_highest(dots: u64) -> usize {
    if dots == 0 {
        0
    } else {
        64 - dots.leading_zeros() as usize
    }
}

/// `line.split_whitespace().next()` (on bytes for an ASCII line), and whether the word is
/// only a-z and dots.
fn first_word(line: &str) -> Option<(&str, bool)> {
    let plain = |c: u8| c.is_ascii_lowercase() || c == b'.';
    if !line.is_ascii() {
        return line
            .split_whitespace()
            .next()
            .map(|w| (w, w.bytes().all(plain)));
    }
    // `char::is_whitespace` in ASCII: tab, LF, VT, FF, CR and space.
    let ws = |c: u8| matches!(c, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' ');
    let b = line.as_bytes();
    let start = b.iter().position(|&c| !ws(c))?;
    let mut end = start;
    let mut all_plain = true;
    while end < b.len() && !ws(b[end]) {
        all_plain &= plain(b[end]);
        end += 1;
    }
    line.get(start..end).map(|w| (w, all_plain))
}

/// The position of the last '.' in `b`.
#[inline(always)]
fn rfind_dot(b: &[u8]) -> Option<usize> {
    b.iter().rposition(|&c| c == b'.')
}

/// True when `b` is one or more non-empty labels separated by single dots.
#[inline]
fn labels_non_empty(b: &[u8]) -> bool {
    let mut prev_dot = true;
    for &c in b {
        let dot = c == b'.';
        if dot && prev_dot {
            return false;
        }
        prev_dot = dot;
    }
    !prev_dot
}

impl RuleTable {
    /// An empty table with room for about `edges` edges.
    fn with_capacity(edges: usize) -> RuleTable {
        let cap = (edges * 2).next_power_of_two().max(1 << 10);
        RuleTable {
            slots: vec![Slot::default(); cap].into_boxed_slice(),
            mask: cap - 1,
            edges: 0,
            node_flags: vec![0],
            node_label: vec![0],
            labels: Vec::new(),
        }
    }

    /// The table of a list file, read the way `publicsuffix::List::from_str` reads it
    /// (which has accepted `text` already: its errors are repeated here only as a guard):
    /// its lines, from the one after the first that holds a section marker
    /// (`BEGIN ICANN DOMAINS` or `BEGIN PRIVATE DOMAINS`); not those that hold one or start
    /// with `//`; the first whitespace-separated word of each, and its
    /// `idna::domain_to_ascii` form when that differs. Done on bytes, as the file is large
    /// (this keeps the table's share of the parse small).
    pub(super) fn build(text: &str) -> Result<RuleTable, PslError> {
        // The published list has an edge per 29 bytes (11,624 in 338 kB): room for one per
        // 24, so that the table does not grow on the way (a bigger file may make it grow).
        let mut t = RuleTable::with_capacity((text.len() / 24).min(1 << 16));
        // Where the markers are: a line holding one is never a rule.
        let mut markers: Vec<usize> = text
            .match_indices("BEGIN ICANN DOMAINS")
            .chain(text.match_indices("BEGIN PRIVATE DOMAINS"))
            .map(|(i, _)| i)
            .collect();
        markers.sort_unstable();
        let b = text.as_bytes();
        let Some(&first) = markers.first() else {
            return Ok(t);
        };
        let mut pos = line_end(b, first) + 1;
        let mut marker = markers.iter().copied().peekable();
        while pos < b.len() {
            // (`str::lines` also drops the '\r' of a "\r\n": that changes nothing here, as
            // '\r' is whitespace and in no marker.)
            let start = pos;
            let end = line_end(b, start);
            pos = end + 1;
            while marker.next_if(|&m| m < start).is_some() {}
            if marker.peek().is_some_and(|&m| m < end) {
                continue;
            }
            let line = &text[start..end];
            if line.starts_with("//") {
                continue;
            }
            let Some((rule, plain)) = first_word(line) else {
                continue;
            };
            t.append(rule)?;
            // `domain_to_ascii` gives back a name of only a-z and dots unchanged (its first
            // fast path), so only the others need it.
            if !plain {
                let ascii = idna::domain_to_ascii(rule)
                    .map_err(|_| PslError::InvalidRule(rule.to_string()))?;
                if ascii != rule {
                    t.append(&ascii)?;
                }
            }
        }
        for slot in t.slots.iter_mut().filter(|s| s.child != NO_NODE) {
            slot.flags = t.node_flags[slot.child as usize];
        }
        Ok(t)
    }

    /// `publicsuffix::List::append`: the rule's labels from the right, each an edge from the
    /// node before; the last node gets the rule (replacing an earlier one).
    fn append(&mut self, rule: &str) -> Result<(), PslError> {
        let (rule, leaf) = match rule.strip_prefix('!') {
            Some(r) if r.contains('.') => (r, EXCEPTION),
            Some(_) => return Err(PslError::ExceptionAtFirstLabel(rule.to_string())),
            None => (rule, RULE),
        };
        let b = rule.as_bytes();
        let mut node = ROOT;
        let mut end = b.len();
        loop {
            let start = rfind_dot(&b[..end]).map_or(0, |d| d + 1);
            let label = &b[start..end];
            if label.is_empty() {
                return Err(PslError::EmptyLabel(rule.to_string()));
            }
            let child = self.child_or_insert(node, label);
            if label == b"*" {
                self.node_flags[node as usize] |= HAS_WILDCARD;
            }
            node = child;
            if start == 0 {
                break;
            }
            end = start - 1;
        }
        let flags = &mut self.node_flags[node as usize];
        *flags = (*flags & HAS_WILDCARD) | leaf;
        Ok(())
    }

    fn child_or_insert(&mut self, parent: u32, label: &[u8]) -> u32 {
        if let Some(e) = self.edge(parent, label) {
            return e.child;
        }
        if (self.edges + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let child = u32::try_from(self.node_flags.len()).expect("fewer than 2^32 rule labels");
        let off = u32::try_from(self.labels.len()).expect("under 4 GiB of rule labels");
        self.node_flags.push(0);
        self.node_label.push(off);
        self.labels.extend_from_slice(label);
        self.place(Slot {
            key: label_key(label),
            tag: tag(parent, label.len()),
            child,
            flags: 0,
        });
        self.edges += 1;
        child
    }

    /// Puts an edge known to be absent in its first free slot.
    fn place(&mut self, slot: Slot) {
        let mut i = edge_hash(slot.tag, slot.key) as usize & self.mask;
        while self.slots[i].child != NO_NODE {
            i = (i + 1) & self.mask;
        }
        self.slots[i] = slot;
    }

    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); cap].into());
        self.mask = cap - 1;
        for s in old.iter().filter(|s| s.child != NO_NODE) {
            self.place(*s);
        }
    }

    /// The edge from `parent` by `label` (not empty), if the tree has it.
    #[inline(always)]
    fn edge(&self, parent: u32, label: &[u8]) -> Option<&Slot> {
        self.edge_by_key(parent, label, label_key(label))
    }

    /// The edge from `parent` by the label `b[start..end]` (not empty) of a name. A label
    /// of up to 8 bytes with 8 bytes of the name up to its end, or from its start (nearly
    /// every label looked up: `github` of `github.com` has only the second), is one read,
    /// and equal keys and lengths are equal labels; others take [`Self::edge`], out of
    /// line.
    #[inline(always)]
    fn edge_in(&self, parent: u32, b: &[u8], start: usize, end: usize) -> Option<&Slot> {
        let len = end - start;
        if len <= 8 && (end >= 8 || start + 8 <= b.len()) {
            // `short_key`: the label's bytes, little-endian, zero above.
            let key = if end >= 8 {
                read_u64(b, end - 8) >> (64 - 8 * len)
            } else {
                read_u64(b, start) & (u64::MAX >> (64 - 8 * len))
            };
            let tag = tag(parent, len);
            let slots = &self.slots[..self.mask + 1];
            let mut i = edge_hash(tag, key) as usize & self.mask;
            loop {
                let s = &slots[i];
                if s.key == key && s.tag == tag {
                    return Some(s);
                }
                if s.child == NO_NODE {
                    return None;
                }
                i = (i + 1) & self.mask;
            }
        } else {
            self.edge_out_of_line(parent, &b[start..end])
        }
    }

    #[inline(never)]
    fn edge_out_of_line(&self, parent: u32, label: &[u8]) -> Option<&Slot> {
        self.edge(parent, label)
    }

    #[inline(always)]
    fn edge_by_key(&self, parent: u32, label: &[u8], key: u64) -> Option<&Slot> {
        let tag = tag(parent, label.len());
        // (`slots` is `mask + 1` long.)
        let slots = &self.slots[..self.mask + 1];
        let mut i = edge_hash(tag, key) as usize & self.mask;
        loop {
            let s = &slots[i];
            if s.key == key && s.tag == tag {
                if label.len() <= 8 || self.same_label(s.child, label) {
                    return Some(s);
                }
            } else if s.child == NO_NODE {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// True when `node`'s label (of the same length) is `label`.
    #[inline(never)]
    fn same_label(&self, node: u32, label: &[u8]) -> bool {
        let off = self.node_label[node as usize] as usize;
        self.labels.get(off..off + label.len()) == Some(label)
    }

    /// Where the registrable domain of `host` starts, with the answers of
    /// `publicsuffix::List::domain` behind the old guard (`None` for an empty name or one
    /// with an empty label). The walk is `List::find`'s: the top label's node if it has one
    /// (the suffix is that label either way: the implicit `*` rule), then for each next
    /// label the child by that label, else the `*` child, else stop; a rule at the node
    /// extends the suffix to the label, an exception ends it before the label.
    #[inline]
    pub(super) fn registrable_start(&self, b: &[u8]) -> Option<usize> {
        let n = b.len();
        if n == 0 || n > 64 {
            return self.registrable_start_scan(b);
        }
        // Names of up to 64 bytes (nearly all): the dots as one bit mask, the empty-label
        // guard in three tests, and each next label from the mask's highest bit.
        let dots = dot_mask(b);
        if dots & 1 != 0 || dots >> (n - 1) != 0 || dots & (dots >> 1) != 0 {
            return None;
        }
        let mut start = after_highest(dots);
        let mut suffix = start;
        if let Some(top) = self.edge_in(ROOT, b, start, n) {
            let (mut node, mut flags) = (top.child, top.flags);
            while start > 0 {
                let end = start - 1;
                start = after_highest(dots & ((1 << end) - 1));
                let Some(e) = self.or_wildcard(self.edge_in(node, b, start, end), node, flags)
                else {
                    break;
                };
                (node, flags) = (e.child, e.flags);
                if flags & RULE != 0 {
                    suffix = start;
                } else if flags & EXCEPTION != 0 {
                    suffix = end + 1;
                    break;
                }
            }
        }
        if suffix == 0 {
            return None;
        }
        // The registrable domain: the suffix and the label before it (the dots below the
        // one before the suffix; `suffix - 1` is at most 62).
        Some(after_highest(dots & ((1 << (suffix - 1)) - 1)))
    }

    /// The walk's next edge: the one found for the label, else the node's `*` edge.
    #[inline]
    fn or_wildcard<'t>(
        &'t self,
        found: Option<&'t Slot>,
        node: u32,
        flags: u32,
    ) -> Option<&'t Slot> {
        found.or_else(|| {
            if flags & HAS_WILDCARD != 0 {
                self.edge(node, b"*")
            } else {
                None
            }
        })
    }

    /// [`Self::registrable_start`] for names over 64 bytes (and the empty name): the same
    /// walk, each label found by a byte scan, then the guard on the labels before.
    #[inline(never)]
    fn registrable_start_scan(&self, b: &[u8]) -> Option<usize> {
        let mut dot = rfind_dot(b);
        let mut start = dot.map_or(0, |d| d + 1);
        if start == b.len() {
            return None;
        }
        let mut suffix = start;
        if let Some(top) = self.edge(ROOT, &b[start..]) {
            let (mut node, mut flags) = (top.child, top.flags);
            while let Some(end) = dot {
                dot = rfind_dot(&b[..end]);
                start = dot.map_or(0, |d| d + 1);
                let label = &b[start..end];
                if label.is_empty() {
                    return None;
                }
                let Some(e) = self.or_wildcard(self.edge(node, label), node, flags) else {
                    break;
                };
                (node, flags) = (e.child, e.flags);
                if flags & RULE != 0 {
                    suffix = start;
                } else if flags & EXCEPTION != 0 {
                    suffix = end + 1;
                    break;
                }
            }
        }
        if suffix == 0 {
            return None;
        }
        let root = rfind_dot(&b[..suffix - 1]).map_or(0, |d| d + 1);
        if root == suffix - 1 || (root > 0 && !labels_non_empty(&b[..root - 1])) {
            return None;
        }
        Some(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_masks_are_exact() {
        // Every pattern of dots in a word, the other bytes near '.' in value or high bit.
        for fill in [0u8, b'-', b'/', b'.' ^ 0x80, 0xff, b'a', 0x7f, 0x2e ^ 1] {
            for p in 0u32..256 {
                let bytes: Vec<u8> = (0..8)
                    .map(|i| if p >> i & 1 == 1 { b'.' } else { fill })
                    .collect();
                assert_eq!(dots8(read_u64(&bytes, 0)), u64::from(p), "{fill:#x} {p:#b}");
            }
        }
        // Every length from 1 to 64, dots at varied places.
        for n in 1..=64usize {
            for seed in 0..64u64 {
                let b: Vec<u8> = (0..n as u64)
                    .map(|i| if (i * 7 + seed) % 5 == 0 { b'.' } else { b'x' })
                    .collect();
                let want = b
                    .iter()
                    .enumerate()
                    .fold(0u64, |m, (i, &c)| m | u64::from(c == b'.') << i);
                assert_eq!(dot_mask(&b), want, "{}", String::from_utf8_lossy(&b));
            }
        }
    }

    #[test]
    fn short_keys_are_the_padded_bytes() {
        // What `edge_in` reads from the name must equal what the table stored.
        let name = b"0123456789.abcdefgh.xyz";
        for end in 1..=name.len() {
            for start in end.saturating_sub(8)..end {
                let label = &name[start..end];
                let mut padded = [0u8; 8];
                padded[..label.len()].copy_from_slice(label);
                let want = u64::from_le_bytes(padded);
                assert_eq!(short_key(label), want, "{start}..{end}");
                assert_eq!(label_key(label), want);
                if end >= 8 {
                    assert_eq!(read_u64(name, end - 8) >> (64 - 8 * label.len()), want);
                }
            }
        }
    }
}
