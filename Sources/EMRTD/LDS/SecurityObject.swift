/// The Document Security Object (EF.SOD, ICAO Doc 9303-10 4.6.2): a CMS SignedData over the
/// hashes of the data groups, signed by the Document Signer.
public struct SecurityObject: Sendable {
    /// The DER ContentInfo inside the file's 0x77 wrapper.
    public let signedData: [UInt8]
    /// The hash algorithm of ``dataGroupHashes``.
    public let digestAlgorithm: DigestAlgorithm
    /// The hash of each data group, by number.
    public let dataGroupHashes: [Int: [UInt8]]

    /// Parses EF.SOD's content; the hashes are read from the signed content, not yet trusted.
    public init(file: [UInt8]) throws(ChipError) {
        guard let wrapper = try? TLV.parse(file[...], at: 0), wrapper.tag == 0x77 else {
            throw ChipError.malformed(file: "EF.SOD", reason: "no 0x77 wrapper")
        }
        signedData = Array(wrapper.value)
        let content = try OpenSSLCMS.signedContent(of: signedData, file: "EF.SOD")
        (digestAlgorithm, dataGroupHashes) = try Self.parseLDSSecurityObject(content)
    }

    /// LDSSecurityObject ::= SEQUENCE { version INTEGER, hashAlgorithm AlgorithmIdentifier,
    /// dataGroupHashValues SEQUENCE OF DataGroupHash { dataGroupNumber INTEGER, dataGroupHashValue OCTET STRING },
    /// ldsVersionInfo LDSVersionInfo OPTIONAL } (ICAO Doc 9303-10, 4.6.2.2): version 0 without
    /// ldsVersionInfo, version 1 with it, nothing else. Each data group (1 to 16) has exactly one
    /// hash, of the algorithm's length: a data group listed twice would let the order of the
    /// entries decide which hash counts, so it is refused.
    static func parseLDSSecurityObject(_ der: [UInt8]) throws(ChipError) -> (DigestAlgorithm, [Int: [UInt8]]) {
        func fail(_ reason: String) -> ChipError { .malformed(file: "LDSSecurityObject", reason: reason) }
        guard let outer = try? TLV.parse(der[...], at: 0), outer.tag == 0x30 else { throw fail("not a SEQUENCE") }
        let fields = try TLV.sequence(outer.value)
        guard fields.count >= 3, fields[0].tag == 0x02, fields[1].tag == 0x30, fields[2].tag == 0x30 else {
            throw fail("unexpected structure")
        }
        switch (Array(fields[0].value), fields.count) {
        case ([0], 3): break
        case ([1], 4):
            let info = try TLV.sequence(fields[3].value)
            guard fields[3].tag == 0x30, info.count == 2, info.allSatisfy({ $0.tag == 0x13 }) else {
                throw fail("version 1 without an LDSVersionInfo of two PrintableStrings")
            }
        case ([0], _), ([1], _):
            throw fail("version \(fields[0].value.first ?? 0) with \(fields.count) fields")
        default:
            throw fail("unknown version (ICAO Doc 9303-10 knows 0 and 1)")
        }
        guard let oid = try TLV.sequence(fields[1].value).first, oid.tag == 0x06 else {
            throw fail("no hash algorithm")
        }
        let dotted = DERObjectIdentifier.dotted(Array(oid.value))
        guard let algorithm = DigestAlgorithm(oid: dotted) else { throw fail("unknown hash algorithm \(dotted)") }
        let hashLength = try ChipCrypto.digest([], algorithm: algorithm).count
        var hashes: [Int: [UInt8]] = [:]
        for entry in try TLV.sequence(fields[2].value) {
            let parts = try TLV.sequence(entry.value)
            guard entry.tag == 0x30, parts.count == 2, parts[0].tag == 0x02, parts[1].tag == 0x04,
                let number = parts[0].value.last, parts[0].value.count == 1
            else { throw fail("malformed DataGroupHash") }
            guard (1...16).contains(number) else { throw fail("a hash for data group \(number), which does not exist") }
            guard hashes[Int(number)] == nil else { throw fail("DG\(number) is listed twice") }
            guard parts[1].value.count == hashLength else {
                throw fail(
                    "the hash of DG\(number) is \(parts[1].value.count) bytes, not \(hashLength) (\(algorithm.rawValue))"
                )
            }
            hashes[Int(number)] = Array(parts[1].value)
        }
        guard !hashes.isEmpty else { throw fail("no data group hashes") }
        return (algorithm, hashes)
    }
}

/// Object identifiers in DER.
enum DERObjectIdentifier {
    /// The dotted form of an OID's content bytes, e.g. `2.16.840.1.101.3.4.2.1`.
    static func dotted(_ bytes: [UInt8]) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in bytes {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                if arcs.isEmpty {
                    let first: UInt64 = value < 40 ? 0 : (value < 80 ? 1 : 2)
                    arcs += [first, value - first * 40]
                } else {
                    arcs.append(value)
                }
                value = 0
            }
        }
        return arcs.map(String.init).joined(separator: ".")
    }
}
