#!/usr/bin/python3
"""Trains the MRZ scanner's line reader (`LineReader` in Swift): a small fully convolutional network
that reads one whole zone line with no character segmentation, through a CTC output over the 37
MRZ characters and a blank.

  line_training.py OUT.onnx [--lines N] [--check-lines N] [--epochs E] [--seed S] [--jobs J]
                   [--check-seed S]
                   [--start-from MODEL.onnx --cut-lines DIR [--check-cut-lines DIR] [--learning-rate R]]

With --start-from, the network of MODEL.onnx (as this script exports it, batch normalisation folded
into the convolutions) is trained further on the rendered lines mixed with the lines in the
folders of --cut-lines: zone lines cut from generated photos exactly as the scanner cuts them
(`gbgbridge-mrz-bench --dump-lines`, which keeps a crop only when the model read each of its lines
within a third of its characters), read as they are; --check-cut-lines holds such lines out.

Lines of 30, 36 or 44 characters are printed and photographed the ways `glyph_training.py` does
(its fonts, print styles, backgrounds, glare, camera sizes, blur, noise and JPEG are imported from
there), with what whole lines add: a pitch that changes along the line as a tilted photo makes it
(up to 15 % from end to end, either way), a slight residual slant, margins cut short or left wide,
the line's band found a little off, and the crop preparations `ZoneCrop` makes (stretched,
flattened by the paper's brightness, black and white by a local threshold). Each line is then cut
exactly as `LineReader.swift` cuts it from a crop: the capital band's centre, LINE_HEIGHT rows at
CAPITAL_ROWS rows a capital, bilinear samples, ink positive, zero mean and unit spread.

The network: five 3 x 3 convolutions (16, 32, 48, 64, 96 channels; two 2 x 2 and one 2 x 1
pooling; the last one without padding across, so the line's 24 rows become one), a 1 x 3
convolution and a 1 x 1 convolution to 38 outputs (blank first) every four pixels of the line;
about 133,000 weights, no recurrence (OpenCV's dnn module runs it). PyTorch
(CPU) trains it with CTC loss and Adam, then exports ONNX (opset 11, the width free).

Everything comes from seeded generators (default seed 4207), lines are made in a fixed number of
worker processes with a seed each, and PyTorch runs deterministic kernels on two threads, so the
same inputs give the same bytes.
"""

import argparse
import math
import multiprocessing
import os
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glyph_training as glyphs  # noqa: E402

ALPHABET = glyphs.ALPHABET
# Lines are drawn with capitals of 32 pixels before they are photographed (the glyph model's cells
# use 48): a whole line at 48 takes twice as long to print and photograph, and the photographs
# shrink every line to capitals of 12 to 34 pixels anyway.
glyphs.RENDER_CAPITAL = 32
# The line as the network sees it: LINE_HEIGHT rows around the capital band's centre, a capital
# CAPITAL_ROWS rows high, the width following at the same scale (LineReader.swift uses the same).
LINE_HEIGHT = 24
CAPITAL_ROWS = 13.0
MAXIMUM_WIDTH = 1024
STRIDE = 4


def line_image(image, top, bottom, left=0.0, right=None, ink_is_bright=False):
    """The line between rows top and bottom (the capital band) of image, as the network's input:
    LINE_HEIGHT rows, capitals CAPITAL_ROWS high, bilinear samples with edges clamped, ink
    positive, zero mean, unit spread."""
    h, w = image.shape
    right = w if right is None else right
    capital = max(bottom - top, 4.0)
    scale = CAPITAL_ROWS / capital
    out_w = int(min(MAXIMUM_WIDTH, max(STRIDE * 4, round((right - left) * scale))))
    centre = (top + bottom) / 2
    xs = left + (np.arange(out_w) + 0.5) / scale - 0.5
    ys = centre + (np.arange(LINE_HEIGHT) + 0.5 - LINE_HEIGHT / 2) / scale - 0.5
    xs = np.clip(xs, 0, w - 1)
    ys = np.clip(ys, 0, h - 1)
    x0 = np.floor(xs).astype(int)
    y0 = np.floor(ys).astype(int)
    x1 = np.minimum(x0 + 1, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    fx = (xs - x0)[None, :]
    fy = (ys - y0)[:, None]
    upper = image[y0][:, x0] * (1 - fx) + image[y0][:, x1] * fx
    lower = image[y1][:, x0] * (1 - fx) + image[y1][:, x1] * fx
    line = upper * (1 - fy) + lower * fy
    mean = line.mean()
    spread = math.sqrt(max(((line - mean) ** 2).mean(), 0.0)) + 8.0
    return ((line - mean) if ink_is_bright else (mean - line)) / spread


def zone_text(rng, count):
    """A line of a zone: random characters, with runs of fillers as zones have them."""
    text = list(glyphs.random_text(rng, count))
    for _ in range(int(rng.integers(0, 3))):
        start = int(rng.integers(0, count))
        length = int(rng.integers(2, 16))
        text[start:start + length] = "<" * len(text[start:start + length])
    return "".join(text[:count])


def perspective(rng, mask):
    """The line as a tilted photo shows it once the crop is made upright: the pitch changes
    steadily along it (by up to 15 % from end to end) and a slight slant is left."""
    h, w = mask.shape
    change = rng.uniform(-0.15, 0.15) if rng.random() < 0.7 else 0.0
    # Source x for each output x: the derivative runs from 1 - change/2 to 1 + change/2.
    u = np.arange(w, dtype=np.float64) / max(w - 1, 1)
    source = (u + change / 2 * (u * u - u)) * (w - 1)
    x0 = np.clip(np.floor(source).astype(int), 0, w - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    f = (source - x0).astype(np.float32)[None, :]
    warped = mask[:, x0] * (1 - f) + mask[:, x1] * f
    if rng.random() < 0.4:
        angle = rng.uniform(-0.8, 0.8)
        picture = Image.fromarray((warped * 255).astype(np.uint8)).rotate(angle, resample=Image.BILINEAR)
        warped = np.asarray(picture, dtype=np.float32) / 255.0
    return warped


def flatten(image):
    """ZoneCrop's flattened preparation: divided by the paper's brightness around it, stretched."""
    paper = glyphs.blur(image, glyphs.TARGET_CAPITAL * 1.5) + 1.0
    return glyphs.stretch(np.clip(image / paper * 200.0, 0, 255))


def make_line(rng):
    """One training line: the network's input (float32, LINE_HEIGHT x width) and its text."""
    count = int(rng.choice([30, 36, 44], p=[0.35, 0.2, 0.45]))
    text = zone_text(rng, count)
    mask, centres, band, pitch, name = glyphs.render_mask(rng, text)
    mask = glyphs.print_style(rng, mask, name)
    if rng.random() < 0.5:
        factor = rng.uniform(0.75, 1.2)
        h, w = mask.shape
        picture = Image.fromarray((mask * 255).astype(np.uint8)).resize((max(8, int(w * factor)), h), Image.BILINEAR)
        mask = np.asarray(picture, dtype=np.float32) / 255.0
        pitch *= factor
    mask = perspective(rng, mask)
    image, scale = glyphs.photograph(rng, mask, band)
    if rng.random() < 0.2:
        image = flatten(image)
    # photograph() draws bright print on dark paper for about one line in ten; the scanner tells
    # from the crop's median (GlyphSegmenter.isInkBright), and so does this.
    bright = bool(np.median(image) < 110)
    top, bottom = band[0] * scale, band[1] * scale
    capital = bottom - top
    top += rng.normal(0, 0.05) * capital
    bottom += rng.normal(0, 0.05) * capital
    margin = 1.5 * pitch * scale
    left = rng.uniform(0.15, 1.0) * margin
    right = image.shape[1] - rng.uniform(0.15, 1.0) * margin
    return line_image(image, top, bottom, left, right, bright).astype(np.float16), text


def make_lines(task):
    seed, chunk, count = task
    rng = np.random.default_rng([seed, chunk])
    return [make_line(rng) for _ in range(count)]


def render(seed, lines, jobs, chunk_size=200):
    tasks = [(seed, index, min(chunk_size, lines - start)) for index, start in enumerate(range(0, lines, chunk_size))]
    if jobs <= 1:
        chunks = [make_lines(task) for task in tasks]
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            chunks = pool.map(make_lines, tasks, chunksize=1)
    return [line for chunk in chunks for line in chunk]


def build_network(torch, folded=False):
    """The network; folded, without batch normalisation (its scale and shift are in the
    convolutions' weights and biases, as the exported model has them) for training further."""
    nn = torch.nn

    def normalised(outputs):
        return [] if folded else [nn.BatchNorm2d(outputs)]

    def block(inputs, outputs, pool):
        layers = [nn.Conv2d(inputs, outputs, 3, padding=1, bias=folded), *normalised(outputs), nn.ReLU()]
        if pool:
            layers.append(nn.MaxPool2d(pool))
        return layers

    return nn.Sequential(
        *block(1, 16, (2, 2)),  # 12 x W/2
        *block(16, 32, (2, 2)),  # 6 x W/4
        *block(32, 48, None),
        *block(48, 64, (2, 1)),  # 3 x W/4
        nn.Conv2d(64, 96, (3, 3), padding=(0, 1), bias=folded),  # 1 x W/4
        *normalised(96),
        nn.ReLU(),
        nn.Conv2d(96, 96, (1, 3), padding=(0, 1), bias=folded),
        *normalised(96),
        nn.ReLU(),
        nn.Conv2d(96, len(ALPHABET) + 1, 1),  # blank first, then ALPHABET
    )


def load_folded(torch, network, path):
    """The weights and biases of an exported model's convolutions, in order, into a folded network."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    constants = {tensor.name: numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    convolutions = [module for module in network if isinstance(module, torch.nn.Conv2d)]
    nodes = [node for node in model.graph.node if node.op_type == "Conv"]
    if len(nodes) != len(convolutions):
        raise SystemExit(f"line-model: {path} has {len(nodes)} convolutions, the network {len(convolutions)}")
    with torch.no_grad():
        for module, node in zip(convolutions, nodes):
            weight, bias = constants[node.input[1]], constants[node.input[2]]
            if tuple(weight.shape) != tuple(module.weight.shape):
                raise SystemExit(f"line-model: {path}: weights {weight.shape}, expected {tuple(module.weight.shape)}")
            module.weight.copy_(torch.from_numpy(weight.copy()))
            module.bias.copy_(torch.from_numpy(bias.copy()))


def read_cut_lines(folders, limit=None):
    """The lines of `gbgbridge-mrz-bench --dump-lines` files in folders (sorted by name): each a
    header `LINE width text ...` and LINE_HEIGHT x width signed bytes, the input times 32."""
    lines = []
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".lines"):
                continue
            with open(os.path.join(folder, name), "rb") as file:
                data = file.read()
            at = 0
            while at < len(data):
                end = data.index(b"\n", at)
                fields = data[at:end].decode("ascii").split(" ")
                width, text = int(fields[1]), fields[2]
                size = LINE_HEIGHT * width
                values = np.frombuffer(data, dtype=np.int8, count=size, offset=end + 1)
                at = end + 1 + size
                if width > MAXIMUM_WIDTH or any(c not in ALPHABET for c in text):
                    continue
                lines.append(((values.astype(np.float32) / 32).reshape(LINE_HEIGHT, width).astype(np.float16), text))
                if limit is not None and len(lines) >= limit:
                    return lines
    return lines


def batches(rng, data, size):
    order = rng.permutation(len(data))
    for start in range(0, len(order), size):
        yield [data[i] for i in order[start:start + size]]


def to_tensor(torch, items, rng=None):
    width = max(image.shape[1] for image, _ in items)
    width = (width + STRIDE - 1) // STRIDE * STRIDE
    batch = np.zeros((len(items), 1, LINE_HEIGHT, width), dtype=np.float32)
    for index, (image, _) in enumerate(items):
        batch[index, 0, :, :image.shape[1]] = image
        if rng is not None and rng.random() < 0.5:
            # Noise beyond the line's end, as a crop's edge or a card's border may leave.
            pad = width - image.shape[1]
            if pad > 0:
                batch[index, 0, :, image.shape[1]:] = rng.normal(0, 0.3, (LINE_HEIGHT, pad))
    lengths = [image.shape[1] // STRIDE for image, _ in items]
    targets = [ALPHABET.index(c) + 1 for _, text in items for c in text]
    return (torch.from_numpy(batch), torch.tensor(lengths, dtype=torch.long),
            torch.tensor(targets, dtype=torch.long), torch.tensor([len(t) for _, t in items], dtype=torch.long))


def decode(logits, length):
    best = logits[:, :length].argmax(axis=0)
    out = []
    previous = 0
    for index in best:
        if index != previous and index != 0:
            out.append(ALPHABET[index - 1])
        previous = index
    return "".join(out)


def evaluate(torch, network, data):
    network.eval()
    exact = 0
    errors = 0
    characters = 0
    with torch.no_grad():
        for start in range(0, len(data), 32):
            items = data[start:start + 32]
            x, lengths, _, _ = to_tensor(torch, items)
            logits = network(x)[:, :, 0, :].numpy()
            for index, (_, text) in enumerate(items):
                read = decode(logits[index], int(lengths[index]))
                exact += read == text
                errors += edit_distance(read, text)
                characters += len(text)
    network.train()
    return exact / max(len(data), 1), 1 - errors / max(characters, 1)


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


def export(torch, network, path):
    """ONNX (opset 11, the width free) that OpenCV 4.6's importer takes: the exporter shares equal
    constants (the folded biases) through Identity nodes, which that importer refuses, so each
    such node becomes a constant of its own. The file is written with the same bytes every time."""
    example = torch.zeros(1, 1, LINE_HEIGHT, 400)
    torch.onnx.export(
        network, example, path, input_names=["line"], output_names=["logits"], opset_version=11,
        dynamic_axes={"line": {3: "width"}, "logits": {3: "steps"}}, do_constant_folding=True)
    inline_shared_constants(path)


def inline_shared_constants(path):
    """Each Identity node over a constant becomes a constant of its own (see export)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    constants = {tensor.name: tensor for tensor in model.graph.initializer}
    kept = []
    for node in model.graph.node:
        if node.op_type == "Identity" and node.input[0] in constants:
            copy = numpy_helper.from_array(numpy_helper.to_array(constants[node.input[0]]), node.output[0])
            model.graph.initializer.append(copy)
        else:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    model.producer_version = ""
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--lines", type=int, default=2400)
    parser.add_argument("--check-lines", type=int, default=300)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=4207)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check-seed", type=int, help="the held-out lines' seed (the seed plus one unless given)")
    parser.add_argument("--start-from", help="an exported model to train further")
    parser.add_argument("--cut-lines", action="append", default=[], help="a folder of cut lines (repeatable)")
    parser.add_argument("--check-cut-lines", action="append", default=[], help="a folder of held-out cut lines")
    parser.add_argument("--learning-rate", type=float, default=3e-3, help="the schedule's highest rate")
    args = parser.parse_args()
    start = time.time()

    def log(message):
        print(f"line-model: [{time.time() - start:.0f} s] {message}", file=sys.stderr, flush=True)

    train_data = render(args.seed, args.lines, args.jobs)
    check_seed = args.seed + 1 if args.check_seed is None else args.check_seed
    check_data = render(check_seed, args.check_lines, args.jobs)
    log(f"{len(train_data)} training lines, {len(check_data)} held-out lines (seed {check_seed})")
    cut_data = read_cut_lines(args.cut_lines)
    check_cut = read_cut_lines(args.check_cut_lines, limit=1500)
    if args.cut_lines or args.check_cut_lines:
        log(f"{len(cut_data)} cut training lines, {len(check_cut)} held-out cut lines")
    train_data = train_data + cut_data

    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    network = build_network(torch, folded=args.start_from is not None)
    if args.start_from:
        load_folded(torch, network, args.start_from)
        log(f"starting from {args.start_from}")
    log(f"{sum(p.numel() for p in network.parameters())} weights")
    ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
    optimiser = torch.optim.Adam(network.parameters(), lr=2e-3)
    rng = np.random.default_rng(args.seed + 2)
    batch_size = 12
    steps = args.epochs * math.ceil(len(train_data) / batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=args.learning_rate, total_steps=steps, pct_start=0.15)
    if args.start_from:
        exact, chars = evaluate(torch, network, check_data)
        log(f"before: held-out lines exact {exact:.3f}, characters right {chars:.4f}")
        if check_cut:
            exact, chars = evaluate(torch, network, check_cut)
            log(f"before: held-out cut lines exact {exact:.3f}, characters right {chars:.4f}")
    done = 0
    for epoch in range(args.epochs):
        total = 0.0
        for items in batches(rng, train_data, batch_size):
            x, lengths, targets, target_lengths = to_tensor(torch, items, rng)
            logits = network(x)[:, :, 0, :]  # N x C x T
            log_probs = logits.permute(2, 0, 1).log_softmax(2)
            loss = ctc(log_probs, targets, lengths, target_lengths)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 5.0)
            optimiser.step()
            schedule.step()
            total += float(loss) * len(items)
            done += 1
            if done % 100 == 0:
                log(f"step {done} of {steps}: loss {float(loss):.3f}")
        exact, chars = evaluate(torch, network, check_data)
        log(f"epoch {epoch + 1}: loss {total / len(train_data):.4f}; held-out lines exact {exact:.3f}, "
            f"characters right {chars:.4f}")
        if check_cut:
            exact, chars = evaluate(torch, network, check_cut)
            log(f"epoch {epoch + 1}: held-out cut lines exact {exact:.3f}, characters right {chars:.4f}")
        # Written after every epoch, so that a long run can be looked at before it ends.
        network.eval()
        export(torch, network, args.out)
        network.train()
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
