//! The decisions snapshot users keep in their own tests (`Compiled::decisions`): named by
//! what the program names, and stable when a layer is added.

use shardc::Mesh;
use shardc::compiler::passes::explain::{Decisions, Explanation};
use shardc_train::models::GptConfig;
use shardc_train::presets;

/// The decisions of the demo's model and step (DP x TP on data=2 x model=4, AdamW) with
/// `layers` layers, its parameters named; and its explanation.
fn demo(layers: usize) -> (Decisions, Explanation) {
    let cfg = GptConfig {
        layers,
        ..presets::demo_config()
    };
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap();
    let ts = presets::demo_step(cfg, &mesh, presets::demo_optimizer()).unwrap();
    let compiled = ts.program.compile(&ts.options()).unwrap();
    (compiled.decisions(), compiled.explain())
}

#[test]
fn decisions_name_parameters_and_only_grow_when_a_layer_is_added() {
    let (two, explained) = demo(2);
    let (three, _) = demo(3);
    let text = two.to_string();
    // Parameters, results and the values collectives move, by the names the program gives.
    for line in [
        "argument h0.wq: f32[128,128@model]",
        "argument h1.w2: f32[512@model,128]",
        "argument adam_m.h0.wq: f32[128,128@model]",
        "argument batch[0]: i32[16@data,64]",
        "result loss: f32[]",
        "result new.h1.w1: f32[128,512@model]",
        "all_reduce {data} grad/h0/attn/dot_general (12): f32[128,128@model]{sum over data} -> f32[128,128@model], 16384 B/device, for update/h0.wq/sharding_constraint",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line `{line}` in\n{text}"
        );
    }
    assert!(!text.contains('%'), "a value named by its number:\n{text}");
    // Count for count, byte for byte what explain lists (and the run measures).
    assert_eq!(two.collectives.len(), explained.collectives.len());
    let bytes: u64 = two.collectives.iter().map(|c| c.bytes_per_device).sum();
    assert_eq!(bytes, explained.bytes_per_device);
    // A third layer adds lines, each about it (`h2`), and changes no other.
    let old: Vec<&str> = text.lines().collect();
    let new = three.to_string();
    let mut rest = old.iter().peekable();
    for line in new.lines() {
        if rest.peek() == Some(&&line) {
            rest.next();
        } else {
            assert!(
                line.contains("h2"),
                "a line changed or was added that is not about h2: `{line}`"
            );
        }
    }
    assert_eq!(
        rest.next(),
        None,
        "a line of the 2-layer decisions is missing with 3 layers"
    );
    assert!(new.lines().count() > old.len());
    // JSON for tools, with the same names.
    let json: serde_json::Value = serde_json::from_str(&two.to_json()).unwrap();
    assert_eq!(json["arguments"][2]["name"], "h0.ln1_g");
    insta::assert_snapshot!("demo_decisions", text);
}
