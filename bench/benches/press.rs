//! Press files against PNG renders (issue 24's scale goal; docs/benchmarks.md): a two-sided
//! business card whose front is a 12 MP photo, as a press file (`Press`: lay out, preflight,
//! write the PDF/X-4) and as its two 1024 px PNGs (`Draw` and encode, each side), natively
//! and by the wasm module under wasmtime, one after the other in the same run. Besides the
//! plain JPEG, the unhappy paths: the photo enhanced (decoded, enhanced, re-encoded), as a
//! PNG (decoded and deflated), turned 5 degrees, and the small proof; and the PNGs again
//! with the photo not in the engine's image cache. Prints each press file's size against
//! the image bytes and font subsets it embeds. Run with
//! `cargo bench -p presspack-bench --bench press`.

mod cases;

use std::io::Cursor;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use image::{ImageEncoder, RgbImage};
use presspack::infra::engine::EngineHost;
use presspack_engine::press::{PreflightLimits, PressOptions};
use presspack_engine::render::{BoxType, ImageInput};
use presspack_engine::wire::{
    Op, PressPageInput, RenderHeaderInput, press_frame, read_drawn, read_pressed, render_frame,
};
use serde_json::{Value, json};

const PHOTO_URI: &str = "store://photo";

/// A 4000 x 3000 photo-like image: smooth gradients under fine noise, which JPEG and
/// deflate cannot squeeze away (a real photo's size, not a flat test card's); `seed` picks
/// the noise.
fn twelve_megapixels(mut seed: u64) -> RgbImage {
    RgbImage::from_fn(4000, 3000, |x, y| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let noise = (seed & 31) as u32;
        image::Rgb([
            ((x / 16 + noise) % 256) as u8,
            ((y / 12 + noise) % 256) as u8,
            (((x + y) / 28 + noise) % 256) as u8,
        ])
    })
}

fn jpeg(image: &RgbImage) -> Vec<u8> {
    encoded_with(|out| {
        image::codecs::jpeg::JpegEncoder::new_with_quality(out, 90).write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgb8,
        )
    })
}

fn png(image: &RgbImage) -> Vec<u8> {
    encoded_with(|out| {
        image::codecs::png::PngEncoder::new(out).write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgb8,
        )
    })
}

/// The bytes `encode` writes.
fn encoded_with(encode: impl FnOnce(Cursor<&mut Vec<u8>>) -> image::ImageResult<()>) -> Vec<u8> {
    let mut out = Vec::new();
    encode(Cursor::new(&mut out)).unwrap();
    out
}

/// The card's two sides: the photo full bleed (turned by `angle`), and eleven lines of text.
fn sides(angle: f64) -> [Value; 2] {
    let front = json!({"type": "image", "sideNum": 1, "templateCode": "businesscard_full_image_landscape",
        "data": [{"type": "imageData", "linkId": "variable_image_front", "resourceUri": PHOTO_URI,
        "imageBox": {"center": {"x": 44, "y": 29.5}, "width": 96, "height": 72, "angle": angle}}]});
    [front, cases::text_side()]
}

fn press_input(sides: &[Value; 2], image: ImageInput<'_>, proof: bool) -> Vec<u8> {
    let pages: Vec<PressPageInput> = sides
        .iter()
        .map(|side| PressPageInput {
            side: side.clone(),
            copies: 50,
        })
        .collect();
    let options = PressOptions {
        title: "Order 1042".into(),
        created: 1_795_748_645,
        marks: !proof,
        slug: (!proof).then(|| "Order 1042".to_owned()),
        die_line_radius: None,
        proof_dpi: proof.then_some(150.0),
        guides: proof,
        condition_name: None,
        condition: None,
        limits: PreflightLimits::default(),
        ink: Default::default(),
    };
    press_frame(&pages, &options, &[(PHOTO_URI, image)], None)
}

fn draw_inputs(sides: &[Value; 2], image: ImageInput<'_>) -> Vec<Vec<u8>> {
    sides
        .iter()
        .map(|side| {
            let header = RenderHeaderInput {
                side: side.clone(),
                overlays: vec![],
                box_type: BoxType::Bleed,
                max_side: 1024,
                partial: false,
            };
            render_frame(&header, &[(PHOTO_URI, image)])
        })
        .collect()
}

/// A `Draw` answer encoded as the host encodes it.
fn encoded(drawn: &[u8]) -> Vec<u8> {
    read_drawn(drawn).unwrap().1.encode_png().unwrap()
}

/// Bytes of the embedded font programs (FontFile2 streams, as stored): each one's
/// dictionary has `/Length1` (its size inflated) beside `/Length` (as stored).
fn font_bytes(pdf: &[u8]) -> usize {
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let number = |after: &[u8]| -> usize {
        let digits: Vec<u8> = after
            .iter()
            .skip_while(|b| b.is_ascii_whitespace())
            .take_while(|b| b.is_ascii_digit())
            .copied()
            .collect();
        String::from_utf8(digits).unwrap().parse().unwrap_or(0)
    };
    let mut total = 0;
    let mut rest = pdf;
    while let Some(at) = find(rest, b"/Length1 ") {
        let dict_start = rest[..at].windows(2).rposition(|w| w == b"<<").unwrap_or(0);
        let dict_end = at + find(&rest[at..], b">>").unwrap_or(0);
        let dict = &rest[dict_start..dict_end];
        if let Some(length) = find(dict, b"/Length ") {
            total += number(&dict[length + 8..]);
        }
        rest = &rest[at + 9..];
    }
    total
}

fn press_benches(c: &mut Criterion) {
    let mut native = cases::native_engine();
    let module = cases::guest_module();
    let wasm = cases::wasm_engine(&EngineHost::config(), &module, true);
    let photo = twelve_megapixels(0x2545_f491_4f6c_dd1d);
    let photo_jpeg = jpeg(&photo);
    let small = image::imageops::resize(&photo, 2000, 1500, image::imageops::FilterType::Triangle);
    let photo_png = png(&small);
    eprintln!(
        "12 MP JPEG: {} bytes; 3 MP PNG: {} bytes",
        photo_jpeg.len(),
        photo_png.len()
    );
    let plain = ImageInput {
        bytes: &photo_jpeg,
        enhance: false,
    };
    // (name, the Press call, the two Draw calls)
    type Case<'a> = (&'a str, Vec<u8>, Vec<Vec<u8>>);
    let cases: [Case; 5] = [
        (
            "12 MP JPEG",
            press_input(&sides(0.0), plain, false),
            draw_inputs(&sides(0.0), plain),
        ),
        (
            "12 MP JPEG, enhanced",
            press_input(
                &sides(0.0),
                ImageInput {
                    enhance: true,
                    ..plain
                },
                false,
            ),
            draw_inputs(
                &sides(0.0),
                ImageInput {
                    enhance: true,
                    ..plain
                },
            ),
        ),
        (
            "3 MP PNG",
            press_input(
                &sides(0.0),
                ImageInput {
                    bytes: &photo_png,
                    enhance: false,
                },
                false,
            ),
            draw_inputs(
                &sides(0.0),
                ImageInput {
                    bytes: &photo_png,
                    enhance: false,
                },
            ),
        ),
        (
            "12 MP JPEG turned 5 degrees",
            press_input(&sides(5.0), plain, false),
            draw_inputs(&sides(5.0), plain),
        ),
        (
            "12 MP JPEG, proof at 150 dpi",
            press_input(&sides(0.0), plain, true),
            draw_inputs(&sides(0.0), plain),
        ),
    ];
    // The PNG renders above find the decoded photo in the engine's image cache after the
    // first iteration. Cold: two photos in turn, which the cache cannot hold together, so
    // every render decodes its photo, as the first render of a new order's photo does.
    let other_jpeg = jpeg(&twelve_megapixels(0x9e37_79b9_7f4a_7c15));
    let other = ImageInput {
        bytes: &other_jpeg,
        ..plain
    };
    let cold = [
        draw_inputs(&sides(0.0), plain),
        draw_inputs(&sides(0.0), other),
    ];
    let mut group = c.benchmark_group("2-sided businesscard, 12 MP JPEG, photo not cached");
    let mut turn = 0;
    group.bench_function("two 1024 px PNGs, native", |b| {
        b.iter(|| {
            turn += 1;
            for draw in &cold[turn % 2] {
                encoded(&native.call(Op::Draw, draw).unwrap());
            }
        })
    });
    group.bench_function("two 1024 px PNGs, wasmtime", |b| {
        b.iter(|| {
            turn += 1;
            for draw in &cold[turn % 2] {
                wasm.call_blocking_with(Op::Draw, draw, encoded).unwrap();
            }
        })
    });
    group.finish();

    for (name, press, draws) in &cases {
        let (report, pdf) = read_pressed(&native.call(Op::Press, press).unwrap()).unwrap();
        let (_, wasm_pdf) = read_pressed(&wasm.call_blocking(Op::Press, press).unwrap()).unwrap();
        assert_eq!(pdf, wasm_pdf, "{name}: native and wasm press files differ");
        assert_eq!(
            report.pages[0].images[0].width,
            if name.contains("PNG") { 2000 } else { 4000 }
        );
        let fonts = font_bytes(&pdf);
        // The plain JPEG is embedded as it is; the other paths re-encode it.
        let embedded_image = pdf
            .windows(photo_jpeg.len())
            .any(|w| w == photo_jpeg.as_slice())
            .then_some(photo_jpeg.len());
        match embedded_image {
            Some(image) => eprintln!(
                "{name}: PDF {} bytes = {:.3} x (image {} + font programs {} bytes)",
                pdf.len(),
                pdf.len() as f64 / (image + fonts) as f64,
                image,
                fonts
            ),
            None => eprintln!(
                "{name}: PDF {} bytes (image re-encoded), font programs {fonts} bytes",
                pdf.len()
            ),
        }
        let mut group = c.benchmark_group(format!("2-sided businesscard, {name}"));
        group.bench_function("press file, native", |b| {
            b.iter(|| native.call(Op::Press, press).unwrap())
        });
        group.bench_function("two 1024 px PNGs, native", |b| {
            b.iter(|| {
                for draw in draws {
                    encoded(&native.call(Op::Draw, draw).unwrap());
                }
            })
        });
        group.bench_function("press file, wasmtime", |b| {
            b.iter(|| wasm.call_blocking(Op::Press, press).unwrap())
        });
        group.bench_function("two 1024 px PNGs, wasmtime", |b| {
            b.iter(|| {
                for draw in draws {
                    wasm.call_blocking_with(Op::Draw, draw, encoded).unwrap();
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(4)).sample_size(10);
    targets = press_benches
}
criterion_main!(benches);
