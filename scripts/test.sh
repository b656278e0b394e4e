#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (see setup.sh) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
command -v mpirun >/dev/null || {
  echo "test.sh: mpirun is missing (Debian: openmpi-bin); the mpi backend's tests need it" >&2
  exit 1
}
echo "test.sh: cargo test --workspace --all-targets; among them the mpi backend's, which launch" \
     "themselves under mpirun: runtime/tests/mpi.rs (mpirun -n 8), tests/mpi_check.rs (mpirun -n 4, then -n 8)"
cargo test --workspace --all-targets
echo "test.sh: cargo test --workspace --doc"
cargo test --workspace --doc
