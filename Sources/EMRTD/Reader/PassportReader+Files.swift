/// Reading the chip's elementary files: SELECT, then READ BINARY the way robust readers do, bounded
/// in length and progress.
extension PassportReader {
    /// Data bytes per short READ BINARY under secure messaging: the protected answer (data padded to
    /// 224 bytes in DO87, DO99, DO8E) must fit 256 bytes, with 3DES and AES alike.
    static let shortReadSize = 0xDF
    /// Data bytes per extended READ BINARY (the protected answer stays under 4 KiB, which readers that
    /// take extended APDUs at all accept).
    static let extendedReadSize = 0x0FE0
    /// The first READ BINARY of a file asks for this many bytes: enough for any LDS header (a tag of
    /// up to three bytes and a length of up to four), so the rest can be asked for exactly.
    static let headerReadSize = 8
    /// A READ BINARY that is not the file's last must bring at least this many bytes (or all it was
    /// asked for, when that is less): a chip that trickles a byte or two per command would keep the
    /// reader busy for a million commands.
    static let minimumReadProgress = 32
    /// The longest file this reader takes on: a chip that claims more is not believed.
    static let maximumFileLength = 1 << 20

    /// Reads a file a chip need not have (DG11, DG12, DG14, DG15): `nil` when the chip refuses them (the session is
    /// opened again if the refusal ended secure messaging). The refusal is a status word no MAC need
    /// cover, so it proves nothing: the caller never counts it in the chip's favour.
    func readOptionalFile(_ file: LDSFile, index: Int, count: Int) throws(ChipError) -> [UInt8]? {
        do {
            return try readFile(file, index: index, count: count)
        } catch {
            guard case .unexpectedStatus = error else { throw error }
            if session.secureMessaging == nil { try reopen() }
            return nil
        }
    }

    /// Reads a file the chip must have. A chip that has no such file, or refuses it, is not a
    /// travel document this host can read: that is a malformed chip, not a moved card.
    func readMandatoryFile(_ file: LDSFile, index: Int, count: Int) throws(ChipError) -> [UInt8] {
        do {
            return try readFile(file, index: index, count: count)
        } catch {
            guard case .unexpectedStatus(let step, let sw) = error, Self.meansNoSuchFile(sw) else { throw error }
            throw ChipError.malformed(
                file: file.rawValue,
                reason: "the chip has no such file, which every travel document carries (\(step) answered \(hex(sw)))")
        }
    }

    /// Status words that say the file is not there or may not be read (not that the link failed).
    static func meansNoSuchFile(_ sw: UInt16) -> Bool {
        sw == 0x6A82 || sw == 0x6A88 || sw == 0x6986 || sw == 0x6982
    }

    /// Reads `file` after selecting it. EF.CardSecurity is read while the chip is being opened, so
    /// it is read in short APDUs: an extended read refused there would need the chip opened again
    /// from within its own opening (and, once the application is selected, the same file
    /// identifier names EF.SOD).
    func readFile(_ file: LDSFile, index: Int, count: Int) throws(ChipError) -> [UInt8] {
        try reselect(file)
        onProgress?(.reading(file: file, index: index, count: count, bytesRead: 0, totalBytes: 0))
        let duringOpening = file == .cardSecurity
        return try readContents(
            of: file.rawValue, chunkSize: duringOpening ? Self.shortReadSize : nil,
            maximumLength: Self.maximumFileLength,
            progress: { [onProgress] read, total in
                onProgress?(.reading(file: file, index: index, count: count, bytesRead: read, totalBytes: total))
            },
            reopen: duringOpening
                ? nil
                : { () throws(ChipError) in
                    try self.reopen()
                    try self.reselect(file)
                })
    }

    /// Reads the selected file the way robust readers do: its header first, then exactly the length
    /// the header names, in chunks of `chunkSize` (or as large as the session allows), so a
    /// well-formed file is never read past its end. Refuses files longer than `maximumLength`, chips
    /// that answer less than ``minimumReadProgress`` before the end, and files that end before their
    /// header says. `reopen` starts a fresh session when an extended read is refused.
    func readContents(
        of name: String, chunkSize: Int?, maximumLength: Int, progress: ((Int, Int) -> Void)?,
        reopen: (() throws(ChipError) -> Void)? = nil
    ) throws(ChipError) -> [UInt8] {
        var data = try readBinary(name, offset: 0, length: Self.headerReadSize, mayEndEarly: true)
        let total = try Self.fileLength(data, file: name)
        guard total <= maximumLength else {
            throw ChipError.malformed(file: name, reason: "\(total) bytes is longer than any travel document's file")
        }
        guard data.count <= Self.headerReadSize else {
            throw ChipError.protocolViolation(
                step: "READ BINARY \(name) at 0",
                reason: "the chip answered \(data.count) bytes where \(Self.headerReadSize) were asked for")
        }
        while data.count < total {
            progress?(data.count, total)
            let remaining = total - data.count
            // Past the 15-bit offset, each answer also carries DO53's tag and length.
            let wrapping = data.count > ChipCommand.maximumShortOffset ? ChipCommand.offsetDataObjectOverhead : 0
            let largest = chunkSize ?? ((extendedAllowed ? Self.extendedReadSize : Self.shortReadSize) - wrapping)
            let wanted = min(remaining, largest)
            let chunk: [UInt8]
            if wanted > Self.shortReadSize, let reopen {
                do {
                    chunk = try readBinary(name, offset: data.count, length: wanted, mayEndEarly: false)
                } catch ChipError.transport(_, _, cardRemoved: false), ChipError.unexpectedStatus,
                    ChipError.secureMessaging
                {
                    // The chip or the reader refused an extended APDU: start a fresh session and go
                    // on with short reads.
                    extendedAllowed = false
                    try reopen()
                    continue
                }
            } else {
                chunk = try readBinary(name, offset: data.count, length: wanted, mayEndEarly: false)
            }
            // Past the 15-bit offset, Le counts DO53's tag and length too, so the chip may fill a few bytes more.
            guard chunk.count <= wanted + wrapping else {
                throw ChipError.protocolViolation(
                    step: "READ BINARY \(name) at \(data.count)",
                    reason: "the chip answered \(chunk.count) bytes where \(wanted) were asked for")
            }
            guard chunk.count >= min(wanted, Self.minimumReadProgress) else {
                throw ChipError.malformed(
                    file: name,
                    reason:
                        "the chip answered \(chunk.count) bytes at offset \(data.count) where \(wanted) were asked for")
            }
            data += chunk
        }
        progress?(total, total)
        return Array(data.prefix(total))
    }

    func reselect(_ file: LDSFile) throws(ChipError) {
        let step = "SELECT \(file.rawValue)"
        let selected = try session.send(ChipCommand.selectFile(file.fileIdentifier), step: step)
        guard selected.isSuccess else { throw ChipError.unexpectedStatus(step: step, sw: selected.sw) }
    }

    /// One READ BINARY of the selected file. Only the header read (`mayEndEarly`) may find the file
    /// shorter than asked (6282, or fewer bytes); anywhere else a short file is a malformed one.
    private func readBinary(_ name: String, offset: Int, length: Int, mayEndEarly: Bool) throws(ChipError)
        -> [UInt8]
    {
        let step = "READ BINARY \(name) at \(offset)"
        let answer = try session.send(ChipCommand.readBinary(offset: offset, length: length), step: step)
        guard answer.isSuccess || (answer.sw == 0x6282 && mayEndEarly) else {
            switch answer.sw {
            case 0x6988, 0x6987:
                // The chip no longer knows the session keys: typically it lost power for a moment
                // (the document moved), so this is a status, not a broken answer.
                throw ChipError.unexpectedStatus(step: step, sw: answer.sw)
            case 0x6282, 0x6B00:
                throw ChipError.malformed(file: name, reason: "the file ends at \(offset), before its header says")
            default:
                throw ChipError.unexpectedStatus(step: step, sw: answer.sw)
            }
        }
        guard offset > ChipCommand.maximumShortOffset else { return answer.data }
        guard !answer.data.isEmpty else { return [] }
        let wrapped = try TLV.sequence(answer.data[...])
        guard wrapped.count == 1, let object = wrapped.first, object.tag == 0x53 else {
            throw ChipError.malformed(file: name, reason: "the answer at \(offset) is not one DO53")
        }
        return Array(object.value)
    }

    /// The complete length (tag, length and value) of an LDS file from its first bytes.
    static func fileLength(_ head: [UInt8], file: String) throws(ChipError) -> Int {
        guard head.count >= 2 else { throw ChipError.malformed(file: file, reason: "shorter than a header") }
        var index = 1
        if head[0] & 0x1F == 0x1F {
            while index < head.count, head[index] & 0x80 != 0 { index += 1 }
            index += 1
        }
        guard index < head.count else { throw ChipError.malformed(file: file, reason: "truncated header") }
        let first = Int(head[index])
        index += 1
        if first < 0x80 { return index + first }
        let count = first & 0x7F
        guard count >= 1, count <= 3, index + count <= head.count else {
            throw ChipError.malformed(file: file, reason: "a length field of \(count) bytes")
        }
        var length = 0
        for byte in head[index..<(index + count)] { length = length << 8 | Int(byte) }
        return index + count + length
    }
}
