/// A chip read to the end and checked: its data, and every verdict tied to passive authentication.
public struct VerifiedChip: Sendable {
    /// The files as read, and how the read went.
    public let contents: ChipContents
    /// DG1's MRZ.
    public let mrz: MRZ
    /// DG2's face, as the chip stores it.
    public let face: FaceImage
    public let passiveAuthentication: PassiveAuthentication
    /// Chip Authentication (DG14) or PACE-CAM (EF.CardSecurity), `valid` only with a `valid`
    /// passive authentication that covers its key.
    public let chipAuthentication: ChipAuthenticity
    /// Active Authentication (DG15), `valid` only with a `valid` passive authentication that covers DG15.
    public let activeAuthentication: ChipAuthenticity
    /// The summary a journey can rely on alone.
    public let verdict: ChipVerdict
    /// How long the checks after the read took.
    public let verifyDuration: Duration
}

extension PassportReader {
    /// Reads the chip and checks it, in the order trust needs: the files (with the chip's proofs run
    /// as it is read), DG1 and DG2 parsed, passive authentication against `store`, then each proof
    /// tied to the key passive authentication covers, then the summary. The one entry point for
    /// the capability and the benchmark alike.
    public func readAndVerify(store: CSCAStore, now: Int64 = PassiveAuthentication.currentTime()) throws(ChipError)
        -> VerifiedChip
    {
        try Self.verify(try read(), store: store, now: now, openedWith: key)
    }

    /// Checks `contents` as ``readAndVerify(store:now:)`` does; `key` is the key that opened the
    /// chip, which must be the one its DG1 gives (a card access number is not in DG1, so it is not compared).
    public static func verify(_ contents: ChipContents, store: CSCAStore, now: Int64, openedWith key: AccessKey? = nil)
        throws(ChipError) -> VerifiedChip
    {
        let mrz = try contents.mrz()
        let face = try contents.face()
        let clock = ContinuousClock()
        let started = clock.now
        let expiry = Self.expiryMoment(mrz.dateOfExpiry, now: now)
        let passive: PassiveAuthentication
        var signedGroups: Set<Int> = []
        if let file = contents.files[.securityObject] {
            do {
                let securityObject = try SecurityObject(file: file)
                signedGroups = Set(securityObject.dataGroupHashes.keys)
                passive = PassiveAuthentication.verify(
                    securityObject: securityObject, dataGroups: contents.dataGroups, store: store,
                    documentExpiry: expiry, now: now)
            } catch {
                passive = PassiveAuthentication(
                    status: .invalid, reason: "EF.SOD is unreadable: \(error)", signer: nil, signerIssuer: nil,
                    matchedDataGroups: [], mismatchedDataGroups: contents.dataGroupNames)
            }
        } else {
            passive = PassiveAuthentication(
                status: .notChecked, reason: "EF.SOD was not read", signer: nil, signerIssuer: nil,
                matchedDataGroups: [], mismatchedDataGroups: [])
        }
        let chip = Self.tie(
            contents.chipAuthentication, to: passive, contents: contents, store: store, expiry: expiry, now: now
        )
        .requiringPresence(of: .dg14, signedIn: signedGroups, by: passive, contents: contents)
        .requiringStrongKey(Self.chipAuthenticationKeyProblem(contents))
        let active = contents.activeAuthentication.requiringCoverage(
            passive.status == .valid && passive.matchedDataGroups.contains("DG15"),
            reason: Self.uncovered("DG15", passive)
        )
        .requiringPresence(of: .dg15, signedIn: signedGroups, by: passive, contents: contents)
        .requiringStrongKey(Self.activeAuthenticationKeyProblem(contents))
        let verdict = ChipVerdict(
            passive: passive, chip: chip, active: active, accessKeyMismatch: Self.accessKeyMismatch(key, mrz: mrz))
        return VerifiedChip(
            contents: contents, mrz: mrz, face: face, passiveAuthentication: passive, chipAuthentication: chip,
            activeAuthentication: active, verdict: verdict, verifyDuration: clock.now - started)
    }

    /// How the MRZ key that opened the chip differs from the key DG1 gives (its document number,
    /// date of birth and date of expiry), or `nil` when it does not or the chip was opened with a
    /// card access number. A genuine chip opens only with the key of its own document: one that
    /// opens with another is an emulator serving copied data. The document number is the 9
    /// characters of its field, fillers and all, as the key pads it; where the field's check digit
    /// is a filler (TD1, TD2), the number may go on in the optional data up to its check digit,
    /// and either form counts.
    static func accessKeyMismatch(_ key: AccessKey?, mrz: MRZ) -> String? {
        guard case .mrz(let key) = key else { return nil }
        var numbers = [mrz.zone.characters(of: .documentNumber)]
        if mrz.documentNumber.count > numbers[0].count { numbers.append(mrz.documentNumber) }
        var differing: [String] = []
        if !numbers.contains(key.documentNumber) { differing.append("document number") }
        if mrz.dateOfBirth != key.dateOfBirth { differing.append("date of birth") }
        if mrz.dateOfExpiry != key.dateOfExpiry { differing.append("date of expiry") }
        guard let last = differing.last else { return nil }
        let named = differing.count == 1 ? last : differing.dropLast().joined(separator: ", ") + " and " + last
        return "the \(named) of the key differ\(differing.count == 1 ? "s" : "") from DG1's"
    }

    /// Why the key Chip Authentication ran with (DG14's) proves nothing, when it does not.
    /// PACE-CAM's key is on one of PACE's standardized curves, all of which the key policy accepts.
    static func chipAuthenticationKeyProblem(_ contents: ChipContents) -> String? {
        guard contents.chipAuthentication.algorithm?.hasPrefix("PACE-CAM") != true,
            let file = contents.files[.dg14], let options = try? SecurityOptions(dataGroup14: file),
            case .supported(let key) = options.chipAuthentication
        else { return nil }
        return KeyPolicy.problem(chipAuthenticationKey: key)
    }

    /// Why DG15's key proves nothing, when it does not.
    static func activeAuthenticationKeyProblem(_ contents: ChipContents) -> String? {
        contents.files[.dg15].flatMap { KeyPolicy.problem(dataGroup15: $0) }
    }

    /// Chip Authentication's verdict tied to passive authentication: DG14 for Chip Authentication,
    /// EF.CardSecurity (signed by a trusted Document Signer) for PACE-CAM.
    private static func tie(
        _ verdict: ChipAuthenticity, to passive: PassiveAuthentication, contents: ChipContents, store: CSCAStore,
        expiry: Int64?, now: Int64
    ) -> ChipAuthenticity {
        guard verdict.status == .valid else { return verdict }
        guard verdict.algorithm?.hasPrefix("PACE-CAM") == true else {
            return verdict.requiringCoverage(
                passive.status == .valid && passive.matchedDataGroups.contains("DG14"),
                reason: uncovered("DG14", passive))
        }
        guard passive.status == .valid else {
            return verdict.requiringCoverage(false, reason: uncovered("EF.CardSecurity", passive))
        }
        guard let cardSecurity = contents.files[.cardSecurity] else {
            return verdict.requiringCoverage(false, reason: "EF.CardSecurity, which holds the key, was not kept")
        }
        let check = DocumentSignerCheck.run(
            signedData: cardSecurity, file: .cardSecurity, store: store, documentExpiry: expiry, now: now)
        switch check.outcome {
        case .trusted: return verdict
        case .revoked(let reason), .unknownIssuer(let reason), .invalid(let reason), .noSignerCertificate(let reason):
            return verdict.requiringCoverage(
                false, reason: "EF.CardSecurity, which holds the key, does not check out: \(reason)")
        }
    }

    private static func uncovered(_ file: String, _ passive: PassiveAuthentication) -> String {
        passive.status == .valid
            ? "passive authentication does not cover \(file), which holds the key"
            : "passive authentication is \(passive.status.rawValue), so nothing vouches for the key in \(file)"
    }

    /// The end of the day of expiry `yymmdd` (seconds since 1970), its century the one that puts it
    /// no more than 20 years after `now`; `nil` when it is not a date.
    static func expiryMoment(_ yymmdd: String, now: Int64) -> Int64? {
        let digits = yymmdd.compactMap(\.wholeNumberValue)
        guard yymmdd.count == 6, digits.count == 6 else { return nil }
        let twoDigitYear = digits[0] * 10 + digits[1]
        let month = digits[2] * 10 + digits[3]
        let day = digits[4] * 10 + digits[5]
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        let currentYear = 1970 + Int(now / 31_556_952)
        var year = 2000 + twoDigitYear
        if year > currentYear + 20 { year -= 100 }
        return (daysSince1970(year: year, month: month, day: day) + 1) * 86_400 - 1
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Int64(era * 146_097 + dayOfEra - 719_468)
    }
}

extension ChipAuthenticity {
    /// This verdict, or `invalid` when the chip proved it holds a key that `problem` says is too
    /// weak to prove anything (whoever can break the key can give the same proof).
    fileprivate func requiringStrongKey(_ problem: String?) -> ChipAuthenticity {
        guard let problem, status == .valid || status == .unverifiedKey else { return self }
        return ChipAuthenticity(
            status: .invalid, algorithm: algorithm, reason: "its key is too weak to prove anything: \(problem)")
    }

    /// This verdict, or `invalid` when a valid EF.SOD signs a hash of `file` (DG14 or DG15) that the
    /// chip did not give: the genuine chip has the key, so a chip that hides it (leaving the file out
    /// of EF.COM, or refusing it) is a copy that would rather not be asked to prove it.
    fileprivate func requiringPresence(
        of file: LDSFile, signedIn signedGroups: Set<Int>, by passive: PassiveAuthentication, contents: ChipContents
    ) -> ChipAuthenticity {
        guard contents.authenticityChecked, status == .notSupported || status == .notChecked, passive.status == .valid,
            let number = file.dataGroupNumber, signedGroups.contains(number), contents.files[file] == nil
        else { return self }
        return ChipAuthenticity(
            status: .invalid, algorithm: algorithm,
            reason: "EF.SOD signs \(file.rawValue), but the chip did not give it: a genuine chip holds that key")
    }
}
