//! The proof a customer approves at checkout, one per pack: each side as it will print (the
//! whole printed area, bleed included, drawn by the engine) with the cut and safe lines
//! marked, what the printer's check found, and the "I approve this proof" box, whose value
//! names the design shown ([`PackRecord::design_hash`]) so that it approves nothing else.

use maud::{Markup, html};
use presspack_engine::model::Template;
use presspack_engine::raster::ViewArea;
use presspack_engine::render::BoxType;

use crate::domain::cart::PricedLine;
use crate::domain::ids::PackId;
use crate::domain::orders::{Approvals, ProofApproval};
use crate::domain::packs::{self, PackRecord};
use crate::domain::services::Services;
use crate::http::pages::cart::not_orderable_notice;
use crate::http::pages::dropins::side_label;
use crate::http::pages::forms::Fields;
use crate::http::pages::layout::when;

/// The longest side of a proof's picture of one side, in pixels.
pub const PROOF_SIDE: u32 = 600;

/// The form field that carries the approval of pack `pack_id`'s proof.
fn approval_field(pack_id: &str) -> String {
    format!("approve-{pack_id}")
}

/// The approvals a checkout form carries: pack id to the design hash approved.
pub fn approvals(fields: &Fields) -> Approvals {
    fields
        .iter()
        .filter_map(|(name, design)| {
            let pack_id = PackId::parse(name.strip_prefix("approve-")?)?;
            Some((pack_id, design.clone()))
        })
        .collect()
}

/// The proof of one cart line, its approval box tied to the form `form`. The box comes
/// ticked again only when `fields` (a form sent before) approved this very design.
pub fn proof(services: &Services, line: &PricedLine, form: &str, fields: &Fields) -> Markup {
    let pack = &line.pack;
    let design = pack.design_hash();
    let field = approval_field(&line.pack_id);
    let approved = fields.get(&field) == Some(&design);
    // What blocks ordering shows once, as the notice that replaces the approval box.
    let (blocking, warnings): (Vec<_>, Vec<_>) = packs::explained_warnings(services, pack)
        .into_iter()
        .partition(|&(_, blocks)| blocks);
    let blocking: Vec<String> = blocking.into_iter().map(|(text, _)| text).collect();
    let name = pack.display_name();
    html! {
        section.proof aria-label=(format!("Proof of {name}")) {
            h3 { "Proof of " (name) }
            div.sides {
                @for (index, side) in proof_sides(services, pack).iter().enumerate() {
                    figure {
                        div.printed {
                            img src=(format!("/packs/{}/sides/{index}?max={PROOF_SIDE}&box=bleed", line.pack_id))
                                alt=(format!("Proof of the {} of {name}", side.label.to_lowercase()));
                            @if let Some(guides) = &side.guides { (guides_svg(guides)) }
                        }
                        figcaption { (side.label) }
                    }
                }
            }
            p.hint { "The solid red line is where the card is cut; what lies outside it is trimmed off. Keep words inside the dashed green line (the safe area), as in the editor." }
            @if !warnings.is_empty() {
                div.notice.proof-warnings {
                    p { "The printer\u{2019}s check found:" }
                    ul { @for (text, _) in &warnings { li { (text) } } }
                }
            }
            // A proof that cannot print is not offered for approval: it says what to fix.
            @if blocking.is_empty() {
                label.approve {
                    input type="checkbox" name=(field) value=(design) form=(form) required checked[approved];
                    @if warnings.is_empty() {
                        " I approve this proof: print " (name) " as shown."
                    } @else {
                        " I approve this proof: print " (name) " as shown, with what the check found."
                    }
                }
            } @else {
                (not_orderable_notice(&blocking, line))
            }
        }
    }
}

/// One side of a proof: its name and, when its template is known, the lines to mark.
struct ProofSide {
    label: &'static str,
    guides: Option<Guides>,
}

/// The areas of a side in template millimetres: the picture shows `bleed`.
struct Guides {
    bleed: ViewArea,
    cut: ViewArea,
    safe: ViewArea,
}

impl Guides {
    fn of(template: &Template) -> Guides {
        Guides {
            bleed: BoxType::Bleed.area(template),
            cut: BoxType::Cut.area(template),
            safe: BoxType::Safe.area(template),
        }
    }
}

fn proof_sides(services: &Services, pack: &PackRecord) -> Vec<ProofSide> {
    let Ok(typed) = packs::stored_pack(services, &pack.product, &pack.pack) else {
        return Vec::new();
    };
    typed
        .sides
        .iter()
        .map(|side| ProofSide {
            label: side_label(Some(side.side_type.as_str())),
            guides: (services.templates.get(&side.template_code)).map(|t| Guides::of(&t.template)),
        })
        .collect()
}

/// The cut and safe lines over a side's picture, in the template's millimetres.
fn guides_svg(guides: &Guides) -> Markup {
    let Guides { bleed, cut, safe } = guides;
    let view_box = format!(
        "{} {} {} {}",
        bleed.left, bleed.top, bleed.width, bleed.height
    );
    html! {
        svg.guides viewBox=(view_box) preserveAspectRatio="none" aria-hidden="true" {
            rect.cut x=(cut.left) y=(cut.top) width=(cut.width) height=(cut.height) {}
            rect.safe x=(safe.left) y=(safe.top) width=(safe.width) height=(safe.height) {}
        }
    }
}

/// What an order line's approval says, for the customer's order page and the console: when,
/// which design, and what the check had found.
pub fn approval_note(approval: Option<&ProofApproval>) -> Markup {
    html! {
        @match approval {
            Some(approval) => div.approval {
                p { "Proof approved " (when(approval.approved_at)) " \u{b7} design " code { (approval.design) } }
                @if !approval.warnings.is_empty() {
                    p.hint { "Approved knowing what the check found:" }
                    ul.hint { @for warning in &approval.warnings { li { (warning) } } }
                }
            },
            None => p.approval.hint { "No proof approval recorded (placed before approvals were asked for)." },
        }
    }
}
