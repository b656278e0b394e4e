"""Exports the programs `cli/tests/cli.rs` runs whose annotations split a dimension its
axes do not divide: JAX pads them (a `with_sharding_constraint` inside `jit` may be
uneven; `jit`'s own arguments may not), and so does `shardc run` by default. Writes
NAME.mlir and NAME.json (the record format of `tests/fixtures/jax/corpus.py`) here.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python uneven.py
"""
import json, os
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

here = os.path.dirname(os.path.abspath(__file__))
mesh = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def det(shape, k):
    n = int(np.prod(shape))
    return (np.sin(0.37 * np.arange(n) + k)).astype(np.float32).reshape(shape)


def f(x, w, v):
    # 10 rows over 8 devices (each holds 2, the last 3 only padding), then a reduction over
    # the padded rows; a vocabulary of 50 over 8 for the logits' softmax.
    h = jax.lax.with_sharding_constraint((x @ w)[:10], NamedSharding(mesh, P("data", None)))
    logits = jax.lax.with_sharding_constraint(jnp.tanh(h) @ v, NamedSharding(mesh, P(None, "data")))
    return jnp.sum(jnp.tanh(h), axis=0), jax.nn.log_softmax(logits, axis=-1), jnp.max(h)


args = (det((16, 12), 0), det((12, 6), 1), det((6, 50), 2))
s = lambda spec: NamedSharding(mesh, spec)
jf = jax.jit(f, in_shardings=(s(P("data", None)), s(P()), s(P())))
text = jf.lower(*args).as_text()
outs = jf(*args)
tensor = lambda a: {"shape": list(np.shape(a)), "dtype": str(np.asarray(a).dtype), "data": np.asarray(a).ravel().tolist()}
with open(os.path.join(here, "uneven_constraints_fwd.mlir"), "w") as fh:
    fh.write(text)
with open(os.path.join(here, "uneven_constraints_fwd.json"), "w") as fh:
    json.dump({"note": "uneven sharding constraints inside jit: 10 rows and a vocabulary of 50 over 8 devices",
               "origin": "jax.lax.with_sharding_constraint", "mesh": {"data": 8},
               "inputs": [tensor(a) for a in args], "outputs": [tensor(o) for o in outs],
               "tolerance": {"abs": 1e-5, "rel": 1e-5}, "jax_version": jax.__version__}, fh)
