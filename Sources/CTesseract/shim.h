#ifndef GBGBRIDGE_CTESSERACT_SHIM_H
#define GBGBRIDGE_CTESSERACT_SHIM_H

/* Tesseract's C API (libtesseract-dev) and the Leptonica image calls it takes and returns
   (libleptonica-dev, pulled in by libtesseract-dev): pixRead and friends decode PNG files. */
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>

#endif
