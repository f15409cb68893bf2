//! The engine's wasm module under wasmtime gives byte-identical output to the native engine
//! for every reference scene, and measures text identically.

#[path = "../../engine/tests/support/scenes.rs"]
mod scenes;

use std::sync::Arc;

use presspack::infra::engine::{EngineHost, EngineLimits, EngineSetup, engine_wasm};
use presspack::infra::fonts::Fonts;
use presspack_engine::render::Engine;
use presspack_engine::text::FontBook;
use presspack_engine::wire::Op;

fn wasm_host() -> Arc<EngineHost> {
    let fonts = Fonts::load(None).unwrap();
    let cache =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-engine-cache");
    EngineHost::start(
        &engine_wasm(),
        Some(&cache),
        EngineSetup {
            init_frame: Arc::new(fonts.init_frame()),
            templates: Arc::new(scenes::templates()),
        },
        EngineLimits {
            instances: 1,
            ..EngineLimits::default()
        },
    )
    .unwrap()
}

fn native() -> Engine {
    let mut engine = Engine::new(FontBook::builtin());
    for xml in scenes::templates() {
        engine.call(Op::AddTemplate, xml.as_bytes()).unwrap();
    }
    engine
}

#[test]
fn every_scene_renders_to_the_same_bytes_natively_and_under_wasmtime() {
    let host = wasm_host();
    let mut native = native();
    for case in scenes::cases() {
        let frame = case.render_frame();
        let from_wasm = host.call_blocking(Op::Draw, &frame).unwrap();
        let from_native = native.call(Op::Draw, &frame).unwrap();
        assert!(
            from_wasm == from_native,
            "{}: wasm and native output differ",
            case.name
        );
        // And both are the reference image.
        scenes::check_reference(&case.name, &scenes::png_of(&from_wasm)).unwrap();
    }
}

#[test]
fn measurements_agree_natively_and_under_wasmtime() {
    let host = wasm_host();
    let mut native = native();
    for request in [
        r#"{"text":"Sphinx of black quartz, judge my vow","fontFamily":"helvetica","bold":false,"italic":false,"size":3.5278,"wrappingWidth":null,"leading":null}"#,
        r#"{"text":"AVA Wa To \u2620","fontFamily":"georgia","bold":true,"italic":true,"size":10.0,"wrappingWidth":12.5,"leading":1.5}"#,
    ] {
        assert_eq!(
            host.call_blocking(Op::Measure, request.as_bytes()).unwrap(),
            native.call(Op::Measure, request.as_bytes()).unwrap()
        );
    }
}
