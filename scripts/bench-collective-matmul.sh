#!/bin/bash
# Collective matmul under mpirun: a sequence-parallel MLP (d_model 1024, hidden 4096,
# 512 tokens; docs/bench/programs/sequence_parallel_mlp_2x1024.mlir) on N processes, its
# collectives whole and as ring steps. ROUNDS launches per mode, alternated, each calling
# the program 1 + STEPS times (`shardc run --steps`). Prints one JSON object: per launch,
# the median call and, per device in its last call, the communication time and the time
# compute waited for it (the exposed communication).
#   scripts/bench-collective-matmul.sh [N=2] [ROUNDS=5] [STEPS=10] > docs/bench/collective-matmul-DATE.json
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2}
ROUNDS=${2:-5}
STEPS=${3:-10}
PROGRAM=docs/bench/programs/sequence_parallel_mlp_2x1024.mlir
SHARDC=target/release/shardc
cargo build --release -q -p shardc-cli
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ "$N" != 2 ]; then
    sed "s/\"model\"=2/\"model\"=$N/" "$PROGRAM" > "$TMP/program.mlir"
    PROGRAM="$TMP/program.mlir"
fi
for i in $(seq "$ROUNDS"); do
    for mode in off always; do
        "$SHARDC" launch -n "$N" --max-restarts 0 --timeout 300 -- \
            "$SHARDC" run --backend mpi "$PROGRAM" --collective-matmul "$mode" \
            --steps "$STEPS" > "$TMP/$mode-$i.txt" 2>/dev/null
    done
done
python3 - "$TMP" "$N" "$ROUNDS" "$STEPS" "$(git rev-parse --short HEAD)" <<'PY'
import json, re, statistics, sys
tmp, n, rounds, steps, commit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
runs = {"off": [], "always": []}
for i in range(1, rounds + 1):
    for mode in runs:
        text = open(f"{tmp}/{mode}-{i}.txt").read()
        median = float(re.search(r"more calls?: median ([0-9.]+) ms", text).group(1))
        devices = [{"device": int(d), "communication_ms": float(c), "exposed_ms": float(w)}
                   for d, c, w in re.findall(r"device (\d+): compute [0-9.]+ ms, communication ([0-9.]+) ms, compute waited ([0-9.]+) ms", text)]
        runs[mode].append({"median_call_ms": median, "last_call_devices": devices})
def summary(rs):
    comm = sum(d["communication_ms"] for r in rs for d in r["last_call_devices"])
    exposed = sum(d["exposed_ms"] for r in rs for d in r["last_call_devices"])
    return {"median_step_ms": statistics.median(r["median_call_ms"] for r in rs),
            "exposed_fraction_of_communication": round(exposed / comm, 3) if comm else 0.0}
print(json.dumps({
    "what": f"sequence-parallel MLP (512 tokens, d_model 1024, hidden 4096) on {n} MPI processes, "
            "collectives whole (off) and as collective matmul ring steps (always); "
            f"{rounds} launches per mode alternated, each 1 + {steps} calls (shardc run --steps)",
    "commit": commit,
    "command": f"scripts/bench-collective-matmul.sh {n} {rounds} {steps}",
    "summary": {m: summary(rs) for m, rs in runs.items()},
    "runs": runs,
}, indent=1))
PY
