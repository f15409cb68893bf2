//! The engine's wasm modules are embedded gzipped by the build script (a third of their size
//! in the binary); this inflates them.

use std::io::Read;

/// Inflates gzip bytes the build script made: they are part of the binary, so a failure is a
/// broken build, not bad input.
pub fn gunzip(gzipped: &[u8]) -> Vec<u8> {
    let mut inflated = Vec::with_capacity(gzipped.len() * 3);
    flate2::read::GzDecoder::new(gzipped)
        .read_to_end(&mut inflated)
        .expect("the build script's gzip inflates");
    inflated
}

/// Whether an `Accept-Encoding` header value accepts gzip: `gzip`, or else `*`, with a
/// quality above zero (RFC 9110 section 12.5.3).
pub fn accepts_gzip(accept_encoding: &str) -> bool {
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
    quality_of("gzip")
        .or_else(|| quality_of("*"))
        .is_some_and(|q| q > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_accepted_only_when_named_or_wildcarded_with_quality() {
        for yes in ["gzip", "br, gzip;q=0.5", "GZIP", "*", "deflate, * ;q=1"] {
            assert!(accepts_gzip(yes), "{yes}");
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
            assert!(!accepts_gzip(no), "{no}");
        }
    }
}
