// PDF417 and QR codes found in RGB camera frames with zxing-cpp (Debian's libzxing). A plain C interface over a
// C++ file, so Swift needs no C++ interop.
#ifndef GBG_BARCODE_READER_H
#define GBG_BARCODE_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The symbologies this interface reads and writes (a bit set).
enum {
    GBG_BARCODE_PDF417 = 1,
    GBG_BARCODE_QR_CODE = 2,
};

/// One symbol found in a frame.
typedef struct {
    /// GBG_BARCODE_PDF417 or GBG_BARCODE_QR_CODE.
    int format;
    /// The symbol's corners in the frame's pixels: top-left, top-right, bottom-right, bottom-left (as read).
    int corner_x[4], corner_y[4];
    /// The text's length in bytes (UTF-8) as decoded; may exceed the capacity given (the text is then cut).
    size_t text_length;
} gbg_barcode;

/// How many turned searches for PDF417 follow a level search that found nothing (see `gbg_barcode_read`).
enum { GBG_BARCODE_TURNS = 10 };

/// Looks for one symbol of `formats` in an RGB frame (3 bytes a pixel, `stride` bytes a row). When the level search
/// finds nothing and PDF417 is wanted, the frame is searched again turned: by every one of the GBG_BARCODE_TURNS
/// angles when `turn` is negative (a still), by the angle `turn % GBG_BARCODE_TURNS` only otherwise (a stream passes
/// a counter, so each frame costs at most two searches and consecutive frames cover every angle). On success writes
/// the symbol into `found`, its text (UTF-8, at most `text_capacity` bytes, not terminated) into `text`, and
/// returns 1; returns 0 when none is found, -1 on invalid arguments or an internal error.
int gbg_barcode_read(
    const uint8_t *rgb, int width, int height, int stride, int formats, int turn, char *text, size_t text_capacity,
    gbg_barcode *found);

/// Renders `text` as one symbol of `format` into a grey picture of `width` x `height` (one byte a pixel: 0 black,
/// 255 white) with a quiet zone of `margin` pixels, for tests and benchmarks. Returns 0, or -1 when the text does
/// not fit the symbol or the arguments are invalid.
int gbg_barcode_write(
    int format, const char *text, size_t text_length, int width, int height, int margin, uint8_t *grey);

#ifdef __cplusplus
}
#endif

#endif
