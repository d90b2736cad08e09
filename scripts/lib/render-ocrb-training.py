#!/usr/bin/python3
"""Renders training pages for Tesseract's legacy engine: OCR-B lines of the MRZ alphabet.

  render-ocrb-training.py OUTDIR

Writes OUTDIR/ocrb.OCRB.expN.png with its box file OUTDIR/ocrb.OCRB.expN.box (one box a
character, Tesseract's bottom-left origin). The font is fonts-ocr-b's OCRB.otf. Every size has
clean pages (black on white, at the font's own pitch and at ICAO's) and pages degraded the way a
camera degrades a document: drawn smaller, blurred, toned (thinner or heavier strokes), noisy,
sharpened, JPEG-compressed, then scaled up to the size the scanner hands Tesseract. The boxes are
the font's glyph boxes, scaled with the page. Everything comes from one seeded generator, so the
same inputs give the same pages, byte for byte.
"""

import io
import os
import random
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

FONT = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
# Pixels to the em of the pages as Tesseract sees them (OCR-B's capitals are 0.73 em high, so 15
# to 32 pixels; the scanner scales a zone to capitals of 26 or 35 pixels).
SIZES = (20, 26, 34, 44)
# Character pitch in ems: the font's own advance (None), and the 2.54 mm of ICAO Doc 9303's 10
# characters to the inch at OCR-B's 2.42 mm capital height (a little wider).
PITCHES = (None, 0.77)
# Degraded pages a size.
DEGRADED = 8
# A camera's degradations, drawn from for every degraded page:
# the size the document was photographed at, as a share of the page's (the page is scaled up
# after the camera's work, as the scanner scales a small zone up);
SOURCE_SCALES = (1.0, 0.8, 0.6)
# Gaussian blur, in capital heights at the photographed size;
BLURS = (0.03, 0.05, 0.07, 0.09, 0.12)
# the exponent of the tone curve between ink and paper: below 1 thins the strokes, above 1
# thickens them (gamma, exposure, and sharpening make strokes heavier or lighter);
TONES = (0.6, 1.0, 1.6, 2.4)
# unsharp masking (radius in pixels at the photographed size, strength in percent), or none;
SHARPENS = (None, None, (1.0, 120), (1.5, 200), (2.0, 250))
# JPEG quality, or lossless.
QUALITIES = (None, 35, 45, 60, 80)
LINES_PER_PAGE = 16
LINE_LENGTH = 44


def noise(r, size, amplitude):
    """A gray image of triangular noise, 128 +- 2 * amplitude, from the seeded generator."""
    count = size[0] * size[1]
    table = bytes(128 - amplitude + (v * (2 * amplitude + 1)) // 256 for v in range(256))
    first = Image.frombytes("L", size, r.randbytes(count).translate(table))
    second = Image.frombytes("L", size, r.randbytes(count).translate(table))
    return ImageChops.add(first, second, 1.0, -128)


def random_line(r):
    """A line of the MRZ alphabet: filler is a third of an MRZ's characters, the rest even."""
    return "".join(r.choice(ALPHABET + "<<<") for _ in range(LINE_LENGTH))


def draw_page(r, em, pitch_em, paper, ink):
    """A page of random lines at em pixels to the em; returns the image and the glyph boxes
    (left, top, right, bottom from the top-left corner)."""
    font = ImageFont.truetype(FONT, em)
    natural = font.getbbox("M")[2]  # OCR-B is monospaced
    pitch = natural if pitch_em is None else round(pitch_em * em)
    leading = int(em * 1.6)
    width = pitch * LINE_LENGTH + 2 * em
    height = leading * LINES_PER_PAGE + 2 * em
    image = Image.new("L", (width, height), paper)
    draw = ImageDraw.Draw(image)
    boxes = []
    for row in range(LINES_PER_PAGE):
        y = em + row * leading
        for column, character in enumerate(random_line(r)):
            x = em + column * pitch + (pitch - natural) // 2
            draw.text((x, y), character, font=font, fill=ink)
            left, top, right, bottom = font.getbbox(character)
            boxes.append((character, x + left, y + top, x + right, y + bottom))
    return image, boxes


def camera(r, image, em, paper, ink):
    """Blur, tone, noise, sharpening and JPEG, as a camera photographing a page at em pixels to
    the em."""
    image = image.filter(ImageFilter.GaussianBlur(r.choice(BLURS) * 0.73 * em))
    tone = r.choice(TONES)
    if tone != 1.0:
        span = paper - ink
        table = [
            ink + round(span * min(1.0, max(0.0, (v - ink) / span)) ** tone) for v in range(256)
        ]
        image = image.point(table)
    amplitude = r.randint(2, max(3, (paper - ink) // 10))
    image = ImageChops.add(image, noise(r, image.size, amplitude), 1.0, -128)
    sharpen = r.choice(SHARPENS)
    if sharpen:
        radius, percent = sharpen
        image = image.filter(ImageFilter.UnsharpMask(radius=radius, percent=percent, threshold=2))
    quality = r.choice(QUALITIES)
    if quality:
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=quality)
        image = Image.open(io.BytesIO(buffer.getvalue())).convert("L")
    return image


def save(out, page, image, boxes):
    """Writes the page and its box file (Tesseract's bottom-left origin)."""
    height = image.size[1]
    name = os.path.join(out, "ocrb.OCRB.exp%d" % page)
    image.save(name + ".png")
    with open(name + ".box", "w") as file:
        for character, left, top, right, bottom in boxes:
            box = (character, left, height - bottom, right, height - top)
            file.write("%s %d %d %d %d 0\n" % box)


def main():
    out = sys.argv[1]
    r = random.Random(12345)
    page = 0
    for em in SIZES:
        for pitch in PITCHES:
            image, boxes = draw_page(r, em, pitch, 255, 0)
            save(out, page, image, boxes)
            page += 1
        for index in range(DEGRADED):
            pitch = PITCHES[index % 2]
            # Slightly larger or smaller than the nominal size.
            target = round(em * r.uniform(0.92, 1.08))
            source = max(14, round(target * r.choice(SOURCE_SCALES)))
            if r.random() < 0.3:  # dim light: dark paper, little contrast
                paper, ink = r.randint(90, 150), r.randint(15, 45)
            else:
                paper, ink = r.randint(170, 240), r.randint(20, 80)
            image, boxes = draw_page(r, source, pitch, paper, ink)
            image = camera(r, image, source, paper, ink)
            if source != target:
                width, height = image.size
                size = (round(width * target / source), round(height * target / source))
                sx, sy = size[0] / width, size[1] / height
                image = image.resize(size, Image.BILINEAR)
                boxes = [
                    (c, round(left * sx), round(top * sy), round(right * sx), round(bottom * sy))
                    for c, left, top, right, bottom in boxes
                ]
            save(out, page, image, boxes)
            page += 1


if __name__ == "__main__":
    main()
