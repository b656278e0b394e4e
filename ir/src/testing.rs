//! Random valid modules for property tests.
