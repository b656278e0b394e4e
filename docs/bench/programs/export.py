"""Programs for `shardc bench peer --dir docs/bench/programs` beside XLA: library code
exported as the corpus is (`jax.jit(step, in_shardings, out_shardings).lower(...).as_text()`),
random initialisation from configs only, no inputs recorded (the bench makes
deterministic ones). Prints XLA's median step on the same 8 host devices.

  XLA_FLAGS=--xla_force_host_platform_device_count=8 python export.py OUTDIR [NAMES]

- hf_gpt2_small_dp: transformers' Flax GPT-2 (4 layers, d_model 256, vocab 50257, tied
  head), AdamW on next-token cross-entropy, data parallel (batch 16, sequences of 128).
- flax_cnn_64: a Flax CNN (3x3 convolutions of 32, 32, 64, 64 features, max and average
  pools, dense), SGD with momentum, batch 64 of 32x32x3 over the data axis.
"""
import sys, time
import numpy as np, jax, jax.numpy as jnp, optax, flax.linen as nn
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

out = sys.argv[1]
only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None
m8 = Mesh(np.array(jax.devices()[:8]), ("data",))
rep = lambda t: jax.tree.map(lambda _: NamedSharding(m8, P()), t)
scalar = NamedSharding(m8, P())


def run(name, step, args, in_shardings, out_shardings):
    if only and name not in only:
        return
    f = jax.jit(step, in_shardings=in_shardings, out_shardings=out_shardings)
    low = f.lower(*args)
    open(f"{out}/{name}.mlir", "w").write(low.as_text())
    c = low.compile()
    args = [jax.device_put(a, s) for a, s in zip(args, in_shardings)]
    times = []
    for _ in range(12):
        t = time.time()
        res = c(*args)
        jax.block_until_ready(res)
        times.append(time.time() - t)
        args = [res[1], res[2]] + args[2:]
    print(f"{name}: XLA step {1000 * np.median(times[2:]):.1f} ms (median of 10)")


def lm_step(apply, opt):
    def loss(params, ids):
        logits = apply(params, ids)
        return optax.softmax_cross_entropy_with_integer_labels(logits[:, :-1], ids[:, 1:]).mean()

    def step(params, state, ids):
        l, g = jax.value_and_grad(loss)(params, ids)
        u, state = opt.update(g, state, params)
        return l, optax.apply_updates(params, u), state
    return step


if not only or "hf_gpt2_small_dp" in only:
    from transformers import FlaxGPT2LMHeadModel, GPT2Config
    cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, n_positions=128,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    gpt2 = FlaxGPT2LMHeadModel(cfg, seed=0, _do_init=True)
    opt = optax.adamw(1e-3)
    params, state = gpt2.params, opt.init(gpt2.params)
    ids = jnp.asarray((7 * np.arange(16 * 128) + 3) % 50257, jnp.int32).reshape(16, 128)
    run("hf_gpt2_small_dp", lm_step(lambda p, i: gpt2(i, params=p).logits, opt),
        [params, state, ids], (rep(params), rep(state), NamedSharding(m8, P("data", None))),
        (scalar, rep(params), rep(state)))


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(32, (3, 3))(x))
        x = nn.relu(nn.Conv(32, (3, 3))(x))
        x = nn.max_pool(x, (2, 2), strides=(2, 2))
        x = nn.relu(nn.Conv(64, (3, 3))(x))
        x = nn.relu(nn.Conv(64, (3, 3))(x))
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        return nn.Dense(10)(x.reshape((x.shape[0], -1)))


if not only or "flax_cnn_64" in only:
    model = CNN()
    x = jnp.sin(jnp.arange(64 * 32 * 32 * 3, dtype=jnp.float32)).reshape(64, 32, 32, 3)
    y = jnp.arange(64) % 10
    params = model.init(jax.random.PRNGKey(0), x[:1])
    opt = optax.sgd(0.01, momentum=0.9)

    def cnn_step(p, s, x, y):
        def loss(p):
            return optax.softmax_cross_entropy_with_integer_labels(model.apply(p, x), y).mean()
        l, g = jax.value_and_grad(loss)(p)
        u, s = opt.update(g, s, p)
        return l, optax.apply_updates(p, u), s
    d = NamedSharding(m8, P("data"))
    state = opt.init(params)
    run("flax_cnn_64", cnn_step, [params, state, x, y], (rep(params), rep(state), d, d),
        (scalar, rep(params), rep(state)))
