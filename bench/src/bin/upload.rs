//! Upload benchmark (docs/benchmarks.md): a 12-megapixel JPEG through uploadImage to all its
//! renditions, next to `vipsthumbnail` (libvips) making the same renditions in the same run,
//! and the server's peak memory. Run with `bench/upload.sh`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use image::ImageEncoder;

/// Uploads (and vipsthumbnail runs) measured; the median is reported.
const RUNS: usize = 5;
const WIDTH: u32 = 4000;
const HEIGHT: u32 = 3000;

/// A photo-like 12 MP JPEG: a real photo enlarged, with fine grain so that it does not
/// compress like a smooth enlargement.
fn twelve_megapixel_jpeg() -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let photo = image::open(root.join("tests/e2e/images/photo-astronaut.jpg"))
        .expect("the photo fixture")
        .resize_exact(WIDTH, HEIGHT, image::imageops::FilterType::Triangle)
        .into_rgb8();
    let mut pixels = photo.into_raw();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for value in pixels.iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *value = value.saturating_add((state % 7) as u8).saturating_sub(3);
    }
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92)
        .write_image(&pixels, WIDTH, HEIGHT, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

/// The same JPEG with a comment segment after SOI: new bytes (so no upload is a duplicate
/// of an earlier one), the same picture.
fn variant(jpeg: &[u8], n: usize) -> Vec<u8> {
    let comment = format!("presspack bench {n}");
    let length = (comment.len() + 2) as u16;
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xFE]);
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(comment.as_bytes());
    out.extend_from_slice(&jpeg[2..]);
    out
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn peak_memory_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// vipsthumbnail making the three resized renditions (the print rendition of an upright
/// JPEG is the file itself, for both).
fn vips_renditions(input: &Path, out_dir: &Path) -> Duration {
    let started = Instant::now();
    for size in [1024, 300, 150] {
        let status = Command::new("vipsthumbnail")
            .arg(input)
            .args(["--size", &size.to_string(), "-o"])
            .arg(out_dir.join(format!("r{size}.jpg[Q=90]")))
            .status()
            .expect("vipsthumbnail runs (apt-get install libvips-tools)");
        assert!(status.success());
    }
    started.elapsed()
}

#[tokio::main]
async fn main() {
    let jpeg = twelve_megapixel_jpeg();
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("photo.jpg");
    std::fs::write(&input, &jpeg).unwrap();

    let mut command = Command::new(presspack_bench::presspack_binary());
    command
        .arg("serve")
        .env("PRESSPACK_LISTEN", "127.0.0.1:0")
        .env("PRESSPACK_DATA_DIR", work.path().join("data"))
        // The load comes from one address; the benchmark measures uploads, not the limits.
        .env("PRESSPACK_UNSIGNED_RATE_LIMIT_PER_MINUTE", "0")
        .env("PRESSPACK_UNSIGNED_UPLOAD_BYTES_PER_HOUR", "0")
        .env("RUST_LOG", "warn");
    let server = presspack_bench::start(command);
    let address = &server.address;
    let endpoint = format!("{address}/api/service/");
    let idle_kib = peak_memory_kib(server.child.id());

    // One warm-up each, then the measured runs, alternating so both see the same machine.
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for n in 0..=RUNS {
        let bytes = variant(&jpeg, n);
        let started = Instant::now();
        let item = presspack_bench::upload(&endpoint, bytes).await;
        let elapsed = started.elapsed();
        assert_eq!(item["imageItems"].as_array().map(Vec::len), Some(4));
        let vips = vips_renditions(&input, work.path());
        if n > 0 {
            ours.push(elapsed);
            theirs.push(vips);
        }
    }
    let peak_kib = peak_memory_kib(server.child.id());
    drop(server);

    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "12 MP JPEG ({} bytes, {WIDTH} x {HEIGHT}) to print, preview, small-preview and thumbnail; median of {RUNS}\n",
        jpeg.len()
    );
    println!("| | wall time | ratio to vipsthumbnail |");
    println!("|---|---|---|");
    println!(
        "| Presspack uploadImage over HTTP (wasm engine) | {:.0} ms | {:.2}x |",
        ours.as_secs_f64() * 1000.0,
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
    println!(
        "| vipsthumbnail, three sizes | {:.0} ms | 1.00x |",
        theirs.as_secs_f64() * 1000.0
    );
    println!(
        "\nserver peak resident memory: {} MiB (idle after start: {} MiB)",
        peak_kib / 1024,
        idle_kib / 1024
    );
}
