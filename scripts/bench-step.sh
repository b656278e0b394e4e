#!/usr/bin/env bash
# The demo model's training step, shardc and JAX/XLA side by side, in one run: the same
# model, meshes (1, 2, 4, 8 devices), initial parameters and first batch. shardc runs first
# (`shardc bench step`), then JAX (`bench/jax_gpt.py` on 8 host devices), one after the
# other so each has the whole machine; the combined JSON (ratios shardc_ms / jax_ms) is
# printed and kept with both raw outputs in target/bench-step/.
#
# Usage: scripts/bench-step.sh [shardc bench step flags: --devices 1,2,4,8 --steps 5
#        --engine interpreted --tiny --layers N ...]
# Needs python3 with venv; installs jax[cpu] into target/jax-venv on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
JAX_VERSION=0.10.2
VENV=target/jax-venv
OUT=target/bench-step
if ! "$VENV/bin/python" -c "import jax, sys; sys.exit(jax.__version__ != '$JAX_VERSION')" 2>/dev/null; then
  echo "installing jax[cpu]==$JAX_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "jax[cpu]==$JAX_VERSION"
fi
export XLA_FLAGS=--xla_force_host_platform_device_count=8
mkdir -p "$OUT"
cargo build --release --quiet -p shardc-cli
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "shardc bench step $*" >&2
cargo run --release --quiet -p shardc-cli -- bench step --dump-init "$OUT/init" "$@" > "$OUT/shardc.json"
echo "bench/jax_gpt.py --init $OUT/init" >&2
"$VENV/bin/python" bench/jax_gpt.py --init "$OUT/init" > "$OUT/jax.json"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$VENV/bin/python" bench/combine.py "$OUT/shardc.json" "$OUT/jax.json" \
  --load-before "$load_before" --load-after "$load_after" | tee "$OUT/combined.json"
