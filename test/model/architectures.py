"""Published architectures as small ``torch.nn`` modules with random weights (no download):
ResNet-18/50 (He et al. 2016), MobileNetV2 (Sandler et al. 2018) and a 2-layer transformer
encoder classifier; and their ONNX export."""

from __future__ import annotations

import io

import torch
from torch import nn


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin: int, width: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, width, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.down = None
        if stride != 1 or cin != width:
            self.down = nn.Sequential(nn.Conv2d(cin, width, 1, stride, bias=False), nn.BatchNorm2d(width))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin: int, width: int, stride: int):
        super().__init__()
        out = width * 4
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out)
        self.down = None
        if stride != 1 or cin != out:
            self.down = nn.Sequential(nn.Conv2d(cin, out, 1, stride, bias=False), nn.BatchNorm2d(out))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = torch.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self, block, layers: list[int], classes: int = 1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(3, 2, 1)
        blocks, cin = [], 64
        for i, n in enumerate(layers):
            width = 64 * 2 ** i
            for j in range(n):
                blocks.append(block(cin, width, 2 if (j == 0 and i > 0) else 1))
                cin = width * block.expansion
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layers(x)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def resnet18(classes: int = 1000) -> ResNet:
    return ResNet(BasicBlock, [2, 2, 2, 2], classes)


def resnet50(classes: int = 1000) -> ResNet:
    return ResNet(Bottleneck, [3, 4, 6, 3], classes)


def _conv_bn(cin: int, cout: int, k: int, stride: int, groups: int = 1, act: bool = True) -> nn.Sequential:
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6())
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int):
        super().__init__()
        hidden = cin * expand
        layers = [] if expand == 1 else [_conv_bn(cin, hidden, 1, 1)]
        layers += [_conv_bn(hidden, hidden, 3, stride, groups=hidden), _conv_bn(hidden, cout, 1, 1, act=False)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


class MobileNetV2(nn.Module):
    # (expansion t, channels c, repeats n, stride s) of the paper's table 2
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1)]

    def __init__(self, classes: int = 1000):
        super().__init__()
        layers, cin = [_conv_bn(3, 32, 3, 2)], 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(_conv_bn(cin, 1280, 1, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class EncoderClassifier(nn.Module):
    """Token ids -> embedding + learned positions -> ``nn.TransformerEncoder`` (2 layers, d_model
    256, 4 heads) -> mean over the sequence -> classes."""

    def __init__(self, vocab: int = 1000, seq: int = 16, d_model: int = 256, heads: int = 4, layers: int = 2,
                 classes: int = 10):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(1, seq, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, classes)

    def forward(self, tokens):
        x = self.encoder(self.embed(tokens) + self.pos)
        return self.head(x.mean(1))


def randomize_batch_norm(model: nn.Module, seed: int = 0) -> nn.Module:
    """Non-trivial running statistics and affine parameters, so batch norm is not the identity."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=g) * 0.1)
    return model


def calibrate_batch_norm(model: nn.Module, seed: int = 0, hw: int = 32) -> nn.Module:
    """Running statistics measured on random images (as a trained network's are on its data), so
    every layer keeps its activations in range and the logits depend on the input."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None          # a cumulative average over the calibration batches
    model.train()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(16, 3, hw, hw, generator=g))
    return model


def build(name: str, seed: int = 0) -> tuple[nn.Module, tuple[int, ...], torch.dtype]:
    """The model ``name`` in eval mode, its per-sample input shape and input dtype."""
    torch.manual_seed(seed)
    if name == "resnet18":
        return calibrate_batch_norm(resnet18(), seed).eval(), (3, 224, 224), torch.float32
    if name == "resnet50":
        return calibrate_batch_norm(resnet50(), seed).eval(), (3, 224, 224), torch.float32
    if name == "mobilenetv2":
        return calibrate_batch_norm(MobileNetV2(), seed).eval(), (3, 224, 224), torch.float32
    if name == "transformer":
        return EncoderClassifier().eval(), (16,), torch.int64
    raise ValueError(name)


def export(model: nn.Module, sample: torch.Tensor, input_name: str = "x") -> bytes:
    """The ONNX bytes of ``model`` (TorchScript exporter) with a dynamic batch dimension (and
    dynamic height and width for images)."""
    buf = io.BytesIO()
    axes = {0: "batch", 2: "height", 3: "width"} if sample.ndim == 4 else {0: "batch"}
    # with autograd on, nn.TransformerEncoderLayer takes its exportable path (not the fused fast path)
    torch.onnx.export(model, (sample,), buf, dynamo=False, input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: axes, "logits": {0: "batch"}}, opset_version=17)
    return buf.getvalue()
