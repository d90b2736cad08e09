#!/usr/bin/python3
"""Measures Tesseract on machine-readable zones rendered in OCR-B.

Renders MRZ blocks (TD3 passports: 2 x 44, TD2: 2 x 36, TD1 cards: 3 x 30) in OCR-B from
fonts-ocr-b at a few sizes, with mild blur, noise, rotation and low contrast, then reads each one
through libtesseract's C API (the same calls Sources/OCREngine makes: page segmentation "single
block", the MRZ whitelist, 8-bit grayscale buffer) and reports character accuracy (1 - edit
distance / length), line accuracy (lines read exactly) and CPU milliseconds per image (process
time, which a busy machine does not inflate), for each engine configuration asked for.

  /usr/bin/python3 scripts/ocr-probe.py                        legacy OCR-B model against stock eng
  /usr/bin/python3 scripts/ocr-probe.py --count 100 --seed 7   more or other samples
  /usr/bin/python3 scripts/ocr-probe.py --fixture PATH         also write one clean TD3 PNG
  /usr/bin/python3 scripts/ocr-probe.py --look real            zones that look like real print
                                                              and cameras (scripts/lib/mrz_real_look.py)

With --look real, --sizes are ems of the print before the camera (the capital height in the
photograph is drawn from 12 to 30 pixels either way). Report numbers with the default seed; tune
with another (--seed 31 is the tuning set), never with the reported one.

Needs Debian's python3-pil, libtesseract5, fonts-ocr-b, tesseract-ocr-eng (for the comparison)
and Resources/ocr/ocrb.traineddata (scripts/build-ocrb-model.sh).
"""

import argparse
import ctypes
import os
import random
import sys
import time

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts", "lib"))
FONT = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"
WHITELIST = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIGITS = "0123456789"

# ---------------------------------------------------------------------------------------------
# MRZ text


def check_digit(text):
    weights = (7, 3, 1)
    total = 0
    for i, c in enumerate(text):
        if c.isdigit():
            v = int(c)
        elif c == "<":
            v = 0
        else:
            v = ord(c) - 55
        total += v * weights[i % 3]
    return str(total % 10)


def word(r, low, high):
    return "".join(r.choice(LETTERS) for _ in range(r.randint(low, high)))


def date(r):
    return "%02d%02d%02d" % (r.randint(0, 99), r.randint(1, 12), r.randint(1, 28))


def names(r, width):
    text = word(r, 3, 10) + "<<" + "<".join(word(r, 2, 8) for _ in range(r.randint(1, 3)))
    return text[:width].ljust(width, "<")


def doc_number(r):
    return "".join(r.choice(LETTERS + DIGITS) for _ in range(9))


def td3(r):
    country = word(r, 3, 3)
    line1 = "P<" + country + names(r, 39)
    number, birth, expiry = doc_number(r), date(r), date(r)
    optional = "".join(r.choice(DIGITS + "<") for _ in range(14))
    body = number + check_digit(number) + word(r, 3, 3) + birth + check_digit(birth) + r.choice("MF<")
    body += expiry + check_digit(expiry) + optional + check_digit(optional)
    composite = number + check_digit(number) + birth + check_digit(birth) + expiry + check_digit(expiry)
    composite += optional + check_digit(optional)
    return [line1, body + check_digit(composite)]


def td2(r):
    line1 = r.choice(["I<", "ID", "AC"]) + word(r, 3, 3) + names(r, 31)
    number, birth, expiry = doc_number(r), date(r), date(r)
    optional = "".join(r.choice(DIGITS + "<") for _ in range(7))
    line2 = number + check_digit(number) + word(r, 3, 3) + birth + check_digit(birth) + r.choice("MF")
    line2 += expiry + check_digit(expiry) + optional
    return [line1, line2 + check_digit(line2[0:10] + line2[13:20] + line2[21:35])]


def td1(r):
    number, birth, expiry = doc_number(r), date(r), date(r)
    optional = "".join(r.choice(DIGITS + "<") for _ in range(15))
    line1 = "I<" + word(r, 3, 3) + number + check_digit(number) + optional
    line2 = birth + check_digit(birth) + r.choice("MF") + expiry + check_digit(expiry) + word(r, 3, 3)
    line2 += "<" * 11
    line2 += check_digit(line1[5:30] + line2[0:7] + line2[8:15] + line2[18:29])
    return [line1, line2, names(r, 30)]


def sample_lines(r):
    return r.choice([td3, td3, td2, td1])(r)


# ---------------------------------------------------------------------------------------------
# Rendering


def noise(r, size, amplitude):
    """A gray image of triangular noise, 128 +- 2 * amplitude, from the seeded generator."""
    count = size[0] * size[1]
    table = bytes(128 - amplitude + (v * (2 * amplitude + 1)) // 256 for v in range(256))
    first = Image.frombytes("L", size, r.randbytes(count).translate(table))
    second = Image.frombytes("L", size, r.randbytes(count).translate(table))
    return ImageChops.add(first, second, 1.0, -128)


def render(lines, em, r, degrade=True):
    """An 8-bit grayscale image of the lines in OCR-B at `em` pixels to the em."""
    font = ImageFont.truetype(FONT, em)
    pitch = font.getbbox("M")[2]  # OCR-B is monospaced
    leading = int(em * 1.6)
    margin = em
    width = pitch * max(len(line) for line in lines) + 2 * margin
    height = leading * len(lines) + 2 * margin
    paper, ink = (r.randint(170, 235), r.randint(30, 90)) if degrade else (255, 0)
    image = Image.new("L", (width, height), paper)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((margin, margin + i * leading), line, font=font, fill=ink)
    if degrade:
        image = image.rotate(r.uniform(-1.5, 1.5), resample=Image.BICUBIC, fillcolor=paper, expand=False)
        image = image.filter(ImageFilter.GaussianBlur(r.uniform(0.4, 1.2) * em / 28))
        image = ImageChops.add(image, noise(r, image.size, r.randint(3, 9)), 1.0, -128)
    return image


# ---------------------------------------------------------------------------------------------
# libtesseract through its C API


class Tesseract:
    def __init__(self, datapath, language, oem, variables):
        lib = ctypes.CDLL("libtesseract.so.5")
        lib.TessBaseAPICreate.restype = ctypes.c_void_p
        lib.TessBaseAPIInit4.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_int,
        ]  # fmt: skip
        lib.TessBaseAPISetVariable.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        lib.TessBaseAPISetPageSegMode.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.TessBaseAPISetImage.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
        ]  # fmt: skip
        lib.TessBaseAPISetSourceResolution.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.TessBaseAPIRecognize.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.TessBaseAPIGetUTF8Text.argtypes = [ctypes.c_void_p]
        lib.TessBaseAPIGetUTF8Text.restype = ctypes.c_void_p
        lib.TessDeleteText.argtypes = [ctypes.c_void_p]
        lib.TessBaseAPIMeanTextConf.argtypes = [ctypes.c_void_p]
        lib.TessBaseAPIEnd.argtypes = [ctypes.c_void_p]
        lib.TessBaseAPIDelete.argtypes = [ctypes.c_void_p]
        self.lib = lib
        self.api = lib.TessBaseAPICreate()
        names = list(variables)
        keys = (ctypes.c_char_p * len(names))(*[n.encode() for n in names])
        values = (ctypes.c_char_p * len(names))(*[variables[n].encode() for n in names])
        status = lib.TessBaseAPIInit4(
            self.api, datapath.encode(), language.encode(), oem, None, 0, keys, values, len(names), 0
        )
        if status != 0:
            raise RuntimeError("TessBaseAPIInit4 failed for %s in %s" % (language, datapath))
        lib.TessBaseAPISetVariable(self.api, b"tessedit_char_whitelist", WHITELIST.encode())
        lib.TessBaseAPISetPageSegMode(self.api, 6)  # PSM_SINGLE_BLOCK

    def read(self, image):
        data = image.tobytes()
        self.lib.TessBaseAPISetImage(self.api, data, image.width, image.height, 1, image.width)
        self.lib.TessBaseAPISetSourceResolution(self.api, 300)
        if self.lib.TessBaseAPIRecognize(self.api, None) != 0:
            return []
        pointer = self.lib.TessBaseAPIGetUTF8Text(self.api)
        text = ctypes.string_at(pointer).decode() if pointer else ""
        self.lib.TessDeleteText(pointer)
        return ["".join(line.split()) for line in text.splitlines() if line.strip()]

    def close(self):
        self.lib.TessBaseAPIEnd(self.api)
        self.lib.TessBaseAPIDelete(self.api)


# ---------------------------------------------------------------------------------------------
# Scoring


def distance(a, b):
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def score(truth, read):
    """(character errors, characters, lines exact, lines) for one image."""
    chars = sum(len(line) for line in truth)
    errors = distance("\n".join(truth), "\n".join(read))
    exact = sum(1 for i, line in enumerate(truth) if i < len(read) and read[i] == line)
    if len(read) != len(truth):
        exact = min(exact, sum(1 for line in truth if line in read))
    return errors, chars, exact, len(truth)


ENGINES = {
    # name: (datapath, language, OEM, init-only variables)
    "ocrb-legacy": (os.path.join(TOP, "Resources/ocr"), "ocrb", 0, {"classify_enable_learning": "0"}),
    "eng-lstm": (
        "/usr/share/tesseract-ocr/5/tessdata", "eng", 1, {"load_system_dawg": "0", "load_freq_dawg": "0"},
    ),  # fmt: skip
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="MRZ blocks per size (default 100)")
    parser.add_argument("--sizes", default="22,30,40", help="em sizes in pixels (default 22,30,40)")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated: " + ", ".join(ENGINES))
    parser.add_argument("--model", help="another ocrb.traineddata to measure as ocrb-legacy")
    parser.add_argument("--fixture", help="write a clean TD3 PNG here and its text beside it (.txt)")
    parser.add_argument("--show-errors", action="store_true", help="print each misread line")
    parser.add_argument("--look", choices=("rendered", "real"), default="rendered",
                        help="rendered: mild blur and noise (default); real: print and camera looks")
    parser.add_argument("--save", help="write every sample image to this directory")
    args = parser.parse_args()
    if args.model:
        ENGINES["ocrb-legacy"] = (os.path.dirname(os.path.abspath(args.model)), "ocrb", 0, ENGINES["ocrb-legacy"][3])

    if args.fixture:
        lines = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
        render(lines, 28, random.Random(0), degrade=False).save(args.fixture, optimize=True)
        with open(os.path.splitext(args.fixture)[0] + ".txt", "w") as out:
            out.write("\n".join(lines) + "\n")
        print("fixture: %s" % args.fixture)

    sizes = [int(s) for s in args.sizes.split(",")]
    samples = []
    r = random.Random(args.seed)
    if args.look == "real":
        from mrz_real_look import render_real
    for em in sizes:
        for index in range(args.count):
            lines = sample_lines(r)
            if args.look == "real":
                image, description = render_real(lines, em, r)
            else:
                image, description = render(lines, em, r), ""
            if args.save:
                os.makedirs(args.save, exist_ok=True)
                image.save(os.path.join(args.save, "%d-%03d.png" % (em, index)))
            samples.append((em, lines, image, description))

    print("%d MRZ blocks per size, sizes (px per em) %s, seed %d, look %s" % (args.count, args.sizes, args.seed, args.look))
    print("%-12s %5s %10s %10s %10s" % ("engine", "em", "char acc", "line acc", "CPU ms/img"))
    for name in args.engines.split(","):
        datapath, language, oem, variables = ENGINES[name]
        engine = Tesseract(datapath, language, oem, variables)
        totals = [0, 0, 0, 0, 0.0, 0]
        for em in sizes + [None]:
            per = [0, 0, 0, 0, 0.0, 0]
            for sample_em, truth, image, description in samples:
                if em is not None and sample_em != em:
                    continue
                start = time.process_time()
                read = engine.read(image) if em is not None else None
                elapsed = time.process_time() - start
                if em is None:
                    continue
                errors, chars, exact, count = score(truth, read)
                if args.show_errors and exact != count:
                    print("  %s em %d %s: %s -> %s" % (name, em, description, truth, read))
                for i, v in enumerate((errors, chars, exact, count, elapsed, 1)):
                    per[i] += v
            if em is None:
                per = totals
            else:
                totals = [a + b for a, b in zip(totals, per)]
            print(
                "%-12s %5s %9.2f%% %9.2f%% %10.1f"
                % (
                    name, em or "all", 100 * (1 - per[0] / per[1]), 100 * per[2] / per[3],
                    1000 * per[4] / per[5],
                )  # fmt: skip
            )
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
