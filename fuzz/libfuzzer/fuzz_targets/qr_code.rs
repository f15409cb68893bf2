#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| presspack_fuzz::qr_code(data));
