//! The signatures of the functions a program's C++ implements, taken from ptoc's own IR (the
//! program after the default pipeline: outlined kernels exist only there), never from text.

use ptoc::codegen::orchestration::return_slots;
use ptoc::ir::{DataType, ExprKind, FunctionType, ParamDirection, Program, Type};
use ptoc::passes::{Backend, OptLevel, PassEnv, Pipeline};

use std::collections::BTreeMap;

use super::npy::Elem;

#[derive(Clone, Debug, PartialEq)]
pub struct TensorSpec {
    pub dtype: DataType,
    pub elem: Elem,
    /// The extents; 0 on a symbolic axis until [`TensorSpec::resolve`] gives it a value.
    pub shape: Vec<usize>,
    /// The symbolic dimension (`M` of `pl.Tensor[[M, 16], …]`) of each axis, `None` for a static
    /// one; empty when every axis is static.
    pub symbols: Vec<Option<String>>,
}

impl TensorSpec {
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether some axis has a runtime extent: the host main then reads the shape from the
    /// input file.
    pub fn symbolic(&self) -> bool {
        self.symbols.iter().any(Option::is_some)
    }

    /// The spec with every symbolic axis given its value in `dims`.
    pub fn resolve(&self, dims: &BTreeMap<String, usize>) -> Result<TensorSpec, String> {
        let mut shape = self.shape.clone();
        for (k, sym) in self.symbols.iter().enumerate() {
            if let Some(name) = sym {
                shape[k] = *dims.get(name).ok_or_else(|| {
                    format!("symbolic dimension {name} has no value (give it with `# exec-dims: {name}=N`)")
                })?;
            }
        }
        Ok(TensorSpec { dtype: self.dtype, elem: self.elem, shape, symbols: Vec::new() })
    }
}

/// The values of a program's symbolic dimensions, per input set, from its `# exec-dims:` line
/// (`# exec-dims: M=4,8 N=16`: input set k takes the k-th value of each list, cycling): a
/// kernel over `pl.Tensor[[M, 16], …]` runs on the shapes these give, one executable for all.
/// No line: no values (a function with symbolic dimensions is not run).
pub fn exec_dims(source: &str, set: usize) -> Result<BTreeMap<String, usize>, String> {
    let mut out = BTreeMap::new();
    for line in source.lines() {
        let Some(rest) = line.trim_start().strip_prefix("# exec-dims:") else { continue };
        for item in rest.split_whitespace() {
            let bad = || format!("`# exec-dims:` item `{item}`: expected NAME=N[,N…]");
            let (name, values) = item.split_once('=').ok_or_else(bad)?;
            let values: Vec<usize> =
                values.split(',').map(|v| v.parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
            out.insert(name.to_string(), values[set % values.len()]);
        }
    }
    Ok(out)
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
    /// Orchestration only: the symbolic axes whose extents take the ARG slots after the scalars
    /// (`ptoc::codegen::orchestration::dim_slots`), each as (symbol, parameter, axis): the host
    /// main passes that parameter's extent on that axis.
    pub dim_slots: Vec<(String, usize, usize)>,
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

fn tensor_spec(vars: &ptoc::ir::VarTable, ty: &Type) -> Result<TensorSpec, String> {
    let Type::Tensor(t) = ty else {
        return Err(format!("not a tensor: {}", ty.kind_name()));
    };
    let elem = Elem::of(t.dtype).ok_or(format!("dtype {} is not supported by the harness", t.dtype.name()))?;
    let mut shape = Vec::new();
    let mut symbols = Vec::new();
    for d in &t.shape {
        match &d.kind {
            ExprKind::ConstInt(v, _) if *v >= 0 => {
                shape.push(*v as usize);
                symbols.push(None);
            }
            ExprKind::Var(v) if matches!(vars.var(*v).kind, ptoc::ir::VarKind::Plain) => {
                shape.push(0);
                symbols.push(Some(vars.var_name(*v).to_string()));
            }
            _ => return Err("a tensor dimension is an expression".to_string()),
        }
    }
    if symbols.iter().all(Option::is_none) {
        symbols.clear();
    }
    Ok(TensorSpec { dtype: t.dtype, elem, shape, symbols })
}

/// Whether a tensor parameter of `f` has a dimension that is neither a constant nor a scalar
/// parameter: `ptoc run --seed` cannot choose its extent.
pub fn has_symbolic_dims(f: &ptoc::ir::Function) -> bool {
    f.params.iter().any(|p| {
        f.var_type(p.var).shape().is_some_and(|dims| {
            dims.iter().any(|d| match &d.kind {
                ExprKind::ConstInt(..) => false,
                ExprKind::Var(v) => !f.params.iter().any(|q| q.var == *v),
                _ => true,
            })
        })
    })
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
                        Type::Tensor(_) => {
                            ParamType::Tensor(tensor_spec(&f.vars, ty).map_err(|e| format!("{name}: {e}"))?)
                        }
                        other => return Err(format!("parameter {name} of type {}", other.kind_name())),
                    };
                    params.push(ParamSig { name, ty, direction: p.direction });
                }
                // A dimension that is a scalar parameter (`a: pl.Tensor[[n, 16], …]`) would need
                // the tensor's shape to follow the scalar's random value.
                let base = ptoc::codegen::orchestration::base_name;
                for p in &params {
                    let ParamType::Tensor(t) = &p.ty else { continue };
                    if let Some(n) =
                        t.symbols.iter().flatten().find(|n| params.iter().any(|q| base(&q.name) == base(n)))
                    {
                        return Err(format!("{}: dimension {n} is a scalar parameter", p.name));
                    }
                }
                let (extra_returns, dim_slots) = if kind == Kind::Orchestration {
                    (extra_returns(prog, f)?, dim_slots(f, &params)?)
                } else {
                    (Vec::new(), Vec::new())
                };
                Ok(FuncSig { name: f.name.clone(), kind, params, extra_returns, dim_slots })
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
        .map(|(i, v)| {
            tensor_spec(&f.vars, f.var_type(v)).map(|spec| (i, spec)).map_err(|e| format!("return value {i}: {e}"))
        })
        .collect()
}

/// The orchestration's symbolic-axis slots in ptoc's order, each as (symbol, parameter, axis).
fn dim_slots(f: &ptoc::ir::Function, params: &[ParamSig]) -> Result<Vec<(String, usize, usize)>, String> {
    ptoc::codegen::orchestration::dim_slots(f)
        .into_iter()
        .map(|d| {
            let name = f.var_name(d.var).to_string();
            match params.get(d.param).map(|p| &p.ty) {
                Some(ParamType::Tensor(_)) => Ok((name, d.param, d.axis)),
                _ => Err(format!("symbolic dimension {name}: slot of parameter {} is no tensor parameter", d.param)),
            }
        })
        .collect()
}
