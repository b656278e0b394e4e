//! shardc facade
