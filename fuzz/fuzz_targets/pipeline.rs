//! The whole driver down to C++ with the sync check, in-process: exit status 0 or 1 only
//! (101 is a caught panic, i.e. a bug).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args: Vec<String> = ["ptoc", "--emit", "cpp", "--verify-sync", "-"].iter().map(|s| s.to_string()).collect();
    let out = ptoc::driver::run(&args, data);
    assert!(out.code == 0 || out.code == 1, "status {}:\n{}", out.code, String::from_utf8_lossy(&out.stderr));
});
