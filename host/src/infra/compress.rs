//! Compression: the engine's wasm modules are embedded gzipped by the build script (a third of
//! their size in the binary), and static files are sent brotli- or gzip-compressed to the
//! browsers that accept it.

use std::io::{Read, Write};

/// Inflates gzip bytes the build script made: they are part of the binary, so a failure is a
/// broken build, not bad input.
pub fn gunzip(gzipped: &[u8]) -> Vec<u8> {
    let mut inflated = Vec::with_capacity(gzipped.len() * 3);
    flate2::read::GzDecoder::new(gzipped)
        .read_to_end(&mut inflated)
        .expect("the build script's gzip inflates");
    inflated
}

/// `bytes` gzipped at the best compression (static files, compressed once).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

/// `bytes` brotli-compressed at `quality` (0 to 11).
pub fn brotli(bytes: &[u8], quality: i32) -> Vec<u8> {
    let params = ::brotli::enc::BrotliEncoderParams {
        quality,
        lgwin: 22,
        ..Default::default()
    };
    let mut out = Vec::with_capacity(bytes.len() / 3);
    ::brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).expect("writing to memory");
    out
}

/// The quality an `Accept-Encoding` header value gives `coding` (`gzip`, `br`): its own, or
/// else that of `*`, else 0; 0 refuses it (RFC 9110 section 12.5.3).
pub fn quality(accept_encoding: &str, coding: &str) -> f32 {
    let quality_of = |wanted: &str| {
        accept_encoding.split(',').find_map(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            if !parts.next()?.eq_ignore_ascii_case(wanted) {
                return None;
            }
            let quality = parts
                .find_map(|param| param.strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
            Some(quality.unwrap_or(0.0))
        })
    };
    quality_of(coding)
        .or_else(|| quality_of("*"))
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coding_has_its_quality_or_the_wildcards() {
        for yes in ["gzip", "br, gzip;q=0.5", "GZIP", "*", "deflate, * ;q=1"] {
            assert!(quality(yes, "gzip") > 0.0, "{yes}");
        }
        for no in [
            "",
            "br",
            "gzip;q=0",
            "identity",
            "gzip; q=0.0, br",
            "x-gzip2",
            "gzip;q=0, *",
        ] {
            assert_eq!(quality(no, "gzip"), 0.0, "{no}");
        }
        assert_eq!(quality("gzip, deflate, br, zstd", "br"), 1.0);
        assert_eq!(quality("gzip, br;q=0.4", "br"), 0.4);
    }

    #[test]
    fn compressed_files_inflate_to_themselves() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(100);
        assert_eq!(gunzip(&gzip(text.as_bytes())), text.as_bytes());
        let compressed = brotli(text.as_bytes(), 9);
        let mut inflated = Vec::new();
        ::brotli::BrotliDecompress(&mut &compressed[..], &mut inflated).unwrap();
        assert_eq!(inflated, text.as_bytes());
        assert!(compressed.len() < text.len() / 10);
    }
}
