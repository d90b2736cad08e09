/// Reads an eMRTD chip: opens it with PACE where the chip offers it (else Basic Access Control),
/// selects the application, reads EF.COM, DG1, DG2 and EF.SOD under secure messaging, and
/// parses what it read.
///
/// Blocking: run it off the main thread. One reader reads one chip once.
public final class PassportReader {
    /// How large reads may be.
    public enum ReadSize: Sendable, Equatable {
        /// Extended-length READ BINARY when a file needs more than one short read; if the chip or
        /// reader refuses it, access control is redone and the read goes on with short APDUs.
        case automatic
        /// Short APDUs only (223 bytes of data each under secure messaging).
        case shortOnly
    }

    /// Progress, for a window or a log.
    public enum Progress: Sendable, Equatable {
        case authenticating
        case reading(file: LDSFile, index: Int, count: Int, bytesRead: Int, totalBytes: Int)
        case verifying
    }

    /// The eMRTD application identifier.
    static let applicationIdentifier: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
    /// EF.CardAccess, read in the clear at the master file before access control.
    static let cardAccessIdentifier: [UInt8] = [0x01, 0x1C]
    /// Data bytes per short READ BINARY under secure messaging: the protected answer (data padded to
    /// 224 bytes in DO87, DO99, DO8E) must fit 256 bytes, with 3DES and AES alike.
    static let shortReadSize = 0xDF
    /// Data bytes per extended READ BINARY (the protected answer stays under 4 KiB, which readers that
    /// take extended APDUs at all accept).
    static let extendedReadSize = 0x0FE0
    /// READ BINARY with a 15-bit offset in P1-P2 reaches this far.
    static let maximumOffset = 0x7FFF

    private let session: ChipSession
    private let key: AccessKey
    private let readSize: ReadSize
    private var extendedAllowed: Bool
    private let files: [LDSFile]
    private let random: () throws(ChipError) -> BasicAccessControl.TerminalRandom
    /// The PACE set-up in use, once EF.CardAccess has been read.
    private var pace: PACEInfo?
    /// `BAC` or `PACE`, once the chip is open.
    private var accessControlUsed = "BAC"
    /// Called on the reading thread as the read goes on.
    public var onProgress: (@Sendable (Progress) -> Void)?
    /// Checked before each APDU: return true to stop the read with ``ChipError/cancelled``.
    public var isCancelled: (@Sendable () -> Bool)?

    /// A reader over `channel` with the MRZ key `key`.
    public convenience init(
        channel: any CardChannel, key: MRZKey, readSize: ReadSize = .automatic,
        files: [LDSFile] = [.common, .dg1, .dg2, .securityObject]
    ) {
        self.init(channel: channel, key: .mrz(key), readSize: readSize, files: files)
    }

    /// A reader over `channel` with the access key `key` (MRZ or card access number).
    public convenience init(
        channel: any CardChannel, key: AccessKey, readSize: ReadSize = .automatic,
        files: [LDSFile] = [.common, .dg1, .dg2, .securityObject]
    ) {
        self.init(
            channel: channel, key: key, readSize: readSize, files: files,
            random: { () throws(ChipError) in
                try .fresh()
            })
    }

    init(
        channel: any CardChannel, key: AccessKey, readSize: ReadSize, files: [LDSFile],
        random: @escaping () throws(ChipError) -> BasicAccessControl.TerminalRandom
    ) {
        session = ChipSession(channel: channel)
        self.key = key
        self.readSize = readSize
        self.extendedAllowed = readSize == .automatic
        self.files = files
        self.random = random
    }

    /// APDUs sent so far.
    public var commandCount: Int { session.commandCount }

    /// Reads the chip. Throws ``ChipError`` naming the failing step.
    public func read() throws(ChipError) -> ChipContents {
        session.willSend = { [isCancelled] () throws(ChipError) in
            if isCancelled?() == true { throw ChipError.cancelled }
        }
        let clock = ContinuousClock()
        var timings: [(String, Duration)] = []
        var started = clock.now
        func lap(_ step: String) {
            let now = clock.now
            timings.append((step, now - started))
            started = now
        }
        onProgress?(.authenticating)
        pace = try readCardAccess()
        lap("CardAccess")
        try openChip()
        lap(accessControlUsed)
        var contents: [LDSFile: [UInt8]] = [:]
        for (index, file) in files.enumerated() {
            contents[file] = try readFile(file, index: index)
            lap(file.rawValue)
        }
        return ChipContents(
            files: contents, accessControl: accessControlUsed, commandCount: session.commandCount, timings: timings)
    }

    /// The strongest PACE set-up in EF.CardAccess that this host runs; `nil` when the chip has no
    /// EF.CardAccess (BAC only) or offers nothing this host runs.
    private func readCardAccess() throws(ChipError) -> PACEInfo? {
        let selected = try session.send(
            CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x02, p2: 0x0C, data: Self.cardAccessIdentifier),
            step: "SELECT CardAccess")
        guard selected.isSuccess else { return nil }
        var data: [UInt8] = []
        while data.count < Self.maximumOffset {
            let answer = try session.send(
                CommandAPDU(
                    cla: 0x00, ins: 0xB0, p1: UInt8(data.count >> 8), p2: UInt8(data.count & 0xFF), expectedLength: 256),
                step: "READ BINARY CardAccess at \(data.count)")
            guard answer.isSuccess || answer.sw == 0x6282 else { break }
            data += answer.data
            guard answer.isSuccess, answer.data.count == 256 else { break }
        }
        guard !data.isEmpty else { return nil }
        // A file that does not parse is treated as absent: BAC may still open the chip.
        return (try? PACEInfo.supported(inCardAccess: data))?.first
    }

    /// Opens the chip with PACE where it was found in EF.CardAccess, else BAC, then selects the
    /// eMRTD application (under secure messaging after PACE, in the clear before BAC).
    ///
    /// With an MRZ key, a PACE run that the chip breaks off for any reason but a refused key falls
    /// back to BAC, as chips that list PACE also take BAC unless they have switched it off; if BAC
    /// fails too for a reason other than the key or the link, the PACE failure is reported.
    private func openChip() throws(ChipError) {
        session.secureMessaging = nil
        var paceFailure: ChipError?
        if let pace {
            do {
                try PACE.authenticate(session, key: key, info: pace)
                accessControlUsed = "PACE"
                try selectApplication()
                return
            } catch {
                guard case .mrz = key, Self.mayTryBasicAccessControl(after: error) else { throw error }
                paceFailure = error
                self.pace = nil
                session.secureMessaging = nil
            }
        }
        guard case .mrz(let mrzKey) = key else {
            throw ChipError.accessControlUnavailable("the chip does not offer PACE, which a card access number needs")
        }
        do {
            try selectApplication()
            try BasicAccessControl.authenticate(session, key: mrzKey, random: try random())
        } catch {
            switch error {
            case .accessDenied, .transport, .cancelled: throw error
            default: throw paceFailure ?? error
            }
        }
        accessControlUsed = "BAC"
    }

    /// Whether a PACE failure leaves BAC worth trying: not after a refused key, a lost card, a
    /// cancel, or a card without the passport application.
    private static func mayTryBasicAccessControl(after error: ChipError) -> Bool {
        switch error {
        case .accessControlUnavailable, .unexpectedStatus, .secureMessaging, .malformed, .crypto: return true
        case .accessDenied, .transport, .cancelled, .notATravelDocument, .invalidKey: return false
        }
    }

    private func selectApplication() throws(ChipError) {
        let answer = try session.send(
            CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x0C, data: Self.applicationIdentifier),
            step: "SELECT eMRTD application")
        guard answer.isSuccess else { throw ChipError.notATravelDocument(sw: answer.sw) }
    }

    private func readFile(_ file: LDSFile, index: Int) throws(ChipError) -> [UInt8] {
        let step = "SELECT \(file.rawValue)"
        let id = file.fileIdentifier
        let selected = try session.send(
            CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x02, p2: 0x0C, data: [UInt8(id >> 8), UInt8(id & 0xFF)]), step: step)
        guard selected.isSuccess else { throw ChipError.unexpectedStatus(step: step, sw: selected.sw) }

        onProgress?(.reading(file: file, index: index, count: files.count, bytesRead: 0, totalBytes: 0))
        // The first read takes a whole short chunk: small files need no second APDU, and the
        // header tells the length of large ones.
        var data = try readBinary(file, offset: 0, length: Self.shortReadSize, allowShortAnswer: true)
        let header = try Self.fileLength(data, file: file)
        guard header <= Self.maximumOffset + Self.shortReadSize else {
            throw ChipError.malformed(
                file: file.rawValue, reason: "\(header) bytes is longer than this reader supports")
        }
        while data.count < header {
            onProgress?(
                .reading(file: file, index: index, count: files.count, bytesRead: data.count, totalBytes: header))
            let remaining = header - data.count
            let wanted = min(remaining, extendedAllowed ? Self.extendedReadSize : Self.shortReadSize)
            let chunk: [UInt8]
            if wanted > Self.shortReadSize {
                do {
                    chunk = try readBinary(file, offset: data.count, length: wanted, allowShortAnswer: false)
                } catch ChipError.transport(_, _, cardRemoved: false), ChipError.unexpectedStatus,
                    ChipError.secureMessaging
                {
                    // The chip or the reader refused an extended APDU: start a fresh session and go
                    // on with short reads.
                    extendedAllowed = false
                    try openChip()
                    try reselect(file)
                    continue
                }
            } else {
                chunk = try readBinary(file, offset: data.count, length: wanted, allowShortAnswer: false)
            }
            guard !chunk.isEmpty else {
                throw ChipError.malformed(file: file.rawValue, reason: "the chip returned no data at \(data.count)")
            }
            data += chunk
        }
        onProgress?(.reading(file: file, index: index, count: files.count, bytesRead: header, totalBytes: header))
        return Array(data.prefix(header))
    }

    private func reselect(_ file: LDSFile) throws(ChipError) {
        let id = file.fileIdentifier
        let step = "SELECT \(file.rawValue)"
        let selected = try session.send(
            CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x02, p2: 0x0C, data: [UInt8(id >> 8), UInt8(id & 0xFF)]), step: step)
        guard selected.isSuccess else { throw ChipError.unexpectedStatus(step: step, sw: selected.sw) }
    }

    private func readBinary(_ file: LDSFile, offset: Int, length: Int, allowShortAnswer: Bool) throws(ChipError)
        -> [UInt8]
    {
        let step = "READ BINARY \(file.rawValue) at \(offset)"
        let answer = try session.send(
            CommandAPDU(
                cla: 0x00, ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), expectedLength: length),
            step: step)
        // 6282: the file ended before `length` bytes, as asked for by the first, speculative read.
        guard answer.isSuccess || answer.sw == 0x6282 else {
            if answer.sw == 0x6988 || answer.sw == 0x6987 {
                throw ChipError.secureMessaging(step: step, reason: "the chip rejected the command's protection")
            }
            throw ChipError.unexpectedStatus(step: step, sw: answer.sw)
        }
        return answer.data
    }

    /// The complete length (tag, length and value) of an LDS file from its first bytes.
    static func fileLength(_ head: [UInt8], file: LDSFile) throws(ChipError) -> Int {
        guard head.count >= 2 else { throw ChipError.malformed(file: file.rawValue, reason: "shorter than a header") }
        var index = 1
        if head[0] & 0x1F == 0x1F {
            while index < head.count, head[index] & 0x80 != 0 { index += 1 }
            index += 1
        }
        guard index < head.count else { throw ChipError.malformed(file: file.rawValue, reason: "truncated header") }
        let first = Int(head[index])
        index += 1
        if first < 0x80 { return index + first }
        let count = first & 0x7F
        guard count >= 1, count <= 3, index + count <= head.count else {
            throw ChipError.malformed(file: file.rawValue, reason: "bad length")
        }
        var length = 0
        for byte in head[index..<(index + count)] { length = length << 8 | Int(byte) }
        return index + count + length
    }
}

/// What a chip read returned: the files as read, and how the read went.
public struct ChipContents: Sendable {
    /// The complete files by name (tag, length and value).
    public let files: [LDSFile: [UInt8]]
    /// How the chip was opened: `PACE` or `BAC`.
    public let accessControl: String
    /// APDUs exchanged.
    public let commandCount: Int
    /// How long each step took: `CardAccess` (reading it), `PACE` or `BAC` (with selecting the
    /// application), then each file by name.
    public let timings: [(String, Duration)]

    /// The MRZ in DG1.
    public func mrz() throws(ChipError) -> MRZ {
        guard let file = files[.dg1], let element = try TLV.find(0x5F1F, in: file[...]) else {
            throw ChipError.malformed(file: "DG1", reason: "no MRZ (5F1F)")
        }
        return try MRZ(String(decoding: element.value, as: UTF8.self))
    }

    /// The face in DG2.
    public func face() throws(ChipError) -> FaceImage {
        guard let file = files[.dg2] else { throw ChipError.malformed(file: "DG2", reason: "not read") }
        return try FaceImage(dataGroup2: file)
    }

    /// The data groups read, by number (for passive authentication).
    public var dataGroups: [Int: [UInt8]] {
        var groups: [Int: [UInt8]] = [:]
        for (file, bytes) in files {
            if let number = file.dataGroupNumber { groups[number] = bytes }
        }
        return groups
    }

    /// The names of the data groups read, in order, e.g. `["DG1", "DG2"]`.
    public var dataGroupNames: [String] {
        LDSFile.allCases.filter { files[$0] != nil && $0.dataGroupNumber != nil }.map(\.rawValue)
    }
}
