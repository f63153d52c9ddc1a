//! Parallel parsing on token ranges: the file is lexed once, and the lines of its program
//! class's body are cut into parts at method boundaries, which the grammar's `ClassPart` start
//! symbol parses on worker threads while the lexer goes on. [`parse_in_parts`] hands each parsed
//! part to its reader on the worker, and tells a [`Listener`] on the lexing thread what it has
//! read before: the text before the class body, and each part's header (its lines up to its
//! first INDENT: a method's decorators and `def` line, which the same start symbol parses as a
//! method with an empty body) — lowering uses this to lower methods as they are parsed
//! (`lower::stream`). The rest of the file (imports, the
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
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender, TrySendError};
use std::sync::{Mutex, PoisonError};

use super::build::Problem;
use super::grammar;
use crate::ast::{ClassStmt, Item, Module};
use crate::diag::Span;
use crate::lexer::{Layout, Spanned, Tok};

/// Stack of each parsing thread: the grammar's actions and the syntax tree's `Drop` recurse on
/// deep expressions (as deep as the compilation thread allows, see `driver::run_with`).
const STACK: usize = 1 << 30;

/// Parts waiting for a worker, per worker: when the workers fall that far behind, the lexing
/// thread parses the part in hand itself, so the tokens in flight stay a few parts' worth (a
/// token takes 24 bytes, the whole 50,000-line benchmark's 34 MB).
const QUEUED_PER_WORKER: usize = 2;

/// What the lexing thread tells the reader of a file read in parts ([`parse_in_parts`]), in
/// file order, while the workers parse the parts.
pub trait Listener {
    /// What the lexing thread hands a part's worker along with its tokens.
    type Ticket: Send;
    /// The text before the program class's body, parsed (its body stands empty): before any part.
    fn head(&mut self, head: &Module);
    /// Part `k`'s first lines, parsed: its decorators and `def` line (a function with an empty
    /// body), or the whole part when it has no indented block.
    fn header(&mut self, k: usize, lines: Vec<ClassStmt>) -> Self::Ticket;
    /// The whole file without the class body's lines, once the lexer is done (parts may still
    /// be in the workers' hands).
    fn tail(&mut self, module: &Module);
}

/// A part of the class body: its position among the parts, its tokens and its ticket.
type Job<U> = (usize, Vec<Spanned>, U);

/// The syntax tree of `source`, parsed on `jobs` threads besides the lexing one; `None` when
/// the text has any lexical or syntax problem (the caller parses it whole to report them).
pub(super) fn parse(source: &str, jobs: usize) -> Option<Module> {
    /// Only the parts' lines are wanted.
    struct Lines;
    impl Listener for Lines {
        type Ticket = ();
        fn head(&mut self, _: &Module) {}
        fn header(&mut self, _: usize, _: Vec<ClassStmt>) {}
        fn tail(&mut self, _: &Module) {}
    }
    let (mut module, parts) = parse_in_parts(source, jobs, &mut Lines, &|_, lines, ()| lines)?;
    if let Some(name_lo) = parts.class_name {
        fill_class_body(&mut module, name_lo, parts.outputs)?;
    }
    Some(module)
}

/// The parts of a file read by [`parse_in_parts`].
pub struct Parts<T> {
    /// The name offset of the class whose body was read in parts (the first class with an
    /// indented body), if any.
    pub class_name: Option<u32>,
    /// What `on_part` made of each part, in part order.
    pub outputs: Vec<T>,
}

/// Reads `source` in parts: each part of the body of the first class with an indented body is
/// parsed on one of `jobs` worker threads and handed to `on_part` there, with the ticket
/// `listener` gave for its header; the lexing thread tells `listener` what it has read (see
/// [`Listener`]). Returns the file without the class body's lines (the body left empty) and
/// the parts; `None` when the text has any lexical or syntax problem.
pub fn parse_in_parts<L, T, F>(source: &str, jobs: usize, listener: &mut L, on_part: &F) -> Option<(Module, Parts<T>)>
where
    L: Listener,
    T: Send,
    F: Fn(usize, Vec<ClassStmt>, L::Ticket) -> T + Sync,
{
    // The lexing thread is one of the `jobs` threads: it parses a part itself whenever the
    // queue is full. With a worker per CPU besides it, the kernel kept the lexing thread and a
    // worker on one core, each waiting up to a scheduler tick for the other, while the second
    // core went idle.
    let workers_n = jobs.saturating_sub(1).max(1);
    let (tx, rx) = sync_channel::<Job<L::Ticket>>(workers_n * QUEUED_PER_WORKER);
    let rx = Mutex::new(rx);
    // The parts' emptied token buffers come back for the next parts: fresh ones cost the
    // lexing thread a page fault every 100 tokens.
    let (spare_tx, spare_rx) = channel::<Vec<Spanned>>();
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..workers_n)
            .filter_map(|k| {
                let builder = std::thread::Builder::new().name(format!("ptoc-parse-{k}")).stack_size(STACK);
                let (rx, failed, spare) = (&rx, &failed, spare_tx.clone());
                builder.spawn_scoped(scope, move || parse_parts(source, rx, &spare, failed, on_part)).ok()
            })
            .collect();
        let (mut own, mut own_panic) = (Vec::new(), None);
        let mut help = |job: Job<L::Ticket>| {
            keep(read_part(source, job, &spare_tx, &failed, on_part), &mut own, &mut own_panic);
        };
        let mut cut = Cut::new(source, tx, spare_rx, listener, &failed, &mut help);
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
        let (head, class_name, sent, listener) = cut.finish();
        let lexed = layout.finish();
        if fatal || !lexed.diags.is_empty() {
            failed.store(true, Ordering::Relaxed);
        }
        // The head is parsed here while the workers finish the parts.
        let mut module = (!failed.load(Ordering::Relaxed)).then(|| parse_tokens(source, head)).flatten();
        match &mut module {
            Some(m) => {
                m.header = lexed.header;
                m.span = Span::new(0, source.len());
                listener.tail(m);
            }
            None => failed.store(true, Ordering::Relaxed),
        }
        let mut parts = Vec::with_capacity(sent);
        parts.append(&mut own);
        let mut panicked = own_panic;
        for w in workers {
            match w.join() {
                Ok((done, panic)) => {
                    parts.extend(done);
                    if let Some(panic) = panic {
                        panicked = first_panic(panicked, panic);
                    }
                }
                Err(_) => failed.store(true, Ordering::Relaxed),
            }
        }
        // A panic of the reader (an internal error) is the caller's, as if it had read the
        // parts itself: that of the first part that panicked, whichever thread read it.
        if let Some((_, payload)) = panicked {
            std::panic::resume_unwind(payload);
        }
        if failed.load(Ordering::Relaxed) || parts.len() != sent || (sent > 0 && class_name.is_none()) {
            return None;
        }
        parts.sort_unstable_by_key(|(i, _)| *i);
        let outputs = parts.into_iter().map(|(_, out)| out).collect();
        Some((module?, Parts { class_name, outputs }))
    })
}

/// What the reader panicked with, and at which part.
type Panic = (usize, Box<dyn std::any::Any + Send>);

/// Of two panics, the one at the earlier part.
fn first_panic(seen: Option<Panic>, new: Panic) -> Option<Panic> {
    Some(match seen {
        Some(seen) if seen.0 <= new.0 => seen,
        _ => new,
    })
}

/// A worker: parses parts until the channel is closed and hands each to `on_part`; the results
/// with their positions, and the payload of a panic of `on_part`. After a panic the worker
/// goes on taking parts (and skipping them) until the channel closes, so that the lexing
/// thread never waits on a full queue that no one drains.
fn parse_parts<U, T>(
    source: &str,
    rx: &Mutex<Receiver<Job<U>>>,
    spare: &Sender<Vec<Spanned>>,
    failed: &AtomicBool,
    on_part: &(impl Fn(usize, Vec<ClassStmt>, U) -> T + Sync),
) -> (Vec<(usize, T)>, Option<Panic>) {
    let mut done = Vec::new();
    let mut panicked = None;
    loop {
        let job = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else { break };
        keep(read_part(source, job, spare, failed, on_part), &mut done, &mut panicked);
    }
    (done, panicked)
}

/// Adds what [`read_part`] gave to a reader's results, or its panic to the first one seen.
fn keep<T>(read: Option<Result<(usize, T), Panic>>, done: &mut Vec<(usize, T)>, panicked: &mut Option<Panic>) {
    match read {
        Some(Ok(out)) => done.push(out),
        Some(Err(panic)) => *panicked = first_panic(panicked.take(), panic),
        None => {}
    }
}

/// Parses one part and hands it to `on_part` (see [`parse_parts`]): its result with its
/// position, or the payload of a panic of `on_part`; `None` once anything failed (then `failed`
/// is set, and later parts are skipped).
fn read_part<U, T>(
    source: &str,
    (i, mut toks, ticket): Job<U>,
    spare: &Sender<Vec<Spanned>>,
    failed: &AtomicBool,
    on_part: &(impl Fn(usize, Vec<ClassStmt>, U) -> T + Sync),
) -> Option<Result<(usize, T), Panic>> {
    if failed.load(Ordering::Relaxed) {
        return None;
    }
    let lines = parse_lines(source, &mut toks);
    // The lexing thread may be gone (then the buffer is simply dropped).
    let _ = spare.send(toks);
    let Some(lines) = lines else {
        failed.store(true, Ordering::Relaxed);
        return None;
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_part(i, lines, ticket))) {
        Ok(out) => Some(Ok((i, out))),
        Err(payload) => {
            failed.store(true, Ordering::Relaxed);
            Some(Err((i, payload)))
        }
    }
}

/// Lines of a class body, when they parse without any problem; `toks` is left empty.
fn parse_lines(source: &str, toks: &mut Vec<Spanned>) -> Option<Vec<ClassStmt>> {
    let mut problems = Vec::new();
    match grammar::ClassPartParser::new().parse(&mut problems, source, toks.drain(..).map(Ok)) {
        Ok(lines) if problems.is_empty() => Some(lines),
        _ => None,
    }
}

/// A file's tokens (some class body's lines replaced by [`Tok::Parts`]), when they parse
/// without any problem.
fn parse_tokens(source: &str, head: Vec<Spanned>) -> Option<Module> {
    let mut problems: Vec<Problem> = Vec::new();
    let module = grammar::ModuleParser::new().parse(&mut problems, source, head.into_iter().map(Ok)).ok()?;
    problems.is_empty().then_some(module)
}

/// Puts the parts' lines into the body of the class whose name starts at `name_lo` (the one
/// whose body was cut out), and widens its span to them as the grammar's `class_def` does.
fn fill_class_body(module: &mut Module, name_lo: u32, parts: Vec<Vec<ClassStmt>>) -> Option<()> {
    let class = module.items.iter_mut().find_map(|item| match item {
        Item::Class(c) if c.name.span.lo == name_lo => Some(c),
        _ => None,
    })?;
    class.body = parts.into_iter().flatten().collect();
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
/// comment), sending each part to the workers as soon as it is complete, with the ticket the
/// listener gives for its header.
pub(super) struct Cut<'s, 'l, L: Listener> {
    /// The text the tokens are read from (their names' and strings' text).
    source: &'s str,
    tx: SyncSender<Job<L::Ticket>>,
    /// Reads a part on the lexing thread, when the queue is full.
    help: &'l mut dyn FnMut(Job<L::Ticket>),
    /// Token buffers the workers are done with.
    spare: Receiver<Vec<Spanned>>,
    listener: &'l mut L,
    failed: &'l AtomicBool,
    head: Vec<Spanned>,
    part: Vec<Spanned>,
    sent: usize,
    place: Place,
    /// INDENTs minus DEDENTs so far (in the head), or inside the class body (1 = class level).
    depth: usize,
    /// The next token starts a line.
    at_line_start: bool,
    /// The latest line of the file's outermost level starts with `class`; the offset of the
    /// token after it (the class's name).
    class_line: Option<u32>,
    /// The next token after `class` gives the class name's offset.
    after_class: bool,
    /// The latest class-level line of the body is a decorator (`@…`).
    decorator_line: bool,
    /// The name offset of the class whose body was cut out.
    cut_class: Option<u32>,
}

impl<'s, 'l, L: Listener> Cut<'s, 'l, L> {
    pub(super) fn new(
        source: &'s str,
        tx: SyncSender<Job<L::Ticket>>,
        spare: Receiver<Vec<Spanned>>,
        listener: &'l mut L,
        failed: &'l AtomicBool,
        help: &'l mut dyn FnMut(Job<L::Ticket>),
    ) -> Self {
        Cut {
            source,
            tx,
            help,
            spare,
            listener,
            failed,
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

    pub(super) fn push(&mut self, t: Spanned) {
        match self.place {
            Place::Body => self.push_body(t),
            Place::Head | Place::After => self.push_head(t),
        }
    }

    fn push_head(&mut self, t: Spanned) {
        let (lo, tok, _) = t;
        match tok {
            Tok::Indent => {
                let opens_class = self.depth == 0 && self.class_line.is_some() && self.place == Place::Head;
                self.depth += 1;
                self.head.push(t);
                if opens_class {
                    self.head.push((lo, Tok::Parts, lo));
                    self.tell_head(lo);
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

    fn push_body(&mut self, t: Spanned) {
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

    /// Tells the listener the text before the class body: the head so far, the body closed.
    fn tell_head(&mut self, lo: u32) {
        let mut toks = Vec::with_capacity(self.head.len() + 1);
        toks.extend_from_slice(&self.head);
        toks.push((lo, Tok::Dedent, lo));
        match parse_tokens(self.source, toks) {
            Some(head) => self.listener.head(&head),
            None => self.failed.store(true, Ordering::Relaxed),
        }
    }

    /// Hands the part collected so far to the workers, with the listener's ticket for its
    /// header (its tokens up to its first INDENT).
    fn send(&mut self) {
        if self.part.is_empty() {
            return;
        }
        // The next part is likely about as long as this one.
        let capacity = self.part.len();
        let next = self.spare.try_recv().unwrap_or_else(|_| Vec::with_capacity(capacity));
        let part = std::mem::replace(&mut self.part, next);
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        let header_end = part.iter().position(|t| t.1 == Tok::Indent).unwrap_or(part.len());
        let Some(header) = parse_lines(self.source, &mut part[..header_end].to_vec()) else {
            self.failed.store(true, Ordering::Relaxed);
            return;
        };
        let ticket = self.listener.header(self.sent, header);
        // A full queue: the workers are behind, this thread reads the part. A closed channel
        // means every worker is gone; the count of results then falls short of `sent` and the
        // file is parsed whole.
        if let Err(TrySendError::Full(job)) = self.tx.try_send((self.sent, part, ticket)) {
            (self.help)(job);
        }
        self.sent += 1;
    }

    /// The head's tokens, the name offset of the class whose body was cut out, the number of
    /// parts sent and the listener. Closes the channel (the workers stop once it is drained).
    pub(super) fn finish(mut self) -> (Vec<Spanned>, Option<u32>, usize, &'l mut L) {
        if self.place == Place::Body {
            // The body never ended (only with a lexical problem, which fails the parse anyway).
            self.send();
        }
        (self.head, self.cut_class, self.sent, self.listener)
    }
}
