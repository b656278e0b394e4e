use shardc_compiler::*;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let m = shardc_ir::text::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let g = constrain::constrain(&inline::inline(&m).unwrap()).unwrap();
    rules(&g);
    let p = propagate::propagate(&g, &Options::default()).unwrap();
    let x = extract::extract(&p, g.entry().unwrap()).unwrap();
    for (c, n) in &x.choice {
        let (v, l) = p.graph.egraph[*c].data;
        println!("{c} {v} {} = {:?}", p.graph.layout(l), n);
    }
    for i in 0..p.graph.plans.len() {
        println!("plan {i}: {}", p.graph.plans.get(i as u32));
    }
    for (k, o) in &p.origin {
        println!("origin {} {} <- {:?}", k.0, p.graph.layout(k.1), o);
    }
    for (k, cl) in p.graph.keys() {
        println!("class {cl} = {} {}", k.0, p.graph.layout(k.1));
    }
    let part = partition::partition(&g, &p, &x).unwrap();
    println!("{}", shardc_ir::text::print_module(&part.module));
    for (c, n) in &x.choice {
        let (v, l) = p.graph.egraph[*c].data;
        println!("{v} {} = {:?}", p.graph.layout(l), n);
    }
}
#[allow(dead_code)]
fn rules(g: &shardc_ir::Module) {
    let f = g.entry().unwrap();
    for (_, op) in f.body_ops() {
        println!(
            "{} : {}",
            op.kind.name(),
            shardc_ir::rules::op_rule(f, op).unwrap()
        );
    }
}
