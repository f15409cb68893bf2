#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| presspack_fuzz::png_rows(data));
