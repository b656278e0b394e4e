#!/usr/bin/env bash
# Installs what shardc needs on Debian 12 (bookworm), skipping what is already there:
# LLVM/MLIR 22 (for melior), Open MPI, and a Rust toolchain with rustfmt and clippy.
# Idempotent; safe to run on every invocation.
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools libpolly-22-dev libzstd-dev libz3-dev
          libxml2-dev zlib1g-dev libopenmpi-dev openmpi-bin clang pkg-config)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "setup: system packages present"
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: installing Rust with rustup"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c rustfmt,clippy
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
fi

test -x /usr/lib/llvm-22/bin/mlir-opt || { echo "setup: MLIR 22 is missing after install" >&2; exit 1; }
