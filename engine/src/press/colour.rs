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

use serde::{Deserialize, Serialize};

use crate::layout::SceneItem;
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

/// How much ink a press file may lay down, and how it prints large black areas
/// (`press_max_ink`, `press_rich_black`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InkSettings {
    /// The most ink (C + M + Y + K, percent) any colour is printed with. 320 by default, the
    /// limit of FOGRA39's coated paper: more does not dry and sets off on the next sheet.
    pub max_ink: f64,
    /// The inks a large area of pure black is printed with, or none to keep it black ink
    /// alone. Black ink alone prints a large area as a dark grey; with cyan, magenta and
    /// yellow under it, it prints deep black. Text and rules stay black ink alone, where
    /// four plates would blur at the least misregistration.
    pub rich_black: Option<[f64; 4]>,
}

impl Default for InkSettings {
    fn default() -> Self {
        InkSettings {
            max_ink: 320.0,
            // A neutral rich black (240%), as printers commonly ask for.
            rich_black: Some([60.0, 40.0, 40.0, 100.0]),
        }
    }
}

/// Ink limits outside these are not a press's.
pub const MAX_INK_RANGE: std::ops::RangeInclusive<f64> = 200.0..=400.0;

/// A black box whose narrower side is at least this (mm) is a large area (rich black).
pub const RICH_BLACK_MIN_MM: f64 = 20.0;

impl InkSettings {
    /// Itself if a press can print by it; else which setting is wrong and how.
    pub fn checked(self) -> Result<Self, InkSettingError> {
        if !MAX_INK_RANGE.contains(&self.max_ink) {
            return Err(InkSettingError {
                setting: "press_max_ink",
                problem: format!(
                    "{} is not a total ink limit (200 to 400 percent)",
                    self.max_ink
                ),
            });
        }
        if let Some(inks) = self.rich_black {
            let problem = if inks.iter().any(|ink| !(0.0..=100.0).contains(ink)) {
                Some("each ink is 0 to 100 percent".to_owned())
            } else {
                let total: f64 = inks.iter().sum();
                (total > self.max_ink).then(|| {
                    format!(
                        "its {total}% of ink is more than press_max_ink ({}%)",
                        self.max_ink
                    )
                })
            };
            if let Some(problem) = problem {
                return Err(InkSettingError {
                    setting: "press_rich_black",
                    problem,
                });
            }
        }
        Ok(self)
    }

    /// `inks` with at most [`Self::max_ink`] in all: cyan, magenta and yellow give up the
    /// excess in proportion and black stays, as a RIP's ink limiting does (black carries the
    /// darkness and the detail).
    pub fn limited(&self, [c, m, y, k]: [f64; 4]) -> [f64; 4] {
        let colour = c + m + y;
        let excess = colour + k - self.max_ink;
        if excess <= 0.0 || colour <= 0.0 {
            return [c, m, y, k];
        }
        let keep = ((colour - excess) / colour).max(0.0);
        let round = |ink: f64| libm::floor(ink * keep * 100.0) / 100.0;
        [round(c), round(m), round(y), k]
    }
}

/// An ink setting a press cannot print by.
#[derive(Debug, Clone, PartialEq)]
pub struct InkSettingError {
    pub setting: &'static str,
    pub problem: String,
}

impl std::fmt::Display for InkSettingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.setting, self.problem)
    }
}

/// The inks a press file prints each scene item with: its printing condition's conversion,
/// the operator's ink limit and rich black.
pub struct PressInks<'a> {
    pub condition: &'a PrintingCondition,
    pub settings: InkSettings,
}

impl PressInks<'_> {
    /// The inks (percent) `item` is printed with, if it has a colour of its own.
    pub fn of_item(&self, item: &SceneItem) -> Option<[f64; 4]> {
        let (colour, large_area) = match item {
            SceneItem::Fill { colour, area } => {
                (colour, area.width.min(area.height) >= RICH_BLACK_MIN_MM)
            }
            SceneItem::Outline { colour, .. } | SceneItem::Text { colour, .. } => (colour, false),
            SceneItem::Image { .. } | SceneItem::RoundedCornerMask { .. } => return None,
        };
        let inks = self.condition.press_inks(*colour);
        Some(match self.settings.rich_black {
            Some(rich) if large_area && inks == [0.0, 0.0, 0.0, 100.0] => rich,
            _ => self.settings.limited(inks),
        })
    }
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

    #[test]
    fn ink_beyond_the_limit_comes_off_cyan_magenta_and_yellow_and_black_stays() {
        let settings = InkSettings::default();
        let limited = settings.limited([100.0, 100.0, 100.0, 100.0]);
        assert_eq!(limited[3], 100.0);
        assert!(limited.iter().sum::<f64>() <= 320.0, "{limited:?}");
        assert!(limited.iter().sum::<f64>() > 319.9, "{limited:?}");
        assert_eq!(limited[0], limited[1]);
        // Within the limit, as given.
        assert_eq!(
            settings.limited([60.0, 40.0, 40.0, 100.0]),
            [60.0, 40.0, 40.0, 100.0]
        );
        let lower = InkSettings {
            max_ink: 220.0,
            ..settings
        };
        assert_eq!(
            lower.limited([80.0, 40.0, 40.0, 100.0]),
            [60.0, 30.0, 30.0, 100.0]
        );
    }

    #[test]
    fn ink_settings_a_press_cannot_print_by_are_refused_naming_the_setting() {
        let over = InkSettings {
            max_ink: 500.0,
            ..InkSettings::default()
        };
        assert_eq!(over.checked().unwrap_err().setting, "press_max_ink");
        let rich = InkSettings {
            max_ink: 220.0,
            rich_black: Some([60.0, 40.0, 40.0, 100.0]),
        };
        let error = rich.checked().unwrap_err();
        assert_eq!(error.setting, "press_rich_black");
        assert!(error.problem.contains("240"), "{error}");
        let off = InkSettings {
            max_ink: 220.0,
            rich_black: None,
        };
        assert_eq!(off.checked(), Ok(off));
    }
}
