//! The text format: StableHLO ops with Shardy sharding attributes, as JAX prints them.
