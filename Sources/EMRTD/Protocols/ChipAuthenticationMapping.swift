/// PACE with Chip Authentication Mapping (ICAO Doc 9303-11, 4.4.3.3.3 and 4.4.3.5): the chip ends
/// PACE by sending, encrypted, the number CA_IC that turns its static public key PK_IC (signed in
/// EF.CardSecurity) into the mapping key it used: PK_Map,IC = CA_IC · PK_IC. Only the holder of the
/// static private key can compute it, so a copied chip cannot pass.
enum ChipAuthenticationMapping {
    /// What PACE leaves to check once EF.CardSecurity is read.
    struct Proof {
        /// The curve of the PACE run (the chip's static key lies on it too).
        let curve: EllipticCurve
        /// The chip's mapping public key PK_Map,IC, uncompressed.
        let chipMappingKey: [UInt8]
        /// CA_IC as the chip sent it, decrypted; `nil` when the chip sent none.
        let chipAuthenticationData: [UInt8]?
        /// The protocol's name for verdicts, e.g. `PACE-CAM-AES-128`.
        let algorithm: String

        func verdict(_ status: ChipAuthenticity.Status, _ reason: String? = nil) -> ChipAuthenticity {
            ChipAuthenticity(status: status, algorithm: algorithm, reason: reason)
        }
    }

    /// id-PK-ECDH (0.4.0.127.0.7.2.2.1.2): a ChipAuthenticationPublicKeyInfo with an elliptic-curve key.
    static let ecdhPublicKey: [UInt8] = SecurityOptions.publicKeyPrefix + [0x02]

    /// Decrypts the Encrypted Chip Authentication Data (object 8A of the last General
    /// Authenticate): AES-CBC under the session encryption key with IV = E(KS_enc, all ones), ISO/IEC
    /// 9797-1 padding method 2.
    static func decrypt(_ encrypted: [UInt8], encryptionKey: [UInt8]) throws(ChipError) -> [UInt8] {
        let iv = try ChipCrypto.aesBlock([UInt8](repeating: 0xFF, count: 16), key: encryptionKey)
        guard !encrypted.isEmpty, encrypted.count % 16 == 0,
            let plain = ChipCrypto.unpaddedISO9797(
                try ChipCrypto.aes(encrypted, key: encryptionKey, iv: iv, encrypt: false))
        else {
            throw ChipError.malformed(
                file: "GENERAL AUTHENTICATE (PACE step 4)", reason: "the chip authentication data is not padded blocks")
        }
        return plain
    }

    /// The verdict of `proof` against the static keys EF.CardSecurity (`file`, as read) lists. Whether
    /// EF.CardSecurity itself is genuine is settled after passive authentication, in
    /// ``PassportReader/verify(_:store:now:)``.
    static func verify(_ proof: Proof, cardSecurity file: [UInt8]?) -> ChipAuthenticity {
        guard let file else {
            return proof.verdict(
                .notChecked, "the chip offers PACE with Chip Authentication Mapping but no EF.CardSecurity")
        }
        do {
            return verify(proof, staticKeys: try staticKeys(inCardSecurity: file))
        } catch {
            return proof.verdict(.notChecked, error.description)
        }
    }

    /// The verdict of `proof` against the chip's static public keys (uncompressed points).
    static func verify(_ proof: Proof, staticKeys keys: [[UInt8]]) -> ChipAuthenticity {
        guard !keys.isEmpty else {
            return proof.verdict(.notChecked, "EF.CardSecurity holds no elliptic-curve chip key")
        }
        guard let scalar = proof.chipAuthenticationData, !scalar.isEmpty else {
            return proof.verdict(.invalid, "the chip sent no chip authentication data at the end of PACE")
        }
        for key in keys where proof.curve.isValidPoint(key) {
            if let product = try? proof.curve.multiply(key, by: scalar), product == proof.chipMappingKey {
                return proof.verdict(.valid)
            }
        }
        return proof.verdict(
            .invalid, "the chip authentication data does not turn the key in EF.CardSecurity into the chip's PACE key")
    }

    /// The elliptic-curve public points of the ChipAuthenticationPublicKeyInfos in EF.CardSecurity
    /// (a SignedData whose content is SecurityInfos).
    static func staticKeys(inCardSecurity file: [UInt8]) throws(ChipError) -> [[UInt8]] {
        let content = try OpenSSLCMS.signedContent(of: file, file: "EF.CardSecurity")
        guard let set = try TLV.sequence(content[...]).first, set.tag == 0x31 else {
            throw ChipError.malformed(file: "EF.CardSecurity", reason: "not a SET of SecurityInfos")
        }
        var keys: [[UInt8]] = []
        for info in try TLV.sequence(set.value) where info.tag == 0x30 {
            let fields = try TLV.sequence(info.value)
            guard fields.count >= 2, fields[0].tag == 0x06, fields[0].value.elementsEqual(ecdhPublicKey),
                fields[1].tag == 0x30
            else { continue }
            let publicKey = try TLV.sequence(fields[1].value)
            guard publicKey.count == 2, publicKey[1].tag == 0x03, publicKey[1].value.first == 0x00 else { continue }
            keys.append(Array(publicKey[1].value.dropFirst()))
        }
        return keys
    }
}
