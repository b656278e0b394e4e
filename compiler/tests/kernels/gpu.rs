//! GPU.
