"""`make train-vision`: train the die classifier, calibrate it, export it to ONNX.

    python -m vision.train.train [--epochs N] [--quick] [--out DIR]

Seeded end to end (numpy's generator for the data, torch's for the weights and batches, a set
number of threads: ``--threads``, two by default), so the same command on the same data gives
the same model. Steps:

1. crops (``vision.train.data``) of the split's train photos (round the labelled dice and,
   with ``--finder-per-die``, the hand finder's boxes as the reader cuts them:
   ``data.finder_crops``), rendered dice and distractors;
2. a small CNN (``model.DieNet``) trained with AdamW and a cosine schedule, each batch turned by
   a random quarter turn and mirrored (a die's face reads the same), and with ``--tray-aug``
   half of it given a tray's look (``tray_look``: hue, contrast, a small die); with
   ``--online-geometry`` (off: tried, not adopted) each train die is cut anew every epoch
   from a wide crop of it (``recut``);
3. a temperature fitted on the calibration photos (never the held-out ones), on the logits
   averaged over each crop's turned and mirrored views as the reader computes them
   (``classifier.dihedral``, ``VIEWS``), so that the softmax's confidence is as often right
   as it says;
4. export to ONNX (the legacy TorchScript exporter, which needs the ``onnx`` package), checked
   by loading it with ``cv2.dnn`` and comparing its logits with PyTorch's; the metadata (input,
   classes, temperature, what it was trained on) beside it, and reference logits of fixed
   rendered crops for the tests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vision.dice.classifier import (
    CLASSES,
    CONTEXT,
    INPUT,
    META_FILE,
    MODEL_FILE,
    VIEW_COUNTS,
    dihedral,
    read_net,
    to_blob,
    view_mean,
)
from vision.train import data
from vision.train.split import FOLD_PREFIX, SPLIT_FILE, parse_fold

if TYPE_CHECKING:
    import torch

SEED = 11
VIEWS = 8  # views of a crop a verdict averages (``classifier.dihedral``; 1 is the crop alone)
WIDTHS = (12, 24, 48, 96)  # the net's channels per stage (``model.DieNet``)
EPOCHS = 30  # 5 until late November 2026: the loss was still falling (0.41; 0.22 at 30)
THREADS = 2  # torch's threads; 1 where another job shares the cores (two then wait on each other)
PAGES = 0  # rendered printed pages whose hand-reader proposals are "not a die" crops
COLOUR_AUG = False  # ``recolour`` every batch
TRAY_AUG = False  # ``tray_look`` every batch
FINDER_PER_DIE = 0  # crops of each finder box on a labelled train die (``data.finder_crops``)
ASTRIDE_PER_PAIR = 0  # not-a-die crops between two neighbouring train dice (``astride_crops``)
PART_PER_DIE = 0  # not-a-die crops of a part of each train die's face (``data.part_crops``)
#: the train dice's turn, scale and shift drawn anew every epoch (``recut``) from a wide crop
#: of each (``data.WIDE_CONTEXT``), instead of four crops cut once
ONLINE_GEOMETRY = False
SCALE = (0.8, 1.25)  # ``recut``'s crop side over the reader's, as ``data.jitter_crop`` draws it
SHIFT = 0.12  # ``recut``'s shift of the die's centre, in die sides, as ``data.jitter_crop``
REFERENCE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "die_classifier_ref.npz"


def _log(msg: str) -> None:
    print(f"[train-vision {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def build_data(
    quick: bool,
    rng: np.random.Generator,
    pages: int = PAGES,
    finder_per_die: int = FINDER_PER_DIE,
    astride_per_pair: int = ASTRIDE_PER_PAIR,
    fold: str | None = None,
    online: bool = ONLINE_GEOMETRY,
    seed: int = SEED,
    part_per_die: int = PART_PER_DIE,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The training and calibration arrays (crops N x 48 x 48 x 3, labels N); the real train
    crops from fold ``fold`` (``K/N``, ``split.part_files``) of the train photos if given.
    ``online``: the train dice (real and rendered) go to a third array, ``"wide"`` (crops
    N x 96 x 96 x 3, ``data.wide_real_crops``), cut into the net's crops every epoch (``recut``)."""
    limit = 6 if quick else None
    part = "train" if fold is None else FOLD_PREFIX + fold
    per_die = 1 if quick else 4
    train = data.stack(
        [
            data.real_crops(
                part,
                rng,
                per_die=0 if online else per_die,
                per_photo_bg=6,
                hard_negatives=not quick,
                limit=limit,
            ),
            ([], [], []) if online else data.rendered_crops(10 if quick else 900, rng),
            data.distractor_crops(60 if quick else 5000, rng),
            # its own stream, so that adding it left the other crops as they were
            data.page_crops(2 if quick else pages, np.random.default_rng([seed, 1])),
            # likewise its own stream: the crops above are those the November 2026 net had
            data.finder_crops(
                part,
                np.random.default_rng([seed, 2]),
                per_die=min(finder_per_die, 1) if quick else finder_per_die,
                limit=2 if quick else None,
            )
            if finder_per_die > 0
            else ([], [], []),
            data.astride_crops(
                part,
                np.random.default_rng([seed, 3]),
                per_pair=astride_per_pair,
                limit=2 if quick else None,
            )
            if astride_per_pair > 0
            else ([], [], []),
            data.part_crops(
                part,
                np.random.default_rng([seed, 4]),
                per_die=part_per_die,
                limit=2 if quick else None,
            )
            if part_per_die > 0
            else ([], [], []),
        ]
    )
    calib = data.stack(
        [
            data.real_crops(
                "calibration",
                rng,
                per_die=1,
                per_photo_bg=3,
                hard_negatives=not quick,
                limit=limit,
                augment=False,
            ),
            data.rendered_crops(4 if quick else 150, rng, seed0=800_000),
            data.distractor_crops(20 if quick else 600, rng),
        ]
    )
    sets = {"train": train[:2], "calibration": calib[:2]}
    if online:
        wide = data.stack(
            [
                data.wide_real_crops(part, rng, per_die=per_die, limit=limit),
                data.rendered_crops(10 if quick else 900, rng, wide=True),
            ],
            side=data.WIDE,
        )
        sets["wide"] = wide[:2]
    return sets


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature minimising the calibration set's negative log-likelihood (a 1-D search
    on a log grid, then refined: no optimiser state to seed)."""

    def nll(t: float) -> float:
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-logp[np.arange(len(labels)), labels].mean())

    grid = np.geomspace(0.3, 5.0, 60)
    best = float(grid[int(np.argmin([nll(t) for t in grid]))])
    fine = np.linspace(best * 0.93, best * 1.07, 29)
    return float(fine[int(np.argmin([nll(t) for t in fine]))])


_PERMS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))


def recolour(xb: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Each crop of a batch (the net's input scale) recoloured at random: its colour channels
    swapped (half the crops: a red die becomes a blue or a green one, which the real sets have
    few of), each channel's gain, brightness and contrast jittered, a tenth made grey. Why on the
    batch rather than on the stored crops: every epoch then sees other colours of the same dice."""
    import torch

    n = xb.shape[0]
    x = xb * 64.0 + 128.0
    perm = torch.tensor(_PERMS)[torch.randint(0, len(_PERMS), (n,), generator=gen)]
    keep = torch.rand(n, generator=gen) < 0.5
    perm[keep] = torch.tensor(_PERMS[0])
    x = torch.gather(x, 1, perm[:, :, None, None].expand(-1, -1, *x.shape[2:]))
    gain = 0.8 + 0.45 * torch.rand(n, 3, 1, 1, generator=gen)
    bright = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    x = x * gain * bright
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * (0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)) + mean
    grey = (torch.rand(n, 1, 1, 1, generator=gen) < 0.1).float()
    x = grey * x.mean(dim=1, keepdim=True) + (1 - grey) * x
    return (x.clamp(0.0, 255.0) - 128.0) / 64.0


def tray_look(xb: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Half the crops of a batch (the net's input scale) made to look like dice the net was
    least sure of on the calibration photos (dice in coloured trays, ``dice_gates_causes``):
    the hue turned about the grey axis by up to a third of a turn (a purple or green tray, a
    blue die), contrast lowered to 0.55-1, and half of those shrunk to a 26-40 px window and
    blown back up (a small, soft die: the finder's crop of a 20 px die is 30 px). The stored
    crops are untouched, so every epoch sees other looks of the same dice."""
    import torch
    import torch.nn.functional as F

    n = xb.shape[0]
    pick = torch.rand(n, generator=gen) < 0.5
    if not bool(pick.any()):
        return xb
    x = xb[pick] * 64.0 + 128.0
    m = x.shape[0]
    a = (torch.rand(m, generator=gen) * 2 - 1) * (2 * np.pi / 3)
    c, s = torch.cos(a), torch.sin(a)
    k = 1.0 / 3.0
    r3 = float(np.sqrt(k))
    # Rodrigues' rotation about (1, 1, 1) / sqrt(3), one matrix per crop
    rot = torch.empty(m, 3, 3)
    for i in range(3):
        for j in range(3):
            base = c if i == j else torch.zeros(m)
            sign = ((j - i) % 3 == 1) * -1.0 + ((j - i) % 3 == 2) * 1.0
            rot[:, i, j] = base + k * (1 - c) + sign * r3 * s
    x = torch.einsum("nij,njhw->nihw", rot, x)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * (0.55 + 0.45 * torch.rand(m, 1, 1, 1, generator=gen)) + mean
    small = torch.rand(m, generator=gen) < 0.5
    if bool(small.any()):
        side = int(torch.randint(26, 41, (1,), generator=gen))
        full = x.shape[-1]
        down = F.interpolate(x[small], size=(side, side), mode="area")
        x[small] = F.interpolate(down, size=(full, full), mode="bilinear", align_corners=False)
    out = xb.clone()
    out[pick] = (x.clamp(0.0, 255.0) - 128.0) / 64.0
    return out


def reframe(
    wide: torch.Tensor, scale: torch.Tensor, angle: torch.Tensor, shift: torch.Tensor
) -> torch.Tensor:
    """The net's input (N x 3 x ``INPUT`` x ``INPUT``, its scale) cut from wide crops of dice
    (N x 3 x ``data.WIDE`` x ``data.WIDE`` uint8, ``data.WIDE_CONTEXT`` sides wide): crop i's
    side ``scale[i]`` times the reader's (``CONTEXT`` die sides), turned by ``angle[i]``
    (radians) and its centre shifted by ``shift[i]`` (x, y) die sides. At scale 1, no turn and
    no shift it is the reader's crop (``die_crop``) up to the resampling."""
    import torch
    import torch.nn.functional as F

    n = wide.shape[0]
    k = scale * (CONTEXT / data.WIDE_CONTEXT)  # the crop's half side in the wide crop's units
    unit = 2.0 / data.WIDE_CONTEXT  # a die's side in those units (the wide crop spans 2)
    theta = torch.empty(n, 2, 3)
    theta[:, 0, 0] = k * torch.cos(angle)
    theta[:, 0, 1] = -k * torch.sin(angle)
    theta[:, 1, 0] = k * torch.sin(angle)
    theta[:, 1, 1] = k * torch.cos(angle)
    theta[:, :, 2] = shift * unit
    grid = F.affine_grid(theta, [n, 3, INPUT, INPUT], align_corners=False)
    x = (wide.float() - 128.0) / 64.0
    out: torch.Tensor = F.grid_sample(
        x, grid, mode="bilinear", padding_mode="border", align_corners=False
    )
    return out


def recut(wide: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """``reframe`` with a new draw for every crop: any turn, a scale in ``SCALE``, a shift up to
    ``SHIFT`` die sides each way. Why: cut once, each train die gave the net the same four
    views for all thirty epochs; re-cut, it gives a new one each epoch, as the reader's boxes
    vary (their sides are 0.73 to 1.22 of the label's for the tenth to ninetieth percentile of
    the dice only the net found on the calibration photos)."""
    import torch

    n = wide.shape[0]
    scale = SCALE[0] + (SCALE[1] - SCALE[0]) * torch.rand(n, generator=gen)
    angle = 2 * np.pi * torch.rand(n, generator=gen)
    shift = (2 * torch.rand(n, 2, generator=gen) - 1) * SHIFT
    return reframe(wide, scale, angle, shift)


def train(
    epochs: int,
    quick: bool,
    out_dir: Path,
    reference: Path | None,
    cache: Path | None = None,
    *,
    widths: tuple[int, int, int, int] = WIDTHS,
    colour_aug: bool = COLOUR_AUG,
    tray_aug: bool = TRAY_AUG,
    finder_per_die: int = FINDER_PER_DIE,
    astride_per_pair: int = ASTRIDE_PER_PAIR,
    lr: float = 3e-3,
    views: int = VIEWS,
    pages: int = PAGES,
    threads: int = THREADS,
    fold: str | None = None,
    online: bool = ONLINE_GEOMETRY,
    seed: int = SEED,
    part_per_die: int = PART_PER_DIE,
) -> dict[str, object]:
    import torch

    from vision.train.model import DieNet

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    # Subnormal floats (below 1e-38: Adam's second moments of weights that barely move) are
    # computed many times slower on x86 CPUs; flushed to zero they change no result that matters.
    torch.set_flush_denormal(True)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    options = data_options(
        quick, pages, finder_per_die, astride_per_pair, fold, online, seed, part_per_die
    )
    if cache is not None and cache.is_file():
        sets = load_cache(cache, options)
    else:
        sets = build_data(
            quick, rng, pages, finder_per_die, astride_per_pair, fold, online, seed, part_per_die
        )
        if cache is not None:
            save_cache(cache, sets, options)
    x_tr, y_tr = sets["train"]
    x_ca, y_ca = sets["calibration"]
    x_wide, y_wide = sets.get("wide", (np.zeros((0, data.WIDE, data.WIDE, 3), np.uint8), y_tr[:0]))
    _log(
        f"data: {len(y_tr) + len(y_wide)} train crops ({int((y_tr == 0).sum())} not a die, "
        f"{len(y_wide)} re-cut every epoch), {len(y_ca)} calibration crops, "
        f"{time.time() - t0:.0f} s"
    )
    xt = torch.from_numpy(to_blob(x_tr))
    wt = torch.from_numpy(np.ascontiguousarray(x_wide.transpose(0, 3, 1, 2)))
    n_cut = len(y_tr)  # rows from here on are cut from ``wt`` every epoch (``recut``)
    yt = torch.from_numpy(np.concatenate([y_tr, y_wide]))
    net = DieNet(widths)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-3)
    batch = 128
    steps = epochs * max(1, (len(yt) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.02)
    gen = torch.Generator().manual_seed(seed)
    for ep in range(epochs):
        net.train()
        order = torch.randperm(len(yt), generator=gen)
        tot = 0.0
        for k in range(0, len(order), batch):
            idx = order[k : k + batch]
            yb = yt[idx]
            cut = idx >= n_cut
            if bool(cut.any()):
                xb = torch.empty(len(idx), 3, INPUT, INPUT)
                xb[~cut] = xt[idx[~cut]]
                xb[cut] = recut(wt[idx[cut] - n_cut], gen)
            else:
                xb = xt[idx]
            turns = int(torch.randint(0, 4, (1,), generator=gen))
            xb = torch.rot90(xb, turns, dims=(2, 3))
            if bool(torch.randint(0, 2, (1,), generator=gen)):
                xb = torch.flip(xb, dims=(3,))
            if colour_aug:
                xb = recolour(xb, gen)
            if tray_aug:
                xb = tray_look(xb, gen)
            opt.zero_grad()
            loss = loss_fn(net(xb).flatten(1), yb)
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
        _log(f"epoch {ep + 1}/{epochs}: loss {tot / len(yt):.4f}, {time.time() - t0:.0f} s")
    net.eval()
    one, logits_ca = calibration_logits(net, x_ca, views)
    temp = fit_temperature(logits_ca, y_ca)
    dense_temp = fit_temperature(one, y_ca)  # the whole-frame pass reads one view
    acc1 = float((one.argmax(axis=1) == y_ca).mean())
    acc = float((logits_ca.argmax(axis=1) == y_ca).mean())
    _log(
        f"calibration: accuracy {acc:.4f} of {len(y_ca)} over {views} views ({acc1:.4f} on "
        f"the crop alone), temperature {temp:.3f}"
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    model_path = out_dir / MODEL_FILE.name
    export(net, model_path)
    meta = {
        "input": INPUT,
        "classes": list(CLASSES),
        "temperature": round(temp, 4),
        "views": views,
        "dense_temperature": round(dense_temp, 4),
        "seed": seed,
        "epochs": epochs,
        "threads": threads,
        "widths": list(widths),
        "colour_aug": colour_aug,
        "tray_aug": tray_aug,
        "finder_per_die": finder_per_die,
        "astride_per_pair": astride_per_pair,
        "quick": quick,
        **({"online_geometry": True} if online else {}),
        **({"part_per_die": part_per_die} if part_per_die else {}),
        "train_crops": int(len(y_tr) + len(y_wide)),
        "calibration_crops": int(len(y_ca)),
        "calibration_accuracy": round(acc, 4),
        "calibration_accuracy_one_view": round(acc1, 4),
        "pages": pages,
        "trained_on": "vision/train/split.json train photos of matteop65-train, "
        "matteop65-valid, byler-train, rune55-trays; rendered dice; rendered distractors"
        + (" and printed pages" if pages else "")
        + " (see vision/train/data.py)",
    }
    if fold is not None:  # only then: the default run's metadata stays as it was, byte for byte
        meta["fold"] = fold
        meta["trained_on"] = f"fold {fold} of the " + str(meta["trained_on"])
    (out_dir / META_FILE.name).write_text(json.dumps(meta, indent=1) + "\n")
    check_export(net, model_path, x_ca[:64])
    if reference is not None:
        write_reference(net, reference)
    _log(
        f"wrote {model_path} ({model_path.stat().st_size / 1024:.0f} KiB) in "
        f"{time.time() - t0:.0f} s"
    )
    return meta


class CacheMismatch(ValueError):
    """A ``--cache`` file holds crops built with other data options than those asked for."""


def data_options(
    quick: bool,
    pages: int,
    finder_per_die: int,
    astride_per_pair: int = 0,
    fold: str | None = None,
    online: bool = False,
    seed: int = SEED,
    part_per_die: int = 0,
) -> dict[str, object]:
    """What decides the crops ``build_data`` makes, besides the code: the seed, the split
    (by its file's hash) and the options. A cache records them so that it is never reused
    for a run that would have built other crops (and whose metadata would then misstate them)."""
    options: dict[str, object] = {
        "seed": seed,
        "split_sha256": hashlib.sha256(SPLIT_FILE.read_bytes()).hexdigest(),
        "quick": quick,
        "pages": pages,
        "finder_per_die": finder_per_die,
        "astride_per_pair": astride_per_pair,
    }
    if fold is not None:  # only then: caches of the whole train part stay valid
        options["fold"] = fold
    if online:  # likewise
        options["online_geometry"] = True
    if part_per_die:  # likewise
        options["part_per_die"] = part_per_die
    return options


def save_cache(
    path: Path, sets: dict[str, tuple[np.ndarray, np.ndarray]], options: dict[str, object]
) -> None:
    """The crops and the options that built them, in one .npz."""
    arrays = {f"{k}_{a}": v for k, (x, y) in sets.items() for a, v in (("x", x), ("y", y))}
    np.savez(
        path,
        options=np.array(json.dumps(options, sort_keys=True)),
        **arrays,  # type: ignore[arg-type]
    )


def load_cache(path: Path, options: dict[str, object]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The crops of a cache built with ``options``; ``CacheMismatch`` naming the file and the
    options that differ otherwise (a cache from before the options were recorded included),
    and the file is left as it is: it may have taken a quarter of an hour to build."""
    with np.load(path, allow_pickle=False) as z:
        saved = json.loads(str(z["options"])) if "options" in z.files else None
        if saved != options:
            if saved is None:
                why = "it does not record the options it was built with"
            else:
                diff = sorted(
                    k for k in options.keys() | saved.keys() if saved.get(k) != options.get(k)
                )
                why = ", ".join(f"{k} {saved.get(k)!r} (asked: {options.get(k)!r})" for k in diff)
            raise CacheMismatch(
                f"{path}: its crops were built with other data options: {why}; "
                "delete it or pass another --cache"
            )
        keys = ("train", "calibration") + (("wide",) if "wide_x" in z.files else ())
        return {k: (z[k + "_x"], z[k + "_y"]) for k in keys}


def calibration_logits(
    net: torch.nn.Module, crops: np.ndarray, views: int = VIEWS
) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's logits of ``crops``: of each crop alone, and averaged over its ``views`` views
    as ``DieClassifier.crop_logits`` averages them (in chunks: 8 x N crops at once is large)."""
    import torch

    one, mean = [], []
    with torch.no_grad():
        for k in range(0, len(crops), 256):
            chunk = crops[k : k + 256]
            z = net(torch.from_numpy(to_blob(dihedral(chunk, views)))).flatten(1).numpy()
            z = z.astype(np.float64)
            one.append(z[: len(chunk)])
            mean.append(view_mean(z, views))
    return np.concatenate(one), np.concatenate(mean)


def export(net: torch.nn.Module, path: Path) -> None:
    import warnings

    import torch

    dummy = torch.zeros(1, 3, INPUT, INPUT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy exporter's deprecation notice
        torch.onnx.export(
            net,
            (dummy,),
            str(path),
            dynamo=False,
            input_names=["crops"],
            output_names=["logits"],
            opset_version=17,
            dynamic_axes={"crops": {0: "n", 2: "h", 3: "w"}, "logits": {0: "n", 2: "gh", 3: "gw"}},
        )


def check_export(net: torch.nn.Module, path: Path, crops: np.ndarray) -> None:
    """The ONNX file read by ``cv2.dnn`` gives PyTorch's logits (else: an error, no model)."""
    import torch

    blob = to_blob(crops)
    cvnet = read_net(path)  # as the reader runs it
    cvnet.setInput(blob)
    got = np.asarray(cvnet.forward()).reshape(len(crops), -1)
    with torch.no_grad():
        want = net(torch.from_numpy(blob)).flatten(1).numpy()
    err = float(np.abs(got - want).max())
    if err > 1e-3:
        raise RuntimeError(f"cv2.dnn and PyTorch differ by {err} on {path}")
    _log(f"cv2.dnn reproduces PyTorch within {err:.2e}")


def reference_crops() -> np.ndarray:
    """Fixed crops (rendered dice and distractors, seeded) the tests feed both runtimes."""
    rng = np.random.default_rng(2026)
    dice = data.rendered_crops(2, rng, seed0=900_000)[0]
    other = data.distractor_crops(6, rng)[0]
    return np.stack(dice + other)


def write_reference(net: torch.nn.Module, path: Path) -> None:
    import torch

    crops = reference_crops()
    with torch.no_grad():
        logits = net(torch.from_numpy(to_blob(crops))).flatten(1).numpy()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, crops=crops, logits=logits)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="train-vision", description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument(
        "--cache",
        type=Path,
        help="keep the built crops in this .npz and reuse them (the data takes most "
        "of the time; the crops are the same for the same split and seed)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a few photos and one epoch: checks the pipeline, not a usable model",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=MODEL_FILE.parent,
        help="where the .onnx and .json go (default: the package's models folder)",
    )
    p.add_argument(
        "--reference",
        type=Path,
        help="write the reference crops and PyTorch logits the tests compare cv2.dnn with "
        "here (default: the tests' fixture when the model goes to the package's folder)",
    )
    p.add_argument(
        "--tray-aug",
        action=argparse.BooleanOptionalAction,
        default=TRAY_AUG,
        help="turn the hue, lower the contrast and shrink half of every batch (tray_look)",
    )
    p.add_argument(
        "--finder-per-die",
        type=int,
        default=FINDER_PER_DIE,
        help="crops of each hand-finder box on a labelled train die (data.finder_crops; 0: "
        "none; a --cache made with another number is refused)",
    )
    p.add_argument(
        "--astride-per-pair",
        type=int,
        default=ASTRIDE_PER_PAIR,
        help="not-a-die crops on the midpoint of each two neighbouring train dice "
        "(data.astride_crops; 0: none; a --cache made with another number is refused)",
    )
    p.add_argument(
        "--part-per-die",
        type=int,
        default=PART_PER_DIE,
        help="not-a-die crops of a part of each train die's face, of the sets labelled tightly "
        "(data.part_crops; 0: none; a --cache made with another number is refused)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=SEED,
        help=f"seeds the crops' jitter, the weights and the batches (default {SEED}); another "
        "seed of the same recipe tells how much of a difference between two models is luck",
    )
    p.add_argument("--widths", default=",".join(map(str, WIDTHS)), help="channels per stage")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument(
        "--views",
        type=int,
        choices=VIEW_COUNTS,
        default=VIEWS,
        help="views of each crop a verdict averages; the temperature is fitted on their mean",
    )
    p.add_argument(
        "--pages",
        type=int,
        default=PAGES,
        help="rendered printed pages whose hand-reader proposals become not-a-die crops "
        "(a --cache made with another number is refused)",
    )
    p.add_argument(
        "--colour-aug",
        action=argparse.BooleanOptionalAction,
        default=COLOUR_AUG,
        help="recolour every batch (channel swaps, gains, contrast)",
    )
    p.add_argument(
        "--online-geometry",
        action=argparse.BooleanOptionalAction,
        default=ONLINE_GEOMETRY,
        help="turn, scale and shift the train dice anew every epoch (recut) rather than "
        "cut four crops of each once (a --cache made the other way is refused)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=THREADS,
        help="torch's threads (the weights differ in their last bits between thread counts)",
    )
    p.add_argument(
        "--fold",
        metavar="K/N",
        help="train on fold K of N of the split's train photos only (split.part_files; each "
        "set's photos dealt to the folds by a hash), e.g. to read the other folds out of fold; "
        "the temperature is fitted on the calibration photos as without it",
    )
    args = p.parse_args(argv)
    if args.fold is not None:
        try:
            parse_fold(args.fold)
        except ValueError as e:
            p.error(str(e))
        if args.out == MODEL_FILE.parent:
            p.error("--fold makes a model for experiments: give it an --out of its own")
    if args.threads < 1:
        p.error("--threads takes a number >= 1")
    epochs = 1 if args.quick else args.epochs
    ref = args.reference or (None if args.quick or args.out != MODEL_FILE.parent else REFERENCE)
    w = [int(v) for v in args.widths.split(",")]
    if len(w) != 4:
        p.error("--widths takes four numbers")
    widths = (w[0], w[1], w[2], w[3])
    try:
        train(
            epochs,
            args.quick,
            args.out,
            ref,
            args.cache,
            widths=widths,
            colour_aug=args.colour_aug,
            tray_aug=args.tray_aug,
            finder_per_die=args.finder_per_die,
            astride_per_pair=args.astride_per_pair,
            lr=args.lr,
            views=args.views,
            pages=args.pages,
            threads=args.threads,
            fold=args.fold,
            online=args.online_geometry,
            seed=args.seed,
            part_per_die=args.part_per_die,
        )
    except CacheMismatch as e:
        p.error(str(e))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
