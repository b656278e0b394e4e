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
    let mut failures = Vec::new();
    for fx in &fixtures {
        let got = match reference::run(&fx.module, "main", &fx.inputs) {
            Ok(got) => got,
            Err(e) => {
                failures.push(format!("{}: {e}", fx.name));
                continue;
            }
        };
        assert_eq!(got.len(), fx.outputs.len(), "{}", fx.name);
        for (k, (g, w)) in got.iter().zip(&fx.outputs).enumerate() {
            match excess_error(g, w, fx.abs, fx.rel) {
                Ok(excess) if excess <= 0.0 => {}
                Ok(excess) => failures.push(format!(
                    "{} output {k} is off JAX's by {excess:e} beyond tolerance",
                    fx.name
                )),
                Err(e) => failures.push(format!("{} output {k}: {e}", fx.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
