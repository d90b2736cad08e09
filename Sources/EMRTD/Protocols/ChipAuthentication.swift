/// Chip Authentication with ECDH (ICAO Doc 9303-11, 6.2): an ephemeral key agreement with the
/// static key of DG14, after which secure messaging restarts with keys only the genuine chip can
/// compute. A cloned chip holds DG14 but not its private key, so it cannot answer under them.
enum ChipAuthentication {
    /// The terminal's ephemeral key pair on the chip's curve, made before any APDU is sent.
    struct Agreement {
        let key: SecurityOptions.ChipAuthenticationKey
        let curve: EllipticCurve
        let privateKey: [UInt8]
        let publicKey: [UInt8]

        /// Fails when the key's curve or point is unusable (nothing has been sent then).
        init(key: SecurityOptions.ChipAuthenticationKey) throws(ChipError) {
            self.key = key
            curve = try EllipticCurve(parameters: key.curveParameters[...])
            guard curve.isValidPoint(key.publicPoint) else {
                throw ChipError.malformed(
                    file: "DG14", reason: "the Chip Authentication key is not a point of its curve")
            }
            privateKey = try curve.randomScalar()
            publicKey = try curve.multiplyGenerator(by: privateKey)
        }
    }

    /// Sends the ephemeral public key (MSE:Set KAT for 3DES; MSE:Set AT and General Authenticate
    /// for AES) under the current secure messaging, then switches `session` to the new keys with a
    /// send sequence counter of zero. The chip proves itself by answering the next command.
    static func run(_ agreement: Agreement, on session: ChipSession) throws(ChipError) {
        let key = agreement.key
        if key.cipher == .tripleDES {
            try send(
                ChipCommand.setKeyAgreementTemplate(publicKey: agreement.publicKey, keyID: key.keyID),
                on: session, step: "MSE:Set KAT (Chip Authentication)")
        } else {
            try send(
                ChipCommand.setChipAuthenticationTemplate(protocol: key.protocolIdentifier, keyID: key.keyID),
                on: session, step: "MSE:Set AT (Chip Authentication)")
            try send(
                ChipCommand.generalAuthenticate(TLV.encode(tag: 0x80, value: agreement.publicKey), chained: false),
                on: session, step: "GENERAL AUTHENTICATE (Chip Authentication)")
        }
        let secret = agreement.curve.xCoordinate(
            try agreement.curve.multiply(key.publicPoint, by: agreement.privateKey))
        session.secureMessaging = SecureMessaging(
            cipher: key.cipher,
            encryptionKey: try KeyDerivation.sessionKey(
                secret: secret, counter: 1, cipher: key.cipher, keyLength: key.keyLength),
            macKey: try KeyDerivation.sessionKey(
                secret: secret, counter: 2, cipher: key.cipher, keyLength: key.keyLength),
            sendSequenceCounter: 0)
    }

    private static func send(_ command: CommandAPDU, on session: ChipSession, step: String) throws(ChipError) {
        let answer = try session.send(command, step: step)
        guard answer.isSuccess else { throw ChipError.unexpectedStatus(step: step, sw: answer.sw) }
    }
}
