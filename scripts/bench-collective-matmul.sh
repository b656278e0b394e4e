#!/bin/bash
# Collective matmul under mpirun: a sequence-parallel MLP (d_model 1024, hidden 4096,
# 512 tokens; docs/bench/programs/sequence_parallel_mlp_2x1024.mlir) on N processes, its
# collectives whole and as ring steps, alternated ROUNDS times. Prints one JSON object:
# per run, the step's wall time and, per device, the communication time and the time
# compute waited for it (the exposed communication), read from the run's trace.
#   scripts/bench-collective-matmul.sh [N=2] [ROUNDS=5] > docs/bench/collective-matmul-DATE.json
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2}
ROUNDS=${2:-5}
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
        "$SHARDC" launch -n "$N" --max-restarts 0 --timeout 120 -- \
            "$SHARDC" run --backend mpi "$PROGRAM" --collective-matmul "$mode" \
            --trace "$TMP/$mode-$i.json" > "$TMP/$mode-$i.txt" 2>/dev/null
    done
done
python3 - "$TMP" "$N" "$ROUNDS" "$(git rev-parse --short HEAD)" <<'PY'
import json, re, statistics, sys
tmp, n, rounds, commit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
runs = {"off": [], "always": []}
for i in range(1, rounds + 1):
    for mode in runs:
        text = open(f"{tmp}/{mode}-{i}.txt").read()
        wall = float(re.search(r"^([0-9.]+) ms;", text, re.M).group(1))
        events = [e for e in json.load(open(f"{tmp}/{mode}-{i}.json"))["traceEvents"] if e.get("ph") == "X"]
        devices = []
        for d in sorted({e["pid"] for e in events}):
            waited = sum(e["dur"] for e in events if e["pid"] == d and e["name"].startswith("wait"))
            comm = sum(e["dur"] for e in events if e["pid"] == d and e["tid"] == 1)
            devices.append({"device": d, "communication_ms": round(comm / 1e3, 3),
                            "exposed_ms": round(waited / 1e3, 3)})
        runs[mode].append({"step_ms": wall, "devices": devices})
def summary(rs):
    comm = sum(d["communication_ms"] for r in rs for d in r["devices"])
    exposed = sum(d["exposed_ms"] for r in rs for d in r["devices"])
    return {"median_step_ms": statistics.median(r["step_ms"] for r in rs),
            "exposed_fraction_of_communication": round(exposed / comm, 3) if comm else 0.0}
print(json.dumps({
    "what": f"sequence-parallel MLP (512 tokens, d_model 1024, hidden 4096) on {n} MPI processes, "
            "collectives whole (off) and as collective matmul ring steps (always), alternated; "
            "one call per process (after preparing the kernels)",
    "commit": commit,
    "command": f"scripts/bench-collective-matmul.sh {n} {rounds}",
    "summary": {m: summary(rs) for m, rs in runs.items()},
    "runs": runs,
}, indent=1))
PY
