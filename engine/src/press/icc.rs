//! The two ICC profiles a press file embeds, built from formulas rather than shipped as
//! files: sRGB (what RGB colours and photos are tagged with) and the default output intent,
//! a CMYK printer profile that is exactly the engine's preview formula
//! ([`crate::model::Colour::to_rgb`]) between CMYK and sRGB, so a press file without an
//! operator's own profile describes the colours the customer saw. A print shop replaces the
//! second with its press condition's profile (FOGRA39, GRACoL ...).
//!
//! Both are ICC version 2.1 profiles (the version every RIP reads): sRGB as a matrix and tone
//! curve display profile, CMYK as 8-bit lookup tables (`mft1`). Their arithmetic is `libm`'s,
//! so every build of the engine writes the same bytes.

/// The D50 white point of the profile connection space.
const D50: [f64; 3] = [0.9642, 1.0, 0.8249];

/// Linear sRGB to XYZ, adapted to D50 (the ICC's sRGB primaries).
const SRGB_TO_XYZ: [[f64; 3]; 3] = [
    [0.436_074_7, 0.385_064_9, 0.143_080_4],
    [0.222_504_5, 0.716_878_6, 0.060_616_9],
    [0.013_932_2, 0.097_104_5, 0.714_173_3],
];

/// The sRGB display profile.
pub fn srgb_profile() -> Vec<u8> {
    let curve: Vec<u8> = {
        let mut tag = Vec::new();
        tag.extend_from_slice(b"curv\0\0\0\0");
        let points = 1024u32;
        tag.extend_from_slice(&points.to_be_bytes());
        for i in 0..points {
            let linear = srgb_to_linear(f64::from(i) / f64::from(points - 1));
            tag.extend_from_slice(&(libm::round(linear * 65535.0) as u16).to_be_bytes());
        }
        tag
    };
    let column = |i: usize| xyz_tag([SRGB_TO_XYZ[0][i], SRGB_TO_XYZ[1][i], SRGB_TO_XYZ[2][i]]);
    profile(
        *b"mntr",
        *b"RGB ",
        *b"XYZ ",
        &[
            (*b"desc", description("sRGB IEC61966-2.1 (Presspack)")),
            (*b"cprt", text("No copyright, use freely")),
            (*b"wtpt", xyz_tag(D50)),
            (*b"rXYZ", column(0)),
            (*b"gXYZ", column(1)),
            (*b"bXYZ", column(2)),
            (*b"rTRC", curve.clone()),
            (*b"gTRC", curve.clone()),
            (*b"bTRC", curve),
        ],
    )
}

/// The default output intent: CMYK <-> Lab through the engine's preview formula.
pub fn preview_cmyk_profile() -> Vec<u8> {
    // Device CMYK -> PCS Lab: CMYK to sRGB by the preview formula, then sRGB to Lab.
    let to_lab = lut8(4, 3, 17, |cmyk| {
        let white = 1.0 - cmyk[3];
        let rgb = [0, 1, 2].map(|i| (1.0 - cmyk[i]) * white);
        encode_lab(xyz_to_lab(srgb_to_xyz(rgb)))
    });
    // PCS Lab -> device CMYK: the formula's inverse, black from the lightest channel.
    let from_lab = lut8(3, 4, 33, |lab| {
        let rgb = xyz_to_srgb(lab_to_xyz(decode_lab(lab)));
        let k = 1.0 - rgb.iter().copied().fold(0.0, f64::max);
        if k >= 1.0 {
            return vec![0.0, 0.0, 0.0, 1.0];
        }
        let mut cmyk: Vec<f64> = rgb.iter().map(|c| (1.0 - c - k) / (1.0 - k)).collect();
        cmyk.push(k);
        cmyk
    });
    // Everything is in gamut: the formula reaches every colour it is asked about.
    let gamut = lut8(3, 1, 2, |_| vec![0.0]);
    profile(
        *b"prtr",
        *b"CMYK",
        *b"Lab ",
        &[
            (*b"desc", description(PREVIEW_CMYK_NAME)),
            (*b"cprt", text("No copyright, use freely")),
            (*b"wtpt", xyz_tag(D50)),
            (*b"A2B0", to_lab.clone()),
            (*b"A2B1", to_lab.clone()),
            (*b"A2B2", to_lab),
            (*b"B2A0", from_lab.clone()),
            (*b"B2A1", from_lab.clone()),
            (*b"B2A2", from_lab),
            (*b"gamt", gamut),
        ],
    )
}

/// The name of [`preview_cmyk_profile`] (its description and the output condition).
pub const PREVIEW_CMYK_NAME: &str = "Presspack preview CMYK";

/// A whole profile: header, tag table, tags (identical tags stored once).
fn profile(class: [u8; 4], space: [u8; 4], pcs: [u8; 4], tags: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let table_end = 128 + 4 + 12 * tags.len();
    let mut data: Vec<u8> = Vec::new();
    let mut entries: Vec<([u8; 4], usize, usize)> = Vec::new();
    let mut stored: Vec<(&[u8], usize)> = Vec::new();
    for (signature, tag) in tags {
        let offset = match stored.iter().find(|(bytes, _)| *bytes == tag.as_slice()) {
            Some(&(_, offset)) => offset,
            None => {
                let offset = table_end + data.len();
                data.extend_from_slice(tag);
                while !data.len().is_multiple_of(4) {
                    data.push(0);
                }
                stored.push((tag, offset));
                offset
            }
        };
        entries.push((*signature, offset, tag.len()));
    }
    let size = table_end + data.len();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&(size as u32).to_be_bytes());
    out.extend_from_slice(&[0; 4]); // preferred CMM
    out.extend_from_slice(&0x0210_0000u32.to_be_bytes());
    out.extend_from_slice(&class);
    out.extend_from_slice(&space);
    out.extend_from_slice(&pcs);
    for part in [2026u16, 11, 27, 0, 0, 0] {
        out.extend_from_slice(&part.to_be_bytes());
    }
    out.extend_from_slice(b"acsp");
    out.extend_from_slice(&[0; 4 + 4 + 4 + 4 + 8]); // platform, flags, maker, model, attributes
    out.extend_from_slice(&0u32.to_be_bytes()); // perceptual
    for value in D50 {
        out.extend_from_slice(&s15_fixed16(value));
    }
    out.extend_from_slice(&[0; 4 + 16 + 28]); // creator, profile id, reserved
    out.extend_from_slice(&(tags.len() as u32).to_be_bytes());
    for (signature, offset, length) in entries {
        out.extend_from_slice(&signature);
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        out.extend_from_slice(&(length as u32).to_be_bytes());
    }
    out.extend_from_slice(&data);
    out
}

fn s15_fixed16(value: f64) -> [u8; 4] {
    (libm::round(value * 65536.0) as i32).to_be_bytes()
}

fn xyz_tag(xyz: [f64; 3]) -> Vec<u8> {
    let mut tag = b"XYZ \0\0\0\0".to_vec();
    for value in xyz {
        tag.extend_from_slice(&s15_fixed16(value));
    }
    tag
}

fn text(value: &str) -> Vec<u8> {
    let mut tag = b"text\0\0\0\0".to_vec();
    tag.extend_from_slice(value.as_bytes());
    tag.push(0);
    tag
}

/// A version 2 `textDescriptionType`: ASCII only, no Unicode or Macintosh script names.
fn description(value: &str) -> Vec<u8> {
    let mut tag = b"desc\0\0\0\0".to_vec();
    tag.extend_from_slice(&(value.len() as u32 + 1).to_be_bytes());
    tag.extend_from_slice(value.as_bytes());
    tag.push(0);
    tag.extend_from_slice(&[0; 4 + 4 + 2 + 1 + 67]);
    tag
}

/// An `mft1` lookup table: identity input and output curves around a `grid`-point table
/// filled by `colour` (inputs and outputs 0 to 1; the first input varies slowest).
fn lut8(
    inputs: usize,
    outputs: usize,
    grid: usize,
    colour: impl Fn(&[f64]) -> Vec<f64>,
) -> Vec<u8> {
    let mut tag = b"mft1\0\0\0\0".to_vec();
    tag.extend_from_slice(&[inputs as u8, outputs as u8, grid as u8, 0]);
    for row in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
        for value in row {
            tag.extend_from_slice(&s15_fixed16(value));
        }
    }
    let identity: Vec<u8> = (0..=255).collect();
    for _ in 0..inputs {
        tag.extend_from_slice(&identity);
    }
    let points = grid.pow(inputs as u32);
    let mut input = vec![0.0; inputs];
    for index in 0..points {
        let mut rest = index;
        for channel in (0..inputs).rev() {
            input[channel] = (rest % grid) as f64 / (grid - 1) as f64;
            rest /= grid;
        }
        for value in colour(&input) {
            tag.push(libm::round(value.clamp(0.0, 1.0) * 255.0) as u8);
        }
    }
    for _ in 0..outputs {
        tag.extend_from_slice(&identity);
    }
    tag
}

fn srgb_to_linear(value: f64) -> f64 {
    if value <= 0.040_45 {
        value / 12.92
    } else {
        libm::pow((value + 0.055) / 1.055, 2.4)
    }
}

fn linear_to_srgb(value: f64) -> f64 {
    let value = value.clamp(0.0, 1.0);
    if value <= 0.003_130_8 {
        value * 12.92
    } else {
        1.055 * libm::pow(value, 1.0 / 2.4) - 0.055
    }
}

fn srgb_to_xyz(rgb: [f64; 3]) -> [f64; 3] {
    let linear = rgb.map(srgb_to_linear);
    SRGB_TO_XYZ.map(|row| row[0] * linear[0] + row[1] * linear[1] + row[2] * linear[2])
}

fn xyz_to_srgb(xyz: [f64; 3]) -> [f64; 3] {
    inverse(SRGB_TO_XYZ)
        .map(|row| linear_to_srgb(row[0] * xyz[0] + row[1] * xyz[1] + row[2] * xyz[2]))
}

fn inverse(m: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let cofactor = |r: usize, c: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
        m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]
    };
    let determinant = (0..3).map(|c| m[0][c] * cofactor(0, c)).sum::<f64>();
    let mut out = [[0.0; 3]; 3];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, value) in row.iter_mut().enumerate() {
            *value = cofactor(c, r) / determinant;
        }
    }
    out
}

fn xyz_to_lab(xyz: [f64; 3]) -> [f64; 3] {
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            libm::cbrt(t)
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let [x, y, z] = [0, 1, 2].map(|i| f(xyz[i] / D50[i]));
    [116.0 * y - 16.0, 500.0 * (x - y), 200.0 * (y - z)]
}

fn lab_to_xyz(lab: [f64; 3]) -> [f64; 3] {
    let fy = (lab[0] + 16.0) / 116.0;
    let f = [fy + lab[1] / 500.0, fy, fy - lab[2] / 200.0];
    let inverse = |t: f64| {
        if t * t * t > 216.0 / 24389.0 {
            t * t * t
        } else {
            (116.0 * t - 16.0) * 27.0 / 24389.0
        }
    };
    [0, 1, 2].map(|i| inverse(f[i]) * D50[i])
}

/// Lab as an 8-bit lookup table carries it: L 0-100 and a, b -128-127, scaled to 0-1.
fn encode_lab(lab: [f64; 3]) -> Vec<f64> {
    vec![
        lab[0] / 100.0,
        (lab[1] + 128.0) / 255.0,
        (lab[2] + 128.0) / 255.0,
    ]
}

fn decode_lab(encoded: &[f64]) -> [f64; 3] {
    [
        encoded[0] * 100.0,
        encoded[1] * 255.0 - 128.0,
        encoded[2] * 255.0 - 128.0,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lab_and_srgb_round_trip_and_white_is_white() {
        let white = xyz_to_lab(srgb_to_xyz([1.0, 1.0, 1.0]));
        assert!(
            (white[0] - 100.0).abs() < 0.01 && white[1].abs() < 0.05,
            "{white:?}"
        );
        for rgb in [[0.2, 0.5, 0.9], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]] {
            let back = xyz_to_srgb(lab_to_xyz(xyz_to_lab(srgb_to_xyz(rgb))));
            for i in 0..3 {
                assert!((back[i] - rgb[i]).abs() < 1e-6, "{rgb:?} -> {back:?}");
            }
        }
    }

    #[test]
    fn profiles_declare_their_size_and_tags() {
        for (profile, class, tags) in [
            (srgb_profile(), b"mntr", 9u32),
            (preview_cmyk_profile(), b"prtr", 10),
        ] {
            assert_eq!(
                u32::from_be_bytes(profile[..4].try_into().unwrap()) as usize,
                profile.len()
            );
            assert_eq!(&profile[12..16], class);
            assert_eq!(&profile[36..40], b"acsp");
            assert_eq!(
                u32::from_be_bytes(profile[128..132].try_into().unwrap()),
                tags
            );
            // Every tag lies inside the profile.
            for entry in profile[132..132 + 12 * tags as usize].chunks(12) {
                let offset = u32::from_be_bytes(entry[4..8].try_into().unwrap()) as usize;
                let length = u32::from_be_bytes(entry[8..12].try_into().unwrap()) as usize;
                assert!(offset.is_multiple_of(4) && offset + length <= profile.len());
            }
        }
    }
}
