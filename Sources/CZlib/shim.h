#ifndef GBGBRIDGE_CZLIB_SHIM_H
#define GBGBRIDGE_CZLIB_SHIM_H
// zlib's checksums (and, for the tests, its inflater) for the PNG encoder.
#include <zlib.h>

// inflateInit2 is a macro; a function Swift can call.
static inline int czlib_inflate_init(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}
#endif
