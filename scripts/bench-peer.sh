#!/usr/bin/env bash
# shardc beside JAX/XLA on the programs of the peer benchmark (../shared/bench/peer), in
# one invocation: per case, XLA (jax_peer.py) and then shardc (`shardc bench peer`) on the
# same 8 host devices, one after the other, so that both see the same machine. Writes the
# side-by-side table as JSON to docs/bench/peer-DATE.json (or $OUT) and prints it as text.
# shardc's time to the first step is measured twice per case: with an empty kernel cache
# (cold: every kernel compiled) and again with the cache that run filled (warm).
#
#   JAX_PYTHON=/path/to/venv/bin/python ./scripts/bench-peer.sh [CASES]
#
# CASES: comma-separated (default: every case but transformer_stack_48, which takes XLA
# minutes to compile). The venv: pip install -r ../shared/bench/peer/requirements.txt.
# SHARDC_COST_PROFILE, when set, is the profile shardc compiles with (`shardc calibrate`).
set -euo pipefail
cd "$(dirname "$0")/.."
py="${JAX_PYTHON:-.venv-jax/bin/python}"
cases="${1:-mlp_dp,mlp_fsdp,mlp_fsdp_gather,mlp_megatron,auto_propagation,transformer_block,transformer_stack_4,transformer_stack_16,moe,moe_expert_constraint,moe_auto}"
out="${OUT:-docs/bench/peer-$(date +%F).json}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cargo build --release -q -p shardc-cli
stacks="$(tr ',' '\n' <<<"$cases" | sed -n 's/^transformer_stack_//p' | paste -sd, -)"
for c in ${cases//,/ }; do
  XLA_FLAGS=--xla_force_host_platform_device_count=8 "$py" ../shared/bench/peer/jax_peer.py \
    --cases "$c" --stack-sizes "${stacks:-4}" --repeats 3 --iters 10 --hlo-dir '' \
    --out "$tmp/jax-$c.jsonl" >/dev/null
  # Cold: an empty kernel cache (every kernel compiled); then warm: the same cache filled.
  SHARDC_KERNEL_CACHE="$tmp/kernels-$c" target/release/shardc bench peer --cases "$c" --steps 2 >"$tmp/cold-$c.json"
  SHARDC_KERNEL_CACHE="$tmp/kernels-$c" target/release/shardc bench peer --cases "$c" --steps 10 >"$tmp/shardc-$c.json"
done
python3 - "$tmp" "$out" "$cases" <<'EOF'
import json, sys, subprocess
tmp, out, cases = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
xla = {}
for c in cases:
    for line in open(f"{tmp}/jax-{c}.jsonl"):
        d = json.loads(line)
        xla[d["case"]] = d
rows = []
for c in cases:
    s = json.load(open(f"{tmp}/shardc-{c}.json"))["cases"][0]
    cold = json.load(open(f"{tmp}/cold-{c}.json"))["cases"][0]
    x = xla[c]
    x_bytes = sum(x["collective_wire_bytes"].values())
    x_first = x["lower_ms"] + x["compile_ms"]
    rows.append({
        "case": c,
        "shardc_step_ms": s["step_ms"],
        "xla_step_ms": x["step_ms"],
        "step_ratio": round(s["step_ms"] / x["step_ms"], 3),
        # Both by the same formula (the bandwidth-optimal ring's bytes of each
        # collective, jax_peer.py's `collective_stats` and shardc's `explain`), and what
        # shardc's busiest device measurably sent: up to a few bytes more where a buffer
        # does not divide into equal chunks of whole elements.
        "shardc_bytes_per_device": s["planned_bytes_per_device"],
        "xla_bytes_per_device": x_bytes,
        "shardc_measured_bytes_per_device": s["bytes_sent_per_device"],
        "shardc_time_to_first_step_ms": s["first_step_ms"],
        "shardc_time_to_first_step_parts_ms": s["time_to_first_step_ms"],
        "xla_lower_compile_ms": round(x_first, 2),
        "first_step_ratio": round(s["first_step_ms"] / x_first, 3),
        "shardc_cold_time_to_first_step_ms": cold["first_step_ms"],
        "cold_first_step_ratio": round(cold["first_step_ms"] / x_first, 3),
        "shardc_peak_bytes_per_device": s["peak_bytes_per_device"],
        "shardc_collectives": s["collectives"],
        "xla_collectives": x["collective_counts"],
        "shardc_predicted_ms": round(s["predicted_ms"], 3),
        "cost_model": s["cost_model"],
    })
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
doc = {"what": "shardc beside XLA on the peer programs, per case one after the other on the same host (scripts/bench-peer.sh)",
       "commit": commit, "env": next(iter(xla.values()))["env"], "cases": rows}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
print(f"{'case':24} {'shardc ms':>9} {'xla ms':>8} {'ratio':>6} {'MB shardc':>9} {'MB xla':>7} {'first warm':>10} {'cold':>6} {'xla':>7}")
for r in rows:
    print(f"{r['case']:24} {r['shardc_step_ms']:9.1f} {r['xla_step_ms']:8.1f} {r['step_ratio']:6.2f} "
          f"{r['shardc_bytes_per_device']/1e6:9.2f} {r['xla_bytes_per_device']/1e6:7.2f} "
          f"{r['shardc_time_to_first_step_ms']:10.0f} {r['shardc_cold_time_to_first_step_ms']:6.0f} {r['xla_lower_compile_ms']:7.0f}")
print(f"wrote {out}")
EOF
