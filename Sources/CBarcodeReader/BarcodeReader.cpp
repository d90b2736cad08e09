// zxing-cpp 1.4 gives text as UTF-8 with this defined (its own transition switch).
#define ZX_USE_UTF8 1

#include "CBarcodeReader.h"

#include <ZXing/BitMatrix.h>
#include <ZXing/MultiFormatWriter.h>
#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

namespace {

ZXing::BarcodeFormats zxingFormats(int formats) {
    ZXing::BarcodeFormats chosen;
    if (formats & GBG_BARCODE_PDF417) chosen |= ZXing::BarcodeFormat::PDF417;
    if (formats & GBG_BARCODE_QR_CODE) chosen |= ZXing::BarcodeFormat::QRCode;
    return chosen;
}

int ownFormat(ZXing::BarcodeFormat format) {
    switch (format) {
    case ZXing::BarcodeFormat::PDF417: return GBG_BARCODE_PDF417;
    case ZXing::BarcodeFormat::QRCode: return GBG_BARCODE_QR_CODE;
    default: return 0;
    }
}

}  // namespace

extern "C" int gbg_barcode_read(
    const uint8_t *rgb, int width, int height, int stride, int formats, char *text, size_t text_capacity,
    gbg_barcode *found) {
    if (!rgb || !found || (!text && text_capacity > 0) || width <= 0 || height <= 0 || stride < width * 3)
        return -1;
    if (!(formats & (GBG_BARCODE_PDF417 | GBG_BARCODE_QR_CODE))) return -1;
    try {
        ZXing::ImageView image(rgb, width, height, ZXing::ImageFormat::RGB, stride);
        ZXing::DecodeHints hints;
        hints.setFormats(zxingFormats(formats));
        hints.setTryHarder(true);
        hints.setTryRotate(true);
        hints.setBinarizer(ZXing::Binarizer::LocalAverage);
        ZXing::Result result = ZXing::ReadBarcode(image, hints);
        if (!result.isValid()) return 0;
        int format = ownFormat(result.format());
        if (format == 0) return 0;
        std::string utf8 = result.text();
        found->format = format;
        found->text_length = utf8.size();
        const ZXing::Position &position = result.position();
        for (int corner = 0; corner < 4; ++corner) {
            found->corner_x[corner] = position[corner].x;
            found->corner_y[corner] = position[corner].y;
        }
        if (text_capacity > 0) std::memcpy(text, utf8.data(), std::min(utf8.size(), text_capacity));
        return 1;
    } catch (const std::exception &) {
        return -1;
    } catch (...) {
        return -1;
    }
}

extern "C" int gbg_barcode_write(
    int format, const char *text, size_t text_length, int width, int height, int margin, uint8_t *grey) {
    if (!text || !grey || width <= 0 || height <= 0 || margin < 0) return -1;
    ZXing::BarcodeFormat chosen;
    if (format == GBG_BARCODE_PDF417) chosen = ZXing::BarcodeFormat::PDF417;
    else if (format == GBG_BARCODE_QR_CODE) chosen = ZXing::BarcodeFormat::QRCode;
    else return -1;
    try {
        ZXing::MultiFormatWriter writer(chosen);
        writer.setMargin(margin).setEncoding(ZXing::CharacterSet::UTF8);
        ZXing::BitMatrix matrix = writer.encode(std::string(text, text_length), width, height);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                grey[size_t(y) * size_t(width) + size_t(x)] =
                    (x < matrix.width() && y < matrix.height() && matrix.get(x, y)) ? 0 : 255;
        return 0;
    } catch (...) {
        return -1;
    }
}
