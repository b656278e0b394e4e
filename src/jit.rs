//! `jit`: trace a Rust closure over global tensors into a module with shardings.
//!
//! ```
//! use shardc::{jit, Mesh, P, Tensor, TensorType, DType};
//! let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
//! let mlp = jit(|x: Tensor, w1: Tensor, w2: Tensor| x.matmul(&w1).relu().matmul(&w2))
//!     .name("mlp")
//!     .mesh(&mesh)
//!     .in_shardings([P!["data", None], P![None, "model"], P!["model", None]])
//!     .out_shardings([P!["data", None]]);
//! let f32 = |s: &[usize]| TensorType::new(DType::F32, s);
//! let lowered = mlp.lower(&[f32(&[8, 16]), f32(&[16, 32]), f32(&[32, 16])]).unwrap();
//! assert!(lowered.as_text().contains("stablehlo.dot_general"));
//! ```

use crate::error::Error;
use crate::spec::PartitionSpec;
use crate::trace::{Ctx, Tensor, TraceState};
use shardc_ir::{FunctionBuilder, Mesh, Module, TensorType, Uneven, ValueId};
use std::cell::RefCell;
use std::rc::Rc;

/// What a traced closure returns: one tensor, a tuple of them, or a `Vec`.
pub trait IntoOutputs {
    /// The traced results, in order.
    fn into_outputs(self) -> Vec<Tensor>;
}

impl IntoOutputs for Tensor {
    fn into_outputs(self) -> Vec<Tensor> {
        vec![self]
    }
}

impl IntoOutputs for Vec<Tensor> {
    fn into_outputs(self) -> Vec<Tensor> {
        self
    }
}

macro_rules! tuple_outputs {
    ($($t:ident),+) => {
        impl IntoOutputs for ($(tuple_outputs!(@ty $t),)+) {
            #[allow(non_snake_case)]
            fn into_outputs(self) -> Vec<Tensor> {
                let ($($t,)+) = self;
                vec![$($t),+]
            }
        }
    };
    (@ty $t:ident) => { Tensor };
}
tuple_outputs!(A, B);
tuple_outputs!(A, B, C);
tuple_outputs!(A, B, C, D);
tuple_outputs!(A, B, C, D, E);
tuple_outputs!(A, B, C, D, E, F);

/// A closure that can be traced; `Args` marks its arity (`(Tensor, Tensor)`), or `[Tensor]`
/// (the marker `Vec<Tensor>`) for closures taking a slice `&[Tensor]`.
pub trait TraceFn<Args> {
    /// The number of arguments, if fixed.
    fn arity(&self) -> Option<usize>;
    /// Runs the function on the traced arguments, giving its results.
    fn trace(&self, args: &[Tensor]) -> Vec<Tensor>;
}

impl<F, R> TraceFn<Vec<Tensor>> for F
where
    F: Fn(&[Tensor]) -> R,
    R: IntoOutputs,
{
    fn arity(&self) -> Option<usize> {
        None
    }
    fn trace(&self, args: &[Tensor]) -> Vec<Tensor> {
        self(args).into_outputs()
    }
}

macro_rules! trace_fn {
    ($n:literal; $($i:tt),+) => {
        impl<F, R> TraceFn<($(trace_fn!(@ty $i),)+)> for F
        where
            F: Fn($(trace_fn!(@ty $i)),+) -> R,
            R: IntoOutputs,
        {
            fn arity(&self) -> Option<usize> {
                Some($n)
            }
            fn trace(&self, args: &[Tensor]) -> Vec<Tensor> {
                self($(args[$i].clone()),+).into_outputs()
            }
        }
    };
    (@ty $i:tt) => { Tensor };
}
trace_fn!(1; 0);
trace_fn!(2; 0, 1);
trace_fn!(3; 0, 1, 2);
trace_fn!(4; 0, 1, 2, 3);
trace_fn!(5; 0, 1, 2, 3, 4);
trace_fn!(6; 0, 1, 2, 3, 4, 5);
trace_fn!(7; 0, 1, 2, 3, 4, 5, 6);
trace_fn!(8; 0, 1, 2, 3, 4, 5, 6, 7);

/// A function to trace, with its mesh and shardings. Made by [`jit`].
pub struct Jit<F, A> {
    f: F,
    name: String,
    mesh: Option<Mesh>,
    in_shardings: Option<Vec<PartitionSpec>>,
    out_shardings: Option<Vec<PartitionSpec>>,
    uneven: Uneven,
    _args: std::marker::PhantomData<fn(&A)>,
}

/// Wraps a closure over [`Tensor`]s for tracing, like `jax.jit`.
pub fn jit<F, A>(f: F) -> Jit<F, A>
where
    F: TraceFn<A>,
{
    Jit {
        f,
        name: "main".into(),
        mesh: None,
        in_shardings: None,
        out_shardings: None,
        uneven: Uneven::Refuse,
        _args: std::marker::PhantomData,
    }
}

impl<F, A> Jit<F, A>
where
    F: TraceFn<A>,
{
    /// Names the module (`module @jit_<name>`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// The device mesh the shardings refer to.
    pub fn mesh(mut self, mesh: &Mesh) -> Self {
        self.mesh = Some(mesh.clone());
        self
    }

    /// One spec per argument.
    pub fn in_shardings(mut self, specs: impl IntoIterator<Item = PartitionSpec>) -> Self {
        self.in_shardings = Some(specs.into_iter().collect());
        self
    }

    /// One spec per result.
    pub fn out_shardings(mut self, specs: impl IntoIterator<Item = PartitionSpec>) -> Self {
        self.out_shardings = Some(specs.into_iter().collect());
        self
    }

    /// Lets the shardings (arguments, results, constraints) split dimensions their axes do
    /// not divide: each shard holds `ceil(n / shards)` elements, the last ones padded, as
    /// GSPMD lays out uneven shardings (`docs/sharding.md`). [`Lowered::compile`] then
    /// compiles with padding (`Options::pad_uneven`). Without it, such a sharding is an
    /// error naming the value, the dimension and the axes.
    pub fn pad_uneven(mut self) -> Self {
        self.uneven = Uneven::Pad;
        self
    }

    /// Traces the closure on arguments of the given types.
    pub fn lower(&self, arg_types: &[TensorType]) -> Result<Lowered, Error> {
        if let Some(n) = self.f.arity()
            && n != arg_types.len()
        {
            return Err(Error::Usage(format!(
                "jit({}): the function takes {n} argument(s) but lower() was given {} type(s)",
                self.name,
                arg_types.len()
            )));
        }
        let mesh_name = self
            .mesh
            .as_ref()
            .map(|m| m.name.clone())
            .unwrap_or_else(|| "mesh".into());
        let needs_mesh = self.in_shardings.is_some() || self.out_shardings.is_some();
        if needs_mesh && self.mesh.is_none() {
            return Err(Error::Usage(format!(
                "jit({}): shardings were given but no mesh; call .mesh(&mesh) first",
                self.name
            )));
        }
        let ctx: Ctx = Rc::new(RefCell::new(TraceState {
            builder: FunctionBuilder::new("main", arg_types),
            mesh: mesh_name.clone(),
            error: None,
            callees: Vec::new(),
        }));
        let args: Vec<ValueId> = ctx.borrow().builder.args();
        let arg_tensors: Vec<Tensor> = args.iter().map(|&v| Tensor::from_value(&ctx, v)).collect();
        if let Some(specs) = &self.in_shardings {
            check_count(
                &self.name,
                "in_shardings",
                specs.len(),
                "argument",
                arg_types.len(),
            )?;
            for (i, (spec, ty)) in specs.iter().zip(arg_types).enumerate() {
                let s = spec.to_sharding(&mesh_name, ty.rank()).map_err(|rule| {
                    Error::Usage(format!("jit({}): in_shardings[{i}]: {rule}", self.name))
                })?;
                ctx.borrow_mut().builder.set_arg_sharding(i, s);
            }
        }
        let outputs = self.f.trace(&arg_tensors);
        let results: Vec<ValueId> = outputs.iter().map(|t| t.id()).collect();
        drop((outputs, arg_tensors));
        let state = Rc::try_unwrap(ctx)
            .map_err(|_| {
                Error::Usage(format!(
                    "jit({}): a traced Tensor escaped the function; return it instead",
                    self.name
                ))
            })?
            .into_inner();
        if let Some(e) = state.error {
            return Err(e);
        }
        let mut func = state.builder.finish(&results);
        if let Some(specs) = &self.out_shardings {
            check_count(
                &self.name,
                "out_shardings",
                specs.len(),
                "result",
                results.len(),
            )?;
            for (i, spec) in specs.iter().enumerate() {
                let ty = func.ty(results[i]).clone();
                let s = spec.to_sharding(&mesh_name, ty.rank()).map_err(|rule| {
                    Error::Usage(format!("jit({}): out_shardings[{i}]: {rule}", self.name))
                })?;
                func.result_attrs[i].sharding = Some(s);
            }
        }
        let mut functions = vec![func];
        functions.extend(state.callees);
        let module = Module {
            name: Some(format!("jit_{}", self.name)),
            attrs: Vec::new(),
            meshes: self.mesh.iter().cloned().collect(),
            functions,
        };
        shardc_ir::verify_module_with(&module, self.uneven)?;
        Ok(Lowered {
            module,
            uneven: self.uneven,
        })
    }
}

fn check_count(name: &str, what: &str, given: usize, of: &str, want: usize) -> Result<(), Error> {
    if given != want {
        return Err(Error::Usage(format!(
            "jit({name}): {what} has {given} spec(s) but the function has {want} {of}(s); give one per {of} (P![] for replicated)"
        )));
    }
    Ok(())
}

/// A traced program: the global module with the user's shardings.
#[derive(Clone, Debug)]
pub struct Lowered {
    module: Module,
    /// Whether the shardings may pad (`Jit::pad_uneven`).
    uneven: Uneven,
}

impl Lowered {
    /// The same program without sharding annotations on its results: its callers decide
    /// their layouts (e.g. a training step lays gradients out as its strategy says).
    pub fn without_result_shardings(&self) -> Lowered {
        let mut module = self.module.clone();
        if let Some(f) = module.functions.iter_mut().find(|f| f.name == "main") {
            for a in &mut f.result_attrs {
                a.sharding = None;
            }
        }
        Lowered {
            module,
            uneven: self.uneven,
        }
    }

    /// The traced module (StableHLO + Shardy, as JAX lowers it).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The same program with scopes renamed: each part of an op's path
    /// ([`named_scope`](crate::named_scope)) equal to a `from` becomes its `to`
    /// (`param[3]` -> `h0.wq`), in every function.
    pub fn rename_scopes(&self, renames: &[(String, String)]) -> Lowered {
        let renames: std::collections::HashMap<&str, &str> = renames
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let mut module = self.module.clone();
        for f in &mut module.functions {
            for op in &mut f.ops {
                let Some(path) = op.path() else { continue };
                let renamed: Vec<&str> = path
                    .split('/')
                    .map(|part| renames.get(part).copied().unwrap_or(part))
                    .collect();
                let renamed = shardc_ir::quoted(&renamed.join("/"));
                for (k, v) in &mut op.attrs {
                    if k == shardc_ir::OP_PATH {
                        *v = renamed.clone();
                    }
                }
            }
        }
        Lowered {
            module,
            uneven: self.uneven,
        }
    }

    /// The same program with its arguments and results named (JAX's `jax.arg_info` and
    /// `jax.result_info`, which JAX derives from pytree paths): explanations and
    /// [`Compiled::decisions`](crate::Compiled::decisions) call them so. One name per
    /// argument and one per result, in order; an empty name leaves that one unnamed.
    ///
    /// ```
    /// use shardc::{DType, Tensor, TensorType, jit};
    /// let t = TensorType::new(DType::F32, [4]);
    /// let lowered = jit(|a: &[Tensor]| &a[0] + &a[1])
    ///     .lower(&[t.clone(), t])?
    ///     .with_names(&["w", "x"], &["y"])?;
    /// assert!(lowered.as_text().contains("jax.arg_info = \"w\""));
    /// # Ok::<(), shardc::Error>(())
    /// ```
    pub fn with_names(
        &self,
        args: &[impl AsRef<str>],
        results: &[impl AsRef<str>],
    ) -> Result<Lowered, Error> {
        let mut module = self.module.clone();
        let f = module
            .functions
            .iter_mut()
            .find(|f| f.name == "main")
            .ok_or_else(|| Error::Usage("with_names: the program has no @main".into()))?;
        let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        let results: Vec<&str> = results.iter().map(AsRef::as_ref).collect();
        for (what, names, attrs, key) in [
            ("argument", args, &mut f.arg_attrs, "jax.arg_info"),
            ("result", results, &mut f.result_attrs, "jax.result_info"),
        ] {
            if names.len() != attrs.len() {
                return Err(Error::Usage(format!(
                    "with_names: {} {what} name(s) for a program of {} {what}(s); give one per {what} (an empty one leaves it unnamed)",
                    names.len(),
                    attrs.len()
                )));
            }
            for (a, name) in attrs.iter_mut().zip(names) {
                a.attrs.retain(|(k, _)| k != key);
                if !name.is_empty() {
                    a.attrs.push((key.to_string(), shardc_ir::quoted(name)));
                }
            }
        }
        Ok(Lowered {
            module,
            uneven: self.uneven,
        })
    }

    /// The module in the StableHLO + Shardy syntax JAX prints.
    pub fn as_text(&self) -> String {
        shardc_ir::text::print_module(&self.module)
    }

    /// The module in MLIR's generic op form (what `mlir-opt --allow-unregistered-dialect` reads).
    pub fn as_generic_text(&self) -> String {
        shardc_ir::text::print_module_generic(&self.module)
    }

    /// Runs the global program on the host with the reference interpreter (the numerical
    /// oracle every partitioned run is compared against).
    pub fn run_reference(
        &self,
        args: &[shardc_ir::Literal],
    ) -> Result<Vec<shardc_ir::Literal>, Error> {
        Ok(shardc_runtime::reference::run(&self.module, "main", args)?)
    }

    /// JAX's `value_and_grad` with `argnums = wrt` (and `has_aux` for results after the
    /// first): a program taking the same arguments and returning `(loss, aux...,
    /// grad_wrt[0], ...)`. Result 0 must be a scalar float loss; each gradient is laid out
    /// like its argument. See `docs/autodiff.md`.
    pub fn value_and_grad(&self, wrt: &[usize]) -> Result<Lowered, Error> {
        let module = shardc_compiler::autodiff::differentiate::value_and_grad(&self.module, wrt)
            .map_err(|e| Error::Compile(Box::new(e)))?;
        Ok(Lowered {
            module,
            uneven: self.uneven,
        })
    }

    /// JAX's `grad` with `argnums = wrt`: the gradients of the loss (result 0) only.
    pub fn grad(&self, wrt: &[usize]) -> Result<Lowered, Error> {
        let module = shardc_compiler::autodiff::differentiate::grad(&self.module, wrt)
            .map_err(|e| Error::Compile(Box::new(e)))?;
        Ok(Lowered {
            module,
            uneven: self.uneven,
        })
    }

    /// Propagates, partitions and explains: the whole pipeline on the traced program.
    /// A program traced with [`Jit::pad_uneven`] compiles with padding whatever `opts`
    /// says.
    pub fn compile(
        &self,
        opts: &shardc_compiler::Options,
    ) -> Result<shardc_compiler::Compiled, Error> {
        let mut opts = opts.clone();
        opts.pad_uneven |= self.uneven.pads();
        shardc_compiler::compile(&self.module, &opts).map_err(|e| Error::Compile(Box::new(e)))
    }

    /// Calls this program from inside another trace (like calling a jitted function from
    /// a jitted function in JAX): adds its functions to the trace being built and returns
    /// its results. Its argument and result shardings act as sharding constraints on the
    /// call's operands and results. Shape mismatches are reported by the enclosing
    /// `lower`, with the caller's line.
    #[track_caller]
    pub fn call(&self, args: &[Tensor]) -> Vec<Tensor> {
        crate::trace::call_lowered(&self.module, args, std::panic::Location::caller())
    }
}
