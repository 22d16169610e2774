//! The 128-bit fingerprints (XXH3-128) by which `urlkey map` counts keys and signatures,
//! and the hasher that tables keyed by them use.

use std::hash::{BuildHasher, Hasher};

/// A 128-bit fingerprint (XXH3-128).
pub type Fingerprint = u128;

/// The fingerprint of a key or signature.
#[inline]
pub fn fingerprint(text: &str) -> Fingerprint {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// A valid record's key and signature fingerprints, as `map` counts them: the key's is
/// taken with the signature's as its seed, so that equal key fingerprints mean equal
/// signatures too (with the odds of a 128-bit collision). The signature is written from
/// the same final parts as the key (`host[:port]`, the path, the query's names), so a
/// key has one signature and this is one fingerprint per key; were a key ever written
/// with two signatures, it would be counted as two keys, each in its own signature group,
/// rather than put in a group its signature is not.
#[inline]
pub fn record_fingerprints(key: &str, signature: &str) -> (Fingerprint, Fingerprint) {
    let sig = fingerprint(signature);
    let key = xxhash_rust::xxh3::xxh3_128_with_seed(key.as_bytes(), sig as u64);
    (key, sig)
}

/// The fingerprints are already uniform: hash tables use their low 64 bits as is.
#[derive(Clone, Copy, Default)]
pub struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.0 ^= u64::from_le_bytes(b);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl BuildHasher for FingerprintHasher {
    type Hasher = FingerprintHasher;
    fn build_hasher(&self) -> FingerprintHasher {
        FingerprintHasher(0)
    }
}
