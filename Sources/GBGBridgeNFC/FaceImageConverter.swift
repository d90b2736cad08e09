import COpenJPEG
import EMRTD
import FoundationEssentials
import GBGBridgeCapture

/// Makes a chip's face image something a web page can show: JPEG stays as it is; JPEG 2000
/// (which browsers cannot decode) is decoded with OpenJPEG and encoded as JPEG.
public enum FaceImageConverter {
    /// A face image ready for the page.
    public struct Converted: Sendable {
        public let bytes: Data
        public let mimeType: String
    }

    /// A JPEG 2000 image that could not be decoded.
    public struct ConversionError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// `face` as JPEG (or as it is, when it already is one).
    public static func browserReady(_ face: FaceImage) throws(ConversionError) -> Converted {
        switch face.format {
        case .jpeg:
            return Converted(bytes: Data(face.bytes), mimeType: "image/jpeg")
        case .jpeg2000:
            let frame = try decodeJPEG2000(face.bytes)
            do {
                return Converted(bytes: try ImageEncoder.encode(frame, as: .jpeg(quality: 92)), mimeType: "image/jpeg")
            } catch {
                throw ConversionError(description: "cannot encode the face as JPEG: \(error)")
            }
        }
    }

    /// Decodes a JP2 file or a bare J2K codestream to 8-bit RGB.
    static func decodeJPEG2000(_ bytes: [UInt8]) throws(ConversionError) -> RGBFrame {
        let codec = bytes.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) ? OPJ_CODEC_J2K : OPJ_CODEC_JP2
        let decoded: Result<RGBFrame, ConversionError> = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let stream = gbg_opj_memory_stream(base, buffer.count) else {
                return .failure(ConversionError(description: "cannot open the JPEG 2000 image"))
            }
            defer { opj_stream_destroy(stream) }
            guard let decoder = opj_create_decompress(codec) else {
                return .failure(ConversionError(description: "cannot create a JPEG 2000 decoder"))
            }
            defer { opj_destroy_codec(decoder) }
            var parameters = opj_dparameters_t()
            opj_set_default_decoder_parameters(&parameters)
            var image: UnsafeMutablePointer<opj_image_t>?
            guard opj_setup_decoder(decoder, &parameters) != 0, opj_read_header(stream, decoder, &image) != 0,
                let image
            else { return .failure(ConversionError(description: "the JPEG 2000 header is unreadable")) }
            defer { opj_image_destroy(image) }
            guard opj_decode(decoder, stream, image) != 0, opj_end_decompress(decoder, stream) != 0 else {
                return .failure(ConversionError(description: "the JPEG 2000 image does not decode"))
            }
            return rgb(from: image.pointee)
        }
        return try decoded.get()
    }

    /// Grey (1 component) or colour (3+ components, sRGB or YCC) to 8-bit RGB.
    private static func rgb(from image: opj_image_t) -> Result<RGBFrame, ConversionError> {
        let count = Int(image.numcomps)
        guard count >= 1, let components = image.comps else {
            return .failure(ConversionError(description: "the JPEG 2000 image has no components"))
        }
        let first = components[0]
        let width = Int(first.w)
        let height = Int(first.h)
        guard width > 0, height > 0, width * height <= 40_000_000 else {
            return .failure(ConversionError(description: "the JPEG 2000 image has an unusable size"))
        }
        let channels = count >= 3 ? 3 : 1
        for index in 0..<channels where components[index].data == nil {
            return .failure(ConversionError(description: "the JPEG 2000 image has an empty component"))
        }
        let isYCC = image.color_space == OPJ_CLRSPC_SYCC
        var output = [UInt8](repeating: 0, count: width * height * 3)
        func sample(_ component: opj_image_comp_t, _ x: Int, _ y: Int) -> Int {
            let sx = min(Int(component.w) - 1, x * Int(component.w) / width)
            let sy = min(Int(component.h) - 1, y * Int(component.h) / height)
            var value = Int(component.data[sy * Int(component.w) + sx])
            if component.sgnd != 0 { value += 1 << (Int(component.prec) - 1) }
            let precision = Int(component.prec)
            if precision > 8 { value >>= precision - 8 } else if precision < 8 { value <<= 8 - precision }
            return value
        }
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                if channels == 1 {
                    let grey = UInt8(clamping: sample(first, x, y))
                    output[offset] = grey
                    output[offset + 1] = grey
                    output[offset + 2] = grey
                    continue
                }
                var red = sample(components[0], x, y)
                var green = sample(components[1], x, y)
                var blue = sample(components[2], x, y)
                if isYCC {
                    let luma = Double(red)
                    let cb = Double(green) - 128
                    let cr = Double(blue) - 128
                    red = Int((luma + 1.402 * cr).rounded())
                    green = Int((luma - 0.344136 * cb - 0.714136 * cr).rounded())
                    blue = Int((luma + 1.772 * cb).rounded())
                }
                output[offset] = UInt8(clamping: red)
                output[offset + 1] = UInt8(clamping: green)
                output[offset + 2] = UInt8(clamping: blue)
            }
        }
        return .success(
            RGBFrame(
                width: width, height: height, bytesPerLine: width * 3, bytes: output, sequence: 0,
                timestampNanoseconds: 0))
    }
}
