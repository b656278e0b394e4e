//! The op sharding-rule registry.
