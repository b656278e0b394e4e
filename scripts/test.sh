#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (see setup.sh) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo test --workspace --all-targets
cargo test --workspace --doc
