import XCTest

@testable import EMRTD

/// The summary verdict over every combination of passive authentication and the chip's proofs:
/// `genuine` only with a valid passive authentication and a valid proof, never otherwise.
final class ChipVerdictTests: XCTestCase {
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

    func testEveryCombination() {
        let proofs: [ChipAuthenticity.Status] = [.valid, .unverifiedKey, .invalid, .notSupported, .notChecked]
        let passives: [PassiveAuthentication.Status] = [.valid, .invalid, .unknownIssuer, .notChecked]
        for passiveStatus in passives {
            for chip in proofs {
                for active in proofs {
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
                    XCTAssertEqual(verdict.status, expected, label)
                    XCTAssertEqual(verdict.reasons.isEmpty, expected == .genuine, label)
                    if passiveStatus != .valid { XCTAssertNotEqual(verdict.status, .genuine, label) }
                }
            }
        }
    }

    func testReasonsNameWhatFailedFirst() {
        let verdict = ChipVerdict(passive: passive(.invalid), chip: proof(.invalid), active: proof(.notSupported))
        XCTAssertEqual(verdict.reasons.map(\.code), [.passiveAuthenticationInvalid, .chipAuthenticationInvalid])
        let copy = ChipVerdict(passive: passive(.valid), chip: proof(.notSupported), active: proof(.notSupported))
        XCTAssertEqual(copy.status, .notChecked)
        XCTAssertEqual(copy.reasons.map(\.code), [.noCloneCheck])
        let foreignKey = ChipVerdict(passive: passive(.valid), chip: proof(.unverifiedKey), active: proof(.valid))
        XCTAssertEqual(foreignKey.status, .notGenuine)
        XCTAssertEqual(foreignKey.reasons.map(\.code), [.keyNotSigned])
    }

    func testAProofCountsOnlyForAKeyPassiveAuthenticationCovers() {
        let proved = proof(.valid)
        XCTAssertEqual(proved.requiringCoverage(true, reason: "x").status, .valid)
        let uncovered = proved.requiringCoverage(false, reason: "DG15 is not covered")
        XCTAssertEqual(uncovered.status, .unverifiedKey)
        XCTAssertEqual(uncovered.reason, "DG15 is not covered")
        XCTAssertEqual(proof(.invalid).requiringCoverage(false, reason: "x").status, .invalid)
    }

    func testDateOfExpiryBecomesTheEndOfThatDay() {
        let now: Int64 = 1_795_000_000  // 2026-11-18
        XCTAssertEqual(PassportReader.expiryMoment("940623", now: now), 772_415_999)  // 1994-06-23 23:59:59
        XCTAssertEqual(PassportReader.expiryMoment("310101", now: now), 1_925_078_399)  // 2031-01-01 23:59:59
        XCTAssertNil(PassportReader.expiryMoment("941323", now: now))
        XCTAssertNil(PassportReader.expiryMoment("94062", now: now))
        XCTAssertNil(PassportReader.expiryMoment("9406<3", now: now))
    }
}
