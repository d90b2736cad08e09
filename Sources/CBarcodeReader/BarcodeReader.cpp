// zxing-cpp 1.4 gives text as UTF-8 with this defined (its own transition switch).
#define ZX_USE_UTF8 1

#include "CBarcodeReader.h"

#include <ZXing/BitMatrix.h>
#include <ZXing/MultiFormatWriter.h>
#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

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

/// zxing-cpp 1.4 finds a PDF417 symbol only while its rows are nearly level (a couple of degrees, less for short
/// rows); a card held by hand is often turned more. When nothing is found, the frame's luminance is turned by
/// these angles (degrees) and searched for PDF417 again.
const double pdf417RetryAngles[GBG_BARCODE_TURNS] = {-2, 2, -4, 4, -6, 6, -8, 8, -10, 10};

/// `rgb` as luminance turned by `degrees` about its centre (nearest neighbour, uncovered corners white).
std::vector<uint8_t> turnedLuminance(const uint8_t *rgb, int width, int height, int stride, double degrees) {
    std::vector<uint8_t> turned(size_t(width) * size_t(height), 255);
    const double radians = degrees * M_PI / 180, cosine = std::cos(radians), sine = std::sin(radians);
    const double centreX = width / 2.0, centreY = height / 2.0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const double dx = x - centreX, dy = y - centreY;
            const int sourceX = int(std::floor(cosine * dx - sine * dy + centreX));
            const int sourceY = int(std::floor(sine * dx + cosine * dy + centreY));
            if (sourceX < 0 || sourceY < 0 || sourceX >= width || sourceY >= height) continue;
            const uint8_t *pixel = rgb + size_t(sourceY) * size_t(stride) + size_t(sourceX) * 3;
            turned[size_t(y) * size_t(width) + size_t(x)] = uint8_t((pixel[0] * 77 + pixel[1] * 150 + pixel[2] * 29) >> 8);
        }
    }
    return turned;
}

ZXing::DecodeHints hintsFor(ZXing::BarcodeFormats formats) {
    ZXing::DecodeHints hints;
    hints.setFormats(formats);
    hints.setTryHarder(true);
    hints.setTryRotate(true);
    hints.setBinarizer(ZXing::Binarizer::LocalAverage);
    return hints;
}

}  // namespace

extern "C" int gbg_barcode_read(
    const uint8_t *rgb, int width, int height, int stride, int formats, int turn, char *text, size_t text_capacity,
    gbg_barcode *found) {
    if (!rgb || !found || (!text && text_capacity > 0) || width <= 0 || height <= 0 || stride < width * 3)
        return -1;
    if (!(formats & (GBG_BARCODE_PDF417 | GBG_BARCODE_QR_CODE))) return -1;
    try {
        ZXing::ImageView image(rgb, width, height, ZXing::ImageFormat::RGB, stride);
        ZXing::Result result = ZXing::ReadBarcode(image, hintsFor(zxingFormats(formats)));
        // Where the symbol was found on a turned picture, its corners are turned back into the frame's.
        double turnedBy = 0;
        if (!result.isValid() && (formats & GBG_BARCODE_PDF417)) {
            const int first = turn < 0 ? 0 : turn % GBG_BARCODE_TURNS;
            const int count = turn < 0 ? GBG_BARCODE_TURNS : 1;
            for (int index = first; index < first + count; ++index) {
                const double degrees = pdf417RetryAngles[index];
                std::vector<uint8_t> turned = turnedLuminance(rgb, width, height, stride, degrees);
                ZXing::ImageView view(turned.data(), width, height, ZXing::ImageFormat::Lum);
                result = ZXing::ReadBarcode(view, hintsFor(ZXing::BarcodeFormat::PDF417));
                if (result.isValid()) {
                    turnedBy = degrees;
                    break;
                }
            }
        }
        if (!result.isValid()) return 0;
        int format = ownFormat(result.format());
        if (format == 0) return 0;
        std::string utf8 = result.text();
        found->format = format;
        found->text_length = utf8.size();
        const ZXing::Position &position = result.position();
        const double radians = turnedBy * M_PI / 180, cosine = std::cos(radians), sine = std::sin(radians);
        for (int corner = 0; corner < 4; ++corner) {
            const double dx = position[corner].x - width / 2.0, dy = position[corner].y - height / 2.0;
            found->corner_x[corner] = int(std::lround(cosine * dx - sine * dy + width / 2.0));
            found->corner_y[corner] = int(std::lround(sine * dx + cosine * dy + height / 2.0));
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
