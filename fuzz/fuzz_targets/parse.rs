//! Lexer + parser on arbitrary bytes: any result is fine, a panic is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(source) = std::str::from_utf8(data) {
        let _ = ptoc::parser::parse(source);
    }
});
