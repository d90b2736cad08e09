#!/usr/bin/python3
"""Sets GBG Bridge's access keys beside a peer's, on the images the peer read.

  compare_peer.py SET --ours OURS.json --peer PEER.json [--name PassportEye]

OURS.json comes from `gbgbridge-mrz-bench --results`, PEER.json from peer_passporteye.py: both map
an image's file name to {"key": [number, birth, expiry] or null}. The printed key comes from the
set's manifest. Prints a Markdown table per split: right, wrong, not given, for both readers.
"""

import argparse
import json
import os


def printed_key(entry):
    lines = entry["lines"]
    if entry["format"] == "TD1":
        number, birth, expiry = lines[0][5:14], lines[1][0:6], lines[1][8:14]
    else:
        number, birth, expiry = lines[1][0:9], lines[1][13:19], lines[1][21:27]
    return [number.rstrip("<"), birth, expiry]


def score(results, entries):
    right = wrong = missing = 0
    for entry in entries:
        key = (results.get(entry["file"]) or {}).get("key")
        if key is None:
            missing += 1
        elif key == printed_key(entry):
            right += 1
        else:
            wrong += 1
    return right, wrong, missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("set")
    parser.add_argument("--ours", required=True)
    parser.add_argument("--peer", required=True)
    parser.add_argument("--name", default="PassportEye")
    args = parser.parse_args()
    with open(os.path.join(args.set, "manifest.json")) as f:
        manifest = json.load(f)
    with open(args.ours) as f:
        ours = json.load(f)
    with open(args.peer) as f:
        peer = json.load(f)
    read = [entry for entry in manifest if entry["file"] in peer]
    seconds = sorted(value.get("seconds", 0) for value in peer.values())
    print("Access key beside %s, on the %d images it read (median %.1f s an image):" % (
        args.name, len(read), seconds[len(seconds) // 2] if seconds else 0))
    print("| split | images | GBG Bridge right | wrong | not given | %s right | wrong | not given |" % args.name)
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    splits = [s for s in ("good", "hard", "real") if any(e["split"] == s for e in read)]
    for split in splits + ["all"]:
        entries = [e for e in read if split == "all" or e["split"] == split]
        a, b = score(ours, entries), score(peer, entries)
        n = len(entries)
        print("| %s | %d | %d (%.1f %%) | %d | %d | %d (%.1f %%) | %d | %d |" % (
            split, n, a[0], 100.0 * a[0] / n, a[1], a[2], b[0], 100.0 * b[0] / n, b[1], b[2]))


if __name__ == "__main__":
    main()
