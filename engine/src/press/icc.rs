//! The sRGB profile a press file tags RGB photos with, built from its formula rather than
//! shipped as a file: an ICC version 2.1 display profile (the version every RIP reads), a
//! matrix and tone curve, in `libm` arithmetic, so every build of the engine writes the same
//! bytes. The output intent's profile is the printing condition's ([`super::colour`]).

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

fn srgb_to_linear(value: f64) -> f64 {
    if value <= 0.040_45 {
        value / 12.92
    } else {
        libm::pow((value + 0.055) / 1.055, 2.4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_declare_their_size_and_tags() {
        for (profile, class, tags) in [(srgb_profile(), b"mntr", 9u32)] {
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
