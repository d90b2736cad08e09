"""Reads a benchmark set's images with PassportEye, a peer for GBG Bridge's MRZ reader.

  peer_passporteye.py SET --out RESULTS.json [--every 3] [--jobs 2]

Run it with the Python of a virtual environment that has PassportEye (scripts/mrz-bench.sh makes
one); PassportEye runs Debian's `tesseract` with its stock English model (tesseract-ocr-eng).
Reads the images the subset rule picks (see subset()), each in a worker process, and writes one
JSON object: file name to {"key": [number, birth, expiry] or null, "seconds": float}. A key is
"given" only when PassportEye's own check digits of the document number, birth date and expiry
date all hold (what a caller of PassportEye would trust); the number is the field with its filler
removed. The shell's results and these are set side by side by compare_peer.py.
"""

import argparse
import json
import multiprocessing
import os
import sys
import time
import warnings


def subset(manifest, every):
    """The images the peer reads: the first of each split and every `every`-th after it (a fixed
    subset, the same in every run of a given set)."""
    chosen, seen = [], {}
    for entry in manifest:
        split = entry["split"]
        seen[split] = seen.get(split, 0) + 1
        if (seen[split] - 1) % every == 0:
            chosen.append(entry)
    return chosen


def read_one(path):
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    warnings.filterwarnings("ignore")  # scikit-image's deprecation notes about PassportEye's calls
    from passporteye import read_mrz  # imported in the worker: it loads scikit-image

    started = time.monotonic()
    try:
        mrz = read_mrz(path)
    except Exception as error:  # a peer's crash is a miss, not the benchmark's failure
        return path, None, time.monotonic() - started, repr(error)
    took = time.monotonic() - started
    if mrz is None:
        return path, None, took, None
    if not (mrz.valid_number and mrz.valid_date_of_birth and mrz.valid_expiration_date):
        return path, None, took, None
    return path, [mrz.number.rstrip("<"), mrz.date_of_birth, mrz.expiration_date], took, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("set")
    parser.add_argument("--out", required=True)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with open(os.path.join(args.set, "manifest.json")) as f:
        manifest = json.load(f)
    chosen = subset(manifest, max(1, args.every))
    paths = [os.path.join(args.set, entry["file"]) for entry in chosen]
    started = time.monotonic()
    results = {}
    with multiprocessing.get_context("spawn").Pool(max(1, args.jobs)) as pool:
        for path, key, took, error in pool.imap_unordered(read_one, paths):
            name = os.path.relpath(path, args.set)
            results[name] = {"key": key, "seconds": round(took, 3)}
            if error:
                results[name]["error"] = error
    with open(args.out, "w") as f:
        json.dump(results, f, indent=0, sort_keys=True)
    print("peer_passporteye: %d images in %.0f s" % (len(paths), time.monotonic() - started), file=sys.stderr)


if __name__ == "__main__":
    main()
