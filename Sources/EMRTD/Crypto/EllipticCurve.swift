import COpenSSL

/// The elliptic-curve arithmetic PACE and Chip Authentication need, on a standardized or given curve, through
/// libcrypto's EC_POINT functions. Points travel as uncompressed encodings (`04 || x || y`), scalars
/// as big-endian bytes.
final class EllipticCurve {
    private let group: OpaquePointer
    private let context: OpaquePointer
    /// Bytes of one coordinate.
    let fieldSize: Int

    /// libcrypto's curve for each standardized domain parameter ID (ICAO Doc 9303-11, 9.5.1).
    private static let curves: [Int: Int32] = [
        8: NID_X9_62_prime192v1, 9: NID_brainpoolP192r1, 10: NID_secp224r1, 11: NID_brainpoolP224r1,
        12: NID_X9_62_prime256v1, 13: NID_brainpoolP256r1, 14: NID_brainpoolP320r1, 15: NID_secp384r1,
        16: NID_brainpoolP384r1, 17: NID_brainpoolP512r1, 18: NID_secp521r1,
    ]

    static func supports(parameterID: Int) -> Bool { curves[parameterID] != nil }

    convenience init(parameterID: Int) throws(ChipError) {
        guard let nid = Self.curves[parameterID] else {
            throw ChipError.crypto("no elliptic curve for domain parameters \(parameterID)")
        }
        guard let group = EC_GROUP_new_by_curve_name(nid) else { throw ChipError.crypto("EC_GROUP_new_by_curve_name") }
        try self.init(owning: group)
    }

    /// The curve of DER-encoded ECParameters (a named curve's object identifier, or explicit
    /// parameters, as a SubjectPublicKeyInfo carries them).
    convenience init(parameters: ArraySlice<UInt8>) throws(ChipError) {
        let bytes = Array(parameters)
        let group = bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECPKParameters(nil, &cursor, buffer.count)
        }
        guard let group else { throw ChipError.crypto("elliptic-curve parameters libcrypto cannot read") }
        try self.init(owning: group)
    }

    private init(owning group: OpaquePointer) throws(ChipError) {
        guard let context = BN_CTX_new() else {
            EC_GROUP_free(group)
            throw ChipError.crypto("BN_CTX_new")
        }
        self.group = group
        self.context = context
        fieldSize = (Int(EC_GROUP_get_degree(group)) + 7) / 8
    }

    deinit {
        BN_CTX_free(context)
        EC_GROUP_free(group)
    }

    /// A random private key in [1, order - 1].
    func randomScalar() throws(ChipError) -> [UInt8] {
        guard let order = EC_GROUP_get0_order(group) else { throw ChipError.crypto("EC_GROUP_get0_order") }
        guard let scalar = BN_new() else { throw ChipError.crypto("BN_new") }
        defer { BN_clear_free(scalar) }
        repeat {
            guard BN_rand_range(scalar, order) == 1 else { throw ChipError.crypto("BN_rand_range") }
        } while BN_is_zero(scalar) == 1
        var bytes = [UInt8](repeating: 0, count: fieldSize)
        guard BN_bn2binpad(scalar, &bytes, Int32(fieldSize)) == Int32(fieldSize) else {
            throw ChipError.crypto("BN_bn2binpad")
        }
        return bytes
    }

    /// `scalar * G + point` with the curve's own generator `G`; `point` may be `nil`.
    func multiplyGenerator(by scalar: [UInt8], adding point: [UInt8]? = nil) throws(ChipError) -> [UInt8] {
        try withBigNumber(scalar) { n throws(ChipError) -> [UInt8] in
            guard let point else { return try compute { EC_POINT_mul(group, $0, n, nil, nil, context) } }
            return try withPoint(point) { q throws(ChipError) -> [UInt8] in
                try withBigNumber([1]) { one throws(ChipError) -> [UInt8] in
                    try compute { EC_POINT_mul(group, $0, n, q, one, context) }
                }
            }
        }
    }

    /// `scalar * point`.
    func multiply(_ point: [UInt8], by scalar: [UInt8]) throws(ChipError) -> [UInt8] {
        try withBigNumber(scalar) { m throws(ChipError) -> [UInt8] in
            try withPoint(point) { q throws(ChipError) -> [UInt8] in
                try compute { EC_POINT_mul(group, $0, nil, q, m, context) }
            }
        }
    }

    /// Whether `point` is an encoded point of this curve other than the point at infinity.
    func isValidPoint(_ point: [UInt8]) -> Bool {
        (try? withPoint(point) { _ throws(ChipError) in }) != nil
    }

    /// The x coordinate of an encoded point.
    func xCoordinate(_ point: [UInt8]) -> [UInt8] { Array(point.dropFirst().prefix(fieldSize)) }

    private func compute(_ operation: (OpaquePointer) -> Int32) throws(ChipError) -> [UInt8] {
        guard let result = EC_POINT_new(group) else { throw ChipError.crypto("EC_POINT_new") }
        defer { EC_POINT_free(result) }
        guard operation(result) == 1 else { throw ChipError.crypto("EC_POINT_mul") }
        guard EC_POINT_is_at_infinity(group, result) == 0 else { throw ChipError.crypto("a point at infinity") }
        var encoded = [UInt8](repeating: 0, count: 1 + 2 * fieldSize)
        guard
            EC_POINT_point2oct(group, result, POINT_CONVERSION_UNCOMPRESSED, &encoded, encoded.count, context)
                == encoded.count
        else { throw ChipError.crypto("EC_POINT_point2oct") }
        return encoded
    }

    /// Runs `body` with `encoded` decoded; throws unless it is a point of this curve, not infinity.
    private func withPoint<T>(
        _ encoded: [UInt8], _ body: (OpaquePointer) throws(ChipError) -> T
    ) throws(ChipError) -> T {
        guard let point = EC_POINT_new(group) else { throw ChipError.crypto("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard encoded.first == 0x04, encoded.count == 1 + 2 * fieldSize,
            EC_POINT_oct2point(group, point, encoded, encoded.count, context) == 1,
            EC_POINT_is_on_curve(group, point, context) == 1, EC_POINT_is_at_infinity(group, point) == 0
        else { throw ChipError.crypto("a public key that is not a point of the curve") }
        return try body(point)
    }

    private func withBigNumber<T>(
        _ bytes: [UInt8], _ body: (OpaquePointer) throws(ChipError) -> T
    ) throws(ChipError) -> T {
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw ChipError.crypto("BN_bin2bn") }
        defer { BN_clear_free(number) }
        return try body(number)
    }
}
