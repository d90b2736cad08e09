import FoundationEssentials

/// The selfie evidence the host sends as `unencryptedBlob` (and, sealed, as `encryptedBlob`): the chosen
/// frame, the few frames captured just before it, and capture metadata.
///
/// Serialised form (all integers big-endian; see docs/selfie-package.md):
/// `"GBGSELFI"` (8 bytes), format version `UInt16` = 1, header length `UInt32`, the header as UTF-8 JSON
/// with sorted keys, then each frame's bytes in header order with no padding.
public struct SelfiePackage: Sendable, Equatable {
    /// One encoded frame of the package.
    public struct Frame: Sendable, Equatable {
        /// Frame counter from the source (0 for a still image).
        public var sequence: UInt64
        /// Capture time in nanoseconds on the source's monotonic clock.
        public var timestampNanoseconds: UInt64
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// `image/jpeg` for camera frames; a still image keeps its own type.
        public var mimeType: String
        /// The encoded image.
        public var data: Data

        public init(
            sequence: UInt64, timestampNanoseconds: UInt64, width: Int, height: Int, mimeType: String, data: Data
        ) {
            self.sequence = sequence
            self.timestampNanoseconds = timestampNanoseconds
            self.width = width
            self.height = height
            self.mimeType = mimeType
            self.data = data
        }
    }

    /// Why bytes are not a selfie package.
    public struct FormatError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The 8-byte magic at the start of a serialised package.
    public static let magic: [UInt8] = Array("GBGSELFI".utf8)
    /// The format version this code writes and reads.
    public static let formatVersion: UInt16 = 1

    /// Name of the camera (or `still image`) the frames came from.
    public var device: String
    /// Wall-clock time the package was made, in milliseconds since the Unix epoch.
    public var createdAtMilliseconds: Int64
    /// Frames, oldest first.
    public var frames: [Frame]
    /// Index in `frames` of the frame the user chose (the last one for camera captures).
    public var chosenFrameIndex: Int

    public init(device: String, createdAtMilliseconds: Int64, frames: [Frame], chosenFrameIndex: Int) {
        precondition(frames.indices.contains(chosenFrameIndex), "chosen frame out of range")
        self.device = device
        self.createdAtMilliseconds = createdAtMilliseconds
        self.frames = frames
        self.chosenFrameIndex = chosenFrameIndex
    }

    /// The frame the user chose.
    public var chosenFrame: Frame { frames[chosenFrameIndex] }

    private struct Header: Codable {
        struct FrameEntry: Codable {
            var sequence: UInt64
            var timestampNanoseconds: UInt64
            var width: Int
            var height: Int
            var mimeType: String
            var byteCount: Int
        }
        var formatVersion: Int
        var device: String
        var createdAtMilliseconds: Int64
        var chosenFrameIndex: Int
        var width: Int
        var height: Int
        var frames: [FrameEntry]
    }

    /// The package as bytes.
    public func serialized() -> Data {
        let header = Header(
            formatVersion: Int(Self.formatVersion), device: device, createdAtMilliseconds: createdAtMilliseconds,
            chosenFrameIndex: chosenFrameIndex, width: chosenFrame.width, height: chosenFrame.height,
            frames: frames.map {
                .init(
                    sequence: $0.sequence, timestampNanoseconds: $0.timestampNanoseconds, width: $0.width,
                    height: $0.height, mimeType: $0.mimeType, byteCount: $0.data.count)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain strings and integers cannot fail.
        let headerBytes = (try? encoder.encode(header)) ?? Data()
        var out = Data(capacity: 14 + headerBytes.count + frames.reduce(0) { $0 + $1.data.count })
        out.append(contentsOf: Self.magic)
        out.append(contentsOf: bigEndianBytes(Self.formatVersion))
        out.append(contentsOf: bigEndianBytes(UInt32(headerBytes.count)))
        out.append(headerBytes)
        for frame in frames { out.append(frame.data) }
        return out
    }

    /// Reads a serialised package.
    public init(serialized data: Data) throws(FormatError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 14, Array(bytes[0..<8]) == Self.magic else {
            // untranslated: technical detail inside a translated message
            throw FormatError(description: "not a selfie package (bad magic)")
        }
        let version = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
        // untranslated: technical detail inside a translated message
        guard version == Self.formatVersion else { throw FormatError(description: "unsupported version \(version)") }
        let headerLength = Int(bytes[10]) << 24 | Int(bytes[11]) << 16 | Int(bytes[12]) << 8 | Int(bytes[13])
        // untranslated: technical detail inside a translated message
        guard bytes.count >= 14 + headerLength else { throw FormatError(description: "truncated header") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes[14..<(14 + headerLength)]))
        } catch {
            // untranslated: technical detail inside a translated message
            throw FormatError(description: "unreadable header: \(error)")
        }
        var offset = 14 + headerLength
        var frames: [Frame] = []
        for entry in header.frames {
            guard entry.byteCount >= 0, offset + entry.byteCount <= bytes.count else {
                // untranslated: technical detail inside a translated message
                throw FormatError(description: "truncated frame data")
            }
            frames.append(
                Frame(
                    sequence: entry.sequence, timestampNanoseconds: entry.timestampNanoseconds, width: entry.width,
                    height: entry.height, mimeType: entry.mimeType,
                    data: Data(bytes[offset..<(offset + entry.byteCount)])))
            offset += entry.byteCount
        }
        // untranslated: technical detail inside a translated message
        guard offset == bytes.count else { throw FormatError(description: "trailing bytes after the last frame") }
        guard frames.indices.contains(header.chosenFrameIndex) else {
            // untranslated: technical detail inside a translated message
            throw FormatError(description: "chosen frame index out of range")
        }
        self.init(
            device: header.device, createdAtMilliseconds: header.createdAtMilliseconds, frames: frames,
            chosenFrameIndex: header.chosenFrameIndex)
    }
}

func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}
