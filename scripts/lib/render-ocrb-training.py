#!/usr/bin/python3
"""Renders training pages for Tesseract's legacy engine: OCR-B lines of the MRZ alphabet.

  render-ocrb-training.py OUTDIR

Writes OUTDIR/ocrb.OCRB.expN.png with its box file OUTDIR/ocrb.OCRB.expN.box (one box a
character, Tesseract's bottom-left origin) for every size and blur below. The font is fonts-ocr-b's
OCRB.otf; paper, ink, blur and noise imitate a camera photo of a document. Everything comes from
one seeded generator, so the same inputs give the same pages, byte for byte.
"""

import os
import random
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

FONT = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
# Pixels to the em, and Gaussian blur radii at 28 pixels to the em (scaled with the size).
SIZES = (20, 26, 34, 44)
BLURS = (0.0, 0.5, 0.9, 1.3)
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


def main():
    out = sys.argv[1]
    r = random.Random(12345)
    page = 0
    for em in SIZES:
        font = ImageFont.truetype(FONT, em)
        pitch = font.getbbox("M")[2]  # OCR-B is monospaced
        leading = int(em * 1.6)
        for blur in BLURS:
            lines = [random_line(r) for _ in range(LINES_PER_PAGE)]
            width = pitch * LINE_LENGTH + 2 * em
            height = leading * LINES_PER_PAGE + 2 * em
            paper, ink = (r.randint(190, 235), r.randint(30, 80)) if blur else (255, 0)
            image = Image.new("L", (width, height), paper)
            draw = ImageDraw.Draw(image)
            boxes = []
            for row, line in enumerate(lines):
                y = em + row * leading
                for column, character in enumerate(line):
                    x = em + column * pitch
                    draw.text((x, y), character, font=font, fill=ink)
                    left, top, right, bottom = font.getbbox(character)
                    boxes.append(
                        "%s %d %d %d %d 0" % (character, x + left, height - (y + bottom), x + right, height - (y + top))
                    )
            if blur:
                image = image.filter(ImageFilter.GaussianBlur(blur * em / 28))
                image = ImageChops.add(image, noise(r, image.size, 8), 1.0, -128)
            name = os.path.join(out, "ocrb.OCRB.exp%d" % page)
            image.save(name + ".png")
            with open(name + ".box", "w") as file:
                file.write("\n".join(boxes) + "\n")
            page += 1


if __name__ == "__main__":
    main()
