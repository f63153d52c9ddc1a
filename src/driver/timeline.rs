//! `--timeline DIR`: the cycle model's schedule of each kernel function as a Chrome trace
//! (`<f>.trace.json`, opens in Perfetto or chrome://tracing) and as an SVG swimlane picture
//! (`<f>.svg`), both with one lane per pipe (docs/cli.md, docs/performance.md).
//!
//! Trace: `ts`/`dur` are cycles (shown as µs by the viewers), one thread (`tid`) per pipe
//! named by a metadata event, one complete event (`"ph":"X"`) per instruction, and each
//! set→wait pair as a flow (`"ph":"s"` on the set pipe at the signal, `"ph":"f"` on the wait
//! pipe where it resumes).

use std::fmt::Write;

use crate::analysis::cycles::{self, Estimate, PIPES};
use crate::backend::Backend;
use crate::ir::{FunctionType, PipeType, Program};

/// Slices drawn in one SVG at most (a long loop's picture stays a few megabytes).
const SVG_MAX_SLICES: usize = 20_000;

/// The files of every kernel function of `prog`: (relative path, text), in function order.
pub fn files(prog: &Program, backend: Backend, model: &cycles::Options) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for f in prog.functions.iter().filter(|f| f.kind != FunctionType::Orchestration) {
        let est = cycles::estimate(f, backend, model);
        out.push((format!("{}.trace.json", f.name), chrome_trace(&f.name, &est)));
        out.push((format!("{}.svg", f.name), svg(&f.name, &est)));
    }
    out
}

use super::stats::json_str;

fn tid(p: PipeType) -> usize {
    PIPES.iter().position(|&q| q == p).map_or(0, |i| i + 1)
}

/// The Chrome trace JSON of one kernel's schedule.
pub fn chrome_trace(kernel: &str, est: &Estimate) -> String {
    let mut ev: Vec<String> = Vec::new();
    ev.push(format!(
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{{\"name\":{}}}}}",
        json_str(&format!("kernel {kernel} ({} cycles)", est.cycles))
    ));
    for p in PIPES {
        ev.push(format!(
            "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}",
            tid(p),
            cycles::pipe_label(p)
        ));
    }
    for s in &est.slices {
        let args = match s.shape {
            Some(sh) => format!(",\"args\":{{\"rows\":{},\"cols\":{},\"elem_bytes\":{}}}", sh.rows, sh.cols, sh.bytes),
            None => String::new(),
        };
        ev.push(format!(
            "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":{},\"dur\":{}{args}}}",
            s.name,
            cycles::pipe_label(s.pipe),
            tid(s.pipe),
            s.start,
            s.end - s.start
        ));
    }
    for (i, fl) in est.flows.iter().enumerate() {
        let name = format!("{}->{} #{}", fl.event.set_pipe.name(), fl.event.wait_pipe.name(), fl.event.id);
        ev.push(format!(
            "{{\"name\":\"{name}\",\"cat\":\"sync\",\"ph\":\"s\",\"id\":{i},\"pid\":1,\"tid\":{},\"ts\":{}}}",
            tid(fl.event.set_pipe),
            fl.from
        ));
        ev.push(format!(
            "{{\"name\":\"{name}\",\"cat\":\"sync\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{i},\"pid\":1,\"tid\":{},\"ts\":{}}}",
            tid(fl.event.wait_pipe),
            fl.to
        ));
    }
    format!(
        "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"kernel\":{},\"cycles\":{},\"bound\":{},\"time_unit\":\"cycle\"}},\"traceEvents\":[\n{}\n]}}\n",
        json_str(kernel),
        est.cycles,
        est.bound(),
        ev.join(",\n")
    )
}

fn color(p: PipeType) -> &'static str {
    match p {
        PipeType::Mte2 => "#4e79a7",
        PipeType::Mte1 => "#76b7b2",
        PipeType::M => "#e15759",
        PipeType::Fix => "#b07aa1",
        PipeType::V => "#59a14f",
        PipeType::Mte3 => "#f28e2b",
        _ => "#9c9c9c",
    }
}

/// The SVG swimlane picture of one kernel's schedule: a lane per pipe that runs anything,
/// slices as boxes (named when wide enough), set→wait flows as grey lines, a cycle axis.
pub fn svg(kernel: &str, est: &Estimate) -> String {
    let lanes: Vec<PipeType> = PIPES.iter().copied().filter(|p| est.busy.get(p).is_some_and(|&b| b > 0)).collect();
    let (left, top, lane_h, width) = (70.0, 34.0, 26.0, 960.0);
    let total = est.cycles.max(1) as f64;
    let x = |t: u64| left + t as f64 / total * width;
    let lane_y = |p: PipeType| top + lanes.iter().position(|&q| q == p).unwrap_or(0) as f64 * lane_h;
    let height = top + lanes.len() as f64 * lane_h + 30.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">",
        left + width + 20.0
    );
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let title = format!(
        "{kernel}: {} cycles (critical-pipe bound {}, cycles/bound {:.2}) — ptoc cycle model",
        est.cycles,
        est.bound(),
        est.cycles as f64 / est.bound().max(1) as f64
    );
    let _ = writeln!(s, "<text x=\"{left}\" y=\"18\" font-size=\"13\">{}</text>", xml(&title));
    for &p in &lanes {
        let y = lane_y(p);
        let _ = writeln!(
            s,
            "<text x=\"4\" y=\"{:.1}\">{}</text><line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/>",
            y + lane_h * 0.62,
            cycles::pipe_label(p),
            y + lane_h,
            left + width,
            y + lane_h
        );
    }
    for sl in est.slices.iter().filter(|sl| sl.end > sl.start).take(SVG_MAX_SLICES) {
        let (x0, x1, y) = (x(sl.start), x(sl.end), lane_y(sl.pipe));
        let w = (x1 - x0).max(0.5);
        let _ = write!(
            s,
            "<rect x=\"{x0:.2}\" y=\"{:.1}\" width=\"{w:.2}\" height=\"{:.1}\" fill=\"{}\" stroke=\"white\" stroke-width=\"0.3\"><title>{} {}..{}</title></rect>",
            y + 3.0,
            lane_h - 6.0,
            color(sl.pipe),
            sl.name,
            sl.start,
            sl.end
        );
        if w > sl.name.len() as f64 * 6.5 + 4.0 {
            let _ = write!(
                s,
                "<text x=\"{:.2}\" y=\"{:.1}\" fill=\"white\">{}</text>",
                x0 + 2.0,
                y + lane_h * 0.62,
                sl.name
            );
        }
        s.push('\n');
    }
    for fl in est.flows.iter().take(SVG_MAX_SLICES) {
        if lanes.contains(&fl.event.set_pipe) && lanes.contains(&fl.event.wait_pipe) {
            let _ = writeln!(
                s,
                "<line x1=\"{:.2}\" y1=\"{:.1}\" x2=\"{:.2}\" y2=\"{:.1}\" stroke=\"#555\" stroke-width=\"0.6\" stroke-opacity=\"0.6\"/>",
                x(fl.from),
                lane_y(fl.event.set_pipe) + lane_h / 2.0,
                x(fl.to),
                lane_y(fl.event.wait_pipe) + lane_h / 2.0
            );
        }
    }
    let axis_y = top + lanes.len() as f64 * lane_h + 14.0;
    for k in 0..=4u64 {
        let t = est.cycles * k / 4;
        let _ =
            writeln!(s, "<text x=\"{:.1}\" y=\"{axis_y:.1}\" text-anchor=\"middle\" fill=\"#555\">{t}</text>", x(t));
    }
    s.push_str("</svg>\n");
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
