//! The reference interpreter against JAX: every program in `tests/fixtures/jax/` (what
//! `jax.jit(...).lower(...).as_text()` printed), parsed, run on the inputs JAX was given,
//! and compared with the outputs JAX computed, within each fixture's stated tolerance.

use shardc_ir::testing::jax::{excess_error, jax_fixtures};
use shardc_runtime::reference;

#[test]
fn every_jax_fixture_matches_jax() {
    let fixtures = jax_fixtures().unwrap();
    assert!(
        fixtures.len() >= 4,
        "expected the four seed fixtures, found {}",
        fixtures.len()
    );
    for fx in &fixtures {
        let got = reference::run(&fx.module, "main", &fx.inputs)
            .unwrap_or_else(|e| panic!("{}: {e}", fx.name));
        assert_eq!(got.len(), fx.outputs.len(), "{}", fx.name);
        for (k, (g, w)) in got.iter().zip(&fx.outputs).enumerate() {
            let excess = excess_error(g, w, fx.abs, fx.rel)
                .unwrap_or_else(|e| panic!("{} output {k}: {e}", fx.name));
            assert!(
                excess <= 0.0,
                "{} output {k} is off JAX's by {excess:e} beyond tolerance",
                fx.name
            );
        }
    }
}
