#!/usr/bin/env bash
# Peak memory of converting one chip face for the web page (FaceImageConverter.browserReady), each in a
# fresh process: a normal face, large faces decoded reduced, the largest and costliest faces accepted,
# and the bombs that are refused. Prints the process's peak resident set (VmHWM) for each.
# Usage: scripts/face-memory-bench.sh   (needs /usr/bin/python3 with Pillow: apt-get install python3-pil)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-face-bench
mkdir -p "$scratch/images"
images=$(cd "$scratch/images" && pwd)

export PATH="$PATH:/opt/swift/usr/bin"
swift build -c release --product gbgbridge-face-bench >&2
bench="$(swift build -c release --show-bin-path)/gbgbridge-face-bench"

# The faces: photo-like content (gradients, an ellipse, noise), encoded as encoders do for faces, plus
# hand-made bombs.
/usr/bin/python3 - "$images" <<'EOF'
import os, struct, sys
from PIL import Image, ImageChops, ImageDraw

out = sys.argv[1]

def face(width, height, mode="RGB"):
    y = Image.linear_gradient("L").resize((width, height))
    x = Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90).resize((width, height))
    noise = Image.effect_noise((width, height), 24).point(lambda v: v // 4)
    planes = [ImageChops.add(x, noise), ImageChops.add(y, noise), Image.new("L", (width, height), 128)]
    image = Image.merge("RGB", planes)
    ImageDraw.Draw(image).ellipse([width // 5, height // 8, width * 4 // 5, height * 7 // 8], fill=(210, 170, 140))
    return image.convert(mode)

def save(name, image, **options):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        image.save(path, "JPEG2000", irreversible=True, quality_mode="rates", quality_layers=[20], **options)

save("normal-480x640.jp2", face(480, 640))
save("large-4000x5000.jp2", face(4000, 5000))
save("largest-8000x3000.jp2", face(8000, 3000))
save("largest-rgba-4898x4898.jp2", face(4898, 4898, "RGBA"))
save("costliest-2800x2800-32px-blocks-64px-precincts.jp2", face(2800, 2800),
     codeblock_size=(32, 32), precinct_size=(64, 64))
save("precincts-5656x4243-128px-precincts.jp2", face(5656, 4243), precinct_size=(128, 128))
save("most-tiles-8000x3000-1024-tiles.jp2", face(8000, 3000), tile_size=(250, 94))
save("too-costly-8000x3000-32px-blocks-64px-precincts.jp2", face(8000, 3000),
     codeblock_size=(32, 32), precinct_size=(64, 64))

def be16(v): return struct.pack(">H", v)
def be32(v): return struct.pack(">I", v)
def box(kind, content): return be32(len(content) + 8) + kind + content

def codestream(width, height, levels=5, block=6):
    siz = be16(0) + be32(width) + be32(height) + be32(0) * 2 + be32(width) + be32(height) + be32(0) * 2 + be16(3)
    siz += b"\x07\x01\x01" * 3
    cod = bytes([0, 0]) + be16(1) + bytes([1, levels, block - 2, block - 2, 0, 0])
    qcd = bytes([0x40]) + bytes([0x48] * (3 * levels + 1))
    return (b"\xff\x4f\xff\x51" + be16(len(siz) + 2) + siz + b"\xff\x52" + be16(len(cod) + 2) + cod
            + b"\xff\x5c" + be16(len(qcd) + 2) + qcd
            + b"\xff\x90" + be16(10) + be16(0) + be32(22) + b"\x00\x01\xff\x93" + b"\x00" * 8 + b"\xff\xd9")

def jp2(width, height, stream):
    ihdr = box(b"ihdr", be32(height) + be32(width) + be16(3) + bytes([7, 7, 0, 0]))
    return (box(b"jP  ", b"\r\n\x87\n") + box(b"ftyp", b"jp2 " + be32(0) + b"jp2 ")
            + box(b"jp2h", ihdr + box(b"colr", bytes([1, 0, 0]) + be32(16))) + box(b"jp2c", stream))

open(os.path.join(out, "bomb-46000x46000.jp2"), "wb").write(jp2(46000, 46000, codestream(46000, 46000)))
open(os.path.join(out, "bomb-4x4-blocks-2000x2000.j2k"), "wb").write(codestream(2000, 2000, block=2))
frame = b"\xff\xc0" + be16(17) + b"\x08" + be16(65000) + be16(65000) + b"\x03\x01\x11\x00\x02\x11\x00\x03\x11\x00"
open(os.path.join(out, "bomb-65000x65000.jpg"), "wb").write(b"\xff\xd8" + frame + b"\xff\xd9")
EOF

for image in normal-480x640.jp2 large-4000x5000.jp2 largest-8000x3000.jp2 largest-rgba-4898x4898.jp2 \
    costliest-2800x2800-32px-blocks-64px-precincts.jp2 precincts-5656x4243-128px-precincts.jp2 \
    most-tiles-8000x3000-1024-tiles.jp2 too-costly-8000x3000-32px-blocks-64px-precincts.jp2 \
    bomb-46000x46000.jp2 bomb-4x4-blocks-2000x2000.j2k bomb-65000x65000.jpg; do
    printf '%-52s %s\n' "$image" "$("$bench" "$images/$image")"
done
