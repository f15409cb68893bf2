//! Fuzz targets for Presspack's input parsers, and a small mutation fuzzer that runs them on
//! the stable toolchain. Each target takes arbitrary bytes and must never panic: bad input is
//! an error value. The targets are plain functions; `fuzz/libfuzzer` wraps each in a
//! cargo-fuzz `fuzz_target!` for coverage-guided runs on nightly.
//!
//! Seeds are the project's own fixtures; inputs that once crashed a target are kept under
//! `fuzz/regressions/<target>/` and replayed by `cargo test` (tests/regressions.rs).

use std::path::{Path, PathBuf};

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, header};
use presspack::http::auth::oauth::parse_authorization;
use presspack::http::rpc::{BodyEncoding, Params};
use presspack_engine::ingest::{IngestRequest, ingest};
use presspack_engine::model::{Catalogue, Pack, Side, Template};
use presspack_engine::qr::{QrContent, QrRequest};
use presspack_engine::raster::{decode_image, encode_png};
use presspack_engine::render::{Engine, MeasureRequest};
use presspack_engine::text::{FontBook, FontCatalogue, builtin_face_bytes};

/// A named target, the function it fuzzes and the files its seeds come from.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
    /// Seed files, relative to the workspace root.
    pub seeds: &'static [&'static str],
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "params",
        run: params,
        seeds: &[
            "fuzz/seeds/params-form.txt",
            "fuzz/seeds/params-multipart.txt",
        ],
    },
    Target {
        name: "pack_json",
        run: pack_json,
        seeds: &[
            "assets/samples/sample-pack.json",
            "fuzz/seeds/pack-full.json",
        ],
    },
    Target {
        name: "template_xml",
        run: template_xml,
        seeds: &[
            "engine/tests/scenes/templates/sample_all_items.xml",
            "engine/tests/scenes/templates/sticker_test.xml",
            "assets/templates/businesscard_left_image_landscape.xml",
        ],
    },
    Target {
        name: "oauth_header",
        run: oauth_header,
        seeds: &["fuzz/seeds/oauth-header.txt"],
    },
    Target {
        name: "image",
        run: image,
        seeds: &[
            "tests/e2e/images/lineart-horse.png",
            "tests/e2e/images/jpeg-small.jpg",
            "tests/e2e/images/png8-trns-used.png",
            "tests/e2e/images/jpeg-exif-rotated.jpg",
            "tests/e2e/images/gif.gif",
        ],
    },
    Target {
        name: "text",
        run: text,
        seeds: &["fuzz/seeds/text-scripts.txt"],
    },
    Target {
        name: "font_face",
        run: font_face,
        seeds: &[
            "fonts/gelasio/Gelasio_400Regular.ttf",
            "fonts/texgyre-adventor/texgyreadventor-regular.otf",
            "fonts/noto/NotoSansArabic-Regular.ttf",
        ],
    },
    Target {
        name: "png_rows",
        run: png_rows,
        seeds: &[
            "fuzz/seeds/png-rows-flat.bin",
            "fuzz/seeds/png-rows-photo.bin",
        ],
    },
    Target {
        name: "qr_code",
        run: qr_code,
        seeds: &["fuzz/seeds/qr-contact.txt"],
    },
];

pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The request parameter parser: the bytes as a query string, then as a form body and as a
/// multipart body (boundary `X`) after it.
pub fn params(data: &[u8]) {
    let _ = Params::from_query(Some(&String::from_utf8_lossy(data)));
    // The bodies are read into parameters of their own, whatever the query parser said.
    let mut params = Params::from_query(None).expect("no query string is valid");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    for content_type in [
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=X",
    ] {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        let encoding = BodyEncoding::of(&headers).expect("a supported content type");
        let _ = runtime.block_on(params.add_body(encoding, Bytes::copy_from_slice(data)));
    }
    let _ = params.json::<Side>("side", presspack::domain::error::ErrorCode::InvalidSide);
}

/// Pack JSON, and what is read back out of it.
pub fn pack_json(data: &[u8]) {
    let product = Catalogue::builtin()
        .product("businesscard")
        .expect("business cards");
    if let Ok(pack) = Pack::parse(&String::from_utf8_lossy(data), "pack", product) {
        let json = serde_json::to_string(&pack).expect("a pack serialises");
        Pack::parse(&json, "pack", product).expect("a serialised pack reads back");
    }
}

/// Template XML.
pub fn template_xml(data: &[u8]) {
    let _ = Template::parse(&String::from_utf8_lossy(data));
}

/// The OAuth `Authorization` header parser.
pub fn oauth_header(data: &[u8]) {
    let _ = parse_authorization(&String::from_utf8_lossy(data));
}

/// Image decoding inside the engine: the upload checks (header facts, limits, decoding,
/// renditions) and the renderer's decoder. PDF input is left out: hayro can recurse deeply on
/// hostile files, which in production runs inside the wasm sandbox's limits (docs/fuzzing.md).
pub fn image(data: &[u8]) {
    if data.starts_with(b"%PDF") {
        return;
    }
    let request = IngestRequest {
        max_pixels: 4_000_000,
        max_side: 4096,
        min_jpeg_quality: 50,
        max_decode_bytes: 256 * 1024 * 1024,
    };
    let _ = ingest(data, &request);
    let _ = decode_image(data);
}

/// Text as the engine shapes, breaks and measures it: any string (bytes that are not UTF-8
/// arrive as U+FFFD, as a surrogate would), bidi controls, runs of marks, every script, in a
/// Latin family (so the fallback faces take the rest), unwrapped and wrapped, narrowly too.
pub fn text(data: &[u8]) {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    let engine = ENGINE.get_or_init(|| Engine::new(FontBook::builtin()));
    let text = String::from_utf8_lossy(data).into_owned();
    for (family, wrapping_width) in [("sans", None), ("georgia", Some(30.0)), ("mono", Some(0.5))] {
        let _ = engine.measure(&MeasureRequest {
            text: text.clone(),
            font_family: family.into(),
            bold: false,
            italic: true,
            size: 3.5,
            wrapping_width,
            leading: wrapping_width.map(|_| 1.2),
        });
    }
}

/// A face file as an operator's fonts directory may hold it, truncated or hostile: the only
/// face of a family, text shaped and measured in it (the fallbacks may take what it lacks).
pub fn font_face(data: &[u8]) {
    let catalogue = FontCatalogue::parse(
        r#"{"families": {"operator": {"regular": "operator.ttf"},
                         "sans": {"regular": "liberation/LiberationSans-Regular.ttf"}},
            "fallback": ["sans"]}"#,
    )
    .expect("the catalogue reads");
    let sans = builtin_face_bytes()
        .iter()
        .find(|(name, _)| *name == "liberation/LiberationSans-Regular.ttf")
        .expect("Liberation Sans is built in");
    let faces = [
        ("operator.ttf".to_owned(), std::sync::Arc::from(data)),
        (sans.0.to_owned(), sans.1.clone()),
    ];
    if let Ok(book) = FontBook::new(&catalogue, faces) {
        let _ = Engine::new(book).measure(&MeasureRequest {
            text: "Ада Lovelace ffi مرحبا 0123".into(),
            font_family: "operator".into(),
            bold: false,
            italic: false,
            size: 3.5,
            wrapping_width: Some(20.0),
            leading: None,
        });
    }
}

/// The engine's PNG encoder, whose own deflate coder (`FlatDeflate`) takes flat artwork and
/// fdeflate the rest: any rows (the first byte picks the width, the second the colour type)
/// encode to a PNG that the `png` crate, an independent decoder, reads back as the same rows.
pub fn png_rows(data: &[u8]) {
    let [width, colour, rows @ ..] = data else {
        return;
    };
    let width = u32::from(*width) + 1;
    let colour = match colour % 3 {
        0 => png::ColorType::Grayscale,
        1 => png::ColorType::Rgba,
        _ => png::ColorType::Rgb,
    };
    let row_bytes = width as usize * colour.samples();
    let height = (rows.len() / row_bytes).min(512);
    if height == 0 {
        return;
    }
    let rows = &rows[..height * row_bytes];
    let encoded = encode_png(width, height as u32, colour, rows).expect("whole rows encode");
    let mut reader = png::Decoder::new(std::io::Cursor::new(encoded))
        .read_info()
        .expect("the PNG reads");
    let mut decoded = vec![0; reader.output_buffer_size().expect("a size")];
    let frame = reader.next_frame(&mut decoded).expect("its rows decode");
    assert_eq!(&decoded[..frame.buffer_size()], rows, "the rows come back");
}

/// QR code requests (the editor's), the bytes split at NUL into the link and the contact
/// fields, as a link when the first byte is even: a refusal is an error value, and a code's
/// modules fill its square and carry no control character but the vCard's line ends.
pub fn qr_code(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut fields = text.split('\0').map(str::to_owned);
    let mut next = || fields.next().unwrap_or_default();
    let kind = match data.first() {
        Some(byte) if byte % 2 == 0 => "link",
        _ => "contact",
    };
    let request = QrRequest {
        kind: kind.to_owned(),
        url: next(),
        name: next(),
        job_title: next(),
        organisation: next(),
        phone: next(),
        email: next(),
        website: next(),
    };
    if let Ok(content) = QrContent::try_from(request)
        && let Ok(matrix) = content.encode()
    {
        assert_eq!(matrix.modules.len(), (matrix.size * matrix.size) as usize);
        let controls = matrix.payload.chars().filter(|c| c.is_control());
        assert!(controls.into_iter().all(|c| c == '\r' || c == '\n'));
    }
}

/// A small, fast, seedable generator (xorshift64*): runs are repeatable from their seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Bytes that parsers treat specially, for insertion.
const INTERESTING: &[&[u8]] = &[
    b"\0",
    b"\xff",
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b"<",
    b">",
    b"&",
    b"%",
    b"=",
    b",",
    b"\\",
    b"-1",
    b"1e309",
    b"99999999999",
    b"\r\n",
    b"--X\r\n",
    b"</",
    b"&#x0;",
    b"\xef\xbf\xbd",
];

/// A mutation of `input`: a few flips, insertions, deletions, duplications or splices with
/// `other` (another seed).
pub fn mutate(input: &[u8], other: &[u8], rng: &mut Rng, max_len: usize) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] = rng.next_u64() as u8;
            }
            2 => {
                let token = INTERESTING[rng.below(INTERESTING.len())];
                data.splice(at..at, token.iter().copied());
            }
            3 if at < data.len() => {
                let end = (at + 1 + rng.below(32)).min(data.len());
                data.drain(at..end);
            }
            4 if at < data.len() => {
                let end = (at + 1 + rng.below(64)).min(data.len());
                let chunk = data[at..end].to_vec();
                data.splice(at..at, chunk);
            }
            5 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + 1 + rng.below(128)).min(other.len());
                data.splice(at..at, other[from..end].iter().copied());
            }
            _ => data.truncate(at),
        }
    }
    data.truncate(max_len);
    data
}

/// The seeds of `target`, read from the workspace.
pub fn seeds(target: &Target) -> Vec<Vec<u8>> {
    target
        .seeds
        .iter()
        .map(|path| {
            let path = workspace().join(path);
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// The inputs kept under `fuzz/regressions/<target>/`.
pub fn regressions(target: &Target) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = workspace().join("fuzz/regressions").join(target.name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter(|path| path.is_file())
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

/// Runs `target` on `input`; the panic message if it panicked.
pub fn run_once(target: &Target, input: &[u8]) -> Option<String> {
    std::panic::catch_unwind(|| (target.run)(input))
        .err()
        .map(|panic| {
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into())
        })
}
