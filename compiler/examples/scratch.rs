use shardc_compiler::{egraph::PNode, extract, propagate};
use shardc_ir::text::parse_module;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let m = shardc_compiler::inline::inline(
        &parse_module(&std::fs::read_to_string(path).unwrap()).unwrap(),
    )
    .unwrap();
    let f = m.entry().unwrap();
    let p = propagate::propagate(&m, &propagate::Options::default()).unwrap();
    println!("{:?}", p.report);
    let x = extract::extract(&p, f).unwrap();
    println!("cost {:e} tree {:e}", x.cost, x.tree_round_cost);
    let names = f.value_names();
    let mut items: Vec<_> = x.choice.iter().collect();
    items.sort_by_key(|(c, _)| p.graph.egraph[**c].data.0);
    for (c, n) in items {
        let (v, l) = p.graph.egraph[*c].data;
        let what = match n {
            PNode::Arg { .. } => "arg".to_string(),
            PNode::Local { op, children, .. } => format!(
                "{} <- {:?}",
                f.op(*op).kind.name(),
                children
                    .iter()
                    .map(|c| {
                        let (v2, l2) = p.graph.egraph[*c].data;
                        format!("{}{}", names[v2.index()], p.graph.layout(l2))
                    })
                    .collect::<Vec<_>>()
            ),
            PNode::Reshard { plan, child, .. } => format!(
                "reshard {} from {}",
                p.graph.plan(*plan),
                p.graph.layout(p.graph.egraph[child[0]].data.1)
            ),
        };
        println!("{} {} = {}", names[v.index()], p.graph.layout(l), what);
    }
}
