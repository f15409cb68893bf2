//! Reference-image tests: every scene of `tests/scenes/scenes.json` rendered natively and
//! compared with its committed reference PNG.

#[path = "support/scenes.rs"]
mod scenes;

use presspack_engine::render::Engine;
use presspack_engine::text::FontBook;
use presspack_engine::wire::{Op, read_drawn};

fn engine() -> Engine {
    let mut engine = Engine::new(FontBook::builtin());
    for xml in scenes::templates() {
        engine.call(Op::AddTemplate, xml.as_bytes()).unwrap();
    }
    engine
}

#[test]
fn every_scene_matches_its_reference() {
    let mut engine = engine();
    let mut failures = Vec::new();
    for case in scenes::cases() {
        let output = engine
            .call(Op::Draw, &case.render_frame())
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        if let Err(why) = scenes::check_reference(&case.name, &scenes::png_of(&output)) {
            failures.push(why);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn output_size_follows_max_side_and_the_box_aspect() {
    let mut engine = engine();
    for case in scenes::cases() {
        let output = engine.call(Op::Draw, &case.render_frame()).unwrap();
        let (header, _) = read_drawn(&output).unwrap();
        assert_eq!(
            header.width.max(header.height),
            case.render.max_side,
            "{}",
            case.name
        );
        // The PNG says the same size as the header.
        let png = scenes::png_of(&output);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(
            u32::from_be_bytes(png[16..20].try_into().unwrap()),
            header.width
        );
    }
}

#[test]
fn rendering_twice_gives_the_same_bytes() {
    let mut engine = engine();
    let case = &scenes::cases()[1];
    let first = engine.call(Op::Draw, &case.render_frame()).unwrap();
    let second = engine.call(Op::Draw, &case.render_frame()).unwrap();
    assert_eq!(first, second);
}
