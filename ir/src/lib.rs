//! The shardc IR: element and tensor types, device meshes, shardings, ops with StableHLO
//! semantics, functions and modules, a builder, a verifier, the text format (StableHLO +
//! Shardy, as JAX prints it) and the registry of op sharding rules.
//!
//! Nothing here depends on MLIR.

#![warn(missing_docs)]

pub mod builder;
pub mod compress;
pub mod dtype;
pub mod error;
pub mod infer;
pub mod inline;
pub mod literal;
pub mod mesh;
pub mod module;
pub mod op;
pub mod record;
pub mod rotate;
pub mod rules;
pub mod sharding;
pub mod testing;
pub mod text;
pub mod topology;
pub mod unroll;
pub mod verify;

pub use builder::FunctionBuilder;
pub use dtype::{DType, TensorType};
pub use error::{IrError, ParseError, Pos};
pub use literal::{Elements, Literal, Scalar};
pub use mesh::{DeviceId, Mesh, MeshAxis, MeshPosition};
pub use module::{
    Block, BlockId, Function, Module, OF, OP_PATH, OpId, REMAT, REMAT_NAME, ValueAttrs, ValueData,
    ValueDef, ValueId, Visibility, quoted,
};
pub use op::{
    BinaryOp, ComparisonDirection, ComparisonType, ConvDims, Distribution, DotAlgorithm, DotDims,
    FftType, GatherDims, Op, OpKind, Precision, ReplicaGroups, RngAlgorithm, ScatterDims,
    SolveTranspose, UnaryOp, WindowDims,
};
pub use sharding::{AxisRef, DimSharding, Reduction, Sharding, SubAxis, Uneven};
pub use topology::{Algorithm, LinkClass, Topology};
pub use verify::{verify_function, verify_function_with, verify_module, verify_module_with};
