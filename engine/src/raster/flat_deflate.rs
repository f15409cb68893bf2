//! A zlib stream of unfiltered PNG rows, for flat artwork: fills and text, where most bytes
//! repeat the pixel to their left or the row above.
//!
//! A general deflate coder looks for repeats anywhere in its window through hash chains, at
//! every byte. In flat artwork nearly all repeats are one pixel back (a run of one colour),
//! one row back (the row above) or an earlier copy of the same letter in the line. This
//! coder tries only those three, comparing eight bytes at a time, and writes the tokens with
//! Huffman codes fitted to each block (dynamic blocks), so that the glyphs' edge pixels, the
//! literals, cost what their spread needs. On a 1024 px text side it is smaller than zlib's
//! level 1 and several times faster than miniz's (docs/benchmarks.md, "Render speed").

/// Tokens gathered before a block is written: bounds the token buffer and lets the codes
/// follow the image.
const BLOCK_TOKENS: usize = 1 << 16;
/// log2 of the number of places [`FlatDeflate::recent`] keeps.
const RECENT_BITS: u32 = 12;
/// Deflate's shortest and longest match.
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
/// Deflate's furthest distance back: a row (and its filter byte) must fit within it.
const MAX_DISTANCE: usize = 32_768;

/// Code counts of deflate's three alphabets.
const LITLEN_CODES: usize = 286;
const DISTANCE_CODES: usize = 30;
const CODE_LENGTH_CODES: usize = 19;
/// The order in which the code-length code's lengths are sent (RFC 1951, 3.2.7).
const CODE_LENGTH_ORDER: [usize; CODE_LENGTH_CODES] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];
const END_OF_BLOCK: usize = 256;
/// A token is a literal byte, or a match: this bit, the length in bits 16-24, the distance
/// in bits 0-15.
const MATCH: u32 = 1 << 31;

/// Compresses rows of `row_bytes` bytes with pixels of `pixel_bytes` bytes, each row preceded
/// by PNG's filter byte 0 ("none"), into a zlib stream: fill [`FlatDeflate::next_row`], then
/// [`FlatDeflate::push_row`], for each row, then [`FlatDeflate::finish`].
pub struct FlatDeflate {
    pixel_bytes: usize,
    /// The row being coded and the row above it, each with its filter byte first.
    row: Vec<u8>,
    above: Vec<u8>,
    rows_seen: usize,
    /// Where in the stream (plus one) four bytes with each hash were last seen.
    recent: Vec<usize>,
    block: Block,
    adler: simd_adler32::Adler32,
    bits: BitWriter,
}

impl FlatDeflate {
    /// A coder for rows of `row_bytes` bytes; `None` when a row does not fit in deflate's
    /// window (wider than 32 KiB: a caller then uses a general coder).
    pub fn new(row_bytes: usize, pixel_bytes: usize) -> Option<FlatDeflate> {
        if row_bytes + 1 > MAX_DISTANCE || pixel_bytes == 0 || pixel_bytes > row_bytes {
            return None;
        }
        // Room for a flat image's stream of a few dozen rows' worth of bytes; it grows if not.
        let mut bits = BitWriter::with_capacity(64 * row_bytes);
        // zlib header: deflate with a 32 KiB window, no dictionary, "fastest" level; the
        // check bits make the 16-bit header a multiple of 31.
        bits.put(0x78, 8);
        bits.put(0x01, 8);
        Some(FlatDeflate {
            pixel_bytes,
            row: vec![0; row_bytes + 1],
            above: vec![0; row_bytes + 1],
            rows_seen: 0,
            recent: vec![0; 1 << RECENT_BITS],
            block: Block {
                tokens: Vec::with_capacity(BLOCK_TOKENS + row_bytes + 1),
                litlen_counts: [0; LITLEN_CODES],
                distance_counts: [0; DISTANCE_CODES],
            },
            adler: simd_adler32::Adler32::new(),
            bits,
        })
    }

    /// The row to fill next (after its filter byte), then [`FlatDeflate::push_row`].
    pub fn next_row(&mut self) -> &mut [u8] {
        &mut self.row[1..]
    }

    /// Codes the row filled through [`FlatDeflate::next_row`].
    pub fn push_row(&mut self) {
        self.adler.write(&self.row);
        self.tokenize_row();
        self.rows_seen += 1;
        std::mem::swap(&mut self.row, &mut self.above);
        if self.block.tokens.len() >= BLOCK_TOKENS {
            self.block.write(&mut self.bits, false);
        }
    }

    /// The zlib stream: the last block, then the checksum.
    pub fn finish(mut self) -> Vec<u8> {
        self.block.write(&mut self.bits, true);
        self.bits.align_to_byte();
        let checksum = self.adler.finish();
        let mut out = self.bits.into_bytes();
        out.extend_from_slice(&checksum.to_be_bytes());
        out
    }

    /// Greedy: at each byte, the longest of the matches one pixel back, one row back and at
    /// the last place in the row that began with the same four bytes (a letter met earlier in
    /// the line), if any is four bytes or more, else a literal. One pixel back is tried first
    /// and kept on a tie: its distance costs no extra bits, so a blank row is coded as a run
    /// of its colour rather than as a copy of the row above. Matches are measured no
    /// further than the longest one deflate can send, so each is one token.
    fn tokenize_row(&mut self) {
        let (row, above) = (&self.row[..], &self.above[..]);
        let has_above = self.rows_seen > 0;
        let stride = row.len();
        let pixel = self.pixel_bytes;
        let row_start = self.rows_seen * stride;
        let mut at = 0;
        while at + 4 <= stride {
            let here = &row[at..stride.min(at + MAX_MATCH)];
            let mut best = (0, 0);
            if at >= pixel {
                best = longer_match(here, &row[at - pixel..], pixel, best);
            }
            if has_above {
                best = longer_match(here, &above[at..], stride, best);
            }
            if best.0 == 0 {
                let word = word_at(here);
                let slot = &mut self.recent
                    [(word.wrapping_mul(0x9E37_79B1) >> (32 - RECENT_BITS)) as usize];
                // Stored one past the place, so that 0 is "none".
                let earlier = std::mem::replace(slot, row_start + at + 1);
                if earlier > row_start {
                    let from = earlier - 1 - row_start;
                    best = longer_match(here, &row[from..], at - from, best);
                }
            }
            let (length, distance) = best;
            if length > 0 {
                self.block.copy(length, distance);
                at += length;
            } else {
                self.block.literal(row[at]);
                at += 1;
            }
        }
        for &byte in &row[at..] {
            self.block.literal(byte);
        }
    }
}

/// The tokens of the block being gathered, and how often each symbol occurs in them.
struct Block {
    tokens: Vec<u32>,
    litlen_counts: [u32; LITLEN_CODES],
    distance_counts: [u32; DISTANCE_CODES],
}

impl Block {
    fn literal(&mut self, byte: u8) {
        self.tokens.push(u32::from(byte));
        self.litlen_counts[usize::from(byte)] += 1;
    }

    /// A match of `length` bytes (3 to 258) `distance` back.
    fn copy(&mut self, length: usize, distance: usize) {
        self.tokens
            .push(MATCH | (length as u32) << 16 | distance as u32);
        self.litlen_counts[length_symbol(length).0] += 1;
        self.distance_counts[distance_symbol(distance).0] += 1;
    }

    /// Writes the tokens as one dynamic-Huffman block, and empties it.
    fn write(&mut self, bits: &mut BitWriter, last: bool) {
        self.litlen_counts[END_OF_BLOCK] += 1;
        let litlen = HuffmanCode::fitted(&self.litlen_counts, 15);
        let distance = HuffmanCode::fitted(&self.distance_counts, 15);
        bits.put(u32::from(last), 1);
        bits.put(2, 2); // dynamic Huffman codes
        write_code_lengths(bits, &litlen, &distance);
        // Each length's code and extra bits as one run of bits: one write a match length.
        let length_bits: Vec<(u32, u32)> = (0..=MAX_MATCH)
            .map(|length| {
                if length < MIN_MATCH {
                    return (0, 0);
                }
                let (symbol, extra_bits, extra) = length_symbol(length);
                let code_length = u32::from(litlen.lengths[symbol]);
                (
                    u32::from(litlen.codes[symbol]) | extra << code_length,
                    code_length + extra_bits,
                )
            })
            .collect();
        for &token in &self.tokens {
            if token & MATCH == 0 {
                litlen.put(bits, token as usize);
            } else {
                let (value, count) = length_bits[(token >> 16 & 0x1FF) as usize];
                bits.put(value, count);
                let (symbol, extra_bits, extra) = distance_symbol((token & 0xFFFF) as usize);
                let code_length = u32::from(distance.lengths[symbol]);
                bits.put(
                    u32::from(distance.codes[symbol]) | extra << code_length,
                    code_length + extra_bits,
                );
            }
        }
        litlen.put(bits, END_OF_BLOCK);
        self.tokens.clear();
        self.litlen_counts = [0; LITLEN_CODES];
        self.distance_counts = [0; DISTANCE_CODES];
    }
}

/// The bytes from `here` on, as little-endian 32 bits.
#[inline(always)]
fn word_at(here: &[u8]) -> u32 {
    u32::from_le_bytes(here[..4].try_into().expect("four bytes"))
}

/// `(length, distance)` of the match of `here` (at most [`MAX_MATCH`] bytes) with `from`,
/// the bytes `distance` back, if it is at least four bytes and longer than `best`; else
/// `best`. It cannot be longer unless it also matches the byte after `best`'s end, so that is
/// checked first (zlib's trick): a long match is not measured twice. Inlined: most calls end
/// at the first comparison, and a call costs more than that under wasm.
#[inline(always)]
fn longer_match(here: &[u8], from: &[u8], distance: usize, best: (usize, usize)) -> (usize, usize) {
    let length = best.0;
    if length == here.len()
        || word_at(here) != word_at(from)
        || (length > 0 && here[length] != from[length])
    {
        return best;
    }
    let candidate = 4 + common_prefix(&here[4..], &from[4..]);
    if candidate > length {
        (candidate, distance)
    } else {
        best
    }
}

/// How many leading bytes `a` and `b` share, eight at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let limit = a.len().min(b.len());
    let mut at = 0;
    while at + 8 <= limit {
        let x = u64::from_le_bytes(a[at..at + 8].try_into().expect("eight bytes"));
        let y = u64::from_le_bytes(b[at..at + 8].try_into().expect("eight bytes"));
        let differ = x ^ y;
        if differ != 0 {
            return at + (differ.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < limit && a[at] == b[at] {
        at += 1;
    }
    at
}

/// A match length's symbol, extra bit count and extra bits (RFC 1951, 3.2.5).
fn length_symbol(length: usize) -> (usize, u32, u32) {
    if length == MAX_MATCH {
        return (285, 0, 0);
    }
    let above_min = length - MIN_MATCH;
    if above_min < 8 {
        return (257 + above_min, 0, 0);
    }
    let magnitude = usize::BITS - 1 - above_min.leading_zeros(); // 3 to 7
    let extra_bits = magnitude - 2;
    let symbol = 257 + 4 * (magnitude as usize - 1) + (above_min >> extra_bits & 3);
    (
        symbol,
        extra_bits,
        (above_min & ((1 << extra_bits) - 1)) as u32,
    )
}

/// A distance's symbol, extra bit count and extra bits (RFC 1951, 3.2.5).
fn distance_symbol(distance: usize) -> (usize, u32, u32) {
    let above_one = distance - 1;
    if above_one < 4 {
        return (above_one, 0, 0);
    }
    let magnitude = usize::BITS - 1 - above_one.leading_zeros(); // 2 to 14
    let extra_bits = magnitude - 1;
    let symbol = 2 * magnitude as usize + (above_one >> extra_bits & 1);
    (
        symbol,
        extra_bits,
        (above_one & ((1 << extra_bits) - 1)) as u32,
    )
}

/// Sends the two codes' lengths, run-length coded with the code-length code (RFC 1951,
/// 3.2.7).
fn write_code_lengths(bits: &mut BitWriter, litlen: &HuffmanCode, distance: &HuffmanCode) {
    let litlen_used = litlen.used().max(257);
    let distance_used = distance.used().max(1);
    let lengths: Vec<u8> = litlen.lengths[..litlen_used]
        .iter()
        .chain(&distance.lengths[..distance_used])
        .copied()
        .collect();
    // (symbol, extra bit count, extra bits) of the code-length alphabet.
    let mut runs: Vec<(u8, u8, u8)> = Vec::with_capacity(lengths.len());
    let mut at = 0;
    while at < lengths.len() {
        let length = lengths[at];
        let run = lengths[at..].iter().take_while(|&&l| l == length).count();
        let mut left = run;
        if length == 0 {
            while left >= 11 {
                let take = left.min(138);
                runs.push((18, 7, (take - 11) as u8));
                left -= take;
            }
            if left >= 3 {
                runs.push((17, 3, (left - 3) as u8));
                left = 0;
            }
        } else {
            runs.push((length, 0, 0));
            left -= 1;
            while left >= 3 {
                let take = left.min(6);
                runs.push((16, 2, (take - 3) as u8));
                left -= take;
            }
        }
        runs.extend(std::iter::repeat_n((length, 0, 0), left));
        at += run;
    }
    let mut counts = [0u32; CODE_LENGTH_CODES];
    for &(symbol, _, _) in &runs {
        counts[usize::from(symbol)] += 1;
    }
    let code_lengths = HuffmanCode::fitted(&counts, 7);
    let sent = CODE_LENGTH_ORDER
        .iter()
        .rposition(|&symbol| code_lengths.lengths[symbol] != 0)
        .map_or(4, |last| (last + 1).max(4));
    bits.put((litlen_used - 257) as u32, 5);
    bits.put((distance_used - 1) as u32, 5);
    bits.put((sent - 4) as u32, 4);
    for &symbol in &CODE_LENGTH_ORDER[..sent] {
        bits.put(u32::from(code_lengths.lengths[symbol]), 3);
    }
    for (symbol, extra_bits, extra) in runs {
        code_lengths.put(bits, usize::from(symbol));
        bits.put(u32::from(extra), u32::from(extra_bits));
    }
}

/// A canonical Huffman code: each symbol's length and its bits, reversed for sending (deflate
/// sends codes from their first bit, into the low end of each byte).
struct HuffmanCode {
    lengths: Vec<u8>,
    codes: Vec<u16>,
}

impl HuffmanCode {
    /// The code of least total length for these symbol counts with no code longer than
    /// `max_length`. Unused symbols get no code; at least two symbols get one, as a code of
    /// one symbol is incomplete and some decoders refuse it.
    fn fitted(counts: &[u32], max_length: u8) -> HuffmanCode {
        let mut used: Vec<(u32, usize)> = counts
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(symbol, &count)| (count, symbol))
            .collect();
        let missing = 2usize.saturating_sub(used.len());
        let unused = (0..counts.len()).filter(|&symbol| counts[symbol] == 0);
        used.extend(unused.take(missing).map(|symbol| (1, symbol)));
        used.sort_unstable();
        let mut lengths_sorted: Vec<u32> = used.iter().map(|&(count, _)| count).collect();
        minimum_redundancy(&mut lengths_sorted);
        // How many codes of each length, then the longest ones folded to `max_length`.
        let mut per_length = [0u32; 33];
        for &length in &lengths_sorted {
            per_length[length as usize] += 1;
        }
        limit_lengths(&mut per_length, usize::from(max_length));
        // The rarest symbols (first in `used`) take the longest codes.
        let mut lengths = vec![0u8; counts.len()];
        let mut next = used.iter();
        for length in (1..=usize::from(max_length)).rev() {
            for _ in 0..per_length[length] {
                let &(_, symbol) = next.next().expect("one length per used symbol");
                lengths[symbol] = length as u8;
            }
        }
        let codes = canonical_codes(&lengths);
        HuffmanCode { lengths, codes }
    }

    /// Symbols up to the last one with a code.
    fn used(&self) -> usize {
        self.lengths
            .iter()
            .rposition(|&l| l != 0)
            .map_or(0, |last| last + 1)
    }

    #[inline(always)]
    fn put(&self, bits: &mut BitWriter, symbol: usize) {
        bits.put(
            u32::from(self.codes[symbol]),
            u32::from(self.lengths[symbol]),
        );
    }
}

/// Moffat and Katajainen's in-place minimum-redundancy code lengths: `weights` sorted
/// ascending in, each one's code length out.
fn minimum_redundancy(a: &mut [u32]) {
    let n = a.len();
    match n {
        0 => return,
        1 => {
            a[0] = 1;
            return;
        }
        _ => {}
    }
    // Build the tree: internal nodes' weights, then their parents' indices.
    a[0] += a[1];
    let (mut root, mut leaf) = (0, 2);
    for next in 1..n - 1 {
        if leaf >= n || a[root] < a[leaf] {
            a[next] = a[root];
            a[root] = next as u32;
            root += 1;
        } else {
            a[next] = a[leaf];
            leaf += 1;
        }
        if leaf >= n || (root < next && a[root] < a[leaf]) {
            a[next] += a[root];
            a[root] = next as u32;
            root += 1;
        } else {
            a[next] += a[leaf];
            leaf += 1;
        }
    }
    // Internal nodes' depths.
    a[n - 2] = 0;
    for next in (0..n - 2).rev() {
        a[next] = a[a[next] as usize] + 1;
    }
    // Leaves' depths.
    let (mut available, mut used, mut depth) = (1u32, 0u32, 0u32);
    let (mut root, mut next) = (n as isize - 2, n as isize - 1);
    while available > 0 {
        while root >= 0 && a[root as usize] == depth {
            used += 1;
            root -= 1;
        }
        while available > used {
            a[next as usize] = depth;
            next -= 1;
            available -= 1;
        }
        available = 2 * used;
        depth += 1;
        used = 0;
    }
}

/// Folds codes longer than `max` into length `max`, then lengthens shorter codes until the
/// lengths again describe a complete code (the Kraft sum is exactly one).
fn limit_lengths(per_length: &mut [u32; 33], max: usize) {
    for length in max + 1..per_length.len() {
        per_length[max] += per_length[length];
        per_length[length] = 0;
    }
    let kraft = |per_length: &[u32; 33]| -> u64 {
        (1..=max)
            .map(|length| u64::from(per_length[length]) << (max - length))
            .sum()
    };
    let mut total = kraft(per_length);
    while total > 1 << max {
        per_length[max] -= 1;
        for length in (1..max).rev() {
            if per_length[length] != 0 {
                per_length[length] -= 1;
                per_length[length + 1] += 2;
                break;
            }
        }
        total -= 1;
    }
}

/// Canonical code bits for these lengths (RFC 1951, 3.2.2), bit-reversed for sending.
fn canonical_codes(lengths: &[u8]) -> Vec<u16> {
    let mut per_length = [0u16; 16];
    for &length in lengths {
        per_length[usize::from(length)] += 1;
    }
    per_length[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for length in 1..16 {
        code = (code + per_length[length - 1]) << 1;
        next[length] = code;
    }
    lengths
        .iter()
        .map(|&length| {
            if length == 0 {
                return 0;
            }
            let code = next[usize::from(length)];
            next[usize::from(length)] += 1;
            code.reverse_bits() >> (16 - length)
        })
        .collect()
}

/// Bits sent from the low end of each byte, as deflate packs them.
struct BitWriter {
    out: Vec<u8>,
    pending: u64,
    pending_bits: u32,
}

impl BitWriter {
    fn with_capacity(capacity: usize) -> BitWriter {
        BitWriter {
            out: Vec::with_capacity(capacity),
            pending: 0,
            pending_bits: 0,
        }
    }

    /// Sends the low `count` bits of `value` (at most 32).
    #[inline(always)]
    fn put(&mut self, value: u32, count: u32) {
        self.pending |= u64::from(value) << self.pending_bits;
        self.pending_bits += count;
        if self.pending_bits >= 32 {
            self.out
                .extend_from_slice(&(self.pending as u32).to_le_bytes());
            self.pending >>= 32;
            self.pending_bits -= 32;
        }
    }

    fn align_to_byte(&mut self) {
        let pad = (8 - self.pending_bits % 8) % 8;
        self.put(0, pad);
    }

    fn into_bytes(mut self) -> Vec<u8> {
        let whole = self.pending_bits.div_ceil(8) as usize;
        self.out
            .extend_from_slice(&self.pending.to_le_bytes()[..whole]);
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::pseudo_random;

    fn compressed(rows: &[u8], row_bytes: usize, pixel_bytes: usize) -> Vec<u8> {
        let mut coder = FlatDeflate::new(row_bytes, pixel_bytes).expect("a row that fits");
        for row in rows.chunks_exact(row_bytes) {
            coder.next_row().copy_from_slice(row);
            coder.push_row();
        }
        coder.finish()
    }

    /// The rows as PNG filters them with "none": a 0 before each.
    fn unfiltered(rows: &[u8], row_bytes: usize) -> Vec<u8> {
        rows.chunks_exact(row_bytes)
            .flat_map(|row| std::iter::once(0).chain(row.iter().copied()))
            .collect()
    }

    /// A white card with lines of "text": a dozen anti-aliased glyphs at whole pixels, as
    /// the engine blends them, in a dark colour.
    fn text_card(width: usize, height: usize) -> Vec<u8> {
        let mut random = pseudo_random(7);
        let glyphs: Vec<Vec<u8>> = (0..12)
            .map(|_| {
                (0..8 * 12)
                    .map(|_| [0, 0, 255, 128, 40][random(5) as usize])
                    .collect()
            })
            .collect();
        let mut rgb = vec![255u8; width * height * 3];
        for line in (10..height.saturating_sub(20)).step_by(24) {
            let mut x = 8;
            while x + 8 < width {
                let glyph = &glyphs[random(12) as usize];
                for (i, &coverage) in glyph.iter().enumerate() {
                    let at = ((line + i / 8) * width + x + i % 8) * 3;
                    for (channel, ink) in rgb[at..at + 3].iter_mut().zip([20u32, 30, 90]) {
                        let c = u32::from(coverage);
                        *channel = ((ink * c + 255 * (255 - c)) / 255) as u8;
                    }
                }
                x += 9 + random(3) as usize;
            }
        }
        rgb
    }

    #[test]
    fn every_image_inflates_to_its_rows() {
        let mut random = pseudo_random(3);
        let noise: Vec<u8> = (0..300 * 300 * 3).map(|_| random(256) as u8).collect();
        let cases: Vec<(&str, Vec<u8>, usize, usize)> = vec![
            ("text card", text_card(400, 200), 1200, 3),
            // Noise is all literals: several blocks.
            ("noise", noise, 900, 3),
            ("white", vec![255; 64 * 64 * 4], 256, 4),
            (
                "one grey pixel a row",
                (0..50).map(|i| (i / 10) as u8).collect(),
                1,
                1,
            ),
            ("two grey pixels a row", vec![9; 40], 2, 1),
            (
                "one RGB pixel a row",
                vec![1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 5, 6],
                3,
                3,
            ),
            // The widest row deflate's window takes.
            (
                "widest",
                (0..32_767 * 3).map(|i| (i / 1000) as u8).collect(),
                32_767,
                1,
            ),
        ];
        for (name, rows, row_bytes, pixel_bytes) in cases {
            let stream = compressed(&rows, row_bytes, pixel_bytes);
            let inflated = miniz_oxide::inflate::decompress_to_vec_zlib(&stream)
                .unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert!(inflated == unfiltered(&rows, row_bytes), "{name}");
        }
        assert!(
            FlatDeflate::new(32_768, 1).is_none(),
            "a row past the window"
        );
    }

    /// A fuzz round trip: 600 images of random shapes (1 to 4 bytes a pixel, rows up to
    /// 6,000 bytes, up to 40 rows) whose rows are made to stress the coder (noise, long runs,
    /// short periods that overlap their own copies, rows repeating the one above, two values
    /// alternating, a run crossing the row's end, a row of one colour then noise) deflate to
    /// a stream miniz_oxide's inflater reads back as exactly those rows.
    #[test]
    fn random_and_adversarial_rows_inflate_to_themselves() {
        let mut random = pseudo_random(0x5EED);
        for case in 0..600 {
            let pixel_bytes = [1, 2, 3, 4][random(4) as usize];
            let row_bytes = pixel_bytes * (1 + random(6_000 / pixel_bytes as u64) as usize);
            let height = 1 + random(40) as usize;
            let shape = random(7);
            let mut rows: Vec<u8> = Vec::with_capacity(row_bytes * height);
            for y in 0..height {
                let row_start = rows.len();
                let period = 1 + random(7) as usize;
                let (a, b) = (random(256) as u8, random(256) as u8);
                let mut run = (random(2) as u8, 0);
                for x in 0..row_bytes {
                    let byte = match shape {
                        0 => random(256) as u8,
                        1 => {
                            // Runs of random length, often longer than deflate's 258.
                            if run.1 == 0 {
                                run = (random(256) as u8, 1 + random(600) as usize);
                            }
                            run.1 -= 1;
                            run.0
                        }
                        2 => [a, b, a ^ 0x55, 7, 200, 0, 255][x % period],
                        3 if y > 0 && random(8) > 0 => rows[row_start - row_bytes + x],
                        4 => {
                            if x % (pixel_bytes * period) < pixel_bytes {
                                a
                            } else {
                                b
                            }
                        }
                        5 => {
                            if x * 2 < row_bytes {
                                a
                            } else {
                                random(256) as u8
                            }
                        }
                        _ => {
                            if random(50) == 0 {
                                random(256) as u8
                            } else {
                                a
                            }
                        }
                    };
                    rows.push(byte);
                }
            }
            let stream = compressed(&rows, row_bytes, pixel_bytes);
            let inflated =
                miniz_oxide::inflate::decompress_to_vec_zlib(&stream).unwrap_or_else(|e| {
                    panic!("case {case} ({shape}, {pixel_bytes} x {row_bytes} x {height}): {e:?}")
                });
            assert!(
                inflated == unfiltered(&rows, row_bytes),
                "case {case} ({shape}, {pixel_bytes} x {row_bytes} x {height}) reads back wrong"
            );
        }
    }

    #[test]
    fn flat_artwork_is_as_small_as_zlib_level_one_makes_it() {
        let (width, height) = (1024, 686);
        let rows = text_card(width, height);
        let ours = compressed(&rows, width * 3, 3).len();
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&unfiltered(&rows, width * 3), 1);
        assert!(
            ours * 10 <= zlib.len() * 11,
            "{ours} bytes against zlib level 1's {}",
            zlib.len()
        );
    }

    #[test]
    fn codes_are_complete_and_no_longer_than_their_limit() {
        // Fibonacci counts make the deepest unlimited tree: 24 symbols would need 23 bits.
        let mut fibonacci = vec![1u32, 1];
        while fibonacci.len() < 24 {
            fibonacci.push(fibonacci[fibonacci.len() - 1] + fibonacci[fibonacci.len() - 2]);
        }
        for (counts, limit) in [
            (fibonacci.clone(), 15),
            (fibonacci, 7),
            (vec![5, 0, 0, 0], 15),
            (vec![0; 30], 15),
            ((1..=286).collect(), 15),
        ] {
            let code = HuffmanCode::fitted(&counts, limit);
            let lengths: Vec<u8> = code.lengths.iter().copied().filter(|&l| l > 0).collect();
            assert!(lengths.len() >= 2, "{counts:?}: two codes at least");
            assert!(
                lengths.iter().all(|&l| l <= limit),
                "{counts:?}: {lengths:?}"
            );
            let kraft: f64 = lengths.iter().map(|&l| 0.5f64.powi(i32::from(l))).sum();
            assert_eq!(kraft, 1.0, "{counts:?}: {lengths:?}");
            for (symbol, &count) in counts.iter().enumerate() {
                assert!(
                    count == 0 || code.lengths[symbol] > 0,
                    "{counts:?}: {symbol} has no code"
                );
            }
        }
    }
}
