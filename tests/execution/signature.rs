//! The signatures of the functions a program's C++ implements, taken from ptoc's own IR (the
//! program after the default pipeline: outlined kernels exist only there), never from text.

use ptoc::codegen::orchestration::return_slots;
use ptoc::ir::{DataType, ExprKind, FunctionType, ParamDirection, Program, Type};
use ptoc::passes::{Backend, OptLevel, PassEnv, Pipeline};

use super::npy::Elem;

#[derive(Clone, Debug, PartialEq)]
pub struct TensorSpec {
    pub dtype: DataType,
    pub elem: Elem,
    pub shape: Vec<usize>,
}

impl TensorSpec {
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamType {
    Tensor(TensorSpec),
    Scalar(DataType, Elem),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamSig {
    pub name: String,
    pub ty: ParamType,
    pub direction: ParamDirection,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An InCore function: `kernels/ai[vc]/<name>.cpp`, called through `kernel_entry(args)`.
    Kernel,
    /// `orchestration/<name>.cpp`, called through `aicpu_orchestration_entry(rt, args, n)`.
    Orchestration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncSig {
    pub name: String,
    pub kind: Kind,
    pub params: Vec<ParamSig>,
    /// Orchestration only: the returned tensors that are not parameters, in the order of the
    /// ARG slots ptoc gives them after the tensor parameters, with their index among the
    /// function's return values (the interpreter's `return_<i>.npy`).
    pub extra_returns: Vec<(usize, TensorSpec)>,
}

/// The program after ptoc's default pipeline (what `--emit cpp` generates code from).
pub fn lowered(source: &str) -> Result<Program, String> {
    let prog = ptoc::driver::frontend(source).map_err(|d| format!("front end: {d:?}"))?;
    // At ptoc's default level, like the `--emit cpp` run: -O1 plans memory by lifetime, and a
    // program that fits only so must get its signature too.
    let env = PassEnv { opt: OptLevel::O1, ..PassEnv::new(Backend::Cce) };
    ptoc::passes::manager::Manager::new(&Pipeline::Default.passes_at(OptLevel::O1), env)
        .run(prog)
        .map_err(|d| format!("passes: {d:?}"))
}

fn tensor_spec(ty: &Type) -> Result<TensorSpec, String> {
    let Type::Tensor(t) = ty else {
        return Err(format!("not a tensor: {}", ty.kind_name()));
    };
    let elem = Elem::of(t.dtype).ok_or(format!("dtype {} is not supported by the harness", t.dtype.name()))?;
    let shape = t
        .shape
        .iter()
        .map(|d| match d.kind {
            ExprKind::ConstInt(v, _) if v >= 0 => Ok(v as usize),
            _ => Err("a tensor shape is not constant".to_string()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TensorSpec { dtype: t.dtype, elem, shape })
}

/// The signature of every InCore and Orchestration function of `prog`; `Err` for functions
/// the harness cannot drive (symbolic shapes, unsupported dtypes), with the reason.
pub fn signatures(prog: &Program) -> Vec<(String, Result<FuncSig, String>)> {
    prog.functions
        .iter()
        .filter_map(|f| {
            let kind = match f.kind {
                FunctionType::InCore => Kind::Kernel,
                FunctionType::Orchestration => Kind::Orchestration,
                FunctionType::Opaque => return None,
            };
            let sig = (|| {
                let mut params = Vec::new();
                for p in &f.params {
                    let ty = f.var_type(p.var);
                    let name = f.var_name(p.var).to_string();
                    let ty = match ty {
                        Type::Scalar(d) => ParamType::Scalar(
                            *d,
                            Elem::of(*d).ok_or(format!("scalar {name}: dtype {} unsupported", d.name()))?,
                        ),
                        Type::Tensor(_) => ParamType::Tensor(tensor_spec(ty).map_err(|e| format!("{name}: {e}"))?),
                        other => return Err(format!("parameter {name} of type {}", other.kind_name())),
                    };
                    params.push(ParamSig { name, ty, direction: p.direction });
                }
                let extra_returns = if kind == Kind::Orchestration { extra_returns(prog, f)? } else { Vec::new() };
                Ok(FuncSig { name: f.name.clone(), kind, params, extra_returns })
            })();
            Some((f.name.clone(), sig))
        })
        .collect()
}

/// The returned variables of an orchestration function that get ARG slots: as ptoc's
/// orchestration codegen decides (`return_slots`: returned values that are not a parameter's
/// buffer, one per buffer).
fn extra_returns(prog: &Program, f: &ptoc::ir::Function) -> Result<Vec<(usize, TensorSpec)>, String> {
    return_slots(prog, f)
        .into_iter()
        .map(|(i, v)| tensor_spec(f.var_type(v)).map(|spec| (i, spec)).map_err(|e| format!("return value {i}: {e}")))
        .collect()
}
