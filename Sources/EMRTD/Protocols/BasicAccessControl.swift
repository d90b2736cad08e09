/// Basic Access Control (ICAO Doc 9303-11, 4.3): proves knowledge of the MRZ key and sets up
/// secure messaging with fresh session keys.
enum BasicAccessControl {
    /// The values the terminal picks at random (injectable for the 9303-11 worked example).
    struct TerminalRandom {
        var nonce: [UInt8]
        var keyMaterial: [UInt8]

        static func fresh() throws(ChipError) -> TerminalRandom {
            TerminalRandom(nonce: try ChipCrypto.randomBytes(8), keyMaterial: try ChipCrypto.randomBytes(16))
        }
    }

    /// Runs GET CHALLENGE and EXTERNAL AUTHENTICATE on `session` and switches it to secure messaging.
    static func authenticate(
        _ session: ChipSession, key: MRZKey, random: TerminalRandom
    ) throws(ChipError) {
        let seed = try key.keySeed()
        let encryptionKey = try KeyDerivation.tripleDESKey(seed: seed, counter: 1)
        let macKey = try KeyDerivation.tripleDESKey(seed: seed, counter: 2)

        let challenge = try session.send(
            ChipCommand.getChallenge(), step: "GET CHALLENGE")
        guard challenge.isSuccess, challenge.data.count == 8 else {
            throw ChipError.unexpectedStatus(step: "GET CHALLENGE", sw: challenge.sw)
        }
        let chipNonce = challenge.data

        let plain = random.nonce + chipNonce + random.keyMaterial
        let encrypted = try ChipCrypto.tripleDES(plain, key: encryptionKey, encrypt: true)
        let mac = try ChipCrypto.retailMAC(encrypted, key: macKey)
        let answer = try session.send(
            ChipCommand.externalAuthenticate(encrypted + mac), step: "EXTERNAL AUTHENTICATE")
        guard answer.isSuccess else { throw ChipError.accessDenied(sw: answer.sw) }
        guard answer.data.count == 40,
            ChipCrypto.constantTimeEqual(
                try ChipCrypto.retailMAC(Array(answer.data.prefix(32)), key: macKey), Array(answer.data.suffix(8)))
        else { throw ChipError.accessDenied(sw: answer.sw) }
        let decrypted = try ChipCrypto.tripleDES(Array(answer.data.prefix(32)), key: encryptionKey, encrypt: false)
        guard ChipCrypto.constantTimeEqual(Array(decrypted[0..<8]), chipNonce),
            ChipCrypto.constantTimeEqual(Array(decrypted[8..<16]), random.nonce)
        else {
            throw ChipError.accessDenied(sw: answer.sw)
        }
        let chipKeyMaterial = Array(decrypted[16..<32])

        let sessionSeed = zip(random.keyMaterial, chipKeyMaterial).map { $0 ^ $1 }
        let counter = (chipNonce[4..<8] + random.nonce[4..<8]).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        session.secureMessaging = SecureMessaging(
            encryptionKey: try KeyDerivation.tripleDESKey(seed: sessionSeed, counter: 1),
            macKey: try KeyDerivation.tripleDESKey(seed: sessionSeed, counter: 2), sendSequenceCounter: counter)
    }
}
