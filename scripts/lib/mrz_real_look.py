"""Machine-readable zones that look like real print photographed by real cameras, for measuring.

Used by scripts/ocr-probe.py (--look real). Its own code and ranges, written apart from the
training pages' (scripts/lib/render-ocrb-training.py), so a model is never measured on the looks
it was trained on. A zone goes through four stages:

- print: fonts-ocr-b's OCRB.otf or its sharp cut OCRBS.otf, at the font's pitch or ICAO's, drawn
  at four times the size and then made bolder or lighter (ink spread or a starved ribbon), wider
  or narrower, as dots of a dot-matrix printer, or as thin engraved strokes (dark or bright);
- document: paper or plastic behind the zone, plain, with guilloche (crossing sine waves), with
  a hologram's soft bright bands, or with laminate glare over part of the zone;
- capture: a flatbed scan or a phone photograph: the document tilted up to 30 degrees, so the
  rectified zone is squeezed along one axis and resampled; blur; sensor noise; a capital height
  of 12 to 30 pixels; JPEG at quality 30 to 90;
- scanner: what MRZScanner hands the engine: the zone scaled to capitals of 26 pixels and
  stretched between its 1st and 95th brightness percentile.
"""

import io
import math

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

FONTS = ("/usr/share/fonts/opentype/ocr-b/OCRB.otf", "/usr/share/fonts/opentype/ocr-b/OCRBS.otf")
OVERSAMPLE = 4
# OCR-B's capital height in ems.
CAP = 0.73
# The capital height the scanner samples a zone at.
SCANNER_CAP = 26


def _text(r, lines, em):
    """Black ink (0) on white (255), at OVERSAMPLE times em, ICAO or font pitch, slightly uneven
    baseline; returns the image and its em in pixels."""
    big = em * OVERSAMPLE
    font = ImageFont.truetype(r.choice(FONTS), big)
    natural = font.getbbox("M")[2]
    pitch = natural if r.random() < 0.5 else round(0.77 * big * r.uniform(0.98, 1.04))
    leading = int(big * r.uniform(1.45, 1.9))
    margin = big
    width = pitch * max(len(line) for line in lines) + 2 * margin
    height = leading * len(lines) + 2 * margin
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    jitter = max(1, big // 40)
    for row, line in enumerate(lines):
        for column, character in enumerate(line):
            x = margin + column * pitch + (pitch - natural) // 2 + r.randint(-jitter, jitter)
            y = margin + row * leading + r.randint(-jitter, jitter)
            draw.text((x, y), character, font=font, fill=0)
    return image, big


def _print(r, lines, em):
    """The printed zone as an ink mask (0 ink, 255 none) at OVERSAMPLE times em, and its style."""
    image, big = _text(r, lines, em)
    style = r.choice(("offset", "offset", "inkjet", "starved", "dots", "engraved"))
    stroke = max(3, (big // 18) | 1)
    if style == "inkjet":  # ink spreads into the paper: heavier, rounded strokes
        image = image.filter(ImageFilter.GaussianBlur(big * r.uniform(0.02, 0.05)))
        image = image.point(lambda v: 0 if v < r.randint(150, 200) else 255)
    elif style == "starved":  # a worn ribbon or toner-saving: thinner strokes, gaps
        image = image.filter(ImageFilter.MaxFilter(stroke))
    elif style == "dots":  # a dot-matrix printer: round dots along the strokes
        pitch = max(4, big // r.randint(7, 10))
        dots = Image.new("L", image.size, 255)
        draw = ImageDraw.Draw(dots)
        radius = pitch * r.uniform(0.45, 0.7)
        ink = image.load()
        for y in range(pitch // 2, image.size[1], pitch):
            for x in range(pitch // 2, image.size[0], pitch):
                if ink[x, y] < 128:
                    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=0)
        image = dots
    elif style == "engraved":  # a laser's thin line: the outline, or the thinned stroke
        if r.random() < 0.5:
            image = image.filter(ImageFilter.MaxFilter(stroke + 2))
        else:
            outer = image.filter(ImageFilter.MinFilter(3))
            inner = image.filter(ImageFilter.MaxFilter(5))
            image = ImageChops.invert(ImageChops.subtract(inner, outer))
    elif r.random() < 0.5:  # offset print, bolder or lighter than the font
        image = image.filter(ImageFilter.MinFilter(stroke) if r.random() < 0.5 else ImageFilter.MaxFilter(3))
    squeeze = r.uniform(0.85, 1.15)  # a narrower or wider cut of the face
    image = image.resize((max(1, round(image.size[0] * squeeze)), image.size[1]), Image.BILINEAR)
    return image, style


def _background(r, size):
    """The document behind the zone, 0-255 gray, at the oversampled size."""
    width, height = size
    base = r.randint(150, 245)
    image = Image.new("L", size, base)
    kind = r.choice(("plain", "guilloche", "guilloche", "hologram"))
    if kind != "plain":
        lines = Image.new("L", size, 0)
        draw = ImageDraw.Draw(lines)
        waves = r.randint(8, 30)
        period = width / r.uniform(2, 8)
        amplitude = height * r.uniform(0.05, 0.3)
        step = max(4, width // 200)
        for k in range(waves):
            offset = height * k / waves
            phase = r.uniform(0, math.tau)
            points = [
                (x, offset + amplitude * math.sin(x / period * math.tau + phase))
                for x in range(0, width + step, step)
            ]
            draw.line(points, fill=255, width=max(2, height // 150))
        strength = r.randint(20, 70) if kind == "guilloche" else r.randint(40, 110)
        if kind == "hologram":
            lines = lines.filter(ImageFilter.GaussianBlur(height * 0.03))
            strength = -strength  # brighter bands
        shaded = lines.point(lambda v: v * abs(strength) // 255)
        image = (ImageChops.add if strength < 0 else ImageChops.subtract)(image, shaded)
    return image, base, kind


def _glare(r, image):
    """A bright elliptical patch of laminate glare over part of the zone."""
    width, height = image.size
    mask = Image.new("L", image.size, 0)
    cx, cy = r.uniform(0, width), r.uniform(0, height)
    rx, ry = width * r.uniform(0.05, 0.2), height * r.uniform(0.2, 0.6)
    ImageDraw.Draw(mask).ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=r.randint(90, 200))
    mask = mask.filter(ImageFilter.GaussianBlur(min(rx, ry) * 0.5))
    return ImageChops.add(image, mask)


def render_real(lines, em, r):
    """The zone as MRZScanner would hand it to the engine; returns (image, description)."""
    mask, style = _print(r, lines, em)
    background, paper, kind = _background(r, mask.size)
    ink_level = r.randint(0, 70)
    if style == "engraved" and r.random() < 0.25:  # bright engraving on dark plastic
        background = background.point(lambda v: v * 2 // 5)
        ink_level = r.randint(170, 240)
    ink = Image.new("L", mask.size, ink_level)
    image = Image.composite(background, ink, mask)
    if r.random() < 0.25:
        image = _glare(r, image)
        kind += "+glare"
    capture = r.choice(("scan", "phone", "phone"))
    cap = r.uniform(12, 30)  # capital height in the photograph, pixels
    scale = cap / (CAP * em * OVERSAMPLE)
    tilt = math.radians(r.uniform(0, 30)) if capture == "phone" else 0
    squeeze = math.cos(tilt)  # foreshortening along one axis, undone by rectification
    sx, sy = (scale * squeeze, scale) if r.random() < 0.5 else (scale, scale * squeeze)
    image = image.rotate(r.uniform(-1, 1), resample=Image.BILINEAR, fillcolor=paper)
    small = (max(8, round(image.size[0] * sx)), max(8, round(image.size[1] * sy)))
    image = image.resize(small, Image.BOX)
    blur = r.uniform(0.2, 0.6) if capture == "scan" else r.uniform(0.4, 1.3)
    image = image.filter(ImageFilter.GaussianBlur(blur * cap / 20))
    sigma = r.randint(1, 4) if capture == "scan" else r.randint(3, 9)
    noise = Image.frombytes("L", image.size, bytes(_seeded_noise(r, image.size, sigma)))
    image = ImageChops.add(image, noise, 1.0, -128)
    quality = r.choice((30, 40, 50, 60, 75, 90))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality)
    image = Image.open(io.BytesIO(buffer.getvalue())).convert("L")
    # The scanner: rectified (each axis back to the same scale), capitals of 26 pixels.
    factor = SCANNER_CAP / (CAP * em * OVERSAMPLE)
    full = (round(mask.size[0] * factor), round(mask.size[1] * factor))
    image = image.resize(full, Image.BILINEAR)
    image = _stretch(image)
    description = "%s %s %s cap %.0f tilt %.0f q%d" % (style, kind, capture, cap, math.degrees(tilt), quality)
    return image, description


def _seeded_noise(r, size, sigma):
    """Approximately Gaussian noise around 128 from the seeded generator (sum of three uniforms)."""
    count = size[0] * size[1]
    spread = max(1, int(sigma * 1.7))
    table = bytes((v * (2 * spread + 1)) // 256 for v in range(256))
    total = [128 - 3 * spread] * count
    for _ in range(3):
        for i, v in enumerate(r.randbytes(count).translate(table)):
            total[i] += v
    return [min(255, max(0, v)) for v in total]


def _stretch(image):
    """Stretches the 1st to 95th brightness percentile to black and white."""
    histogram = image.histogram()
    count = sum(histogram)
    low = high = 0
    seen = 0
    for value, n in enumerate(histogram):
        seen += n
        if seen <= count * 0.01:
            low = value
        if seen <= count * 0.95:
            high = value
    if high <= low:
        return image
    return image.point(lambda v: min(255, max(0, (v - low) * 255 // (high - low))))
