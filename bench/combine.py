#!/usr/bin/env python3
"""Combines `shardc bench step` and `bench/jax_gpt.py` outputs into one JSON object with,
per device count, the ratio shardc_ms / jax_ms (median and min step times). Fails when the
two runs' losses on the steps they share (same parameters and batches) disagree.

Usage: combine.py SHARDC.json JAX.json [--load-before "..."] [--load-after "..."]
"""

import argparse
import datetime
import json
import math
import os
import platform
import subprocess

GOAL = 1.5
# Steps whose batches both runs share (`shardc bench step --dump-init` writes two).
SAME_BATCHES = 2
# Their losses must agree this closely (f32 sums in other orders), as the demo's check.
LOSS_TOLERANCE = 1e-4


def git_rev():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shardc")
    ap.add_argument("jax")
    ap.add_argument("--load-before", default="")
    ap.add_argument("--load-after", default="")
    a = ap.parse_args()
    with open(a.shardc, encoding="utf-8") as f:
        s = json.load(f)
    with open(a.jax, encoding="utf-8") as f:
        j = json.load(f)
    for k in ("vocab", "layers", "batch", "seq", "d_model", "heads", "d_ff"):
        if s["model"][k] != j["model"][k]:
            raise SystemExit(f"the two runs have different models: {k} {s['model'][k]} vs {j['model'][k]}")
    jax_by_n = {r["devices"]: r for r in j["results"]}
    rows = []
    for r in s["results"]:
        n = r["devices"]
        q = jax_by_n.get(n)
        if q is None:
            continue
        if q["mesh"] != r["mesh"]:
            raise SystemExit(f"{n} devices: meshes differ, {r['mesh']} vs {q['mesh']}")
        same = min(len(r["losses"]), len(q["losses"]), SAME_BATCHES)
        ratio = r["step_ms"]["median"] / q["step_ms"]["median"]
        rows.append({
            "devices": n,
            "mesh": r["mesh"],
            "shardc_ms": {"median": r["step_ms"]["median"], "min": r["step_ms"]["min"]},
            "shardc_device_ms": {"median": r["device_ms"]["median"], "min": r["device_ms"]["min"]},
            "jax_ms": {"median": q["step_ms"]["median"], "min": q["step_ms"]["min"]},
            "ratio_median": round(ratio, 2),
            "ratio_min": round(r["step_ms"]["min"] / q["step_ms"]["min"], 2),
            "ratio_device_median": round(r["device_ms"]["median"] / q["step_ms"]["median"], 2),
            "within_goal": ratio <= GOAL,
            "tokens_per_s": {"shardc": r["tokens_per_s"], "jax": q["tokens_per_s"]},
            "shardc_per_device_ms": r["per_device_ms"],
            "collectives_per_step": r["collectives_per_step"],
            "bytes_sent_per_device_per_step": r["bytes_sent_per_device_per_step"],
            "losses_same_batches": {"shardc": r["losses"][:same], "jax": q["losses"][:same],
                                    "largest_difference": max(
                                        abs(x - y) for x, y in zip(r["losses"][:same], q["losses"][:same]))},
            "compile_ms": {"shardc": r["compile_ms"], "jax": q["compile_ms"]},
        })
    worst_loss = max((row["losses_same_batches"]["largest_difference"] for row in rows),
                     default=math.nan)
    out = {
        "bench": "training step, shardc vs JAX/XLA",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": {"cores": os.cpu_count(), "machine": platform.machine(),
                 "system": f"{platform.system()} {platform.release()}",
                 "loadavg_before": a.load_before, "loadavg_after": a.load_after},
        "model": s["model"],
        "optimizer": s["optimizer"],
        "steps": s["steps"],
        "warmup_steps": s["warmup_steps"],
        "shardc": {"rev": git_rev(), "engine": s["engine"], "threads": s["threads"],
                   "step_ms_is": s["step_ms_is"], "device_ms_is": s["device_ms_is"],
                   "compile_stages": s.get("compile_stages")},
        "jax": {"version": j["jax"], "xla_flags": j["xla_flags"], "threads": j["threads"],
                "step_ms_is": j["step_ms_is"], "init": j["init"]},
        "same_model_check": {"what": "losses of steps 1 and 2 from the same initial parameters and batches (step 2 checks gradients and update)",
                             "largest_difference": worst_loss,
                             "jax_loss_at_init_near_ln_vocab": j["sanity"]["ok"]},
        "goal": f"shardc step within {GOAL}x of JAX/XLA (ratio_median <= {GOAL})",
        "ratio_is": "shardc_ms / jax_ms",
        "results": rows,
    }
    print(json.dumps(out, indent=1))
    if not worst_loss <= LOSS_TOLERANCE or not j["sanity"]["ok"]:
        raise SystemExit(f"not the same model: the losses of the shared steps differ by {worst_loss}"
                         f" (tolerance {LOSS_TOLERANCE}), JAX's loss at init {j['sanity']}")


if __name__ == "__main__":
    main()
