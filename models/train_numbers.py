"""Train the number model: card corner crop -> 0 (no numeral: a back) or 1..10.

Trained only on images this project renders (ligretto_vision/sim/samples.py): many
fonts, print styles, colours, cloths, light colour and direction, glare, blur, noise,
compression and slightly wrong crops. Never on the sample scenes.

    .venv/bin/pip install -e ".[train]" torch==2.13.0   # never plain `torch` (a CUDA build)
    .venv/bin/python models/train_numbers.py --seed 0

Writes models/numbers.onnx and prints the accuracy on a held-out rendered set.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ligretto_vision.recognise.patches import normalise, numeral_corners
from ligretto_vision.sim.samples import sample

HERE = Path(__file__).resolve().parent
CLASSES = 11


def make_set(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for _ in range(n):
        s = sample(rng, hard=float(rng.uniform(0.2, 1.0)))
        corners = numeral_corners(s.patch)
        xs.append(corners[int(rng.integers(0, 2))])  # either corner: both carry the numeral
        ys.append(s.number)
    return normalise(np.stack(xs)), np.array(ys, np.int64)


class NumberNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU(), nn.MaxPool2d(2),  # 16x13
            nn.Conv2d(24, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU(), nn.MaxPool2d(2),  # 8x6
            nn.Conv2d(48, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d((2, 2)))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(256, CLASSES))

    def forward(self, x):
        return self.head(self.features(x))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train", type=int, default=30000)
    ap.add_argument("--test", type=int, default=3000)
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--cache", default="/tmp/ligretto-numbers-{seed}-{n}.npz")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    t0 = time.time()
    sets = {}
    for name, n, seed in (("train", args.train, args.seed), ("test", args.test, args.seed + 10_000)):
        cache = Path(args.cache.format(seed=seed, n=n))
        if cache.exists():
            d = np.load(cache)
            sets[name] = (d["x"], d["y"])
        else:
            sets[name] = make_set(n, seed)
            np.savez(cache, x=sets[name][0], y=sets[name][1])
    print(f"rendered {args.train} + {args.test} crops in {time.time() - t0:.0f} s")
    xtr, ytr = (torch.from_numpy(a) for a in sets["train"])
    xte, yte = (torch.from_numpy(a) for a in sets["test"])
    net = NumberNet()
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=args.epochs * (len(xtr) // 128 + 1))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(args.epochs):
        net.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), 128):
            idx = perm[i:i + 128]
            xb = xtr[idx]
            if torch.rand(1).item() < 0.5:  # brightness/contrast jitter on top of the rendered light
                xb = xb * (0.7 + 0.6 * torch.rand(len(xb), 1, 1, 1))
            opt.zero_grad()
            loss = loss_fn(net(xb), ytr[idx])
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xte).argmax(1) == yte).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, held-out accuracy {acc:.4f}")
    out = HERE / "numbers.onnx"
    torch.onnx.export(net, xte[:1], str(out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, dynamo=False)
    report = {"held_out_accuracy": round(acc, 4), "train_crops": args.train, "test_crops": args.test,
              "seed": args.seed, "epochs": args.epochs, "size_bytes": out.stat().st_size,
              "minutes": round((time.time() - t0) / 60, 1)}
    (HERE / "numbers.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
