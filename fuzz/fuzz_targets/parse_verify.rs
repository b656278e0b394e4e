//! Any bytes through the text parser and the verifier: no panic, no hang, no abort; and a
//! module that parses and verifies prints, in both printed forms (pretty and generic), to
//! text that parses back to a module printing the same (compared as text, so that NaN
//! constants compare equal).

#![no_main]

use libfuzzer_sys::fuzz_target;
use shardc_ir::text::{parse_module, print_module, print_module_generic};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        // The command line reads files as bytes and refuses non-UTF-8 with a position; the
        // library takes `&str`.
        return;
    };
    let Ok(m) = parse_module(text) else {
        return;
    };
    for (form, printed) in [("pretty", print_module(&m)), ("generic", print_module_generic(&m))] {
        match parse_module(&printed) {
            Ok(again) => assert!(
                print_module(&again) == print_module(&m),
                "the {form} print parses to another module:\n{printed}"
            ),
            Err(e) => panic!("the {form} print does not parse: {e}\n{printed}"),
        }
    }
});
