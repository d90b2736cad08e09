#!/usr/bin/python3
"""Trains the glyph classifier of the MRZ scanner's second reader (`GlyphReader` in Swift).

  glyph_training.py OUT.bin [--lines N] [--seed S] [--epochs E] [--check-lines N]

Renders lines of the MRZ alphabet in Debian's `fonts-ocr-b` (OCRB.otf, its sharp cut OCRBS.otf
and its outline cut OCRBF.otf), prints them the many ways documents are printed (heavier and
lighter strokes, ink spread both ways, narrow and wide, dot-matrix dots, engraved outlines, bright
on dark), puts security backgrounds and glare behind and over them, photographs them (capitals of
12 to 34 pixels, blur, noise, JPEG at quality 30 to 95), and then does what the scanner does:
scales the line to capitals of 26 pixels and stretches it between its 1st and 95th brightness
percentile. Each character's cell is cut where it was printed, moved by up to 15 % of the pitch
and with the line's band off by up to 8 % of its height (the scanner's cuts are not perfect), and
normalised exactly as `GlyphReader.swift` does. A small network (two hidden layers) learns the 37
classes from those cells with numpy; the weights go to OUT.bin (`GlyphModel.swift` reads it).

Everything comes from seeded generators (default seed 3801), and numpy runs on one thread, so the
same inputs give the same bytes.
"""

import argparse
import io
import math
import struct
import sys
import time

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_DIR = "/usr/share/fonts/opentype/ocr-b/"
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
CELL_WIDTH = 20
CELL_HEIGHT = 24
# The cell around a character: this many capital heights across (a glyph's width follows its
# height, not the pitch, which varies from print to print), and the capital band with this share of
# its height added above and below (GlyphReader.swift uses the same).
CELL_SPAN = 1.25
CELL_MARGIN = 0.25
TARGET_CAPITAL = 26.0
HIDDEN = (256, 128)
RENDER_CAPITAL = 48


def font(name, size, cache={}):
    key = (name, size)
    if key not in cache:
        cache[key] = ImageFont.truetype(FONT_DIR + name, size)
    return cache[key]


def random_text(rng, count):
    kinds = rng.random(count)
    out = []
    for kind in kinds:
        if kind < 0.25:
            out.append("<")
        elif kind < 0.6:
            out.append(ALPHABET[rng.integers(0, 10)])
        else:
            out.append(ALPHABET[rng.integers(10, 36)])
    return "".join(out)


def render_mask(rng, text):
    """The line's ink (0 paper, 1 ink) at capitals of RENDER_CAPITAL pixels; the characters' centres
    and the capital band."""
    em = int(round(RENDER_CAPITAL / 0.73))
    style = rng.random()
    name = "OCRB.otf" if style < 0.6 else ("OCRBS.otf" if style < 0.85 else "OCRBF.otf")
    face = font(name, em)
    pitch = em * (rng.uniform(0.70, 0.82) if rng.random() < 0.6 else rng.uniform(0.82, 1.08))
    margin = int(pitch * 1.5)
    width = int(margin * 2 + pitch * len(text))
    height = int(em * 1.6)
    image = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(image)
    baseline = int(em * 1.15)
    advance = face.getlength("H")
    centres = []
    for index, character in enumerate(text):
        left = margin + index * pitch + (pitch - advance) / 2
        draw.text((left, baseline), character, font=face, fill=255, anchor="ls")
        centres.append(margin + (index + 0.5) * pitch)
    mask = np.asarray(image, dtype=np.float32) / 255.0
    top = baseline - RENDER_CAPITAL
    return mask, np.array(centres), (top, baseline), pitch, name


def dilate(mask, size):
    return np.asarray(Image.fromarray((mask * 255).astype(np.uint8)).filter(ImageFilter.MaxFilter(size)),
                      dtype=np.float32) / 255.0


def erode(mask, size):
    return np.asarray(Image.fromarray((mask * 255).astype(np.uint8)).filter(ImageFilter.MinFilter(size)),
                      dtype=np.float32) / 255.0


def blur(array, radius):
    if radius <= 0.05:
        return array
    image = Image.fromarray(np.clip(array, 0, 255).astype(np.uint8))
    return np.asarray(image.filter(ImageFilter.GaussianBlur(radius)), dtype=np.float32)


def print_style(rng, mask, font_name):
    """Strokes as a printer, a dot-matrix head or a laser leaves them (0 paper, 1 ink)."""
    kind = rng.random()
    if font_name != "OCRBF.otf" and kind < 0.14:
        # Dot-matrix: ink only where a dot of the grid falls.
        step = RENDER_CAPITAL / rng.uniform(6.5, 9.0)
        h, w = mask.shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        radius = step * rng.uniform(0.3, 0.55)
        dots = (((xx % step) - step / 2) ** 2 + ((yy % step) - step / 2) ** 2) <= radius**2
        spread = dilate(mask, 5)
        mask = spread * dots
        mask = blur(mask * 255, rng.uniform(0.5, 2.0)) / 255.0
        return np.clip(mask * 1.6, 0, 1)
    if font_name != "OCRBF.otf" and kind < 0.22:
        # Engraved: the stroke's outline, from the glyph minus its core.
        core = erode(mask, int(rng.choice([3, 5])))
        return np.clip(mask - core, 0, 1)
    # Weight: thinner or heavier strokes, then ink spread (blur and a threshold).
    weight = rng.random()
    if weight < 0.25:
        mask = erode(mask, int(rng.choice([3, 5])))
    elif weight < 0.55:
        mask = dilate(mask, int(rng.choice([3, 5, 7])))
    if rng.random() < 0.4:
        spread = blur(mask * 255, rng.uniform(1.0, 3.5)) / 255.0
        level = rng.uniform(0.25, 0.7)
        mask = np.clip((spread - level) * 4 + 0.5, 0, 1)
    return mask


def background(rng, shape):
    """Paper, guilloche, hologram bands and texture, 0 to 255."""
    h, w = shape
    paper = rng.uniform(150, 250)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    out = np.full(shape, paper, dtype=np.float32)
    out += (xx / w - 0.5) * rng.uniform(-40, 40) + (yy / h - 0.5) * rng.uniform(-20, 20)
    if rng.random() < 0.5:
        # Guilloche: thin wavy lines.
        for _ in range(int(rng.integers(1, 4))):
            period = rng.uniform(8, 40)
            amplitude = rng.uniform(3, 25)
            freq = rng.uniform(0.005, 0.05)
            phase = rng.uniform(0, 2 * math.pi)
            wave = np.sin((yy + amplitude * np.sin(xx * freq + phase)) * 2 * math.pi / period)
            out -= np.clip(wave - 0.7, 0, 1) / 0.3 * rng.uniform(8, 40)
    if rng.random() < 0.25:
        # A hologram's bright and coloured bands.
        angle = rng.uniform(-1, 1)
        band = np.sin((xx + yy * angle) * 2 * math.pi / rng.uniform(60, 300) + rng.uniform(0, 6.3))
        out += band * rng.uniform(10, 50)
    out += rng.normal(0, rng.uniform(0, 6), shape)
    return out


def photograph(rng, mask, band):
    """The printed line photographed: ink and paper, glare, the camera's size, blur, noise, JPEG;
    then scaled to capitals of 26 pixels and stretched as ZoneCrop does. Returns the image and the
    scale from render to output pixels."""
    shape = mask.shape
    paper = background(rng, shape)
    if rng.random() < 0.1:
        # Bright on dark (laser-engraved plastic, or a dark card).
        ink_level = rng.uniform(170, 255)
        paper = paper * rng.uniform(0.2, 0.5)
    else:
        ink_level = max(0.0, float(paper.mean()) - rng.uniform(70, 220))
    image = paper * (1 - mask) + ink_level * mask
    if rng.random() < 0.2:
        # Glare: a bright patch over part of the line.
        h, w = shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy = rng.uniform(0, w), rng.uniform(-h, 2 * h)
        radius = rng.uniform(h * 0.8, h * 6)
        image += np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius**2)) * rng.uniform(40, 200)
    capital = rng.uniform(12, 34) if rng.random() < 0.8 else rng.uniform(12, 18)
    factor = capital / RENDER_CAPITAL
    small_w = max(8, int(round(shape[1] * factor)))
    small_h = max(4, int(round(shape[0] * factor)))
    picture = Image.fromarray(np.clip(image, 0, 255).astype(np.uint8))
    resample = Image.BILINEAR if rng.random() < 0.3 else Image.LANCZOS
    picture = picture.resize((small_w, small_h), resample)
    small = np.asarray(picture, dtype=np.float32)
    small = blur(small, rng.uniform(0, 0.06) * capital if rng.random() < 0.8 else rng.uniform(0.06, 0.12) * capital)
    if rng.random() < 0.2:
        # Motion blur along the line.
        length = int(rng.integers(2, max(3, int(capital * 0.2)) + 1))
        kernel = np.ones(length) / length
        small = np.apply_along_axis(lambda row: np.convolve(row, kernel, mode="same"), 1, small)
    small = small + rng.normal(0, rng.uniform(0, 14), small.shape)
    picture = Image.fromarray(np.clip(small, 0, 255).astype(np.uint8))
    if rng.random() < 0.75:
        buffer = io.BytesIO()
        picture.save(buffer, "JPEG", quality=int(rng.integers(30, 96)))
        picture = Image.open(io.BytesIO(buffer.getvalue())).convert("L")
    scale = TARGET_CAPITAL / RENDER_CAPITAL
    out_w = int(round(shape[1] * scale))
    out_h = int(round(shape[0] * scale))
    picture = picture.resize((out_w, out_h), Image.BILINEAR)
    out = np.asarray(picture, dtype=np.float32)
    out = stretch(out)
    if rng.random() < 0.12:
        # The binarised preparation: a local threshold.
        local = blur(out, TARGET_CAPITAL * 0.8)
        out = np.where(out <= local * rng.uniform(0.85, 0.97), 0.0, 255.0)
    return out, scale


def stretch(image):
    low = np.percentile(image, 1)
    high = np.percentile(image, 95)
    if high - low < 8:
        return image
    return np.clip((image - low) * 255.0 / (high - low), 0, 255)


def sample_cell(image, left, top, width, height):
    """Bilinear samples of the box at CELL_WIDTH x CELL_HEIGHT, edges clamped (as GrayImage.sample)."""
    h, w = image.shape
    xs = left + (np.arange(CELL_WIDTH) + 0.5) * width / CELL_WIDTH - 0.5
    ys = top + (np.arange(CELL_HEIGHT) + 0.5) * height / CELL_HEIGHT - 0.5
    xs = np.clip(xs, 0, w - 1)
    ys = np.clip(ys, 0, h - 1)
    x0 = np.floor(xs).astype(int)
    y0 = np.floor(ys).astype(int)
    x1 = np.minimum(x0 + 1, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    fx = (xs - x0)[None, :]
    fy = (ys - y0)[:, None]
    top_row = image[y0][:, x0] * (1 - fx) + image[y0][:, x1] * fx
    bottom_row = image[y1][:, x0] * (1 - fx) + image[y1][:, x1] * fx
    return top_row * (1 - fy) + bottom_row * fy


def normalise(cell):
    """Ink positive, zero mean, unit spread (GlyphReader.swift does the same)."""
    mean = cell.mean()
    spread = math.sqrt(max(((cell - mean) ** 2).mean(), 0.0)) + 8.0
    return (mean - cell) / spread


def cell_features(image, centre, pitch, top, bottom):
    height = bottom - top
    box_w = height * CELL_SPAN
    box_top = top - height * CELL_MARGIN
    box_h = height * (1 + 2 * CELL_MARGIN)
    return normalise(sample_cell(image, centre - box_w / 2, box_top, box_w, box_h)).reshape(-1)


def make_samples(rng, lines):
    features = []
    labels = []
    for _ in range(lines):
        count = int(rng.integers(8, 20))
        text = random_text(rng, count)
        mask, centres, band, pitch, name = render_mask(rng, text)
        mask = print_style(rng, mask, name)
        if rng.random() < 0.5:
            # Narrow or wide print: the whole line squeezed or stretched along it.
            factor = rng.uniform(0.75, 1.2)
            h, w = mask.shape
            mask = np.asarray(
                Image.fromarray((mask * 255).astype(np.uint8)).resize((max(8, int(w * factor)), h), Image.BILINEAR),
                dtype=np.float32) / 255.0
            centres = centres * factor
            pitch = pitch * factor
        image, scale = photograph(rng, mask, band)
        top, bottom = band[0] * scale, band[1] * scale
        out_pitch = pitch * scale
        for index, character in enumerate(text):
            shift = float(np.clip(rng.normal(0, 0.07), -0.15, 0.15)) * min(out_pitch, (bottom - top) * 1.1)
            height = bottom - top
            t = top + float(np.clip(rng.normal(0, 0.04), -0.08, 0.08)) * height
            b = bottom + float(np.clip(rng.normal(0, 0.04), -0.08, 0.08)) * height
            p = out_pitch * float(np.clip(rng.normal(1, 0.03), 0.92, 1.08))
            features.append(cell_features(image, centres[index] * scale + shift, p, t, b))
            labels.append(ALPHABET.index(character))
    return np.array(features, dtype=np.float32), np.array(labels, dtype=np.int64)


def init_layers(rng, sizes):
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        weights = rng.normal(0, math.sqrt(2.0 / fan_in), (fan_in, fan_out)).astype(np.float32)
        layers.append([weights, np.zeros(fan_out, dtype=np.float32)])
    return layers


def forward(layers, x):
    activations = [x]
    for index, (weights, bias) in enumerate(layers):
        x = x @ weights + bias
        if index < len(layers) - 1:
            x = np.maximum(x, 0)
        activations.append(x)
    return activations


def train(rng, layers, features, labels, epochs, log):
    moments = [[np.zeros_like(p) for p in layer] for layer in layers]
    squares = [[np.zeros_like(p) for p in layer] for layer in layers]
    step = 0
    batch = 128
    total_steps = epochs * (len(labels) // batch)
    for epoch in range(epochs):
        order = rng.permutation(len(labels))
        loss_sum = 0.0
        for start in range(0, len(order) - batch + 1, batch):
            index = order[start:start + batch]
            x = features[index]
            y = labels[index]
            acts = forward(layers, x)
            logits = acts[-1]
            logits = logits - logits.max(axis=1, keepdims=True)
            probs = np.exp(logits)
            probs /= probs.sum(axis=1, keepdims=True)
            loss_sum += -np.log(probs[np.arange(len(y)), y] + 1e-9).sum()
            grad = probs
            grad[np.arange(len(y)), y] -= 1
            grad /= len(y)
            step += 1
            rate = 0.002 * 0.5 * (1 + math.cos(math.pi * step / total_steps))
            for layer_index in range(len(layers) - 1, -1, -1):
                weights, bias = layers[layer_index]
                grad_w = acts[layer_index].T @ grad + 1e-5 * weights
                grad_b = grad.sum(axis=0)
                if layer_index > 0:
                    grad = (grad @ weights.T) * (acts[layer_index] > 0)
                for slot, g in enumerate((grad_w, grad_b)):
                    moments[layer_index][slot] = 0.9 * moments[layer_index][slot] + 0.1 * g
                    squares[layer_index][slot] = 0.999 * squares[layer_index][slot] + 0.001 * g * g
                    m = moments[layer_index][slot] / (1 - 0.9**step)
                    v = squares[layer_index][slot] / (1 - 0.999**step)
                    layers[layer_index][slot] -= (rate * m / (np.sqrt(v) + 1e-8)).astype(np.float32)
        log(f"epoch {epoch + 1}: loss {loss_sum / len(labels):.4f}")


def accuracy(layers, features, labels):
    predicted = forward(layers, features)[-1].argmax(axis=1)
    return float((predicted == labels).mean())


def write_model(path, layers):
    """GLYPHNN1, cell width and height, layer count, then each layer: inputs, outputs, weights
    (outputs x inputs, row by row), biases; little-endian 32-bit integers and floats."""
    with open(path, "wb") as out:
        out.write(b"GLYPHNN1")
        out.write(struct.pack("<3I", CELL_WIDTH, CELL_HEIGHT, len(layers)))
        for weights, bias in layers:
            out.write(struct.pack("<2I", weights.shape[0], weights.shape[1]))
            out.write(np.ascontiguousarray(weights.T, dtype="<f4").tobytes())
            out.write(np.ascontiguousarray(bias, dtype="<f4").tobytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--lines", type=int, default=16000)
    parser.add_argument("--check-lines", type=int, default=600)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=3801)
    args = parser.parse_args()
    start = time.time()

    def log(message):
        print(f"glyph-model: [{time.time() - start:.0f} s] {message}", file=sys.stderr, flush=True)

    rng = np.random.default_rng(args.seed)
    features, labels = make_samples(rng, args.lines)
    log(f"{len(labels)} training cells")
    check_rng = np.random.default_rng(args.seed + 1)
    check_features, check_labels = make_samples(check_rng, args.check_lines)
    layers = init_layers(rng, (CELL_WIDTH * CELL_HEIGHT, *HIDDEN, len(ALPHABET)))
    train(rng, layers, features, labels, args.epochs, log)
    log(f"training cells right: {accuracy(layers, features, labels):.4f}; "
        f"held-out cells (seed {args.seed + 1}) right: {accuracy(layers, check_features, check_labels):.4f}")
    write_model(args.out, layers)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
