#!/usr/bin/env python3
"""The demo model's training step in JAX, timed on 1, 2, 4 and 8 host devices.

The same program as shardc's `bench step` (src/models.rs `gpt_loss`, src/optim.rs AdamW,
src/train.rs DpTp): token and position embeddings, pre-layer-norm blocks (causal multi-head
attention, a tanh-GELU MLP, residuals, no biases), a final layer norm, logits from the token
embedding (tied), the mean softmax cross-entropy; AdamW with linear warm-up and cosine
decay. Parameters are laid out as `GptConfig::param_specs` says (Megatron: Q, K, V and W1
split by columns over `model`, Wo and W2 by rows, the rest replicated), the batch over
`data`, on a Mesh(('data', 'model')) of the first k of 8 host devices
(XLA_FLAGS=--xla_force_host_platform_device_count=8). The whole step (value_and_grad and
the update) is one jit with in and out shardings.

With `--init DIR` (written by `shardc bench step --dump-init DIR`) the configuration, the
initial parameters and the first two batches are shardc's, so the losses of the first two
steps must equal shardc's (`losses`): the second checks the gradients and the update. Without it, parameters are drawn as shardc draws them
(normal, std 0.02; layer-norm gains 1, biases 0) from JAX's generator.

Prints one JSON object.
"""

import argparse
import json
import math
import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

BLOCK_WEIGHTS = ["ln1_g", "ln1_b", "wq", "wk", "wv", "wo", "ln2_g", "ln2_b", "w1", "w2"]
BLOCK_SPECS = [P(), P(), P(None, "model"), P(None, "model"), P(None, "model"),
               P("model", None), P(), P(), P(None, "model"), P("model", None)]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def param_names(cfg):
    names = ["wte", "wpe"]
    for layer in range(cfg["layers"]):
        names += [f"h{layer}.{w}" for w in BLOCK_WEIGHTS]
    return names + ["ln_f_g", "ln_f_b"]


def param_shapes(cfg):
    dm, ff = cfg["d_model"], cfg["d_ff"]
    block = [(dm,), (dm,), (dm, dm), (dm, dm), (dm, dm), (dm, dm), (dm,), (dm,), (dm, ff), (ff, dm)]
    return [(cfg["vocab"], dm), (cfg["seq"], dm)] + block * cfg["layers"] + [(dm,), (dm,)]


def param_specs(cfg):
    return [P(), P()] + BLOCK_SPECS * cfg["layers"] + [P(), P()]


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdims=True)
    return xc * jax.lax.rsqrt(var + eps) * g + b


def gelu(x):
    c = math.sqrt(2.0 / math.pi)
    inner = (x + x * x * x * 0.044715) * c
    return x * ((jnp.tanh(inner) + 1.0) * 0.5)


def softmax(x):
    e = jnp.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def log_softmax(x):
    z = x - x.max(-1, keepdims=True)
    return z - jnp.log(jnp.exp(z).sum(-1, keepdims=True))


def block(x, w, cfg):
    b, t, dm, h = cfg["batch"], cfg["seq"], cfg["d_model"], cfg["heads"]
    hd = dm // h
    ln1 = layer_norm(x, w[0], w[1])
    q, k, v = ((ln1 @ w[i]).reshape(b, t, h, hd) for i in (2, 3, 4))
    scores = jnp.einsum("bthd,bshd->bhts", q, k) / math.sqrt(hd)
    rows = jax.lax.broadcasted_iota(jnp.int32, (t, t), 0)
    cols = jax.lax.broadcasted_iota(jnp.int32, (t, t), 1)
    masked = jnp.where(rows >= cols, scores, jnp.float32(-1e9))
    att = softmax(masked)
    y = jnp.einsum("bhts,bshd->bthd", att, v).reshape(b, t, dm)
    x = x + y @ w[5]
    ln2 = layer_norm(x, w[6], w[7])
    return x + gelu(ln2 @ w[8]) @ w[9]


def gpt_loss(params, tokens, targets, cfg):
    wte, wpe = params[0], params[1]
    x = wte[tokens] + wpe[None, :, :]
    n = len(BLOCK_WEIGHTS)
    for layer in range(cfg["layers"]):
        x = block(x, params[2 + layer * n: 2 + (layer + 1) * n], cfg)
    h = layer_norm(x, params[-2], params[-1])
    logits = jnp.einsum("btd,vd->btv", h, wte)
    logp = log_softmax(logits)
    picked = (logp * jax.nn.one_hot(targets, cfg["vocab"], dtype=logp.dtype)).sum(-1)
    return -(picked.sum() / picked.size)


def adamw(opt, t, params, grads, m, v):
    base, warmup, total = opt["lr"], opt["warmup"], opt["total"]
    low = base * opt["min_ratio"]
    warm = t * (base / max(warmup, 1.0))
    progress = jnp.minimum((t - warmup) / max(total - warmup, 1.0), 1.0)
    decayed = (jnp.cos(progress * math.pi) + 1.0) * (0.5 * (base - low)) + low
    lr = jnp.where(t < warmup, warm, decayed)
    b1, b2 = opt["beta1"], opt["beta2"]
    c1 = 1.0 - jnp.power(jnp.float32(b1), t)
    c2 = 1.0 - jnp.power(jnp.float32(b2), t)
    new_p, new_m, new_v = [], [], []
    for p, g, mi, vi in zip(params, grads, m, v):
        m2 = mi * b1 + g * (1.0 - b1)
        v2 = vi * b2 + (g * g) * (1.0 - b2)
        update = (m2 / c1) / (jnp.sqrt(v2 / c2) + opt["eps"]) + p * opt["weight_decay"]
        new_p.append(p - update * lr)
        new_m.append(m2)
        new_v.append(v2)
    return new_p, new_m, new_v


def make_step(cfg, opt):
    def step(params, m, v, t, tokens, targets):
        loss, grads = jax.value_and_grad(gpt_loss)(params, tokens, targets, cfg)
        p2, m2, v2 = adamw(opt, t, params, grads, m, v)
        return loss, p2, m2, v2
    return step


def mesh_shape(n):
    if n == 1:
        return 1, 1
    return (2, n // 2) if n % 2 == 0 else (n, 1)


def corpus_batches(cfg, steps, seed=0):
    """Windows of the demo's text (the same text, not shardc's draws: `--init` brings
    those for the first steps)."""
    with open(os.path.join(ROOT, "examples", "data", "corpus.txt"), encoding="utf-8") as f:
        text = f.read()
    vocab = sorted(set(text))
    ids = np.array([vocab.index(c) for c in text], dtype=np.int32)
    rng = np.random.default_rng(seed)
    b, t = cfg["batch"], cfg["seq"]
    out = []
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - t - 1, size=b)
        x = np.stack([ids[s:s + t] for s in starts])
        y = np.stack([ids[s + 1:s + t + 1] for s in starts])
        out.append((x, y))
    return len(vocab), out


def init_params(cfg, seed=0):
    key = jax.random.PRNGKey(seed)
    params = []
    for name, shape in zip(param_names(cfg), param_shapes(cfg)):
        key, sub = jax.random.split(key)
        if name.endswith("_g"):
            params.append(np.ones(shape, np.float32))
        elif name.endswith("_b"):
            params.append(np.zeros(shape, np.float32))
        else:
            params.append(np.asarray(0.02 * jax.random.normal(sub, shape, jnp.float32)))
    return params


def load_init(path):
    with open(os.path.join(path, "init.json"), encoding="utf-8") as f:
        man = json.load(f)
    params = [np.fromfile(os.path.join(path, p["file"]), dtype="<f4").reshape(p["shape"])
              for p in man["params"]]
    shape = man["batch_shape"]
    read = lambda name: np.fromfile(os.path.join(path, name), dtype="<i4").reshape(shape)  # noqa: E731
    return man, params, [(read(b["tokens"]), read(b["targets"])) for b in man["batches"]]


def ms(seconds):
    return round(seconds * 1e3, 3)


def median(times):
    t, n = sorted(times), len(times)
    return t[n // 2] if n % 2 else (t[n // 2 - 1] + t[n // 2]) / 2


def summary(times):
    return {"median": ms(median(times)), "min": ms(min(times)), "all": [ms(x) for x in sorted(times)]}


def run_mesh(n, cfg, opt, params0, batches, steps, warmup):
    dp, tp = mesh_shape(n)
    devices = jax.devices()
    if len(devices) < n:
        raise SystemExit(f"{n} devices asked, JAX sees {len(devices)} (XLA_FLAGS?)")
    mesh = Mesh(np.array(devices[:n]).reshape(dp, tp), ("data", "model"))
    ps = [NamedSharding(mesh, s) for s in param_specs(cfg)]
    rep = NamedSharding(mesh, P())
    data = NamedSharding(mesh, P("data"))
    step = jax.jit(make_step(cfg, opt),
                   in_shardings=(ps, ps, ps, rep, data, data),
                   out_shardings=(rep, ps, ps, ps))
    params = [jax.device_put(p, s) for p, s in zip(params0, ps)]
    m = [jax.device_put(np.zeros_like(p), s) for p, s in zip(params0, ps)]
    v = [jax.device_put(np.zeros_like(p), s) for p, s in zip(params0, ps)]
    t_arg = np.float32(1.0)
    x, y = batches[0]
    start = time.perf_counter()
    lowered = step.lower(params, m, v, t_arg, x, y)
    trace_lower = time.perf_counter() - start
    start = time.perf_counter()
    compiled = lowered.compile()
    xla_compile = time.perf_counter() - start
    times, losses = [], []
    for i in range(warmup + steps):
        x, y = batches[i % len(batches)]
        start = time.perf_counter()
        loss, params, m, v = compiled(params, m, v, np.float32(i + 1), x, y)
        jax.block_until_ready((loss, params, m, v))
        elapsed = time.perf_counter() - start
        losses.append(float(loss))
        if i >= warmup:
            times.append(elapsed)
    return {
        "devices": n,
        "mesh": {"data": dp, "model": tp},
        "step_ms": summary(times),
        "tokens_per_s": round(cfg["batch"] * cfg["seq"] / median(times)),
        "loss_step1": losses[0],
        "losses": losses,
        "compile_ms": {"trace_and_lower": ms(trace_lower), "xla_compile": ms(xla_compile),
                       "total": ms(trace_lower + xla_compile)},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--devices", default="1,2,4,8")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--init", help="directory written by shardc bench step --dump-init")
    ap.add_argument("--tiny", action="store_true")
    for k in ("layers", "d-model", "heads", "d-ff", "seq", "batch"):
        ap.add_argument(f"--{k}", type=int)
    a = ap.parse_args()

    opt = {"lr": 3e-3, "warmup": 10.0, "total": 150.0, "min_ratio": 0.1,
           "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.01}
    devices = [int(d) for d in a.devices.split(",")]
    if a.init:
        man, params0, given = load_init(a.init)
        cfg, opt = man["model"], man["optimizer"]
        devices, steps, warmup = man["devices"], man["steps"], man["warmup_steps"]
    else:
        cfg = ({"layers": 1, "d_model": 16, "heads": 4, "d_ff": 32, "seq": 8, "batch": 4} if a.tiny
               else {"layers": 4, "d_model": 128, "heads": 4, "d_ff": 512, "seq": 64, "batch": 16})
        for k in ("layers", "d_model", "heads", "d_ff", "seq", "batch"):
            if getattr(a, k) is not None:
                cfg[k] = getattr(a, k)
        steps, warmup, given = a.steps, a.warmup, []
    vocab, batches = corpus_batches(cfg, warmup + steps)
    cfg.setdefault("vocab", vocab)
    batches[:len(given)] = given[:len(batches)]
    if not a.init:
        params0 = init_params(cfg)
    results = [run_mesh(n, cfg, opt, params0, batches, steps, warmup) for n in devices]
    init_loss = results[0]["loss_step1"]
    out = {
        "bench": "step",
        "runtime": "jax",
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "host_devices": len(jax.devices()),
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
        "threads": "XLA:CPU's own thread pools (an intra-op Eigen pool sized to the host's cores, shared by the host devices)",
        "host_cores": os.cpu_count(),
        "model": {k: cfg[k] for k in ("vocab", "layers", "batch", "seq", "d_model", "heads", "d_ff")},
        "params": int(sum(np.prod(s) for s in param_shapes(cfg))),
        "optimizer": opt,
        "init": "shardc's (--init)" if a.init else "jax.random normal(0.02)",
        "steps": steps,
        "warmup_steps": warmup,
        "step_ms_is": "the jitted step on device-resident sharded params and state, batch from host numpy, until block_until_ready",
        "sanity": {"loss_at_init": init_loss, "ln_vocab": math.log(cfg["vocab"]),
                   "ok": abs(init_loss - math.log(cfg["vocab"])) < 0.1},
        "results": results,
    }
    json.dump(out, sys.stdout, indent=1)
    print()
    if not out["sanity"]["ok"]:
        print(f"loss at init {init_loss:.4f} is far from ln(vocab) {math.log(cfg['vocab']):.4f}",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
