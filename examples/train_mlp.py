"""Train a small MLP on a synthetic classification task with pyasc's autograd.

Each training step is two compiled programs on the simulated device: the loss and gradients
(``pyasc.value_and_grad``: forward and backward traced into one program) and the Adam update
(``pyasc.optim.Adam``: every parameter in one program). Both compile once, at the first step.
With ``--eager`` the step is PyTorch-style instead: the forward runs op by op, recording the tape,
and ``loss.backward()`` runs the recorded backward as one program (compiled at the first step).

    python examples/train_mlp.py [--steps 60] [--eager]
"""

import argparse

import numpy as np

import pyasc


def make_data(n: int, features: int, classes: int, seed: int = 0):
    """Gaussian blobs around random class centres, with a little overlap."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 0.8, (classes, features))
    labels = rng.integers(0, classes, n)
    x = centres[labels] + rng.normal(0.0, 1.0, (n, features))
    return x.astype(np.float32), labels.astype(np.int32)


def init_params(sizes, seed: int = 0):
    """Linear layers initialised as torch.nn.Linear (uniform in +-1/sqrt(fan_in))."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(pyasc.tensor(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32), requires_grad=True))
        params.append(pyasc.tensor(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32), requires_grad=True))
    return params


def mlp(x, *params):
    h = x
    for i in range(0, len(params), 2):
        h = pyasc.linear(h, params[i], params[i + 1])
        if i + 2 < len(params):
            h = pyasc.relu(h)
    return h


def loss_fn(x, y, *params):
    return pyasc.cross_entropy(mlp(x, *params), y)


def main(steps: int = 60, lr: float = 0.01, eager: bool = False) -> float:
    x_np, y_np = make_data(256, 16, 4)
    x, y = pyasc.tensor(x_np), pyasc.tensor(y_np)
    params = init_params([16, 32, 4])
    opt = pyasc.optim.Adam(params, lr=lr)
    step = pyasc.value_and_grad(loss_fn, argnums=tuple(range(2, 2 + len(params))))
    for i in range(steps):
        if eager:
            opt.zero_grad()
            loss = loss_fn(x, y, *params)
            loss.backward()
        else:
            loss, grads = step(x, y, *params)
            for p, g in zip(params, grads):
                p.grad = g
        opt.step()
        if i % 10 == 0 or i == steps - 1:
            print(f"step {i:3d}  loss {loss.item():.4f}")
    with pyasc.no_grad():
        logits = pyasc.jit(mlp)(x, *params)
    accuracy = float((logits.numpy().argmax(1) == y_np).mean())
    print(f"training accuracy {accuracy:.1%}")
    return accuracy


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--eager", action="store_true", help="loss.backward() on the recorded tape")
    args = parser.parse_args()
    main(args.steps, args.lr, args.eager)
