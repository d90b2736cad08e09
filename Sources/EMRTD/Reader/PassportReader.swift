/// Reads an eMRTD chip: opens it with PACE where the chip offers it (else Basic Access Control),
/// selects the application, reads EF.COM, DG1, DG2 and EF.SOD under secure messaging, and
/// parses what it read. When EF.COM lists DG14 or DG15, it reads them too and checks that the chip
/// is genuine: Chip Authentication right after DG14 (the rest is read under its keys), Active
/// Authentication at the end. Whenever the chip has to be opened again mid-read, Chip
/// Authentication is run again (or its verdict withdrawn), so no file counts as read from a chip
/// that proved itself unless it was read under the keys of that proof.
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

    /// EF.CardAccess, read in the clear at the master file before access control.
    static let cardAccessIdentifier: UInt16 = 0x011C
    /// EF.CardAccess holds a few SecurityInfos; a chip that claims more is not believed.
    static let maximumCardAccessLength = 16 * 1024
    let session: ChipSession
    let key: AccessKey
    private let readSize: ReadSize
    var extendedAllowed: Bool
    private let files: [LDSFile]
    private let checksAuthenticity: Bool
    private let random: () throws(ChipError) -> BasicAccessControl.TerminalRandom
    /// The PACE set-ups to try, in order, once EF.CardAccess has been read (the one that worked first).
    private var paceOptions: [PACEInfo] = []
    /// EF.CardSecurity, read after PACE with chip authentication mapping (at most once).
    private var cardSecurity: [UInt8]?
    /// PACE-CAM's verdict, once EF.CardSecurity has been tried (and so never tried again).
    private var mappingVerdict: ChipAuthenticity?
    /// PACE-CAM's verdict on the latest opening of the chip, when it was opened again after the
    /// verdict was first reached (`nil`: that opening brought no proof).
    private var renewedMappingVerdict: ChipAuthenticity?
    /// Chip Authentication's verdict so far.
    private var chipAuthentication = ChipAuthenticity(status: .notChecked)
    /// The DG14 key the chip proved it holds, while the session runs under the keys that proof
    /// gave: a re-opening asks for the proof again.
    private var provenChipAuthenticationKey: SecurityOptions.ChipAuthenticationKey?
    /// `BAC` or `PACE`, once the chip is open.
    private var accessControlUsed = ChipAccessControl.bac
    /// Called on the reading thread as the read goes on.
    public var onProgress: (@Sendable (Progress) -> Void)?
    /// Checked before each APDU: return true to stop the read with ``ChipError/cancelled``.
    public var isCancelled: (@Sendable () -> Bool)?

    /// A reader over `channel` with the MRZ key `key`.
    public convenience init(
        channel: any CardChannel, key: MRZKey, readSize: ReadSize = .automatic,
        files: [LDSFile] = [.common, .dg1, .dg2, .securityObject], checksAuthenticity: Bool = true
    ) {
        self.init(
            channel: channel, key: .mrz(key), readSize: readSize, files: files, checksAuthenticity: checksAuthenticity)
    }

    /// A reader over `channel` with the access key `key` (MRZ or card access number). With
    /// `checksAuthenticity` (and EF.COM among `files`), DG14 and DG15 are read and Chip and Active
    /// Authentication run where EF.COM lists them.
    public convenience init(
        channel: any CardChannel, key: AccessKey, readSize: ReadSize = .automatic,
        files: [LDSFile] = [.common, .dg1, .dg2, .securityObject], checksAuthenticity: Bool = true
    ) {
        self.init(
            channel: channel, key: key, readSize: readSize, files: files, checksAuthenticity: checksAuthenticity,
            random: { () throws(ChipError) in
                try .fresh()
            })
    }

    init(
        channel: any CardChannel, key: AccessKey, readSize: ReadSize, files: [LDSFile],
        checksAuthenticity: Bool = true,
        random: @escaping () throws(ChipError) -> BasicAccessControl.TerminalRandom
    ) {
        session = ChipSession(channel: channel)
        self.key = key
        self.readSize = readSize
        self.extendedAllowed = readSize == .automatic
        self.files = files
        self.checksAuthenticity = checksAuthenticity
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
        var timings: [StepTiming] = []
        var started = clock.now
        func lap(_ step: ReadStep) {
            let now = clock.now
            timings.append(StepTiming(step, now - started))
            started = now
        }
        onProgress?(.authenticating)
        paceOptions = try readCardAccess()
        lap(.cardAccess)
        try openChip()
        lap(.accessControl(accessControlUsed))
        var contents: [LDSFile: [UInt8]] = [:]
        var plan = files
        let unchecked = ChipAuthenticity(status: .notChecked, reason: "EF.COM was not read")
        chipAuthentication = checksAuthenticity ? unchecked : ChipAuthenticity(status: .notChecked)
        var activeAuthentication = chipAuthentication
        var withheld: [LDSFile] = []
        var securityOptions: SecurityOptions?
        var index = 0
        while index < plan.count {
            let file = plan[index]
            if file.isOptional {
                contents[file] = try readOptionalFile(file, index: index, count: plan.count)
                if contents[file] == nil { withheld.append(file) }
            } else {
                contents[file] = try readMandatoryFile(file, index: index, count: plan.count)
            }
            lap(.file(file))
            if file == .common, let common = contents[.common] {
                plan = Self.plan(files, listedIn: common, checksAuthenticity: checksAuthenticity)
                index = plan.firstIndex(of: .common) ?? index
                if checksAuthenticity {
                    chipAuthentication = mappingVerdict ?? .absent
                    activeAuthentication = .absent
                }
            } else if file == .dg14, checksAuthenticity {
                let offer: ChipAuthenticity
                (securityOptions, offer) = Self.securityOptions(in: contents[.dg14])
                // PACE-CAM has already proved (or disproved) the chip; DG14 is then read for its other options.
                let mappingDecided = mappingVerdict.map { $0.status == .valid || $0.status == .invalid } ?? false
                if !mappingDecided {
                    chipAuthentication = offer
                    if let securityOptions {
                        chipAuthentication = try authenticateChip(securityOptions.chipAuthentication)
                        lap(.chipAuthentication)
                    }
                }
            }
            index += 1
        }
        if plan.contains(.dg15), checksAuthenticity {
            activeAuthentication = try authenticateActively(
                contents[.dg15], digest: securityOptions?.activeAuthenticationDigest)
            lap(.activeAuthentication)
        }
        try Self.checkNothingSignedWasWithheld(withheld, securityObject: contents[.securityObject])
        if let cardSecurity { contents[.cardSecurity] = cardSecurity }
        return ChipContents(
            files: contents, accessControl: accessControlUsed, commandCount: session.commandCount, timings: timings,
            chipAuthentication: chipAuthentication, activeAuthentication: activeAuthentication,
            authenticityChecked: checksAuthenticity)
    }

    /// The files to read once EF.COM is known: `files` without the optional ones EF.COM does not
    /// list; when `checksAuthenticity`, with DG14 (right after EF.COM) and DG15 (before EF.SOD,
    /// else last) where EF.COM lists them.
    static func plan(_ files: [LDSFile], listedIn common: [UInt8], checksAuthenticity: Bool = true) -> [LDSFile] {
        let listed = (try? TLV.find(0x5C, in: common[...])).map { Set($0.value) } ?? []
        var plan = files.filter { file in
            guard file.isOptional else { return true }
            if checksAuthenticity, file == .dg14 || file == .dg15 { return false }
            return listed.contains(file.commonTag ?? 0)
        }
        guard checksAuthenticity else { return plan }
        if listed.contains(LDSFile.dg14.commonTag ?? 0) {
            plan.insert(.dg14, at: (plan.firstIndex(of: .common) ?? -1) + 1)
        }
        if listed.contains(LDSFile.dg15.commonTag ?? 0) {
            plan.insert(.dg15, at: plan.firstIndex(of: .securityObject) ?? plan.count)
        }
        return plan
    }

    /// Ends the read when the chip refused a data group (other than DG14 and DG15, whose absence the
    /// verdicts weigh) that its EF.SOD signs: the genuine chip gives every data group it signs to
    /// the holder of the access key, and the refusal is a status word nothing authenticates.
    static func checkNothingSignedWasWithheld(_ withheld: [LDSFile], securityObject: [UInt8]?) throws(ChipError) {
        let judgedByVerdicts: Set<LDSFile> = [.dg14, .dg15]
        guard let securityObject, let signed = try? SecurityObject(file: securityObject).dataGroupHashes.keys
        else { return }
        for file in withheld where !judgedByVerdicts.contains(file) {
            guard let number = file.dataGroupNumber, signed.contains(number) else { continue }
            throw ChipError.protocolViolation(
                step: "SELECT \(file.rawValue)",
                reason: "the chip refused \(file.rawValue), which its EF.SOD signs")
        }
    }

    /// Opens the chip again after a refusal ended the session (an extended read refused, an optional
    /// file refused). The keys of the new session prove nothing the earlier proof did: Chip
    /// Authentication is run again under them, and a PACE-CAM verdict stands only when the new
    /// opening proved the key again; otherwise the verdict is withdrawn, so that no file read from
    /// here on counts as read from the chip that proved itself.
    func reopen() throws(ChipError) {
        try openChip()
        if let mapping = mappingVerdict, mapping.status == .valid {
            let renewed =
                renewedMappingVerdict
                ?? ChipAuthenticity(
                    status: .notChecked, algorithm: mapping.algorithm,
                    reason:
                        "the chip was opened again without chip authentication mapping, so the files read afterwards are not covered by its proof"
                )
            if chipAuthentication == mapping { chipAuthentication = renewed }
            mappingVerdict = renewed
        }
        if let key = provenChipAuthenticationKey {
            provenChipAuthenticationKey = nil
            chipAuthentication = try authenticateChip(.supported(key))
        }
    }

    /// DG14 parsed, or the verdict when it cannot be.
    private static func securityOptions(in file: [UInt8]?) -> (SecurityOptions?, ChipAuthenticity) {
        guard let file else {
            return (
                nil, ChipAuthenticity(status: .notChecked, reason: "EF.COM lists DG14, but the chip did not give it")
            )
        }
        do {
            return (try SecurityOptions(dataGroup14: file), .absent)
        } catch {
            return (nil, ChipAuthenticity(status: .notChecked, reason: error.description))
        }
    }

    /// Runs Chip Authentication when DG14 offers a key this host can use. A chip that does not
    /// prove it holds the key is opened again, and the read goes on without it.
    private func authenticateChip(_ offer: SecurityOptions.ChipAuthenticationOffer) throws(ChipError)
        -> ChipAuthenticity
    {
        let key: SecurityOptions.ChipAuthenticationKey
        switch offer {
        case .none: return .absent
        case .unsupported(let reason): return ChipAuthenticity(status: .notChecked, reason: reason)
        case .supported(let supported): key = supported
        }
        let agreement: ChipAuthentication.Agreement
        do {
            agreement = try ChipAuthentication.Agreement(key: key)
        } catch {
            return ChipAuthenticity(status: .notChecked, algorithm: key.algorithm, reason: error.description)
        }
        do {
            try ChipAuthentication.run(agreement, on: session)
            // The chip's first answer under the new keys is the proof.
            try reselect(.dg14)
            provenChipAuthenticationKey = key
            return ChipAuthenticity(status: .valid, algorithm: key.algorithm)
        } catch {
            switch error {
            case .transport, .cancelled: throw error
            default:
                try openChip()
                return ChipAuthenticity(status: .invalid, algorithm: key.algorithm, reason: error.description)
            }
        }
    }

    /// Asks the chip to sign a fresh challenge with the key of DG15 and checks the signature.
    private func authenticateActively(_ file: [UInt8]?, digest: DigestAlgorithm?) throws(ChipError)
        -> ChipAuthenticity
    {
        guard let file else {
            return ChipAuthenticity(status: .notChecked, reason: "EF.COM lists DG15, but the chip did not give it")
        }
        let key: ActiveAuthentication.PublicKey
        do {
            key = try ActiveAuthentication.PublicKey(dataGroup15: file)
        } catch {
            return ChipAuthenticity(status: .notChecked, reason: error.description)
        }
        let kind = key.isRSA ? "RSA-\(key.bits)" : "ECDSA-\(key.bits)"
        let challenge = try ChipCrypto.randomBytes(ActiveAuthentication.challengeLength)
        let step = "INTERNAL AUTHENTICATE"
        let answer: ResponseAPDU
        do {
            answer = try session.send(
                ChipCommand.internalAuthenticate(
                    challenge, expectedLength: key.signatureLength > Self.shortReadSize && extendedAllowed ? 65536 : 256
                ),
                step: step)
        } catch {
            switch error {
            case .transport, .cancelled: throw error
            default: return ChipAuthenticity(status: .invalid, algorithm: kind, reason: error.description)
            }
        }
        guard answer.isSuccess else {
            return ChipAuthenticity(
                status: .invalid, algorithm: kind, reason: "the chip answered \(hex(answer.sw)) to \(step)")
        }
        guard let scheme = ActiveAuthentication.verify(answer.data, of: challenge, with: key, digest: digest) else {
            return ChipAuthenticity(
                status: .invalid, algorithm: kind,
                reason: "the chip's signature of the challenge does not verify with the key in DG15")
        }
        return ChipAuthenticity(status: .valid, algorithm: scheme)
    }

    /// The PACE set-ups in EF.CardAccess that this host runs, in the order to try them; empty when
    /// the chip has no EF.CardAccess (BAC only) or offers nothing this host runs.
    private func readCardAccess() throws(ChipError) -> [PACEInfo] {
        let selected = try session.send(ChipCommand.selectFile(Self.cardAccessIdentifier), step: "SELECT CardAccess")
        guard selected.isSuccess else { return [] }
        // A file that cannot be read or does not parse is treated as absent: BAC may still open the chip.
        let data: [UInt8]
        do {
            data = try readContents(
                of: "CardAccess", chunkSize: 0x100, maximumLength: Self.maximumCardAccessLength, progress: nil)
        } catch {
            switch error {
            case .transport, .cancelled: throw error
            default: return []
            }
        }
        return (try? PACEInfo.supported(inCardAccess: data)) ?? []
    }

    /// Opens the chip with PACE where it was found in EF.CardAccess, else BAC, then selects the
    /// eMRTD application (under secure messaging after PACE, in the clear before BAC). After PACE
    /// with chip authentication mapping, EF.CardSecurity is read first (it sits beside EF.CardAccess)
    /// and the chip's proof checked against it.
    ///
    /// A PACE set-up that the chip breaks off for any reason but a refused key gives way to the
    /// next one EF.CardAccess lists, then, with an MRZ key, to BAC, as chips that list PACE also
    /// take BAC unless they have switched it off; if BAC fails too for a reason other than the key
    /// or the link, the first PACE failure is reported.
    func openChip() throws(ChipError) {
        session.secureMessaging = nil
        renewedMappingVerdict = nil
        var paceFailure: ChipError?
        for (position, option) in paceOptions.enumerated() {
            do {
                let proof = try PACE.authenticate(session, key: key, info: option)
                accessControlUsed = .pace
                if let proof {
                    if mappingVerdict == nil {
                        try checkChipAuthenticationMapping(proof, option: option)
                    } else {
                        renewedMappingVerdict = ChipAuthenticationMapping.verify(proof, cardSecurity: cardSecurity)
                    }
                }
                try selectApplication()
                // A reopening (after an extended read or Chip Authentication failed) starts with what worked.
                paceOptions = Array(paceOptions[position...])
                return
            } catch {
                guard Self.mayTryBasicAccessControl(after: error) else { throw error }
                paceFailure = paceFailure ?? error
                session.secureMessaging = nil
            }
        }
        if let paceFailure {
            guard case .mrz = key else { throw paceFailure }
            paceOptions = []
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
        accessControlUsed = .bac
    }

    /// Whether a PACE failure leaves BAC worth trying: not after a refused key, a lost card, a
    /// cancel, or a card without the passport application.
    private static func mayTryBasicAccessControl(after error: ChipError) -> Bool {
        switch error {
        case .accessControlUnavailable, .unexpectedStatus, .secureMessaging, .protocolViolation, .malformed, .crypto:
            return true
        case .accessDenied, .transport, .cancelled, .notATravelDocument, .invalidKey: return false
        }
    }

    /// Reads EF.CardSecurity (under PACE's secure messaging, before the application is selected)
    /// and checks the chip's proof against the key it holds. Tried once per read.
    private func checkChipAuthenticationMapping(_ proof: ChipAuthenticationMapping.Proof, option: PACEInfo)
        throws(ChipError)
    {
        do {
            cardSecurity = try readFile(.cardSecurity, index: 0, count: files.count)
        } catch {
            guard case .unexpectedStatus = error else { throw error }
            // A chip that ended secure messaging over the refusal is opened again.
            if session.secureMessaging == nil { try PACE.authenticate(session, key: key, info: option) }
        }
        mappingVerdict = ChipAuthenticationMapping.verify(proof, cardSecurity: cardSecurity)
    }

    private func selectApplication() throws(ChipError) {
        let answer = try session.send(ChipCommand.selectApplication(), step: "SELECT eMRTD application")
        guard answer.isSuccess else { throw ChipError.notATravelDocument(sw: answer.sw) }
    }
}

/// The protocol that opened a chip's secure channel (its name, as ICAO Doc 9303 writes it, is the wire value).
public enum ChipAccessControl: String, Sendable {
    /// Password Authenticated Connection Establishment (Doc 9303 part 11, 4.4).
    case pace = "PACE"
    /// Basic Access Control (Doc 9303 part 11, 4.3).
    case bac = "BAC"
}

/// What a chip read returned: the files as read, and how the read went.
public struct ChipContents: Sendable {
    /// The complete files by name (tag, length and value).
    public let files: [LDSFile: [UInt8]]
    /// How the chip was opened; nil for contents that were not read from a chip (parsed files).
    public let accessControl: ChipAccessControl?
    /// APDUs exchanged.
    public let commandCount: Int
    /// How long each step took, in order: EF.CardAccess, opening the chip (PACE or BAC, with
    /// selecting the application), then each file, with Chip Authentication after DG14 and Active
    /// Authentication last when they ran.
    public let timings: [StepTiming]
    /// Chip Authentication's verdict (DG14).
    public let chipAuthentication: ChipAuthenticity
    /// Active Authentication's verdict (DG15).
    public let activeAuthentication: ChipAuthenticity
    /// Whether the reader set out to check the chip's authenticity (read DG14 and DG15 and run the proofs).
    public let authenticityChecked: Bool

    init(
        files: [LDSFile: [UInt8]], accessControl: ChipAccessControl?, commandCount: Int, timings: [StepTiming],
        chipAuthentication: ChipAuthenticity = .absent, activeAuthentication: ChipAuthenticity = .absent,
        authenticityChecked: Bool = true
    ) {
        self.authenticityChecked = authenticityChecked
        self.files = files
        self.accessControl = accessControl
        self.commandCount = commandCount
        self.timings = timings
        self.chipAuthentication = chipAuthentication
        self.activeAuthentication = activeAuthentication
    }

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
