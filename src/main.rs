//! `ptoc`: the command-line entry. All the work is in [`ptoc::driver`]; this only connects it
//! to the process (arguments, stdin, terminal detection, exit status).

use std::io::IsTerminal;

/// mimalloc instead of the system allocator (docs/performance.md, "Allocator and output"): allocation is a
/// fifth of the compiler's time with glibc's. `no_thp`: without it mimalloc backs its arenas
/// with transparent huge pages, which doubles the peak RSS of a small compilation. (With the
/// feature `python` the library declares the same allocator for the extension module,
/// src/python.rs, and a program has only one.)
#[cfg(not(feature = "python"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
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
    let code = ptoc::driver::deliver(out);
    // Everything is written and stdout flushed (`deliver`). `exit` would run mimalloc's exit
    // hook, which hands every arena back to the kernel page by page (4 ms after a 50k-line
    // compilation); the kernel takes the whole address space back at once anyway.
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process; nothing of this process runs after it.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code);
}
