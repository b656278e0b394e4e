use shardc_compiler::{Options, compile};
use shardc_ir::text::parse_module;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let m = parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let c = compile(&m, &Options::default()).unwrap();
    let e = c.explain();
    println!("{}", e.summary());
    println!("{e}");
    if std::env::var("ORIG").is_ok() {
        dbg_origins(&c);
    }
}
#[allow(dead_code)]
fn dbg_origins(c: &shardc_compiler::Compiled) {
    let f = c.global.entry().unwrap();
    let names = f.value_names();
    let mut v: Vec<_> = c.propagated.origin.iter().collect();
    v.sort_by_key(|(k, _)| (k.0, k.1));
    for ((val, l), o) in v {
        println!(
            "{} {} <- {:?}",
            names[val.index()],
            c.propagated.graph.layout(*l),
            o
        );
    }
}
