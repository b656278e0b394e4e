//! Whole programs: random f32 programs, fusion, the kernel cache, errors.
