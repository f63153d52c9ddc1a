//! `ptoc`: the command-line entry. All the work is in [`ptoc::driver`]; this only connects it
//! to the process (arguments, stdin, terminal detection, exit status).

use std::io::IsTerminal;

fn main() {
    tune_allocator();
    let mut args = Vec::new();
    for arg in std::env::args_os() {
        match arg.into_string() {
            Ok(a) => args.push(a),
            Err(bad) => {
                eprintln!("error: argument {bad:?} is not valid UTF-8");
                std::process::exit(ptoc::driver::exit::USAGE);
            }
        }
    }
    let mut stdin = std::io::stdin();
    let host = ptoc::driver::Host {
        stdin: &mut stdin,
        stderr_is_terminal: std::io::stderr().is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    };
    let out = ptoc::driver::run_with(&args, host);
    std::process::exit(ptoc::driver::deliver(out));
}


/// glibc's allocator returns freed memory to the system eagerly (trimming the heap top, and
/// mapping blocks over 128 KiB separately). Function-at-a-time compilation frees each function's
/// IR before building the next, so by default the heap of every thread shrinks and grows again
/// for every function (hundreds of `mprotect` calls and page faults). Keeping freed memory costs
/// little: peak memory is one function's IR per thread (docs/performance.md, "Allocator").
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_allocator() {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_TRIM_THRESHOLD: i32 = -1;
    const M_MMAP_THRESHOLD: i32 = -3;
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread
    // exists, and a refused value (return 0) leaves the default in place.
    unsafe {
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_allocator() {}
