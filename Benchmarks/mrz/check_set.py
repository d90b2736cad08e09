#!/usr/bin/python3
"""Checks an MRZ benchmark set made by make-mrz-set.py: every zone's shape and check digits
(recomputed here, independently of the generator), real dates, the images' presence and size, and
the set's composition (count, formats, good/hard, JPEG/PNG).

  check_set.py DIR [--min-count 500] [--min-real 0]

The good and hard images are 1920 x 1080 in the shares below; the real-looking ones (split
"real") may be turned by 90 degrees (1080 x 1920) and are not counted in the shares.

Exits 0 when all holds, 1 (listing what failed) otherwise.
"""

import argparse
import datetime
import json
import os
import sys

from PIL import Image

SHAPES = {"TD3": (2, 44), "TD2": (2, 36), "TD1": (3, 30)}
ALPHABET = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<")
# Wanted shares and how far the set may be from them.
FORMAT_SHARES = {"TD3": 0.40, "TD1": 0.35, "TD2": 0.25}
SPLIT_SHARES = {"good": 0.55, "hard": 0.45}
JPEG_SHARE = 0.80
TOLERANCE = 0.05


def digit(text):
    values = {c: i for i, c in enumerate("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
    values["<"] = 0
    return str(sum(values[c] * (7, 3, 1)[i % 3] for i, c in enumerate(text)) % 10)


def is_date(text):
    try:
        datetime.date(2000 + int(text[0:2]), int(text[2:4]), int(text[4:6]))
        return True
    except ValueError:
        # 29 February of a year 19xx that is a leap year in 20xx and the other way round
        try:
            datetime.date(1900 + int(text[0:2]), int(text[2:4]), int(text[4:6]))
            return True
        except ValueError:
            return False


def check_zone(fmt, lines):
    """The problems of one zone (an empty list when it is valid)."""
    if fmt not in SHAPES:
        return ["unknown format %r" % fmt]
    count, length = SHAPES[fmt]
    if len(lines) != count or any(len(line) != length for line in lines):
        return ["%s needs %d lines of %d characters" % (fmt, count, length)]
    if any(set(line) - ALPHABET for line in lines):
        return ["characters outside A-Z 0-9 <"]
    problems = []

    def expect(name, field, check, allow_filler=False):
        if allow_filler and check == "<" and set(field) == {"<"}:
            return
        if digit(field) != check:
            problems.append("%s check digit %s, computed %s" % (name, check, digit(field)))

    if fmt == "TD1":
        a, b, _ = lines
        expect("document number", a[5:14], a[14])
        expect("birth", b[0:6], b[6])
        expect("expiry", b[8:14], b[14])
        expect("composite", a[5:30] + b[0:7] + b[8:15] + b[18:29], b[29])
        dates, sex = (b[0:6], b[8:14]), b[7]
    else:
        b = lines[1]
        expect("document number", b[0:9], b[9])
        expect("birth", b[13:19], b[19])
        expect("expiry", b[21:27], b[27])
        if fmt == "TD3":
            expect("personal number", b[28:42], b[42], allow_filler=True)
            expect("composite", b[0:10] + b[13:20] + b[21:43], b[43])
        else:
            expect("composite", b[0:10] + b[13:20] + b[21:35], b[35])
        dates, sex = (b[13:19], b[21:27]), b[20]
    for d in dates:
        if not is_date(d):
            problems.append("not a date: %s" % d)
    if sex not in "MF<":
        problems.append("sex %r" % sex)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("set", help="the folder with manifest.json and images/")
    parser.add_argument("--min-count", type=int, default=500)
    parser.add_argument("--min-real", type=int, default=0)
    args = parser.parse_args()
    with open(os.path.join(args.set, "manifest.json")) as f:
        everything = json.load(f)
    manifest = [e for e in everything if e.get("split") != "real"]
    real = [e for e in everything if e.get("split") == "real"]
    failures = []
    if len(real) < args.min_real:
        failures.append("%d real-looking images, fewer than %d" % (len(real), args.min_real))
    for entry in real:
        name = entry.get("file", "?")
        for problem in check_zone(entry.get("format"), entry.get("lines", [])):
            failures.append("%s: %s" % (name, problem))
        path = os.path.join(args.set, name)
        if not os.path.isfile(path):
            failures.append("%s: missing" % name)
            continue
        with Image.open(path) as image:
            if image.size != (entry.get("width"), entry.get("height")) or sorted(image.size) != [1080, 1920]:
                failures.append("%s: %dx%d" % (name, *image.size))
    for entry in manifest:
        name = entry.get("file", "?")
        for problem in check_zone(entry.get("format"), entry.get("lines", [])):
            failures.append("%s: %s" % (name, problem))
        path = os.path.join(args.set, name)
        if not os.path.isfile(path):
            failures.append("%s: missing" % name)
            continue
        with Image.open(path) as image:
            if image.size != (entry.get("width"), entry.get("height")) or image.size != (1920, 1080):
                says = (entry.get("width"), entry.get("height"))
                failures.append("%s: %dx%d, manifest says %sx%s" % (name, *image.size, *says))
        if entry.get("split") not in SPLIT_SHARES:
            failures.append("%s: split %r" % (name, entry.get("split")))
    n = len(manifest)
    if n < args.min_count:
        failures.append("%d images, fewer than %d" % (n, args.min_count))
    if len({e.get("file") for e in manifest}) != n:
        failures.append("file names repeat")
    if n:
        def share(key, value):
            return sum(1 for e in manifest if e.get(key) == value) / n

        for fmt, wanted in FORMAT_SHARES.items():
            if abs(share("format", fmt) - wanted) > TOLERANCE:
                got = 100 * share("format", fmt)
                failures.append("%s is %.1f %% of the set, wanted %.0f %%" % (fmt, got, 100 * wanted))
        for split, wanted in SPLIT_SHARES.items():
            if abs(share("split", split) - wanted) > TOLERANCE:
                got = 100 * share("split", split)
                failures.append("%s is %.1f %% of the set, wanted %.0f %%" % (split, got, 100 * wanted))
        jpeg = sum(1 for e in manifest if e.get("file", "").endswith(".jpg")) / n
        if abs(jpeg - JPEG_SHARE) > TOLERANCE:
            failures.append("JPEG is %.1f %% of the set, wanted %.0f %%" % (100 * jpeg, 100 * JPEG_SHARE))
    for failure in failures[:50]:
        print("check_set: " + failure, file=sys.stderr)
    if failures:
        print("check_set: %d problems in %s" % (len(failures), args.set), file=sys.stderr)
        sys.exit(1)
    formats = ", ".join("%s %d" % (f, sum(1 for e in manifest if e["format"] == f)) for f in FORMAT_SHARES)
    splits = ", ".join("%s %d" % (s, sum(1 for e in manifest if e["split"] == s)) for s in SPLIT_SHARES)
    print("check_set: %d images, every check digit right (%s; %s; real %d)" % (n + len(real), formats, splits,
                                                                            len(real)))


if __name__ == "__main__":
    main()
