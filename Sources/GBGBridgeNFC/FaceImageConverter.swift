import COpenJPEG
import EMRTD
import FoundationEssentials
import GBGBridgeToolkit
import VideoFrame

/// Makes a chip's face image something a web page can show: JPEG stays as it is; JPEG 2000
/// (which browsers cannot decode) is decoded with OpenJPEG and encoded as JPEG.
///
/// The face comes from an untrusted chip, so its header is read first and a face that declares more than
/// the limits below is refused before any decoder sees it: a few hundred bytes can declare gigapixels.
/// Within the limits, converting one face raises the process's peak resident set by at most about 90 MiB
/// (the costliest accepted faces, measured with scripts/face-memory-bench.sh).
public enum FaceImageConverter {
    /// A face image ready for the page.
    public struct Converted: Sendable {
        public let bytes: Data
        public let mimeType: String
    }

    /// A face image that is refused or could not be decoded.
    public struct ConversionError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    // MARK: Limits

    /// The widest or tallest face accepted. ICAO 9303 / ISO/IEC 19794-5 faces are typically 300 to 1,200
    /// pixels wide; 8,000 leaves more than six times that.
    public static let maximumSide = 8_000
    /// The most pixels a face may have: 24 megapixels, more than 15 times a 1,200 × 1,300 face.
    public static let maximumPixels = 24_000_000
    /// The most components (channels) a face may have: grey, colour, or colour with alpha or CMYK.
    public static let maximumComponents = 4
    /// A JPEG 2000 face with more pixels than this is decoded at a lower resolution (each step halves
    /// both sides), so that the decoded image, held by OpenJPEG as 32 bits a sample, stays within about
    /// 2 megapixels: still more than the page shows. 24 megapixels take two steps, so any face accepted
    /// can be reduced when its codestream has at least two decomposition levels (encoders use five).
    public static let decodedPixelBudget = 2_000_000
    /// The most tiles a JPEG 2000 face may have. OpenJPEG keeps about 4 KB of coding parameters for each
    /// tile and component from the moment it reads the header (so 250,000 tiles of 16 × 16 pixels would
    /// take 3 GB before a pixel is decoded); faces use one tile.
    public static let maximumTiles = 1_024
    /// The most code blocks a JPEG 2000 tile may have over its components and resolutions. OpenJPEG keeps
    /// about 400 bytes of bookkeeping for each code block of the tile it decodes, whatever resolution it
    /// decodes, so tiny code blocks in a small file could otherwise demand gigabytes (2,000 × 2,000 in 4 × 4
    /// blocks: 750,000). A 24-megapixel colour face in the usual 64 × 64 blocks has about 18,000.
    public static let maximumCodeBlocksPerTile = 100_000
    /// The most precincts a JPEG 2000 tile may have over its components, resolutions and sub-bands, for the
    /// same reason (about 150 bytes each). A 24-megapixel colour face in 128 × 128 precincts (halved at each
    /// lower resolution, as OpenJPEG's encoder does) has about 73,000.
    public static let maximumPrecinctsPerTile = 100_000
    /// The most bits a JPEG 2000 sample may have.
    public static let maximumPrecision = 16
    /// The largest JPEG 2000 component subsampling factor (4:2:0 is 2).
    public static let maximumSubsampling = 4

    // MARK: Conversion

    /// `face` as JPEG (or as it is, when it already is one within the limits).
    public static func browserReady(_ face: FaceImage) throws(ConversionError) -> Converted {
        let header = try acceptedHeader(of: face.bytes, format: face.format)
        switch face.format {
        case .jpeg:
            return Converted(bytes: Data(face.bytes), mimeType: "image/jpeg")
        case .jpeg2000:
            let frame = try decodeJPEG2000(face.bytes, header: header)
            do {
                return Converted(bytes: try ImageEncoder.encode(frame, as: .jpeg(quality: 92)), mimeType: "image/jpeg")
            } catch {
                throw ConversionError(description: "cannot encode the face as JPEG: \(error)")
            }
        }
    }

    /// The header of a face image, when it is within the size, pixel and component limits.
    static func acceptedHeader(of bytes: [UInt8], format: FaceImage.Format) throws(ConversionError) -> ImageHeader {
        let header: ImageHeader
        do {
            header = try ImageHeader(parsing: bytes, format: format)
        } catch {
            throw ConversionError(description: "the face image has no usable header: \(error)")
        }
        let name = format == .jpeg ? "JPEG" : "JPEG 2000"
        guard header.width <= maximumSide, header.height <= maximumSide, header.pixelCount <= maximumPixels else {
            throw ConversionError(
                description: "the \(name) face declares \(header.width) × \(header.height) pixels, more than the "
                    + "\(maximumSide) a side and \(maximumPixels / 1_000_000) megapixels a face may have")
        }
        guard header.components <= maximumComponents else {
            throw ConversionError(
                description: "the \(name) face declares \(header.components) components, more than the "
                    + "\(maximumComponents) a face may have")
        }
        return header
    }

    /// How many times to halve both sides of an image of `header`'s size to bring it within ``decodedPixelBudget``.
    static func reductionSteps(for header: ImageHeader) -> Int {
        var steps = 0
        while reducedPixelCount(header, steps: steps) > decodedPixelBudget { steps += 1 }
        return steps
    }

    private static func reducedPixelCount(_ header: ImageHeader, steps: Int) -> Int {
        reducedSide(header.width, steps: steps) * reducedSide(header.height, steps: steps)
    }

    private static func reducedSide(_ side: Int, steps: Int) -> Int {
        (side + (1 << steps) - 1) >> steps
    }

    /// Checks a JPEG 2000 face's coding structure against the limits above, so that nothing OpenJPEG sets up
    /// depends on what the file declares rather than on what it holds.
    static func checkLayout(of bytes: [UInt8], reductionSteps: Int) throws(ConversionError) {
        let layout: JPEG2000Layout
        do {
            layout = try JPEG2000Layout(parsing: bytes)
        } catch {
            throw ConversionError(description: "the JPEG 2000 face's codestream is unusable: \(error)")
        }
        guard layout.tileCount <= maximumTiles else {
            throw ConversionError(
                description: "the JPEG 2000 face has \(layout.tileCount) tiles, more than the \(maximumTiles) allowed")
        }
        guard layout.codeBlocksPerTile <= maximumCodeBlocksPerTile, layout.precinctsPerTile <= maximumPrecinctsPerTile
        else {
            throw ConversionError(
                description: "the JPEG 2000 face has up to \(layout.codeBlocksPerTile) code blocks and "
                    + "\(layout.precinctsPerTile) precincts in a tile, more than the \(maximumCodeBlocksPerTile) and "
                    + "\(maximumPrecinctsPerTile) allowed")
        }
        guard layout.paletteChannels <= maximumComponents else {
            throw ConversionError(
                description: "the JPEG 2000 face's palette has \(layout.paletteChannels) channels, more than the "
                    + "\(maximumComponents) allowed")
        }
        guard reductionSteps <= layout.fewestDecompositionLevels else {
            throw ConversionError(
                description: "the JPEG 2000 face is too large to decode at full size and has too few resolution "
                    + "levels (\(layout.fewestDecompositionLevels)) to decode it smaller")
        }
    }

    /// Decodes a JP2 file or a bare J2K codestream to 8-bit RGB, at most ``decodedPixelBudget`` pixels.
    static func decodeJPEG2000(_ bytes: [UInt8]) throws(ConversionError) -> RGBFrame {
        try decodeJPEG2000(bytes, header: acceptedHeader(of: bytes, format: .jpeg2000))
    }

    private static func decodeJPEG2000(_ bytes: [UInt8], header: ImageHeader) throws(ConversionError) -> RGBFrame {
        let steps = reductionSteps(for: header)
        try checkLayout(of: bytes, reductionSteps: steps)
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
            parameters.cp_reduce = OPJ_UINT32(steps)
            var image: UnsafeMutablePointer<opj_image_t>?
            guard opj_setup_decoder(decoder, &parameters) != 0, opj_read_header(stream, decoder, &image) != 0,
                let image
            else { return .failure(ConversionError(description: "the JPEG 2000 header is unreadable")) }
            defer { opj_image_destroy(image) }
            if let mismatch = disagreement(of: image.pointee, with: header) { return .failure(mismatch) }
            guard opj_decode(decoder, stream, image) != 0, opj_end_decompress(decoder, stream) != 0 else {
                return .failure(ConversionError(description: "the JPEG 2000 image does not decode"))
            }
            return rgb(from: image.pointee, header: header, reductionSteps: steps)
        }
        return try decoded.get()
    }

    /// Why the image OpenJPEG read from the header is not the one `header` describes, or is outside the
    /// precision and subsampling limits; nil when all is well.
    static func disagreement(of image: opj_image_t, with header: ImageHeader) -> ConversionError? {
        let width = Int(image.x1) - Int(image.x0)
        let height = Int(image.y1) - Int(image.y0)
        guard width == header.width, height == header.height, Int(image.numcomps) == header.components,
            let components = image.comps
        else {
            return ConversionError(
                description: "OpenJPEG reads the JPEG 2000 face as \(width) × \(height) with \(image.numcomps) "
                    + "components, not the \(header.width) × \(header.height) with \(header.components) its header declares"
            )
        }
        for index in 0..<Int(image.numcomps) {
            let component = components[index]
            guard (1...maximumPrecision).contains(Int(component.prec)) else {
                return ConversionError(
                    description: "the JPEG 2000 face's component \(index) has \(component.prec)-bit samples, "
                        + "outside 1 to \(maximumPrecision)")
            }
            guard (1...maximumSubsampling).contains(Int(component.dx)),
                (1...maximumSubsampling).contains(Int(component.dy))
            else {
                return ConversionError(
                    description: "the JPEG 2000 face's component \(index) is subsampled \(component.dx) × "
                        + "\(component.dy), more than \(maximumSubsampling)")
            }
        }
        return nil
    }

    /// Grey (1 or 2 components) or colour (3+ components, sRGB or YCC) to 8-bit RGB, at the first component's
    /// size, which must be `header`'s reduced `reductionSteps` times (give or take the rounding of an offset grid).
    private static func rgb(
        from image: opj_image_t, header: ImageHeader, reductionSteps steps: Int
    ) -> Result<RGBFrame, ConversionError> {
        let count = Int(image.numcomps)
        guard count >= 1, let components = image.comps else {
            return .failure(ConversionError(description: "the JPEG 2000 image has no components"))
        }
        let width = Int(components[0].w)
        let height = Int(components[0].h)
        guard width > 0, height > 0, width <= reducedSide(header.width, steps: steps) + 1,
            height <= reducedSide(header.height, steps: steps) + 1
        else {
            return .failure(ConversionError(description: "the JPEG 2000 image decodes to an unexpected size"))
        }
        let channels = count >= 3 ? 3 : 1
        for index in 0..<channels {
            let component = components[index]
            guard component.data != nil, component.w > 0, component.h > 0 else {
                return .failure(ConversionError(description: "the JPEG 2000 image has an empty component"))
            }
        }
        let planes = (0..<channels).map { plane(components[$0], width: width, height: height) }
        let pixels = width * height
        let isYCC = channels == 3 && image.color_space == OPJ_CLRSPC_SYCC
        let output = [UInt8](unsafeUninitializedCapacity: pixels * 3) { triples, initialized in
            for pixel in 0..<pixels {
                if channels == 1 {
                    let grey = planes[0][pixel]
                    (triples[pixel * 3], triples[pixel * 3 + 1], triples[pixel * 3 + 2]) = (grey, grey, grey)
                } else if isYCC {
                    let luma = Double(planes[0][pixel])
                    let cb = Double(planes[1][pixel]) - 128
                    let cr = Double(planes[2][pixel]) - 128
                    triples[pixel * 3] = UInt8(clamping: Int((luma + 1.402 * cr).rounded()))
                    triples[pixel * 3 + 1] = UInt8(clamping: Int((luma - 0.344136 * cb - 0.714136 * cr).rounded()))
                    triples[pixel * 3 + 2] = UInt8(clamping: Int((luma + 1.772 * cb).rounded()))
                } else {
                    (triples[pixel * 3], triples[pixel * 3 + 1], triples[pixel * 3 + 2]) = (
                        planes[0][pixel], planes[1][pixel], planes[2][pixel]
                    )
                }
            }
            initialized = pixels * 3
        }
        return .success(
            RGBFrame(
                width: width, height: height, bytesPerLine: width * 3, bytes: output, sequence: 0,
                timestampNanoseconds: 0))
    }

    /// One component scaled (nearest sample) to `width` × `height` and to 8 unsigned bits.
    private static func plane(_ component: opj_image_comp_t, width: Int, height: Int) -> [UInt8] {
        let sourceWidth = Int(component.w)
        let sourceHeight = Int(component.h)
        let precision = Int(component.prec)
        let offset = component.sgnd != 0 ? 1 << (precision - 1) : 0
        let columns = (0..<width).map { min(sourceWidth - 1, $0 * sourceWidth / width) }
        let samples = UnsafeBufferPointer(start: component.data, count: sourceWidth * sourceHeight)
        return [UInt8](unsafeUninitializedCapacity: width * height) { values, initialized in
            for y in 0..<height {
                let row = min(sourceHeight - 1, y * sourceHeight / height) * sourceWidth
                for x in 0..<width {
                    let value = Int(samples[row + columns[x]]) + offset
                    values[y * width + x] = UInt8(
                        clamping: precision >= 8 ? value >> (precision - 8) : value << (8 - precision))
                }
            }
            initialized = width * height
        }
    }
}
