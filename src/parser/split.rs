//! Parallel parsing on token ranges: the file is lexed once, and the lines of its program
//! class's body are cut into parts at method boundaries, which the grammar's `ClassPart` start
//! symbol parses on worker threads while the lexer goes on. The rest of the file (imports, the
//! class header, anything after the class) is parsed by the `Module` start symbol, with one
//! [`Tok::Parts`] token standing for the class body; the parts are put in its place afterwards.
//!
//! The cut is made on layout tokens, never on text: a part starts at a line of the class body
//! (one INDENT deep) that begins with `@` or `def` and does not follow a decorator line. Such a
//! line can only start a new class-level line of the grammar (`ClassLine`), so concatenating the
//! parts' results gives the tree the whole class body parses to — the grammar is LR, hence
//! unambiguous. Only error-free text is read this way: any lexical problem or any problem in a
//! part or the head makes [`parse`] return `None`, and the caller parses the file whole, which
//! reports every problem exactly as one parse of the file does (error recovery, the order of
//! the messages and which ones are consequences of others depend on the whole token stream).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, PoisonError};

use super::build::Problem;
use super::grammar;
use crate::ast::{ClassStmt, Item, Module};
use crate::diag::Span;
use crate::lexer::{Layout, Spanned, Tok};

/// Stack of each parsing thread: the grammar's actions and the syntax tree's `Drop` recurse on
/// deep expressions (as deep as the compilation thread allows, see `driver::run_with`).
const STACK: usize = 1 << 30;

/// A part of the class body: its position among the parts and its tokens.
type Job<'s> = (usize, Vec<Spanned<'s>>);

/// The syntax tree of `source`, parsed on `jobs` threads besides the lexing one; `None` when
/// the text has any lexical or syntax problem (the caller parses it whole to report them).
pub(super) fn parse(source: &str, jobs: usize) -> Option<Module> {
    let (tx, rx) = channel::<Job<'_>>();
    let rx = Mutex::new(rx);
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.max(1))
            .filter_map(|k| {
                let builder = std::thread::Builder::new().name(format!("ptoc-parse-{k}")).stack_size(STACK);
                builder.spawn_scoped(scope, || parse_parts(&rx, &failed)).ok()
            })
            .collect();
        let mut cut = Cut::new(tx);
        let mut layout = Layout::new(source);
        let mut fatal = false;
        for t in layout.by_ref() {
            match t {
                Ok(t) => cut.push(t),
                Err(_) => {
                    fatal = true;
                    break;
                }
            }
        }
        let (head, class_name, sent) = cut.finish();
        let lexed = layout.finish();
        if fatal || !lexed.diags.is_empty() {
            failed.store(true, Ordering::Relaxed);
        }
        // The head is parsed here while the workers finish the parts.
        let module = (!failed.load(Ordering::Relaxed)).then(|| parse_head(head)).flatten();
        if module.is_none() {
            failed.store(true, Ordering::Relaxed);
        }
        let mut parts = Vec::with_capacity(sent);
        for w in workers {
            match w.join() {
                Ok(done) => parts.extend(done),
                Err(_) => failed.store(true, Ordering::Relaxed),
            }
        }
        if failed.load(Ordering::Relaxed) || parts.len() != sent {
            return None;
        }
        let mut module = module?;
        module.header = lexed.header;
        module.span = Span::new(0, source.len());
        if let Some(name_lo) = class_name {
            parts.sort_unstable_by_key(|(i, _)| *i);
            fill_class_body(&mut module, name_lo, parts)?;
        }
        Some(module)
    })
}

/// A worker: parses parts until the channel is closed; the results with their positions.
fn parse_parts<'s>(rx: &Mutex<Receiver<Job<'s>>>, failed: &AtomicBool) -> Vec<(usize, Vec<ClassStmt>)> {
    let mut done = Vec::new();
    loop {
        let job = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok((i, toks)) = job else { break };
        if failed.load(Ordering::Relaxed) {
            continue;
        }
        let mut problems = Vec::new();
        match grammar::ClassPartParser::new().parse(&mut problems, toks.into_iter().map(Ok)) {
            Ok(lines) if problems.is_empty() => done.push((i, lines)),
            _ => failed.store(true, Ordering::Relaxed),
        }
    }
    done
}

/// The file without its class body's lines.
fn parse_head(head: Vec<Spanned<'_>>) -> Option<Module> {
    let mut problems: Vec<Problem<'_>> = Vec::new();
    let module = grammar::ModuleParser::new().parse(&mut problems, head.into_iter().map(Ok)).ok()?;
    problems.is_empty().then_some(module)
}

/// Puts the parts' lines into the body of the class whose name starts at `name_lo` (the one
/// whose body was cut out), and widens its span to them as the grammar's `class_def` does.
fn fill_class_body(module: &mut Module, name_lo: usize, parts: Vec<(usize, Vec<ClassStmt>)>) -> Option<()> {
    let class = module.items.iter_mut().find_map(|item| match item {
        Item::Class(c) if c.name.span.lo as usize == name_lo => Some(c),
        _ => None,
    })?;
    class.body = parts.into_iter().flat_map(|(_, lines)| lines).collect();
    let end = match class.body.last() {
        Some(ClassStmt::Function(f)) => f.span,
        Some(ClassStmt::Other(s)) => s.span,
        None => Span::NONE,
    };
    class.span = class.span.to(end);
    Some(())
}

/// Where the token stream is: before the program class's body, inside it, or after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Head,
    Body,
    After,
}

/// Cuts the token stream into the head and the parts of the first class body (see the module
/// comment), sending each part to the workers as soon as it is complete.
pub(super) struct Cut<'s> {
    tx: Sender<Job<'s>>,
    head: Vec<Spanned<'s>>,
    part: Vec<Spanned<'s>>,
    sent: usize,
    place: Place,
    /// INDENTs minus DEDENTs so far (in the head), or inside the class body (1 = class level).
    depth: usize,
    /// The next token starts a line.
    at_line_start: bool,
    /// The latest line of the file's outermost level starts with `class`; the offset of the
    /// token after it (the class's name).
    class_line: Option<usize>,
    /// The next token after `class` gives the class name's offset.
    after_class: bool,
    /// The latest class-level line of the body is a decorator (`@…`).
    decorator_line: bool,
    /// The name offset of the class whose body was cut out.
    cut_class: Option<usize>,
}

impl<'s> Cut<'s> {
    pub(super) fn new(tx: Sender<Job<'s>>) -> Cut<'s> {
        Cut {
            tx,
            head: Vec::new(),
            part: Vec::new(),
            sent: 0,
            place: Place::Head,
            depth: 0,
            at_line_start: true,
            class_line: None,
            after_class: false,
            decorator_line: false,
            cut_class: None,
        }
    }

    pub(super) fn push(&mut self, t: Spanned<'s>) {
        match self.place {
            Place::Body => self.push_body(t),
            Place::Head | Place::After => self.push_head(t),
        }
    }

    fn push_head(&mut self, t: Spanned<'s>) {
        let (lo, tok, _) = t;
        match tok {
            Tok::Indent => {
                let opens_class = self.depth == 0 && self.class_line.is_some() && self.place == Place::Head;
                self.depth += 1;
                self.head.push(t);
                if opens_class {
                    self.head.push((lo, Tok::Parts, lo));
                    self.place = Place::Body;
                    self.cut_class = self.class_line;
                    self.depth = 1;
                    self.at_line_start = true;
                    self.decorator_line = false;
                }
                return;
            }
            Tok::Dedent => self.depth = self.depth.saturating_sub(1),
            Tok::Newline => self.at_line_start = true,
            _ => {
                if self.after_class {
                    self.class_line = Some(lo);
                    self.after_class = false;
                }
                if self.at_line_start && self.depth == 0 {
                    self.class_line = None;
                    self.after_class = tok == Tok::Class;
                }
                self.at_line_start = false;
            }
        }
        self.head.push(t);
    }

    fn push_body(&mut self, t: Spanned<'s>) {
        let (_, tok, _) = t;
        match tok {
            Tok::Indent => self.depth += 1,
            Tok::Dedent if self.depth == 1 => {
                // The end of the class body.
                self.send();
                self.place = Place::After;
                self.depth = 0;
                self.class_line = None;
                self.head.push(t);
                return;
            }
            Tok::Dedent => self.depth -= 1,
            Tok::Newline => self.at_line_start = true,
            _ => {
                if self.at_line_start && self.depth == 1 {
                    let starts_part = matches!(tok, Tok::At | Tok::Def) && !self.decorator_line;
                    self.decorator_line = tok == Tok::At;
                    if starts_part {
                        self.send();
                    }
                }
                self.at_line_start = false;
            }
        }
        self.part.push(t);
    }

    /// Hands the part collected so far to the workers.
    fn send(&mut self) {
        if self.part.is_empty() {
            return;
        }
        // The next part is likely about as long as this one.
        let capacity = self.part.len();
        let part = std::mem::replace(&mut self.part, Vec::with_capacity(capacity));
        // A closed channel means every worker is gone; the count of results then falls short
        // of `sent` and the file is parsed whole.
        let _ = self.tx.send((self.sent, part));
        self.sent += 1;
    }

    /// The head's tokens, the name offset of the class whose body was cut out, and the number
    /// of parts sent. Closes the channel (the workers stop once it is drained).
    pub(super) fn finish(mut self) -> (Vec<Spanned<'s>>, Option<usize>, usize) {
        if self.place == Place::Body {
            // The body never ended (only with a lexical problem, which fails the parse anyway).
            self.send();
        }
        (self.head, self.cut_class, self.sent)
    }
}
