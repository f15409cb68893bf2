//! What an image file is, read from its bytes without decoding its pixels: the format (by
//! content, never by name), the pixel size from the header, and the facts the upload rules
//! need that decoders hide (a PNG's colour type and tRNS chunk, a JPEG's components and
//! quantisation tables).

use std::io::Cursor;

pub use crate::raster::Format;

/// Header facts of a raster file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RasterFacts {
    pub width: u32,
    pub height: u32,
    /// PNG: whether the file can carry transparency (an alpha channel or a tRNS chunk).
    pub may_be_transparent: bool,
    /// JPEG: the estimated IJG quality (1-100) of its luminance table.
    pub jpeg_quality: Option<u8>,
    /// JPEG: the frame's components (1 grey, 3 colour, 4 CMYK or YCCK); 0 for other formats.
    pub components: u8,
    /// The ICC profile it carries: a JPEG's APP2 `ICC_PROFILE` chunks joined in order, a
    /// PNG's `iCCP` chunk inflated.
    pub icc_profile: Option<Vec<u8>>,
    /// JPEG: it has Adobe's APP14 marker, whose CMYK files store every ink inverted.
    pub adobe: bool,
}

impl RasterFacts {
    /// The ICC profile it carries if that is a profile of RGB colours (Adobe RGB, Display
    /// P3): the colours of its pixels once decoded.
    pub fn rgb_profile(&self) -> Option<&[u8]> {
        self.profile_of(moxcms::DataColorSpace::Rgb)
    }

    /// The ICC profile of its pixels as the file stores them, if it carries one: CMYK for a
    /// CMYK JPEG, else RGB. A press file embedding the file as it is tags it with that.
    pub fn stored_profile(&self) -> Option<&[u8]> {
        self.profile_of(if self.components == 4 {
            moxcms::DataColorSpace::Cmyk
        } else {
            moxcms::DataColorSpace::Rgb
        })
    }

    fn profile_of(&self, space: moxcms::DataColorSpace) -> Option<&[u8]> {
        self.icc_profile.as_deref().filter(|profile| {
            moxcms::ColorProfile::new_from_slice(profile)
                .is_ok_and(|parsed| parsed.color_space == space)
        })
    }
}

/// Reads the header facts of a PNG, JPEG or GIF; `Err` says what is wrong with the header.
pub fn raster_facts(format: Format, bytes: &[u8]) -> Result<RasterFacts, String> {
    match format {
        Format::Png => png_facts(bytes),
        Format::Jpeg => jpeg_facts(bytes),
        Format::Gif => {
            let size = |at: usize| {
                bytes
                    .get(at..at + 2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
            };
            match (size(6), size(8)) {
                (Some(width), Some(height)) => Ok(RasterFacts {
                    width: width.into(),
                    height: height.into(),
                    may_be_transparent: false,
                    jpeg_quality: None,
                    components: 0,
                    icc_profile: None,
                    adobe: false,
                }),
                _ => Err("the GIF header is cut short".into()),
            }
        }
        Format::Pdf => Err("a PDF is not a raster image".into()),
    }
}

fn png_facts(bytes: &[u8]) -> Result<RasterFacts, String> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    // Chunks before the image data are small; this bounds what a hostile file makes us hold.
    decoder.set_limits(png::Limits { bytes: 16 << 20 });
    let reader = decoder.read_info().map_err(|e| e.to_string())?;
    let info = reader.info();
    Ok(RasterFacts {
        width: info.width,
        height: info.height,
        may_be_transparent: info.trns.is_some()
            || matches!(
                info.color_type,
                png::ColorType::Rgba | png::ColorType::GrayscaleAlpha
            ),
        jpeg_quality: None,
        components: 0,
        icc_profile: info.icc_profile.as_ref().map(|profile| profile.to_vec()),
        adobe: false,
    })
}

/// Walks a JPEG's markers up to the start of scan.
fn jpeg_facts(bytes: &[u8]) -> Result<RasterFacts, String> {
    let mut at = 2; // after SOI
    let mut size = None;
    let mut frame_components = 0;
    let mut luminance: Option<[u16; 64]> = None;
    // (sequence number, data) of each ICC_PROFILE chunk.
    let mut icc_chunks: Vec<(u8, &[u8])> = Vec::new();
    let mut adobe = false;
    loop {
        // Markers may be preceded by any number of 0xFF fill bytes.
        while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        let (Some(0xFF), Some(&marker)) = (bytes.get(at), bytes.get(at + 1)) else {
            return Err("the JPEG's markers are damaged or cut short".into());
        };
        at += 2;
        if (0xD0..=0xD7).contains(&marker) || marker == 0x01 {
            continue; // no length
        }
        let length = bytes
            .get(at..at + 2)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
            .filter(|&length| length >= 2)
            .ok_or("a JPEG marker's length is damaged")?;
        let segment = bytes
            .get(at + 2..at + length)
            .ok_or("the JPEG is cut short inside its header")?;
        match marker {
            // Start of frame (every coding process; C4, C8 and CC are other tables).
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                let [_, h1, h0, w1, w0, components, ..] = *segment else {
                    return Err("the JPEG's frame header is cut short".into());
                };
                size = Some((
                    u32::from(u16::from_be_bytes([w1, w0])),
                    u32::from(u16::from_be_bytes([h1, h0])),
                ));
                frame_components = components;
            }
            0xDB => read_quantisation_tables(segment, &mut luminance)?,
            0xE2 => {
                if let Some([sequence, _count, data @ ..]) = segment.strip_prefix(b"ICC_PROFILE\0")
                {
                    icc_chunks.push((*sequence, data));
                }
            }
            0xEE => adobe |= segment.starts_with(b"Adobe"),
            // Start of scan: the header is over. Decoders fill a file cut short with grey;
            // an end-of-image marker after the scan is how we know it is whole (entropy-coded
            // data stuffs every 0xFF, so the pair cannot occur inside it).
            0xDA => {
                if memchr::memmem::find(&bytes[at..], &[0xFF, 0xD9]).is_none() {
                    return Err("the JPEG is cut short: its image data has no end".into());
                }
                break;
            }
            _ => {}
        }
        at += length;
    }
    let (width, height) = size.ok_or("the JPEG has no frame header")?;
    if width == 0 || height == 0 {
        return Err("the JPEG's frame header gives no size".into());
    }
    icc_chunks.sort_by_key(|&(sequence, _)| sequence);
    let icc_profile = (!icc_chunks.is_empty()).then(|| {
        icc_chunks
            .iter()
            .flat_map(|(_, data)| data.iter().copied())
            .collect()
    });
    Ok(RasterFacts {
        width,
        height,
        may_be_transparent: false,
        jpeg_quality: luminance.map(|table| ijg_quality(&table)),
        components: frame_components,
        icc_profile,
        adobe,
    })
}

/// Keeps table 0 (luminance, by convention) of a DQT segment.
fn read_quantisation_tables(
    mut segment: &[u8],
    luminance: &mut Option<[u16; 64]>,
) -> Result<(), String> {
    while let Some((&spec, rest)) = segment.split_first() {
        let (precision, id) = (spec >> 4, spec & 0x0F);
        let size = if precision == 0 { 64 } else { 128 };
        let values = rest
            .get(..size)
            .ok_or("a JPEG quantisation table is cut short")?;
        if id == 0 {
            let mut table = [0u16; 64];
            for (i, value) in table.iter_mut().enumerate() {
                *value = if precision == 0 {
                    values[i].into()
                } else {
                    u16::from_be_bytes([values[2 * i], values[2 * i + 1]])
                };
            }
            *luminance = Some(table);
        }
        segment = &rest[size..];
    }
    Ok(())
}

/// The IJG (libjpeg) standard luminance table, Annex K of the JPEG standard.
const IJG_LUMINANCE: [u16; 64] = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113,
    92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];

/// The quality whose IJG-scaled standard table is closest to `table`. Compared by sums, so
/// the order the table is stored in (zig-zag) does not matter; for encoders that use the IJG
/// tables this finds the quality within 1, for others it is the IJG-equivalent quality.
fn ijg_quality(table: &[u16; 64]) -> u8 {
    let total = |quality: u32| -> u32 {
        let scale = if quality < 50 {
            5000 / quality
        } else {
            200 - 2 * quality
        };
        IJG_LUMINANCE
            .iter()
            .map(|&base| ((u32::from(base) * scale + 50) / 100).clamp(1, 255))
            .sum()
    };
    let actual: u32 = table.iter().map(|&v| u32::from(v)).sum();
    (1..=100u32)
        .min_by_key(|&quality| total(quality).abs_diff(actual))
        .map_or(100, |quality| quality as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_content() {
        assert_eq!(Format::sniff(b"\x89PNG\r\n\x1a\nrest"), Some(Format::Png));
        assert_eq!(Format::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(Format::Jpeg));
        assert_eq!(Format::sniff(b"GIF89a...."), Some(Format::Gif));
        assert_eq!(Format::sniff(b"junk\n%PDF-1.7\n"), Some(Format::Pdf));
        assert_eq!(Format::sniff(b"<svg/>"), None);
        assert_eq!(Format::sniff(b""), None);
    }

    #[test]
    fn the_quality_of_ijg_tables_is_found() {
        for quality in [10u32, 30, 50, 75, 90, 95, 100] {
            let scale = if quality < 50 {
                5000 / quality
            } else {
                200 - 2 * quality
            };
            let table =
                IJG_LUMINANCE.map(|b| ((u32::from(b) * scale + 50) / 100).clamp(1, 255) as u16);
            assert_eq!(u32::from(ijg_quality(&table)), quality);
        }
    }

    #[test]
    fn damaged_jpeg_headers_are_errors_not_panics() {
        for bytes in [
            &[0xFF, 0xD8, 0xFF][..],
            &[0xFF, 0xD8, 0xFF, 0xC0, 0x00],
            &[0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x01],
            &[0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x05, 0x10, 0x00, 0x00],
            &[0xFF, 0xD8, 0x00],
        ] {
            assert!(jpeg_facts(bytes).is_err(), "{bytes:?}");
        }
    }

    #[test]
    fn a_jpeg_cut_short_in_its_scan_is_an_error() {
        // SOI, a 1x1 one-component frame, a scan header, some entropy-coded data.
        let mut jpeg = vec![0xFF, 0xD8];
        jpeg.extend([0xFF, 0xC0, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0]);
        jpeg.extend([0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0, 0x12, 0xFF, 0x00, 0x34]);
        let cut = jpeg_facts(&jpeg).unwrap_err();
        assert!(cut.contains("cut short"), "{cut}");
        jpeg.extend([0xFF, 0xD9]);
        assert_eq!(jpeg_facts(&jpeg).map(|f| (f.width, f.height)), Ok((1, 1)));
    }

    #[test]
    fn a_jpeg_s_icc_profile_is_its_chunks_joined_in_order() {
        let app2 = |sequence: u8, data: &[u8]| {
            let mut segment = b"ICC_PROFILE\0".to_vec();
            segment.extend([sequence, 2]);
            segment.extend(data);
            let length = (segment.len() + 2) as u16;
            let mut marker = vec![0xFF, 0xE2];
            marker.extend(length.to_be_bytes());
            marker.extend(segment);
            marker
        };
        let mut jpeg = vec![0xFF, 0xD8];
        // The second chunk first: the sequence numbers say the order.
        jpeg.extend(app2(2, b"world"));
        jpeg.extend(app2(1, b"hello "));
        jpeg.extend([0xFF, 0xC0, 0, 11, 8, 0, 1, 0, 1, 3, 1, 0x11, 0]);
        jpeg.extend([0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0, 0x12, 0x34, 0xFF, 0xD9]);
        let facts = jpeg_facts(&jpeg).unwrap();
        assert_eq!(facts.icc_profile.as_deref(), Some(&b"hello world"[..]));
        let plain = [
            0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0, 0xFF, 0xDA, 0, 8,
        ]
        .into_iter()
        .chain([1, 1, 0, 0, 63, 0, 0x12, 0xFF, 0xD9])
        .collect::<Vec<u8>>();
        assert_eq!(jpeg_facts(&plain).unwrap().icc_profile, None);
        // "hello world" is no ICC profile: the pixels are taken as having none (sRGB), not
        // tagged with garbage a RIP would refuse.
        assert_eq!((facts.rgb_profile(), facts.stored_profile()), (None, None));
        // A profile of the wrong colours for the pixels is none of theirs.
        let cmyk = presspack_assets::PRESS_PROFILE.to_vec();
        let rgb_jpeg_with_cmyk_profile = RasterFacts {
            icc_profile: Some(cmyk.clone()),
            ..facts.clone()
        };
        assert_eq!(rgb_jpeg_with_cmyk_profile.stored_profile(), None);
        let cmyk_jpeg = RasterFacts {
            components: 4,
            ..rgb_jpeg_with_cmyk_profile
        };
        assert_eq!(cmyk_jpeg.stored_profile(), Some(&cmyk[..]));
        assert_eq!(cmyk_jpeg.rgb_profile(), None);
    }
}
