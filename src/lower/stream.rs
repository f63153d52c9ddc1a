//! Lowering a file while it is parsed: each method of the program class is lowered on the
//! worker thread that parsed it, as soon as it is parsed, and its syntax tree is dropped there;
//! the tree of the whole file never exists, so the heap's peak is one method's tree, not the
//! file's.
//!
//! A body needs what the rest of the file says: the signatures of the functions it calls and
//! the file's authorship ([`super::Authorship`]). The lexing thread parses each method's header
//! as it cuts the method out ([`parser::Listener`]) and lowers its signature before the method
//! goes to a worker, so by the time a worker lowers a method every method before it is known.
//! A method that calls a function not known yet waits, with its tree, until the whole file has
//! been read. Authorship is decided per method and checked at the end: a method whose own text
//! is hand-written is lowered as such unless a MemRef header came before it; one that reads as
//! printed lowers the same either way (it writes every defaulted keyword argument) unless an
//! annotation contradicts its value, and what else the file's authorship decides (loop return
//! names, annotation mismatches) is applied when the bodies are added. Should a later header
//! make the file printed after all (a MemRef parameter after a hand-written method), a method
//! read as printed have a contradicting annotation in a hand-written file, or the text before
//! the class not be what the whole file says (a second class first, an import after the class),
//! the file is declined and lowered whole — the same program and diagnostics, only slower.
//!
//! Diagnostics come in the order the whole-file lowering gives them: the file structure's, the
//! signatures', the bodies' in function order, each body's annotation mismatches among its
//! other diagnostics in source order.

use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use super::{program_functions, Body, FunctionState, HashMap, Lowerer, Signature};
use crate::ast::{self, Arg, ClassStmt, ExprKind as A, StmtKind as S};
use crate::diag::Diagnostic;
use crate::ir::Program;
use crate::parser::{self, Listener};

/// The program and diagnostics of `source`, lowered while it is parsed on `jobs` threads;
/// `None` when the file has a syntax problem or is declined (see the module comment).
pub(super) fn lower(source: &str, jobs: usize) -> Option<Result<Program, Vec<Diagnostic>>> {
    let shared = Shared { prefix: OnceLock::new(), table: RwLock::new(Table::default()) };
    let mut reader = Reader { main: None, shared: &shared, memrefs: false, declined: false, before: Vec::new() };
    let on_part = |_: usize, lines: Vec<ClassStmt>, ticket: Ticket| shared.part(lines, ticket);
    let (mut module, parts) = parser::parse_in_parts(source, jobs, &mut reader, &on_part)?;
    if reader.declined {
        return None;
    }
    if reader.main.is_none() {
        // No class body was read in parts: the file is lowered whole.
        let mut l = Lowerer::new(&module);
        l.lower_module(module, jobs);
        return Some(l.finish());
    }
    let after = reader.register_after(&module)?;
    let (mut main, before, memrefs) = (reader.main?, reader.before, reader.memrefs);
    let mut outs = parts.outputs;
    if outs.iter().any(|p| matches!(p.lowered, Lowered::Declined)) {
        return None;
    }
    let hand_written = !memrefs
        && (outs.iter().any(|p| p.hand_written) || before.iter().chain(&after).any(|(f, _)| main.is_hand_written(f)));
    // A method lowered as hand-written in what turned out a printed file, or one lowered as
    // printed whose annotations contradict their values in a hand-written file (its variables
    // took the annotations' types, not the values'): lowered again, whole.
    if outs.iter().any(|p| match &p.lowered {
        Lowered::Body(_, true) => !hand_written,
        Lowered::Body(b, false) => hand_written && !b.mismatches.is_empty(),
        _ => false,
    }) {
        return None;
    }
    // The file-level checks, on the file with the class body's other lines put back; their
    // diagnostics come before the signatures'.
    let signature_diags = std::mem::take(&mut main.diags);
    if let Some(class) = module.items.iter_mut().find_map(|i| match i {
        ast::Item::Class(c) => Some(c),
        ast::Item::Function(_) => None,
    }) {
        class.body = outs.iter_mut().flat_map(|p| std::mem::take(&mut p.others)).map(ClassStmt::Other).collect();
    }
    main.check_file_structure(&module);
    main.diags.extend(signature_diags);
    main.authorship.hand_written = hand_written;
    // What is left to lower, now that every signature is known: the functions outside the
    // class and the methods that waited. Then every body, in function order.
    let head = |(f, state): (ast::FuncDef, Option<FunctionState>)| state.map(|s| Work::Todo(Box::new((f, s))));
    let mut work: Vec<Work> = before.into_iter().filter_map(head).collect();
    work.extend(outs.into_iter().filter_map(|p| match p.lowered {
        Lowered::Body(b, _) => Some(Work::Done(Box::new(b))),
        Lowered::Waiting(f, s) => Some(Work::Todo(Box::new((*f, s)))),
        Lowered::Nothing | Lowered::Declined => None,
    }));
    work.extend(after.into_iter().filter_map(head));
    let settings = &main;
    let bodies = crate::par::map_into(work, jobs, |w| match w {
        Work::Todo(todo) => {
            let (f, s) = *todo;
            settings.worker().lower_body(&f, s)
        }
        Work::Done(b) => *b,
    });
    main.add_bodies(bodies, hand_written);
    Some(main.finish())
}

/// A function body still to lower, or lowered already.
enum Work {
    Todo(Box<(ast::FuncDef, FunctionState)>),
    Done(Box<Body>),
}

/// What the lexing thread and the workers share.
struct Shared {
    /// The name `pypto.language` is bound to, from the text before the class.
    prefix: OnceLock<String>,
    table: RwLock<Table>,
}

/// The signatures registered so far, in file order.
#[derive(Default)]
struct Table {
    sigs: HashMap<String, Arc<Signature>>,
    /// Whether a header registered so far names a MemRef.
    memrefs: bool,
    /// Every signature, once the whole file has been read.
    complete: Option<Arc<HashMap<String, Arc<Signature>>>>,
}

/// What a method's worker is given: its signature's state, unless its name was taken.
type Ticket = Option<FunctionState>;

/// What a worker made of a part.
struct PartOut {
    /// The part's class-level lines other than its method, for the file-structure check.
    others: Vec<ast::Stmt>,
    /// Whether the method's own text is hand-written.
    hand_written: bool,
    lowered: Lowered,
}

enum Lowered {
    /// No method, or one whose name was taken.
    Nothing,
    /// The method's body, and whether it was lowered as hand-written.
    Body(Body, bool),
    /// A method calling a function not known yet.
    Waiting(Box<ast::FuncDef>, FunctionState),
    /// A part not shaped as the cut makes them (at most one method, first): the file is
    /// lowered whole.
    Declined,
}

impl Shared {
    /// On a worker: lowers the part's method if every function it calls is known.
    fn part(&self, lines: Vec<ClassStmt>, ticket: Ticket) -> PartOut {
        let mut func = None;
        let mut others = Vec::new();
        for line in lines {
            match line {
                ClassStmt::Function(f) if func.is_none() && others.is_empty() => func = Some(f),
                ClassStmt::Function(_) => return PartOut { others, hand_written: false, lowered: Lowered::Declined },
                ClassStmt::Other(s) => others.push(s),
            }
        }
        let (Some(f), Some(prefix)) = (func, self.prefix.get()) else {
            return PartOut { others, hand_written: false, lowered: Lowered::Nothing };
        };
        let mut w = Lowerer::with_prefix(prefix.clone());
        w.in_class = true;
        let hand_written = w.is_hand_written(&f);
        let Some(state) = ticket else {
            return PartOut { others, hand_written, lowered: Lowered::Nothing };
        };
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        let sigs = match &table.complete {
            Some(all) => Some(Arc::clone(all)),
            None => {
                let mut known = HashMap::default();
                let mut names = vec![f.name.name.as_str()];
                callees(&f.body, &mut names);
                let all_known = names.iter().all(|n| match table.sigs.get(*n) {
                    Some(sig) => {
                        known.insert(n.to_string(), Arc::clone(sig));
                        true
                    }
                    None => false,
                });
                all_known.then(|| Arc::new(known))
            }
        };
        let as_hand_written = hand_written && !table.memrefs;
        drop(table);
        let Some(sigs) = sigs else {
            return PartOut { others, hand_written, lowered: Lowered::Waiting(Box::new(f), state) };
        };
        w.sigs = sigs;
        w.authorship.hand_written = as_hand_written;
        let body = w.lower_body(&f, state);
        PartOut { others, hand_written, lowered: Lowered::Body(body, as_hand_written) }
    }
}

/// The names `stmts` call as functions of the program (`self.f(...)`, `f(...)`), to `out`.
fn callees<'a>(stmts: &'a [ast::Stmt], out: &mut Vec<&'a str>) {
    for s in stmts {
        match &s.kind {
            S::Assign { value, annotation, .. } => {
                annotation.iter().for_each(|e| expr_callees(e, out));
                expr_callees(value, out);
            }
            S::AnnOnly { annotation, .. } => expr_callees(annotation, out),
            S::Expr(e) => expr_callees(e, out),
            S::Return(es) => es.iter().for_each(|e| expr_callees(e, out)),
            S::If { cond, then_body, else_body } => {
                expr_callees(cond, out);
                callees(then_body, out);
                else_body.iter().for_each(|b| callees(b, out));
            }
            S::For { iter, body, .. } => {
                expr_callees(iter, out);
                callees(body, out);
            }
            S::While { cond, body } => {
                expr_callees(cond, out);
                callees(body, out);
            }
            S::With { item, body, .. } => {
                expr_callees(item, out);
                callees(body, out);
            }
            S::Break | S::Continue | S::Pass => {}
        }
    }
}

fn expr_callees<'a>(e: &'a ast::Expr, out: &mut Vec<&'a str>) {
    match &e.kind {
        A::Call(f, args) => {
            match &f.kind {
                A::Attr(base, name) if matches!(&base.kind, A::Name(n) if n == "self") => out.push(name.name.as_str()),
                // The scalar builtins are no program functions (see `lower_call`).
                A::Name(n) if !matches!(n.as_str(), "min" | "max" | "abs") => out.push(n.as_str()),
                _ => expr_callees(f, out),
            }
            args.iter().for_each(|a| match a {
                Arg::Positional(e) | Arg::Keyword(_, e) => expr_callees(e, out),
            });
        }
        A::Attr(base, _) => expr_callees(base, out),
        A::Subscript(base, items) => {
            expr_callees(base, out);
            items.iter().for_each(|a| match a {
                Arg::Positional(e) | Arg::Keyword(_, e) => expr_callees(e, out),
            });
        }
        A::List(es) | A::Tuple(es) => es.iter().for_each(|e| expr_callees(e, out)),
        A::Binary(_, a, b) => {
            expr_callees(a, out);
            expr_callees(b, out);
        }
        A::Unary(_, a) => expr_callees(a, out),
        A::Name(_) | A::Int(_) | A::Float(_) | A::Str(_) | A::Bool(_) | A::None | A::Unsupported => {}
    }
}

/// The lexing thread's side: lowers the signatures as the headers come.
struct Reader<'a> {
    /// The lowerer of the signatures, from the text before the class on.
    main: Option<Lowerer>,
    shared: &'a Shared,
    /// Whether any header so far names a MemRef.
    memrefs: bool,
    declined: bool,
    /// The functions before the class (errors, lowered all the same), with their states.
    before: Vec<(ast::FuncDef, Option<FunctionState>)>,
}

impl Reader<'_> {
    /// Registers `f`'s signature (also for the workers); its state unless its name was taken.
    fn register(&mut self, f: &ast::FuncDef) -> Option<FunctionState> {
        let main = self.main.as_mut()?;
        self.memrefs |= main.has_memrefs(f);
        let state = main.register(f);
        let mut table = self.shared.table.write().unwrap_or_else(PoisonError::into_inner);
        table.memrefs = self.memrefs;
        if state.is_some() {
            table.sigs.insert(f.name.name.to_string(), Arc::clone(&main.sigs[f.name.name.as_str()]));
        }
        state
    }

    /// The functions after the class in `module` (the file without the class body), registered
    /// after every method, as in file order; `None` when the file is declined: the text before
    /// the class is not what the whole file says.
    fn register_after(&mut self, module: &ast::Module) -> Option<Vec<(ast::FuncDef, Option<FunctionState>)>> {
        let class_at = module.items.iter().position(|i| matches!(i, ast::Item::Class(_)))?;
        let prefix = &self.main.as_ref()?.prefix;
        if class_at != self.before.len() || Lowerer::prefix_of(module) != *prefix {
            return None;
        }
        let after: Vec<ast::FuncDef> = module.items[class_at + 1..]
            .iter()
            .filter_map(|i| match i {
                ast::Item::Function(f) => Some(f.clone()),
                ast::Item::Class(_) => None,
            })
            .collect();
        Some(after.into_iter().map(|f| (self.register(&f), f)).map(|(s, f)| (f, s)).collect())
    }
}

impl Listener for Reader<'_> {
    type Ticket = Ticket;

    fn head(&mut self, head: &ast::Module) {
        // The methods are the program's only when their class is the file's first.
        if head.items.iter().filter(|i| matches!(i, ast::Item::Class(_))).count() != 1 {
            self.declined = true;
            return;
        }
        let mut main = Lowerer::new(head);
        main.in_class = true;
        let _ = self.shared.prefix.set(main.prefix.clone());
        self.main = Some(main);
        let funcs = program_functions(head.items.clone());
        for f in funcs {
            let state = self.register(&f);
            self.before.push((f, state));
        }
    }

    fn header(&mut self, _: usize, lines: Vec<ClassStmt>) -> Ticket {
        if self.declined {
            return None;
        }
        match lines.into_iter().next() {
            Some(ClassStmt::Function(f)) => self.register(&f),
            _ => None,
        }
    }

    fn tail(&mut self, module: &ast::Module) {
        let Some(main) = self.main.as_ref() else { return };
        if self.declined {
            return;
        }
        // Functions after the class are registered after the parse (see `after`); until then
        // a method calling one waits. Everything else is known now.
        let after_class = module
            .items
            .iter()
            .skip_while(|i| !matches!(i, ast::Item::Class(_)))
            .skip(1)
            .any(|i| matches!(i, ast::Item::Function(_)));
        if !after_class {
            let mut table = self.shared.table.write().unwrap_or_else(PoisonError::into_inner);
            table.complete = Some(Arc::clone(&main.sigs));
        }
    }
}
