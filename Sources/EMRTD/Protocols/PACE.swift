/// Password Authenticated Connection Establishment with ECDH generic or chip authentication mapping
/// (ICAO Doc 9303-11, 4.4): proves knowledge of the MRZ key or the CAN without exposing it, and sets
/// up secure messaging with 3DES or AES session keys.
enum PACE {
    /// The values the terminal picks at random (injectable for the 9303-11 worked example).
    struct TerminalRandom {
        var mappingKey: [UInt8]
        var ephemeralKey: [UInt8]

        static func fresh(on curve: EllipticCurve) throws(ChipError) -> TerminalRandom {
            TerminalRandom(mappingKey: try curve.randomScalar(), ephemeralKey: try curve.randomScalar())
        }
    }

    /// Runs MSE:Set AT and the four General Authenticate steps on `session` (which must not be in
    /// secure messaging) and switches it to secure messaging with the new session keys.
    ///
    /// Throws ``ChipError/accessControlUnavailable(_:)`` when the chip refuses the protocol itself
    /// (so the caller may fall back to BAC), ``ChipError/accessDenied(sw:)`` when the password is wrong.
    /// With chip authentication mapping, returns what the chip sent to prove itself, to be checked
    /// once EF.CardSecurity is read.
    @discardableResult
    static func authenticate(
        _ session: ChipSession, key: AccessKey, info: PACEInfo,
        random: ((EllipticCurve) throws(ChipError) -> TerminalRandom)? = nil
    ) throws(ChipError) -> ChipAuthenticationMapping.Proof? {
        let curve = try EllipticCurve(parameterID: info.parameterID)
        let picked: TerminalRandom
        if let random { picked = try random(curve) } else { picked = try .fresh(on: curve) }

        let setUp = try session.send(
            ChipCommand.setPACEAuthenticationTemplate(
                protocol: info.protocolIdentifier, password: key.passwordReference,
                parameterID: info.namesParameters ? UInt8(truncatingIfNeeded: info.parameterID) : nil),
            step: "MSE:Set AT")
        guard setUp.isSuccess else {
            throw ChipError.accessControlUnavailable("the chip refused PACE (MSE:Set AT answered \(hex(setUp.sw)))")
        }

        // 1. The chip's nonce, encrypted with the password key.
        let passwordKey = try deriveKey(try key.pacePassword(), counter: 3, info: info)
        let encryptedNonce = try generalAuthenticate(session, sending: [], answerTag: 0x80, step: 1)
        let nonce = try decryptNonce(encryptedNonce, key: passwordKey, info: info)

        // 2. Generic mapping: G~ = s * G + H, with H the ECDH secret of two throwaway key pairs.
        let mappingPublic = try curve.multiplyGenerator(by: picked.mappingKey)
        let chipMappingPublic = try generalAuthenticate(
            session, sending: TLV.encode(tag: 0x81, value: mappingPublic), answerTag: 0x82, step: 2)
        guard curve.isValidPoint(chipMappingPublic) else {
            throw ChipError.secureMessaging(step: "PACE mapping", reason: "the chip's key is not a point of the curve")
        }
        let shared = try curve.multiply(chipMappingPublic, by: picked.mappingKey)
        let mappedGenerator = try curve.multiplyGenerator(by: nonce, adding: shared)

        // 3. Key agreement on the mapped generator.
        let ephemeralPublic = try curve.multiply(mappedGenerator, by: picked.ephemeralKey)
        let chipEphemeralPublic = try generalAuthenticate(
            session, sending: TLV.encode(tag: 0x83, value: ephemeralPublic), answerTag: 0x84, step: 3)
        guard curve.isValidPoint(chipEphemeralPublic), chipEphemeralPublic != ephemeralPublic else {
            throw ChipError.secureMessaging(step: "PACE key agreement", reason: "the chip's key is not acceptable")
        }
        let secret = curve.xCoordinate(try curve.multiply(chipEphemeralPublic, by: picked.ephemeralKey))
        let encryptionKey = try deriveKey(secret, counter: 1, info: info)
        let macKey = try deriveKey(secret, counter: 2, info: info)

        // 4. Mutual authentication: each side MACs the other's ephemeral public key. The chip
        // answers an error here when the password was wrong.
        let token = try authenticationToken(for: chipEphemeralPublic, macKey: macKey, info: info)
        let answer = try session.send(
            ChipCommand.generalAuthenticate(TLV.encode(tag: 0x85, value: token), chained: false),
            step: "GENERAL AUTHENTICATE (mutual authentication)")
        guard answer.isSuccess else { throw ChipError.accessDenied(sw: answer.sw) }
        let chipToken = try dynamicObject(answer.data, tag: 0x86, step: 4)
        guard
            ChipCrypto.constantTimeEqual(
                chipToken, try authenticationToken(for: ephemeralPublic, macKey: macKey, info: info))
        else {
            throw ChipError.accessDenied(sw: answer.sw)
        }
        session.secureMessaging = SecureMessaging(
            cipher: info.cipher, encryptionKey: encryptionKey, macKey: macKey, sendSequenceCounter: 0)
        guard info.mapping == .chipAuthentication else { return nil }
        // The chip's proof (8A) travels with its token; without it, or undecipherable, it proves nothing.
        let encrypted = try? dynamicObject(answer.data, tag: 0x8A, step: 4)
        return ChipAuthenticationMapping.Proof(
            curve: curve, chipMappingKey: chipMappingPublic,
            chipAuthenticationData: encrypted.flatMap {
                try? ChipAuthenticationMapping.decrypt($0, encryptionKey: encryptionKey)
            },
            algorithm: info.algorithm)
    }

    /// One chained General Authenticate step (CLA 10): sends `objects` in a dynamic authentication
    /// data object (7C; empty in step 1) and returns the chip's object `answerTag`.
    private static func generalAuthenticate(
        _ session: ChipSession, sending objects: [UInt8], answerTag: UInt32, step: Int
    ) throws(ChipError) -> [UInt8] {
        let answer = try session.send(
            ChipCommand.generalAuthenticate(objects, chained: true),
            step: "GENERAL AUTHENTICATE (PACE step \(step))")
        guard answer.isSuccess else {
            throw ChipError.unexpectedStatus(step: "GENERAL AUTHENTICATE (PACE step \(step))", sw: answer.sw)
        }
        return try dynamicObject(answer.data, tag: answerTag, step: step)
    }

    private static func dynamicObject(_ data: [UInt8], tag: UInt32, step: Int) throws(ChipError) -> [UInt8] {
        guard let outer = try TLV.sequence(data[...]).first, outer.tag == 0x7C,
            let object = try TLV.sequence(outer.value).first(where: { $0.tag == tag })
        else {
            throw ChipError.malformed(
                file: "GENERAL AUTHENTICATE (PACE step \(step))", reason: "no object \(String(tag, radix: 16))")
        }
        return Array(object.value)
    }

    /// KDF(K, c) of 9303-11, 9.7.1, for the PACE set-up's cipher.
    static func deriveKey(_ secret: [UInt8], counter: UInt8, info: PACEInfo) throws(ChipError) -> [UInt8] {
        try KeyDerivation.sessionKey(secret: secret, counter: counter, cipher: info.cipher, keyLength: info.keyLength)
    }

    static func decryptNonce(_ encrypted: [UInt8], key: [UInt8], info: PACEInfo) throws(ChipError) -> [UInt8] {
        guard !encrypted.isEmpty, encrypted.count % info.cipher.blockSize == 0 else {
            throw ChipError.malformed(
                file: "GENERAL AUTHENTICATE (PACE step 1)", reason: "the nonce is not whole blocks")
        }
        return try info.cipher.crypt(encrypted, key: key, encrypt: false)
    }

    /// The authentication token: the MAC of the public key data object (7F49: protocol and point).
    static func authenticationToken(for point: [UInt8], macKey: [UInt8], info: PACEInfo) throws(ChipError) -> [UInt8] {
        let keyData = TLV.encode(
            tag: 0x7F49,
            value: TLV.encode(tag: 0x06, value: info.protocolIdentifier) + TLV.encode(tag: 0x86, value: point))
        return try info.cipher.mac(keyData, key: macKey)
    }
}
