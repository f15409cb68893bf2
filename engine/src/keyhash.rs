//! A hash for tables whose keys nobody outside chooses: a face's characters and kerning
//! pairs (from the font file), looked up per character, and the digest of an image's bytes
//! (a hit is confirmed by comparing the bytes; the cache's own map stays on std's keyed hash,
//! since an uploader could make digests that share buckets). One multiply a word: SipHash
//! (std's default) resists chosen keys, which buys nothing here, and cost most of a text
//! measurement's table lookups; under wasmtime each SipHash round also pays the call time
//! limit's checks.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map with [`KeyHasher`].
pub type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.write_u64(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        // The length too, so that trailing zero bytes change the hash.
        self.write_u64(u64::from_le_bytes(last) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u64(&mut self, n: u64) {
        let product = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Tables pick buckets by the low bits: fold the well-mixed high half into them.
        self.0 = product ^ (product >> 32);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(n.into());
    }

    fn write_u16(&mut self, n: u16) {
        self.write_u64(n.into());
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n.into());
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Whether two byte strings are equal, compared 16 bytes a step: the wasm builds' `memcmp`
/// compares a byte a step (and under wasmtime checks the time limit at each), which made
/// confirming a cached image's bytes a few per cent of a photo render.
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (a_blocks, b_blocks) = (a.chunks_exact(16), b.chunks_exact(16));
    let (a_rest, b_rest) = (a_blocks.remainder(), b_blocks.remainder());
    let block = |bytes: &[u8]| u128::from_le_bytes(bytes.try_into().expect("16 bytes"));
    a_blocks.zip(b_blocks).all(|(x, y)| block(x) == block(y)) && a_rest == b_rest
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn same_bytes_finds_any_difference() {
        let a: Vec<u8> = (0..100u8).collect();
        for at in 0..a.len() {
            let mut b = a.clone();
            b[at] ^= 1;
            assert!(!same_bytes(&a, &b), "a difference at {at}");
        }
        assert!(same_bytes(&a, &a.clone()));
        assert!(!same_bytes(&a, &a[..99]));
    }

    #[test]
    fn trailing_zeros_change_the_hash() {
        let hash = |bytes: &[u8]| BuildHasherDefault::<KeyHasher>::default().hash_one(bytes);
        assert_ne!(hash(&[1, 2, 3]), hash(&[1, 2, 3, 0]));
        assert_ne!(hash(&[0; 8]), hash(&[0; 16]));
    }
}
