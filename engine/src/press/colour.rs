//! Press colour: the printing condition press files are made for, and RGB colours converted
//! to its CMYK through its ICC profile. The condition is FOGRA39 (ISO 12647-2 coated offset),
//! a registered characterisation; its profile is built from Fogra's own measurements
//! (`assets/icc/README.md`). The conversion is moxcms's, pure Rust, so every build of the
//! engine converts the same way; `engine/tests/press.rs` holds it to lcms2's.

use std::sync::{Arc, LazyLock};

use moxcms::{
    ColorProfile, DataColorSpace, Layout, RenderingIntent, TransformF64Executor, TransformOptions,
};

use crate::model::Colour;

/// A printing condition as a PDF/X output intent names it.
pub struct PrintingCondition {
    /// The registered name (`OutputConditionIdentifier`).
    pub identifier: &'static str,
    /// Where it is registered (`RegistryName`).
    pub registry: &'static str,
    /// What it is, in words (`OutputCondition`).
    pub condition: &'static str,
    /// Its ICC output profile (CMYK, `DestOutputProfile`).
    pub profile: &'static [u8],
}

/// The printing condition of every press file.
pub const FOGRA39: PrintingCondition = PrintingCondition {
    identifier: "FOGRA39",
    registry: "http://www.color.org",
    condition: "Offset printing, according to ISO 12647-2:2004/Amd 1, OFCOM, paper type 1 or 2 \
                = coated art, 115 g/m2, tone value increase curves A (CMY) and B (K)",
    profile: presspack_assets::PRESS_PROFILE,
};

/// sRGB to the press's CMYK, relative colorimetric: a colour the press can print comes out
/// as measured (a brand's colour stays its colour); one it cannot is clipped to the nearest
/// it can, rather than every colour shrunk as perceptual rendering would.
static TO_PRESS: LazyLock<Arc<TransformF64Executor>> = LazyLock::new(|| {
    let press = ColorProfile::new_from_slice(FOGRA39.profile)
        .expect("assets/icc/FOGRA39-presspack.icc is an ICC profile");
    let options = TransformOptions {
        rendering_intent: RenderingIntent::RelativeColorimetric,
        ..TransformOptions::default()
    };
    ColorProfile::new_srgb()
        .create_transform_f64(Layout::Rgb, &press, Layout::Rgba, options)
        .expect("moxcms converts sRGB to the press profile's CMYK")
});

/// An sRGB colour as the press's CMYK, each ink in percent.
pub fn press_cmyk(r: u8, g: u8, b: u8) -> [f64; 4] {
    let rgb = [r, g, b].map(|v| f64::from(v) / 255.0);
    let mut cmyk = [0.0; 4];
    TO_PRESS
        .transform(&rgb, &mut cmyk)
        .expect("one colour in, one out");
    // (a hundredth of a percent: the file's precision, and equal on every build)
    cmyk.map(|ink| libm::round(ink.clamp(0.0, 1.0) * 10_000.0) / 100.0)
}

/// RGB channels at most this far apart (of 255) are a black or grey, printed in black ink.
const NEUTRAL_SPREAD: u8 = 2;

/// The inks (percent) a press file prints `colour` with: a CMYK colour exactly as given; a
/// black or grey RGB colour in black ink alone (four-colour black blurs small type at the
/// least misregistration, and printers ask for K-only text), at the grey the preview shows;
/// any other RGB colour through the printing condition's profile ([`press_cmyk`]).
pub fn press_inks(colour: Colour) -> [f64; 4] {
    match colour {
        Colour::Cmyk { c, m, y, k } => [c, m, y, k],
        Colour::Rgb { r, g, b } => {
            let (low, high) = (r.min(g).min(b), r.max(g).max(b));
            if high - low <= NEUTRAL_SPREAD {
                let grey = (f64::from(r) + f64::from(g) + f64::from(b)) / (3.0 * 255.0);
                [0.0, 0.0, 0.0, 100.0 * (1.0 - grey)]
            } else {
                press_cmyk(r, g, b)
            }
        }
    }
}

/// Whether `profile` is an ICC profile of RGB colours, as a picture may carry its own: the
/// press file then tags the picture with it instead of sRGB.
pub fn is_rgb_profile(profile: &[u8]) -> bool {
    ColorProfile::new_from_slice(profile)
        .is_ok_and(|parsed| parsed.color_space == DataColorSpace::Rgb)
}
