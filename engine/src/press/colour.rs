//! Press colour: the printing condition press files are made for, and RGB colours converted
//! to its CMYK through its ICC profile. By default the condition is FOGRA39 (ISO 12647-2
//! coated offset), a registered characterisation, with a profile built from Fogra's own
//! measurements (`assets/icc/README.md`); an operator may give another condition's profile
//! (`press_profile`). The conversion is moxcms's, pure Rust, so every build of the engine
//! converts the same way; `engine/tests/press.rs` holds it to lcms2's.

use std::sync::{Arc, LazyLock, Mutex};

use moxcms::{
    ColorProfile, DataColorSpace, Layout, ProfileClass, RenderingIntent, TransformF64Executor,
    TransformOptions,
};

use crate::model::Colour;

/// A printing condition as a PDF/X output intent names it, with the conversion to its inks.
pub struct PrintingCondition {
    /// Its name (`OutputConditionIdentifier`): a registered one, or the operator's.
    pub identifier: String,
    /// Where it is registered (`RegistryName`), if it is.
    pub registry: Option<&'static str>,
    /// What it is, in words (`OutputCondition`).
    pub condition: String,
    /// Its ICC output profile (CMYK, `DestOutputProfile`).
    pub profile: Arc<[u8]>,
    /// sRGB to its CMYK.
    to_press: Arc<TransformF64Executor>,
    /// The profile deflated, as a file embeds it (made once per condition).
    deflated: std::sync::OnceLock<Vec<u8>>,
}

impl std::fmt::Debug for PrintingCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrintingCondition({})", self.identifier)
    }
}

/// The default printing condition.
pub static FOGRA39: LazyLock<PrintingCondition> = LazyLock::new(|| {
    let mut fogra = PrintingCondition::from_profile("FOGRA39", presspack_assets::PRESS_PROFILE)
        .expect("assets/icc/FOGRA39-presspack.icc is a CMYK output profile");
    fogra.registry = Some("http://www.color.org");
    fogra.condition = "Offset printing, according to ISO 12647-2:2004/Amd 1, OFCOM, paper type \
                       1 or 2 = coated art, 115 g/m2, tone value increase curves A (CMY) and B \
                       (K)"
    .to_owned();
    fogra
});

impl PrintingCondition {
    /// The condition named `identifier` whose ICC profile is `profile`, which must be a CMYK
    /// output (printer) profile that sRGB converts to; else what it is instead.
    pub fn from_profile(identifier: &str, profile: &[u8]) -> Result<Self, String> {
        let parsed = ColorProfile::new_from_slice(profile)
            .map_err(|error| format!("not an ICC profile ({error})"))?;
        if parsed.color_space != DataColorSpace::Cmyk {
            return Err(format!(
                "a profile of {:?} colours, not CMYK",
                parsed.color_space
            ));
        }
        if parsed.profile_class != ProfileClass::OutputDevice {
            return Err(format!(
                "a {:?} profile, not an output (printer) profile",
                parsed.profile_class
            ));
        }
        // Relative colorimetric: a colour the press can print comes out as measured (a
        // brand's colour stays its colour); one it cannot is clipped to the nearest it can,
        // rather than every colour shrunk as perceptual rendering would.
        let options = TransformOptions {
            rendering_intent: RenderingIntent::RelativeColorimetric,
            ..TransformOptions::default()
        };
        let to_press = ColorProfile::new_srgb()
            .create_transform_f64(Layout::Rgb, &parsed, Layout::Rgba, options)
            .map_err(|error| format!("sRGB does not convert to it ({error})"))?;
        Ok(PrintingCondition {
            identifier: identifier.to_owned(),
            registry: None,
            condition: identifier.to_owned(),
            profile: Arc::from(profile),
            to_press,
            deflated: std::sync::OnceLock::new(),
        })
    }

    /// The profile deflated, as a press file embeds it.
    pub fn deflated_profile(&self) -> &[u8] {
        self.deflated
            .get_or_init(|| super::pdf::deflate(&self.profile))
    }

    /// [`Self::from_profile`], made once per engine for the profile a deployment sends with
    /// every press call: its transform and deflated profile are kept, not rebuilt per file.
    pub fn shared(identifier: &str, profile: &[u8]) -> Result<Arc<Self>, String> {
        static LAST: Mutex<Option<Arc<PrintingCondition>>> = Mutex::new(None);
        let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(condition) = last.as_ref()
            && condition.identifier == identifier
            && *condition.profile == *profile
        {
            return Ok(Arc::clone(condition));
        }
        let condition = Arc::new(PrintingCondition::from_profile(identifier, profile)?);
        *last = Some(Arc::clone(&condition));
        Ok(condition)
    }

    /// An sRGB colour as this condition's CMYK, each ink in percent.
    pub fn press_cmyk(&self, r: u8, g: u8, b: u8) -> [f64; 4] {
        let rgb = [r, g, b].map(|v| f64::from(v) / 255.0);
        let mut cmyk = [0.0; 4];
        self.to_press
            .transform(&rgb, &mut cmyk)
            .expect("one colour in, one out");
        // (a hundredth of a percent: the file's precision, and equal on every build)
        cmyk.map(|ink| libm::round(ink.clamp(0.0, 1.0) * 10_000.0) / 100.0)
    }

    /// The inks (percent) a press file prints `colour` with: a CMYK colour exactly as given;
    /// a black or grey RGB colour in black ink alone (four-colour black blurs small type at
    /// the least misregistration, and printers ask for K-only text), at the grey the preview
    /// shows; any other RGB colour through the profile ([`Self::press_cmyk`]).
    pub fn press_inks(&self, colour: Colour) -> [f64; 4] {
        match colour {
            Colour::Cmyk { c, m, y, k } => [c, m, y, k],
            Colour::Rgb { r, g, b } => {
                let (low, high) = (r.min(g).min(b), r.max(g).max(b));
                if high - low <= NEUTRAL_SPREAD {
                    let grey = (f64::from(r) + f64::from(g) + f64::from(b)) / (3.0 * 255.0);
                    [0.0, 0.0, 0.0, 100.0 * (1.0 - grey)]
                } else {
                    self.press_cmyk(r, g, b)
                }
            }
        }
    }
}

/// RGB channels at most this far apart (of 255) are a black or grey, printed in black ink.
const NEUTRAL_SPREAD: u8 = 2;

/// Whether `profile` is an ICC profile of RGB colours, as a picture may carry its own: the
/// press file then tags the picture with it instead of sRGB.
pub fn is_rgb_profile(profile: &[u8]) -> bool {
    ColorProfile::new_from_slice(profile)
        .is_ok_and(|parsed| parsed.color_space == DataColorSpace::Rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_that_is_not_a_cmyk_printer_s_is_refused_saying_what_it_is() {
        let not_icc = PrintingCondition::from_profile("X", b"not a profile")
            .err()
            .unwrap();
        assert!(not_icc.starts_with("not an ICC profile"), "{not_icc}");
        let srgb = crate::press::icc::srgb_profile();
        let rgb = PrintingCondition::from_profile("X", &srgb).err().unwrap();
        assert!(rgb.contains("not CMYK"), "{rgb}");
        let fogra = &*FOGRA39;
        assert_eq!(fogra.identifier, "FOGRA39");
        assert_eq!(
            fogra.press_inks(Colour::Rgb { r: 0, g: 0, b: 0 }),
            [0.0, 0.0, 0.0, 100.0]
        );
        // The same profile again is the same condition, built once.
        let profile = presspack_assets::PRESS_PROFILE;
        let first = PrintingCondition::shared("Ours", profile).unwrap();
        let again = PrintingCondition::shared("Ours", profile).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let renamed = PrintingCondition::shared("Other", profile).unwrap();
        assert_eq!(renamed.identifier, "Other");
    }
}
