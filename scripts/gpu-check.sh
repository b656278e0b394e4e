#!/usr/bin/env bash
# The cuda backend on a machine with an NVIDIA GPU, in under 8 minutes, never hanging:
# builds examples/gpu_check.rs (release), then runs, each under a timeout,
#   kernels      every op family on one device vs the reference interpreter
#   programs     the canonical partitioned programs (tests/partition) and random f32
#                programs through run_cuda vs the reference, bytes vs explain
#   collectives  every per-device op on 8 devices (and on 1 through NCCL) vs the
#                simulated mesh
#   bench        512^3, 1024^3, 4096^3 f32 matmuls: shardc's PTX kernel vs cuBLAS sgemm,
#                GFLOP/s as JSON lines
#   train        the main demo's GPT training step on 8 logical devices and on 1, each
#                step against the reference
#   mpi          one process per GPU (CudaMpiMesh, run_cuda_mpi), where mpirun is
#                installed: `mpirun -n <GPUs>` (NCCL between processes, ncclCommInitRank
#                with the id shared over MPI) and `mpirun --oversubscribe -n 8` (ranks
#                sharing GPUs: collectives staged through MPI), the canonical and random
#                programs whose size divides the ranks vs the reference, and the
#                per-device ops vs the simulated mesh
# and ends with a summary to paste into docs/runtime.md ("The cuda backend").
#
# Tolerance: f32 |got - want| <= 1e-4 + 1e-4 |want| (PTX computes exp, log, tanh, sin, ...
# with polynomial approximations, a few ulp from libm), f64 1e-10, bf16/f16 2e-2, integers
# and booleans exactly.
#
# Environment: GPU_CHECK_BIN=path skips the build and runs that binary (a machine without
# network: build it elsewhere with `cargo build --release --example gpu_check`), and
# GPU_CHECK_MPI_BIN=path the one-process-per-GPU check (`--example gpu_check_mpi`, which
# links Open MPI's libmpi.so.40; without it, next to a GPU_CHECK_BIN, that part is skipped);
# GPU_CHECK_RANDOM=N random programs (24); GPU_CHECK_SIZES=512,1024,4096;
# GPU_CHECK_MPI_RANDOM=N random programs of each mpi run (8).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
log=$(mktemp -d)
status=0

echo "gpu-check: logs in $log"
if [ -z "${GPU_CHECK_BIN:-}" ]; then
  timeout 120 ./scripts/setup.sh || { echo "gpu-check: setup.sh failed" >&2; exit 2; }
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! timeout 20 nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv,noheader; then
  echo "gpu-check: nvidia-smi failed: no NVIDIA GPU or driver here" >&2
  exit 2
fi

# cudarc loads NCCL and cuBLAS as libnccl.so / libcublas.so (or .so.12, .so.11, ...), never
# libnccl.so.2 or libcublas.so.13: where only those exist (pip's nvidia-nccl-cu13 and
# nvidia-cublas wheels, as PyTorch images have), link them under the names it tries.
links=$(mktemp -d)
for pat in 'libnccl.so.*' 'libcublas.so.*' 'libcublasLt.so.*'; do
  stem=${pat%%.so*}
  ldconfig -p 2>/dev/null | grep -q "$stem.so " && continue
  f=$(python3 -c 'import site; print("\n".join(site.getsitepackages()))' 2>/dev/null |
    while read -r d; do find "$d/nvidia" -name "$pat" 2>/dev/null; done | sort | head -1)
  [ -n "$f" ] || continue
  ln -sf "$f" "$links/$stem.so"
  export LD_LIBRARY_PATH="$links:$(dirname "$f")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "gpu-check: using $f as $stem.so"
done

bin="${GPU_CHECK_BIN:-target/release/examples/gpu_check}"
mpi_bin="${GPU_CHECK_MPI_BIN:-}"
if [ -z "${GPU_CHECK_BIN:-}" ]; then
  echo "gpu-check: cargo build --release --example gpu_check --example gpu_check_mpi"
  mpi_bin="${mpi_bin:-target/release/examples/gpu_check_mpi}"
  if ! timeout 200 cargo build --release --example gpu_check --example gpu_check_mpi >"$log/build.txt" 2>&1; then
    tail -30 "$log/build.txt"
    echo "gpu-check: the build failed or took over 200 s" >&2
    exit 2
  fi
fi
echo "gpu-check: built ($(( $(date +%s) - start )) s)"

run() { # name, timeout, args...
  local name=$1 limit=$2
  shift 2
  echo "gpu-check: $name"
  timeout -k 5 "$limit" "$bin" --part "$name" "$@" >"$log/$name.txt" 2>&1
  local rc=$?
  grep -E '^(FAIL|UNLOWERED) ' "$log/$name.txt" | cut -c1-400
  case $rc in
    0) ;;
    124|137) echo "gpu-check: $name timed out after $limit s" | tee -a "$log/summary.txt"; status=1 ;;
    *) echo "gpu-check: $name exited $rc" >>"$log/summary.txt"; tail -5 "$log/$name.txt"; status=1 ;;
  esac
  sed -n '/^=== gpu_check summary ===$/,$p' "$log/$name.txt" | grep '^- ' >>"$log/summary.txt"
}

run_mpi() { # name, ranks, timeout: gpu_check_mpi under mpirun
  local name=$1 ranks=$2 limit=$3
  echo "gpu-check: $name (mpirun -n $ranks)"
  timeout -k 5 "$((limit + 10))" mpirun --allow-run-as-root --oversubscribe --timeout "$limit" \
    -n "$ranks" "$mpi_bin" --random "${GPU_CHECK_MPI_RANDOM:-8}" >"$log/$name.txt" 2>&1
  local rc=$?
  grep -E '^(FAIL|UNLOWERED) ' "$log/$name.txt" | cut -c1-400
  if [ $rc -ne 0 ]; then
    echo "gpu-check: $name (mpirun -n $ranks) exited $rc" | tee -a "$log/summary.txt"
    tail -5 "$log/$name.txt"
    status=1
  fi
  sed -n '/^=== gpu_check summary ===$/,$p' "$log/$name.txt" | grep '^- ' | sed "s/^- /- [mpirun -n $ranks] /" >>"$log/summary.txt"
}

run kernels 60
run programs 90 --random "${GPU_CHECK_RANDOM:-24}"
run collectives 60
run bench 60 --sizes "${GPU_CHECK_SIZES:-512,1024,4096}"
grep '"bench"' "$log/bench.txt"
run train 150 --steps "${GPU_CHECK_STEPS:-3}"
grep '^GPT' "$log/train.txt"
if [ -z "$mpi_bin" ]; then
  echo "- one process per GPU: not run (GPU_CHECK_BIN given without GPU_CHECK_MPI_BIN)" >>"$log/summary.txt"
elif ! command -v mpirun >/dev/null; then
  echo "- one process per GPU: not run (no mpirun here; Debian: openmpi-bin)" >>"$log/summary.txt"
else
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  run_mpi mpi-per-gpu "${gpus:-1}" 90
  run_mpi mpi-8-ranks 8 120
fi

echo
echo "=== gpu-check summary ($(date -u +%Y-%m-%d), $(( $(date +%s) - start )) s; paste into docs/runtime.md) ==="
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/- GPU: /'
sort -u "$log/summary.txt"
exit $status
