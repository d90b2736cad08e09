import Testing

@testable import EMRTD

/// The summary verdict over every combination of passive authentication and the chip's proofs:
/// `genuine` only with a valid passive authentication and a valid proof, never otherwise.
@Suite("Chip verdict")
struct ChipVerdictTests {
    private func passive(_ status: PassiveAuthentication.Status, matched: [String] = ["DG1", "DG2", "DG14", "DG15"])
        -> PassiveAuthentication
    {
        PassiveAuthentication(
            status: status, reason: status == .valid ? nil : "because", signer: nil, signerIssuer: nil,
            matchedDataGroups: matched, mismatchedDataGroups: [])
    }

    private func proof(_ status: ChipAuthenticity.Status) -> ChipAuthenticity {
        ChipAuthenticity(status: status, algorithm: "X", reason: status == .valid ? nil : "because")
    }

    private static let proofs: [ChipAuthenticity.Status] = [
        .valid, .unverifiedKey, .invalid, .notSupported, .notChecked,
    ]

    @Test(
        "genuine only with valid passive authentication and a valid proof; any invalid part is not genuine",
        arguments: [PassiveAuthentication.Status.valid, .invalid, .unknownIssuer, .notChecked], proofs)
    func everyCombination(passiveStatus: PassiveAuthentication.Status, chip: ChipAuthenticity.Status) {
        for active in Self.proofs {
            let verdict = ChipVerdict(passive: passive(passiveStatus), chip: proof(chip), active: proof(active))
            let label = "\(passiveStatus) \(chip) \(active) -> \(verdict.status) \(verdict.reasons.map(\.code))"
            let anyInvalid =
                passiveStatus == .invalid || chip == .invalid || active == .invalid
                || (passiveStatus == .valid && (chip == .unverifiedKey || active == .unverifiedKey))
            let expected: ChipVerdict.Status
            if anyInvalid {
                expected = .notGenuine
            } else if passiveStatus == .valid && (chip == .valid || active == .valid) {
                expected = .genuine
            } else {
                expected = .notChecked
            }
            #expect(verdict.status == expected, "\(label)")
            #expect(verdict.reasons.isEmpty == (expected == .genuine), "\(label)")
            if passiveStatus != .valid { #expect(verdict.status != .genuine, "\(label)") }
        }
    }

    @Test("the reasons name what failed, passive authentication first")
    func reasonsNameWhatFailedFirst() {
        let verdict = ChipVerdict(passive: passive(.invalid), chip: proof(.invalid), active: proof(.notSupported))
        #expect(verdict.reasons.map(\.code) == [.passiveAuthenticationInvalid, .chipAuthenticationInvalid])
        let copy = ChipVerdict(passive: passive(.valid), chip: proof(.notSupported), active: proof(.notSupported))
        #expect(copy.status == .notChecked)
        #expect(copy.reasons.map(\.code) == [.noCloneCheck])
        let foreignKey = ChipVerdict(passive: passive(.valid), chip: proof(.unverifiedKey), active: proof(.valid))
        #expect(foreignKey.status == .notGenuine)
        #expect(foreignKey.reasons.map(\.code) == [.keyNotSigned])
    }

    @Test("a proof counts only for a key that passive authentication covers")
    func aProofCountsOnlyForAKeyPassiveAuthenticationCovers() {
        let proved = proof(.valid)
        #expect(proved.requiringCoverage(true, reason: "x").status == .valid)
        let uncovered = proved.requiringCoverage(false, reason: "DG15 is not covered")
        #expect(uncovered.status == .unverifiedKey)
        #expect(uncovered.reason == "DG15 is not covered")
        #expect(proof(.invalid).requiringCoverage(false, reason: "x").status == .invalid)
    }

    @Test("the date of expiry becomes the last second of that day; a malformed date gives none")
    func dateOfExpiryBecomesTheEndOfThatDay() {
        let now: Int64 = 1_795_000_000  // 2026-11-18
        #expect(PassportReader.expiryMoment("940623", now: now) == 772_415_999)  // 1994-06-23 23:59:59
        #expect(PassportReader.expiryMoment("310101", now: now) == 1_925_078_399)  // 2031-01-01 23:59:59
        #expect(PassportReader.expiryMoment("941323", now: now) == nil)
        #expect(PassportReader.expiryMoment("94062", now: now) == nil)
        #expect(PassportReader.expiryMoment("9406<3", now: now) == nil)
    }
}
