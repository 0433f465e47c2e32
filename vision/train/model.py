"""The die network: a small fully convolutional CNN, seven logits per 48 x 48 window.

Why this shape: on a 48 x 48 crop it is a classifier (the last average pool spans the whole 6 x 6
feature map), and on a whole frame scaled so that dice are ~32 px it is the same classifier slid
over every 8th pixel at once (``vision.dice.detect``): one small ONNX file serves both. About
0.09 M weights (0.35 MB as float32) and ~11 M multiply-adds per window; enough to count pips on a
32 px die. After three halvings the receptive field is wider than the die.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.dice.classifier import CLASSES


def _block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class DieNet(nn.Module):
    def __init__(self, widths: tuple[int, int, int, int] = (12, 24, 48, 96)) -> None:
        super().__init__()
        a, b, c, d = widths
        self.features = nn.Sequential(
            *_block(3, a),
            nn.MaxPool2d(2),
            *_block(a, b),
            *_block(b, b),
            nn.MaxPool2d(2),
            *_block(b, c),
            *_block(c, c),
            nn.MaxPool2d(2),
            *_block(c, d),
            nn.AvgPool2d(6, stride=1),
        )
        self.dropout = nn.Dropout(0.2)
        self.head = nn.Conv2d(d, len(CLASSES), 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """N x 3 x H x W -> N x 7 x (H/8 - 5) x (W/8 - 5) logits (N x 7 x 1 x 1 on a crop)."""
        out: torch.Tensor = self.head(self.dropout(self.features(x)))
        return out
