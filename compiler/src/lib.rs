//! shardc compiler.
pub fn hello() -> bool {
    let ctx = melior::Context::new();
    ctx.set_allow_unregistered_dialects(true);
    let m = melior::ir::Module::parse(&ctx, "module { \"foo.bar\"() : () -> () }");
    m.is_some()
}
#[cfg(test)]
mod t { #[test] fn h() { assert!(super::hello()); } }
