"""Optimizers (PyTorch's ``torch.optim``): ``SGD`` with momentum and ``Adam``.

``step()`` updates every parameter that has a gradient with **one** compiled program: the update of
all parameters and their state is traced as one ``pyasc.jit`` function of the parameters, gradients
and state tensors (compiled once per set of shapes) and its results are written back into the
parameters' storage, so the parameter tensors stay the same objects. Hyper-parameters are baked
into the program; Adam's step-dependent bias corrections are inputs, so the program is compiled once.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import PyascError, describe
from .jit import JitFunction
from .tensor import Tensor


class Optimizer:
    """The parameters (leaf tensors requiring gradients) and the state of an optimizer."""

    def __init__(self, params, name: str):
        self.params = list(params)
        if not self.params:
            raise PyascError(name, "got an empty parameter list")
        for p in self.params:
            if not isinstance(p, Tensor) or not p.requires_grad or not p.is_leaf or p.is_traced:
                raise PyascError(name, f"parameters must be concrete leaf tensors requiring grad, got {describe(p)}")
        self.state: dict[int, dict[str, Tensor]] = {}
        self._programs: dict = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad = Tensor(np.zeros(p.shape, p.dtype.np_dtype), p.dtype, device=p.device)

    def _state(self, p: Tensor, names) -> list[Tensor]:
        st = self.state.setdefault(id(p), {})
        for n in names:
            if n not in st:
                st[n] = Tensor(np.zeros(p.shape, p.dtype.np_dtype), p.dtype, device=p.device)
        return [st[n] for n in names]

    def _run(self, key, update, params: list[Tensor], tensors: list[Tensor], states: list[Tensor]) -> None:
        """Run ``update`` (compiled once per ``key``) and write its results into ``params`` and ``states``."""
        program = self._programs.get(key)
        if program is None:
            program = self._programs[key] = JitFunction(update)
        outs = program(*tensors)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for dst, src in zip([*params, *states], outs):
            dst._data[...] = src.numpy()


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov momentum and weight
    decay (the update of ``torch.optim.SGD``)."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False):
        super().__init__(params, "optim.SGD")
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise PyascError("optim.SGD", f"lr, momentum and weight_decay must be >= 0, got {lr}, {momentum}, {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise PyascError("optim.SGD", "Nesterov momentum requires a momentum and zero dampening")
        self.lr, self.momentum, self.dampening = float(lr), float(momentum), float(dampening)
        self.weight_decay, self.nesterov = float(weight_decay), bool(nesterov)
        self._started = False

    def step(self) -> None:
        params = [p for p in self.params if p.grad is not None]
        if not params:
            return
        n, lr, mom, damp, wd, nesterov = len(params), self.lr, self.momentum, self.dampening, self.weight_decay, \
            self.nesterov
        first = not self._started
        bufs = [b for p in params for b in self._state(p, ["momentum_buffer"])] if mom else []

        def sgd_step(*ts):
            ps, gs, bs = ts[:n], ts[n:2 * n], ts[2 * n:]
            new_ps, new_bs = [], []
            for i in range(n):
                d = gs[i] + wd * ps[i] if wd else gs[i]
                if mom:
                    b = d if first else bs[i] * mom + (1.0 - damp) * d
                    new_bs.append(b)
                    d = d + mom * b if nesterov else b
                new_ps.append(ps[i] - lr * d)
            return (*new_ps, *new_bs)

        key = (tuple(id(p) for p in params), first, lr, mom, damp, wd, nesterov)
        self._run(key, sgd_step, params, [*params, *(p.grad for p in params), *bufs], bufs)
        self._started = True


class Adam(Optimizer):
    """Adam (``torch.optim.Adam``; ``weight_decay`` adds ``weight_decay * p`` to the gradient)."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0):
        super().__init__(params, "optim.Adam")
        if lr < 0 or eps < 0 or not all(0.0 <= b < 1.0 for b in betas):
            raise PyascError("optim.Adam", f"invalid lr {lr}, eps {eps} or betas {betas}")
        self.lr, self.betas, self.eps, self.weight_decay = float(lr), tuple(map(float, betas)), float(eps), \
            float(weight_decay)
        self.steps = 0

    def step(self) -> None:
        params = [p for p in self.params if p.grad is not None]
        if not params:
            return
        self.steps += 1
        n, (b1, b2), eps, wd = len(params), self.betas, self.eps, self.weight_decay
        states = [t for p in params for t in self._state(p, ["exp_avg", "exp_avg_sq"])]
        # the step-dependent factors, inputs of the program: lr / (1 - b1^t) and 1 / sqrt(1 - b2^t)
        step_size = self.lr / (1.0 - b1 ** self.steps)
        inv_bc2 = 1.0 / math.sqrt(1.0 - b2 ** self.steps)
        factors = [Tensor(np.array([step_size, inv_bc2], dtype=p.dtype.np_dtype)[k:k + 1], p.dtype)
                   for p in params[:1] for k in (0, 1)]

        def adam_step(*ts):
            ps, gs, ss, (lr_t, bc2) = ts[:n], ts[n:2 * n], ts[2 * n:4 * n], ts[4 * n:]
            new_ps, new_ss = [], []
            for i in range(n):
                g = gs[i] + wd * ps[i] if wd else gs[i]
                m = ss[2 * i] * b1 + (1.0 - b1) * g
                v = ss[2 * i + 1] * b2 + (1.0 - b2) * (g * g)
                new_ps.append(ps[i] - lr_t * m / (v.sqrt() * bc2 + eps))
                new_ss += [m, v]
            return (*new_ps, *new_ss)

        key = (tuple(id(p) for p in params), b1, b2, eps, wd)
        self._run(key, adam_step, params, [*params, *(p.grad for p in params), *states, *factors], states)
