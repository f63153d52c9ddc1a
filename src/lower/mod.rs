//! Lowering: syntax tree → IR (spec `ir-and-syntax.md` §3.10–3.12).
//!
//! Names are resolved through [`scope::Scopes`]: every definition is a new variable. Operator
//! calls go through the operator table ([`crate::ops`]), which checks them and deduces their
//! types. A variable's type is its annotation when there is one (after memory passes only the
//! annotation carries MemRefs and views), else the type of its value — except for the MemRefs
//! of iter args and unannotated return vars, which [`memrefs`] restores.
//!
//! Errors do not stop lowering: a failing statement is reported and skipped (names it would
//! have defined are bound to an `Unknown`-typed variable so that later uses don't cascade), and
//! all diagnostics are returned together.

mod annotation;
mod authorship;
mod contracts;
mod expr;
mod memrefs;
mod scope;
mod stmt;
mod stream;
#[cfg(test)]
mod stream_tests;
mod types;

use crate::ast;
use crate::diag::{codes, Diagnostic, Span};
use crate::ir::{Function, FunctionType, Param, ParamDirection, Program, Stmt, Type, VarId, VarKind, VarTable};
use rustc_hash::FxHashMap as HashMap;
use scope::Scopes;
use std::sync::Arc;

/// Lowers a parsed file to a program. The syntax tree is consumed: each function's tree is
/// dropped as soon as its IR is built, so the two are not both whole in memory.
pub fn lower(module: ast::Module) -> Result<Program, Vec<Diagnostic>> {
    lower_with_jobs(module, 1)
}

/// [`lower`], the function bodies lowered on `jobs` threads (the program and the diagnostics
/// do not depend on the number).
pub fn lower_with_jobs(module: ast::Module, jobs: usize) -> Result<Program, Vec<Diagnostic>> {
    let mut l = Lowerer::new(&module);
    l.lower_module(module, jobs);
    l.finish()
}

/// Parses and lowers `source` on `jobs` threads: with more than one, each method is lowered as
/// soon as it is parsed ([`stream`]), so the whole file's syntax tree never exists. The
/// program and the diagnostics do not depend on `jobs`.
pub fn lower_source(source: &str, jobs: usize) -> Result<Program, Vec<Diagnostic>> {
    if jobs > 1 {
        if let Some(result) = stream::lower(source, jobs) {
            return result;
        }
    }
    // One thread, text with a syntax problem (whose diagnostics only a parse of the whole
    // file gives), or a file the stream declined.
    let module = crate::parser::parse_with_jobs(source, 1)?;
    lower_with_jobs(module, jobs)
}

/// The type of a call of a function returning `types`: a tuple for several, Unknown for none.
fn result_type(types: &[Type]) -> Type {
    match types {
        [] => Type::Unknown,
        [t] => t.clone(),
        _ => Type::Tuple(types.to_vec()),
    }
}

/// A function's interface, known before any body is lowered so calls may refer forward.
#[derive(Clone)]
struct Signature {
    params: Vec<Param>,
    /// The function's variables when its signature was lowered: what the parameters' types
    /// refer to (their symbolic dims and MemRefs), for checking calls from other functions.
    vars: VarTable,
    return_types: Vec<Type>,
    /// False when the `-> …` annotation failed to lower (already reported): the returns are
    /// not checked against it.
    returns_known: bool,
    kind: FunctionType,
}

/// What a yield-assignment (`r: T = pl.yield_(x)`, `a, b = pl.yield_(x, y)`) contributes to the
/// innermost enclosing if/for/while: the names it binds and their types.
struct YieldRecord {
    targets: Vec<ast::Ident>,
    /// The annotation of a single-target yield, and its span.
    annotation: Option<Type>,
    annotation_span: Span,
    value_types: Vec<Type>,
}

pub(crate) struct Lowerer {
    prog: Program,
    /// The variables of the function being lowered.
    vars: VarTable,
    /// The stand-ins the current function has for the variables of each callee named in the
    /// result types of its calls (see [`crate::ir::import`]).
    imported: HashMap<String, crate::ir::import::Imported>,
    diags: Vec<Diagnostic>,
    /// The name `pypto.language` is bound to (`pl` unless an import says otherwise).
    prefix: String,
    /// The dotted parts of `prefix` (`["pl"]`, `["pypto", "language"]`), split once: every
    /// call and type annotation is matched against them.
    prefix_parts: Vec<String>,
    /// True while lowering methods of a `@pl.program` class (calls are `self.f(...)`).
    in_class: bool,
    /// Every function's signature, shared with the workers that lower the bodies.
    sigs: Arc<HashMap<String, Arc<Signature>>>,
    // Per-function state.
    scopes: Scopes,
    /// MemRef variables of the current function by MemRef id (ids are per function, §7 Q20).
    memrefs: HashMap<u64, VarId>,
    /// Symbolic dimensions that name no variable: one symbol per name per function (§7 Q1).
    free_dims: HashMap<String, VarId>,
    /// One frame per enclosing if-branch / for / while body, collecting its yield-assignments.
    yield_frames: Vec<Vec<YieldRecord>>,
    /// Variables of the current function whose types the text does not show: iter args and
    /// return vars without an annotation (see [`memrefs`]).
    hidden_types: Vec<VarId>,
    /// Types declared by `name: T` lines (no value) for the iter arg or return var `name` of the
    /// `if` or loop that follows (see [`memrefs`]), until that statement binds it.
    declared: HashMap<String, (Type, Span)>,
    /// Variables standing in for the targets of statements that failed to lower.
    poisoned: rustc_hash::FxHashSet<VarId>,
    /// Set when the statement being lowered reads a poisoned variable: its errors are
    /// consequences of an earlier one and are not reported again.
    read_poison: bool,
    /// The constant-shape annotation types lowered so far, shared by later annotations that
    /// spell the same type (see `types.rs`).
    constant_types: Vec<(types::ConstantShaped, Type)>,
    /// The buffer `lower_call` collects an operator call's positional arguments in.
    op_args: Vec<crate::ops::ArgIn>,
    /// What the file's text says about who wrote it (see [`Authorship`]).
    authorship: Authorship,
    /// The memory space of each variable of the current body bound to a block op's result:
    /// today's `pl.store` of a tile in Acc means `block.l0c_store`.
    tile_spaces: rustc_hash::FxHashMap<VarId, crate::ir::MemorySpace>,
    /// The variables of the current body assigned today's `pl.tile.transpose_view(t)`
    /// ([`crate::ops::table::TRANSPOSE_VIEW`]), each with its tile `t`: a move reading one is
    /// `block.move(t, …, transpose=True)`, and no statement is written for the view itself.
    transposed_views: rustc_hash::FxHashMap<VarId, VarId>,
}

/// Whether a program's text was written by hand (the DSL style) or by the printer, and what
/// follows from it once the whole file has been read.
///
/// The reference's DSL parser and its printer disagree on one construct: a loop's return
/// variables are named `<iter_arg>_out` by the parser whatever name the loop-level yield binds,
/// while the printer writes the return variables' own names there (after convert-to-ssa they are
/// `x_2`, not `x_iter_1_out`). ptoc reads hand-written functions as the parser does and printed
/// ones as printed, so that both the reference's DSL programs and every printed stage read back
/// as the reference means them. A file counts as hand-written when its text has anything the
/// printer never writes (see `authorship.rs`): an assignment without an annotation, tuple
/// unpacking, a DSL form (`pl.add`, `pl.load`, `pl.min`), or an operator call that leaves out a
/// keyword argument — unless its parameters carry MemRefs (text after the memory passes, which
/// only the printer writes). The same split decides whether calls get their defaulted keyword arguments
/// (the reference's constructors add them; printed IR has them unless built without) and what
/// an annotation that contradicts its value means: an error in hand-written text, IR for the
/// verifier to judge in printed text.
#[derive(Default)]
struct Authorship {
    hand_written: bool,
    /// Loop return variables of the function being lowered and the names the reference's
    /// parser gives them.
    loop_outs: Vec<(VarId, String)>,
    /// Annotations that contradict their values, reported if the function is hand-written.
    mismatches: Vec<Diagnostic>,
}

impl Lowerer {
    fn new(module: &ast::Module) -> Lowerer {
        Lowerer::with_prefix(Lowerer::prefix_of(module))
    }

    /// The name `pypto.language` is bound to by the file's imports.
    fn prefix_of(module: &ast::Module) -> String {
        module
            .imports
            .iter()
            .find_map(|imp| {
                let path: Vec<&str> = imp.module.iter().map(|i| i.name.as_str()).collect();
                (path == ["pypto", "language"])
                    .then(|| imp.alias.as_ref().map_or("pypto.language".to_string(), |a| a.name.to_string()))
            })
            .unwrap_or_else(|| "pl".to_string())
    }

    fn with_prefix(prefix: String) -> Lowerer {
        Lowerer {
            prog: Program::new(""),
            vars: VarTable::new(),
            imported: HashMap::default(),
            diags: Vec::new(),
            prefix_parts: prefix.split('.').map(str::to_string).collect(),
            prefix,
            in_class: false,
            sigs: Arc::default(),
            scopes: Scopes::default(),
            memrefs: HashMap::default(),
            free_dims: HashMap::default(),
            yield_frames: Vec::new(),
            hidden_types: Vec::new(),
            declared: HashMap::default(),
            poisoned: Default::default(),
            read_poison: false,
            constant_types: Vec::new(),
            op_args: Vec::new(),
            authorship: Authorship::default(),
            tile_spaces: Default::default(),
            transposed_views: Default::default(),
        }
    }

    /// The program, or every diagnostic when there is any.
    fn finish(self) -> Result<Program, Vec<Diagnostic>> {
        if self.diags.is_empty() {
            Ok(self.prog)
        } else {
            Err(self.diags)
        }
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn lower_module(&mut self, module: ast::Module, jobs: usize) {
        self.check_file_structure(&module);
        let funcs = program_functions(module.items);
        let hand_written = !funcs.iter().any(|f| self.has_memrefs(f)) && funcs.iter().any(|f| self.is_hand_written(f));
        self.authorship.hand_written = hand_written;
        // Signatures first, so that calls may refer to functions defined later.
        let registered: Vec<_> = funcs.into_iter().filter_map(|f| self.register(&f).map(|state| (f, state))).collect();
        // The bodies: a function owns its variables and the signatures are only read, so each
        // is lowered by a worker of its own, on `jobs` threads; functions and diagnostics are
        // taken in function order.
        let work: Vec<_> = registered.into_iter().map(|(f, state)| (self.worker(), f, state)).collect();
        let bodies = crate::par::map_into(work, jobs, |(w, f, state)| w.lower_body(&f, state));
        self.add_bodies(bodies, hand_written);
    }

    /// Lowers `f`'s signature and makes it known to calls: the function's state for lowering
    /// its body, or `None` (reported) when its name is taken.
    fn register(&mut self, f: &ast::FuncDef) -> Option<FunctionState> {
        if self.sigs.contains_key(f.name.name.as_str()) {
            self.error(Diagnostic::error(
                codes::DUPLICATE_FUNCTION,
                f.name.span,
                format!("duplicate function name \"{}\"", f.name.name),
            ));
            return None;
        }
        self.begin_function();
        let sig = self.lower_signature(f);
        // Parameters are bound in the function's outermost scope; keep it for the body.
        let state = self.end_function();
        Arc::make_mut(&mut self.sigs).insert(f.name.name.to_string(), Arc::new(sig));
        Some(state)
    }

    /// A lowerer for one function body: the file's settings and the signatures, nothing else.
    fn worker(&self) -> Lowerer {
        let mut w = Lowerer::with_prefix(self.prefix.clone());
        w.in_class = self.in_class;
        w.sigs = Arc::clone(&self.sigs);
        w.authorship.hand_written = self.authorship.hand_written;
        w
    }

    /// The body of `f`, whose signature was lowered into `state`, by this worker.
    fn lower_body(mut self, f: &ast::FuncDef, state: FunctionState) -> Body {
        let func = self.lower_function(f, state);
        Body { func, diags: self.diags, mismatches: self.authorship.mismatches, loop_outs: self.authorship.loop_outs }
    }

    /// Adds the functions of `bodies` to the program in order, with their diagnostics; in a
    /// hand-written file (see [`Authorship`]) their loop return variables take the reference
    /// parser's names and contradicting annotations are reported, each among its function's
    /// other diagnostics in source order: a mismatch is often the cause of an error after it (a
    /// call given the mis-annotated variable), and is reported before it.
    fn add_bodies(&mut self, bodies: impl IntoIterator<Item = Body>, hand_written: bool) {
        for mut body in bodies {
            if hand_written {
                merge_in_source_order(&mut self.diags, body.diags, body.mismatches);
                for (v, name) in body.loop_outs {
                    body.func.vars.var_mut(v).name = name;
                }
            } else {
                self.diags.append(&mut body.diags);
            }
            // Duplicates were rejected when registering, so this cannot fail.
            let _ = self.prog.add_function(body.func);
        }
    }

    /// The body of `f`, whose signature was lowered into `state`; its loop return variables and
    /// the names the reference's parser gives them stay in [`Authorship::loop_outs`].
    fn lower_function(&mut self, f: &ast::FuncDef, state: FunctionState) -> Function {
        self.restore_function(state);
        let body = self.lower_body_stmts(&f.body, f.span);
        self.report_unbound_declarations();
        let sig = Arc::clone(&self.sigs[f.name.name.as_str()]);
        if sig.returns_known {
            self.check_returns(f, &sig.return_types, &body);
        }
        let func = Function {
            name: f.name.name.to_string(),
            kind: sig.kind,
            params: sig.params.clone(),
            return_types: sig.return_types.clone(),
            body,
            span: f.span,
            vars: VarTable::new(),
            schedule: None,
        };
        self.restore_hidden_memrefs(&func);
        Function { vars: self.end_function().vars, ..func }
    }

    /// The file-level checks (one program class, decorated, holding only functions; no function
    /// outside it) and the program's name, in the order the items come.
    fn check_file_structure(&mut self, module: &ast::Module) {
        let mut class_name: Option<&ast::Ident> = None;
        for item in &module.items {
            let ast::Item::Class(c) = item else { continue };
            if let Some(first) = class_name {
                self.error(
                    Diagnostic::error(
                        codes::BAD_FILE_STRUCTURE,
                        c.name.span,
                        "a file holds one program, but this is a second `@pl.program` class",
                    )
                    .with_secondary(first.span, "the first program"),
                );
                continue;
            }
            self.check_program_decorators(c);
            class_name = Some(&c.name);
            self.in_class = true;
            for s in &c.body {
                if let ast::ClassStmt::Other(st) = s {
                    let docstring =
                        matches!(&st.kind, ast::StmtKind::Expr(e) if matches!(e.kind, ast::ExprKind::Str(_)));
                    if !docstring && st.kind != ast::StmtKind::Pass {
                        self.error(Diagnostic::error(
                            codes::BAD_FILE_STRUCTURE,
                            st.span,
                            "a program class may only contain `@pl.function` methods",
                        ));
                    }
                }
            }
        }
        if class_name.is_some() {
            let outside = module.items.iter().find_map(|i| match i {
                ast::Item::Function(f) => Some(f),
                _ => None,
            });
            if let Some(f) = outside {
                self.error(Diagnostic::error(
                    codes::BAD_FILE_STRUCTURE,
                    f.name.span,
                    "a function outside the `@pl.program` class; move it into the class",
                ));
            }
        }
        if class_name.is_none() && !module.items.iter().any(|i| matches!(i, ast::Item::Function(_))) {
            // An empty file (or imports only) is almost always the wrong file, not an empty
            // program: compiling it to nothing would hide the mistake.
            self.error(
                Diagnostic::error(codes::BAD_FILE_STRUCTURE, Span::new(0, 0), "the file defines no program")
                    .with_label("expected a `@pl.program` class")
                    .with_note(
                        "help: a program is a class decorated with `@pl.program` whose methods are `@pl.function`s",
                    ),
            );
        }
        self.prog.name = match (class_name, &module.header) {
            (Some(c), _) => c.name.to_string(),
            (None, Some(h)) => h.name.to_string(),
            (None, None) => String::new(),
        };
    }

    fn check_program_decorators(&mut self, c: &ast::ClassDef) {
        let ok = c.decorators.iter().any(|d| {
            let callee = match &d.kind {
                ast::ExprKind::Call(f, _) => f,
                _ => d,
            };
            self.prefixed_path(callee).is_some_and(|p| p == ["program"])
        });
        if !ok {
            self.error(Diagnostic::error(
                codes::BAD_DECORATOR,
                c.name.span,
                format!("class `{}` is not decorated with `@{}.program`", c.name.name, self.prefix),
            ));
        }
    }

    fn begin_function(&mut self) {
        self.vars = VarTable::new();
        self.imported.clear();
        self.poisoned.clear();
        self.scopes = Scopes::default();
        self.scopes.push();
        self.memrefs.clear();
        self.free_dims.clear();
        self.yield_frames.clear();
        self.hidden_types.clear();
        self.declared.clear();
        self.tile_spaces.clear();
        self.transposed_views.clear();
    }

    /// Takes the per-function state out (to lower the body later).
    fn end_function(&mut self) -> FunctionState {
        FunctionState {
            vars: std::mem::take(&mut self.vars),
            poisoned: std::mem::take(&mut self.poisoned),
            scopes: std::mem::take(&mut self.scopes),
            memrefs: std::mem::take(&mut self.memrefs),
            free_dims: std::mem::take(&mut self.free_dims),
        }
    }

    fn restore_function(&mut self, s: FunctionState) {
        self.vars = s.vars;
        self.imported.clear();
        self.poisoned = s.poisoned;
        self.scopes = s.scopes;
        self.memrefs = s.memrefs;
        self.free_dims = s.free_dims;
        self.yield_frames.clear();
        self.hidden_types.clear();
        self.declared.clear();
        self.tile_spaces.clear();
        self.transposed_views.clear();
    }

    fn lower_signature(&mut self, f: &ast::FuncDef) -> Signature {
        let kind = self.function_kind(f);
        let mut params = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            if i == 0 && self.in_class && p.name.name == "self" && p.annotation.is_none() {
                continue;
            }
            let Some(ann) = &p.annotation else {
                self.error(Diagnostic::error(
                    codes::BAD_PARAM,
                    p.span,
                    format!("parameter `{}` has no type annotation", p.name.name),
                ));
                let v = self.vars.new_var(p.name.name.as_str(), Type::Unknown, VarKind::Plain, p.name.span);
                self.scopes.bind(&p.name.name, v);
                // Uses of a parameter without a type are not reported again.
                self.poisoned.insert(v);
                continue;
            };
            let (ty, direction, ok) = match self.lower_param_type(ann) {
                Ok((t, d)) => (t, d, true),
                Err(d) => {
                    self.error(d);
                    (Type::Unknown, ParamDirection::In, false)
                }
            };
            let v = self.vars.new_var(p.name.name.as_str(), ty, VarKind::Plain, p.name.span);
            if !ok {
                self.poisoned.insert(v);
            }
            self.scopes.bind(&p.name.name, v);
            params.push(Param { var: v, direction });
        }
        if self.in_class && f.params.first().is_none_or(|p| p.name.name != "self") {
            self.error(Diagnostic::error(
                codes::BAD_PARAM,
                f.name.span,
                format!("method `{}` must take `self` as its first parameter", f.name.name),
            ));
        }
        let (return_types, returns_known) = match &f.returns {
            None => (Vec::new(), true),
            Some(r) => match self.lower_return_types(r) {
                Ok(t) => (t, true),
                Err(d) => {
                    self.error(d);
                    (Vec::new(), false)
                }
            },
        };
        Signature { params, vars: self.vars.clone(), return_types, returns_known, kind }
    }

    fn function_kind(&mut self, f: &ast::FuncDef) -> FunctionType {
        for d in &f.decorators {
            let (callee, args) = match &d.kind {
                ast::ExprKind::Call(c, args) => (&**c, args.as_slice()),
                _ => (d, &[][..]),
            };
            if self.prefixed_path(callee).is_none_or(|p| p != ["function"]) {
                self.error(Diagnostic::error(
                    codes::BAD_DECORATOR,
                    d.span,
                    format!("unknown decorator; functions are decorated with `@{}.function`", self.prefix),
                ));
                continue;
            }
            let mut kind = FunctionType::Opaque;
            for a in args {
                match a {
                    ast::Arg::Keyword(k, v) if k.name == "type" => match self.prefixed_path(v).as_deref() {
                        Some(["FunctionType", name]) if FunctionType::from_name(name).is_some() => {
                            kind = FunctionType::from_name(name).unwrap();
                        }
                        other => {
                            let d = Diagnostic::error(codes::UNKNOWN_ENUM, v.span, "unknown function type");
                            let names = FunctionType::ALL.iter().map(|t| t.name());
                            let close = match other {
                                Some(["FunctionType", name]) => scope::suggest_spelling(name, names.clone()),
                                _ => None,
                            };
                            self.error(match close {
                                Some(t) => {
                                    d.with_note(format!("help: did you mean `{}.FunctionType.{t}`?", self.prefix))
                                }
                                None => d.with_note(format!(
                                    "expected one of {}",
                                    names
                                        .map(|t| format!("{}.FunctionType.{t}", self.prefix))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )),
                            })
                        }
                    },
                    ast::Arg::Keyword(k, _) if k.name == "strict_ssa" => {}
                    other => self.error(Diagnostic::error(
                        codes::BAD_DECORATOR,
                        other.span(),
                        "unexpected decorator argument; only `type=` is accepted",
                    )),
                }
            }
            return kind;
        }
        self.error(Diagnostic::error(
            codes::BAD_DECORATOR,
            f.name.span,
            format!("function `{}` is not decorated with `@{}.function`", f.name.name, self.prefix),
        ));
        FunctionType::Opaque
    }

    /// The dotted path of `e` with the module prefix removed: `pl.block.add` → `["block", "add"]`.
    fn prefixed_path<'e>(&self, e: &'e ast::Expr) -> Option<ast::DottedPath<'e>> {
        // Only an attribute chain can be `prefix.name`; most expressions asked about are not.
        if !matches!(e.kind, ast::ExprKind::Attr(..)) {
            return None;
        }
        self.strip_prefix(e.dotted()?)
    }

    /// Whether `e` is the module prefix itself (`pl`, or `pypto.language`).
    fn is_prefix(&self, e: &ast::Expr) -> bool {
        let mut e = e;
        for (i, part) in self.prefix_parts.iter().enumerate().rev() {
            match &e.kind {
                ast::ExprKind::Attr(base, attr) if i > 0 && attr.name == *part => e = base,
                ast::ExprKind::Name(n) if i == 0 => return n == part,
                _ => return false,
            }
        }
        false
    }

    /// The one name after the prefix: `pl.yield_` → `yield_` (what `prefixed_path` gives when
    /// it has one part, without building the path).
    fn prefixed_name<'e>(&self, e: &'e ast::Expr) -> Option<&'e str> {
        match &e.kind {
            ast::ExprKind::Attr(base, attr) if self.is_prefix(base) => Some(attr.name.as_str()),
            _ => None,
        }
    }

    /// What [`Self::prefixed_path`] gives for an operator callee of up to three parts after the
    /// prefix (`pl.block.add` → `["block", "add"]`), found in one walk up the attribute chain;
    /// `None` for anything else (longer paths included).
    fn op_path<'e>(&self, e: &'e ast::Expr) -> Option<([&'e str; 3], usize)> {
        let mut parts = [""; 3];
        let mut n = 0;
        let mut cur = e;
        while let ast::ExprKind::Attr(base, attr) = &cur.kind {
            if n == parts.len() {
                return None;
            }
            parts[n] = attr.name.as_str();
            n += 1;
            if self.is_prefix(base) {
                parts[..n].reverse();
                return Some((parts, n));
            }
            cur = base;
        }
        None
    }

    /// `path` without the module prefix, if it starts with it and has more after it.
    fn strip_prefix<'e>(&self, path: ast::DottedPath<'e>) -> Option<ast::DottedPath<'e>> {
        let n = self.prefix_parts.len();
        if path.len() > n && path.iter().zip(&self.prefix_parts).all(|(a, b)| *a == b) {
            Some(path.skip(n))
        } else {
            None
        }
    }

    fn lower_body_stmts(&mut self, stmts: &[ast::Stmt], span: Span) -> Stmt {
        let out = self.lower_stmts(stmts);
        Stmt::block(out, span)
    }

    /// The type of a variable annotated `ann` (the annotation at `ann_span`) whose value has
    /// type `value` (see [`annotation::merge`]). A disagreement is an error if the file is
    /// hand-written, and the variable takes its value's type, as the reference's parser gives
    /// it: the statements after it then report only what the reference would find wrong with
    /// them too, not consequences of the annotation (a call given the variable would disagree
    /// with the annotation's dtype). Printed text keeps the annotation, for the verifier to judge.
    fn annotated_type(&mut self, ann: Type, value: &Type, ann_span: Span) -> Type {
        match annotation::merge(&self.vars, &self.vars, &ann, value) {
            Ok(t) => t,
            Err(d) => {
                let shown = |t: &Type| crate::ops::fmt_type(&self.vars, t);
                let diag = Diagnostic::error(
                    codes::ANNOTATION_MISMATCH,
                    ann_span,
                    format!(
                        "the annotation's {} disagrees with the value: annotated {}, but the value is {}",
                        d.what(),
                        shown(&ann),
                        shown(value)
                    ),
                )
                .with_note("the variable takes its value's type; correct or remove the annotation");
                self.authorship.mismatches.push(diag);
                if self.authorship.hand_written {
                    value.clone()
                } else {
                    ann
                }
            }
        }
    }
}

/// Appends to `out` the diagnostics of `a` and `b`, two lists each in the order it was found
/// in, merged by their position in the source (a diagnostic without one keeps its place after
/// those before it in its list).
fn merge_in_source_order(out: &mut Vec<Diagnostic>, a: Vec<Diagnostic>, b: Vec<Diagnostic>) {
    out.reserve(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let take_b = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => !y.span.is_none() && !x.span.is_none() && y.span.lo < x.span.lo,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        match if take_b { b.next() } else { a.next() } {
            Some(d) => out.push(d),
            None => break,
        }
    }
}

/// The functions of a file's program, owned, in order: those of the first class and those
/// outside any class (which are errors, reported by the file-structure check).
fn program_functions(items: Vec<ast::Item>) -> Vec<ast::FuncDef> {
    let mut funcs = Vec::new();
    let mut seen_class = false;
    for item in items {
        match item {
            ast::Item::Class(c) if !seen_class => {
                seen_class = true;
                funcs.extend(c.body.into_iter().filter_map(|s| match s {
                    ast::ClassStmt::Function(f) => Some(f),
                    ast::ClassStmt::Other(_) => None,
                }));
            }
            ast::Item::Class(_) => {}
            ast::Item::Function(f) => funcs.push(f),
        }
    }
    funcs
}

/// A lowered function body with what the file's authorship decides about it (see
/// [`Lowerer::add_bodies`]).
struct Body {
    func: Function,
    diags: Vec<Diagnostic>,
    mismatches: Vec<Diagnostic>,
    loop_outs: Vec<(VarId, String)>,
}

struct FunctionState {
    vars: VarTable,
    poisoned: rustc_hash::FxHashSet<VarId>,
    scopes: Scopes,
    memrefs: HashMap<u64, VarId>,
    free_dims: HashMap<String, VarId>,
}

#[cfg(test)]
mod tests {
    use super::Lowerer;
    use crate::parser::parse_expr;

    /// The one-walk matchers (`op_path`, `prefixed_name`, `type_name`) answer what the general
    /// `prefixed_path` answers, for one- and two-part prefixes.
    #[test]
    fn fast_path_matchers_agree_with_prefixed_path() {
        let exprs = [
            "pl.block.add",
            "pl.add",
            "pl.a.b.c",
            "pl.a.b.c.d",
            "pl",
            "x.block.add",
            "pl.pl.add",
            "f(1).add",
            "pypto.language.block.add",
            "pypto.language.add",
            "pypto.language",
            "language.add",
            "Tile",
            "pl.Tile",
        ];
        for prefix in ["pl", "pypto.language"] {
            let l = Lowerer::with_prefix(prefix.to_string());
            for text in exprs {
                let e = parse_expr(text).unwrap_or_else(|_| panic!("{text}"));
                let general = l.prefixed_path(&e);
                let general: Option<Vec<&str>> = general.as_deref().map(<[&str]>::to_vec);
                let fast = l.op_path(&e).map(|(parts, n)| parts[..n].to_vec());
                match (&fast, &general) {
                    (Some(f), g) => assert_eq!(Some(f), g.as_ref(), "{prefix}: {text}"),
                    (None, Some(g)) => assert!(g.len() > 3, "{prefix}: {text}"),
                    (None, None) => {}
                }
                let one = general.as_ref().filter(|g| g.len() == 1).map(|g| g[0]);
                assert_eq!(l.prefixed_name(&e), one, "{prefix}: {text}");
            }
        }
    }
}
