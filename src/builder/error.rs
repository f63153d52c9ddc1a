//! The builder's error values. Every misuse of the API is reported as a [`BuildError`]; the
//! builder never panics, so a program generator can report a bad request and carry on.

use crate::diag::Diagnostic;
use std::fmt;

/// What went wrong in a builder call.
#[derive(Clone, Debug)]
pub enum BuildError {
    /// `pop_scope` with no open scope.
    EmptyScopeStack,
    /// A call that needs an open function body (emit, create a value, a statement, …) was made
    /// outside of one. `what` names the call.
    NotInFunction { what: &'static str },
    /// `enter_function_body` while another function body is open (functions do not nest).
    NestedFunction { open: String, entered: String },
    /// `create_function` with a name the program already has.
    DuplicateFunction(String),
    /// A function name that the program does not have.
    UnknownFunction(String),
    /// The function was not created by this builder (its variables are not the builder's).
    NotBuilt(String),
    /// A value handle whose variable does not belong to this builder's program.
    UnknownValue(u32),
    /// `exit_for` / `exit_if` / `enter_else` while a scope of that statement is still open:
    /// call `pop_scope` first.
    ScopeStillOpen { construct: &'static str },
    /// `exit_for` before `enter_for_body`, or a second `enter_*` of the same body or branch.
    BadOrder { construct: &'static str, message: String },
    /// A for/if handle used after `exit_for`/`exit_if`, or one from another context.
    StaleHandle { construct: &'static str },
    /// A for/if statement entered or exited from a different scope than the one that created it.
    WrongScope { construct: &'static str },
    /// A value that must be a scalar (loop bound, condition, loop variable) is not.
    NotAScalar { what: &'static str, found: String },
    /// A variable is defined twice (`emit_to` an already-defined value, a loop variable reused).
    AlreadyDefined(String),
    /// The two values that must merge into one (if branches, a loop's carried value before and
    /// after the body, `emit_to`'s target and its value) have different types.
    TypeMismatch { name: String, expected: String, found: String },
    /// A yield where none belongs, a second yield in one scope, or yields that do not match.
    BadYield(String),
    /// `finish` while scopes are open or statements are not exited.
    Unfinished(String),
    /// The operator table rejected a call: unknown operator, wrong argument count or type, bad
    /// keyword. The diagnostic is the one the text front end gives for the same call.
    Op(Box<Diagnostic>),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::EmptyScopeStack => write!(f, "pop_scope: the scope stack is empty"),
            BuildError::NotInFunction { what } => {
                write!(f, "{what}: no function body is open (call enter_function_body first)")
            }
            BuildError::NestedFunction { open, entered } => {
                write!(f, "enter_function_body({entered}): the body of {open} is still open")
            }
            BuildError::DuplicateFunction(n) => write!(f, "the program already has a function named {n}"),
            BuildError::UnknownFunction(n) => write!(f, "the program has no function named {n}"),
            BuildError::NotBuilt(n) => {
                write!(f, "function {n} was not created by this builder: its variables are not the builder's")
            }
            BuildError::UnknownValue(v) => write!(f, "value %{v} does not belong to this program"),
            BuildError::ScopeStillOpen { construct } => {
                write!(f, "{construct}: a scope of this statement is still open (call pop_scope first)")
            }
            BuildError::BadOrder { construct, message } => write!(f, "{construct}: {message}"),
            BuildError::StaleHandle { construct } => write!(f, "{construct}: the statement was already exited"),
            BuildError::WrongScope { construct } => {
                write!(f, "{construct}: the current scope is not the one that created the statement")
            }
            BuildError::NotAScalar { what, found } => write!(f, "{what} must be a scalar, found {found}"),
            BuildError::AlreadyDefined(n) => write!(f, "{n} is already defined"),
            BuildError::TypeMismatch { name, expected, found } => {
                write!(f, "{name}: type {found} does not match {expected}")
            }
            BuildError::BadYield(m) => write!(f, "yield: {m}"),
            BuildError::Unfinished(m) => write!(f, "finish: {m}"),
            BuildError::Op(d) => write!(f, "[{}] {}", d.code, d.message),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<Diagnostic> for BuildError {
    fn from(d: Diagnostic) -> Self {
        BuildError::Op(Box::new(d))
    }
}
