import Testing

@testable import EMRTD

/// PACE with Chip Authentication Mapping from the terminal's side, with values made by an independent
/// implementation (Python's pycryptodome) on NIST P-256: the chip's static key PK_IC, its mapping key
/// PK_Map,IC, and CA_IC = SK_IC⁻¹ · SK_Map,IC encrypted under the session key 000102…0F with
/// IV = E(KS_enc, FF…FF).
@Suite("PACE with Chip Authentication Mapping")
struct ChipAuthenticationMappingTests {
    private let staticKey = bytes(
        "0488E1ECD339C31647A3D728B16BFC69884DD898E86F53368EDA00B0AD6C65EFACE212B8FAC3E8E93379B4BE4938FFD3426667CED085AFFFA48A54A7D8522B1FE8"
    )
    private let mappingKey = bytes(
        "046413E370318A922CECFAA94BA2188DD419F586356FA774C766CD6C450295FEE95DCE9CE0557B0A8F1CEF5C663F362CFFFC910E3094AFC82BBBC7A0A92B0B6BDB"
    )
    private let encryptedData = bytes(
        "97C3311856C7C6C620C13C1AAF55E52D6D9A8AAAAD9EEA94C731E2D923C89FF3EF1EEFCD959E170FE5E473295EA4347C")
    private let sessionKey = bytes("000102030405060708090A0B0C0D0E0F")

    @Test("the chip authentication data decrypts to CA_IC, and a truncated cryptogram is refused")
    func theChipAuthenticationDataDecrypts() throws {
        #expect(
            try ChipAuthenticationMapping.decrypt(encryptedData, encryptionKey: sessionKey).hexString
                == "64465868B9E002075903C19233D08D6C337A5741A5BF6F7DA5723397ED350F09")
        #expect(throws: (any Error).self) {
            try ChipAuthenticationMapping.decrypt(Array(encryptedData.prefix(20)), encryptionKey: sessionKey)
        }
    }

    @Test("a genuine chip's proof is valid; a forged or missing one is invalid; no static key is not checked")
    func aGenuineChipPassesAndACopyDoesNot() throws {
        let curve = try EllipticCurve(parameterID: 12)
        let data = try ChipAuthenticationMapping.decrypt(encryptedData, encryptionKey: sessionKey)
        func proof(_ data: [UInt8]?) -> ChipAuthenticationMapping.Proof {
            .init(curve: curve, chipMappingKey: mappingKey, chipAuthenticationData: data, algorithm: "PACE-CAM-AES-128")
        }
        #expect(
            ChipAuthenticationMapping.verify(proof(data), staticKeys: [staticKey])
                == ChipAuthenticity(status: .valid, algorithm: "PACE-CAM-AES-128"))
        // Another key among them does not spoil it; the right one anywhere will do.
        #expect(ChipAuthenticationMapping.verify(proof(data), staticKeys: [mappingKey, staticKey]).status == .valid)
        // A copied chip has to make up CA_IC without the static private key.
        var forged = data
        forged[forged.count - 1] ^= 0x01
        #expect(ChipAuthenticationMapping.verify(proof(forged), staticKeys: [staticKey]).status == .invalid)
        #expect(ChipAuthenticationMapping.verify(proof(nil), staticKeys: [staticKey]).status == .invalid)
        #expect(ChipAuthenticationMapping.verify(proof(data), staticKeys: []).status == .notChecked)
        #expect(ChipAuthenticationMapping.verify(proof(data), cardSecurity: nil).status == .notChecked)
    }

    @Test("EF.CardAccess lists chip authentication mapping before generic mapping, and leaves out CAM with 3DES")
    func cardAccessListsChipAuthenticationMappingFirst() throws {
        // Generic mapping AES-256 and chip authentication mapping AES-128, both on NIST P-256; and
        // CAM with 3DES, which the protocol does not define.
        let access = bytes(
            "313C" + "3012060A04007F0007020204020402010202010C" + "3012060A04007F0007020204060202010202010C"
                + "3012060A04007F0007020204060102010202010C")
        let infos = try PACEInfo.supported(inCardAccess: access)
        #expect(infos.map(\.mapping) == [.chipAuthentication, .generic])
        #expect(infos.map(\.algorithm) == ["PACE-CAM-AES-128", "PACE-GM-AES-256"])
        #expect(infos.allSatisfy { $0.namesParameters })
    }
}
