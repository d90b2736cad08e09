import FoundationEssentials

/// Which origins may talk to the bridge and be navigated to at top level.
///
/// Origins are compared in the form a page sees in `location.origin`: URLs are
/// canonicalised the way the WHATWG URL standard does it, so `http://127.1/`,
/// `http://0x7f.0.0.1/`, `http://127.0.0.1./` and `HTTP://127.0.0.1:80` all mean
/// `http://127.0.0.1`, and `http://[0:0::1]` means `http://[::1]`. Host names
/// outside ASCII are not converted to their `xn--` form: such an origin never
/// matches, so it is refused rather than confused with another.
public struct OriginPolicy: Sendable, Equatable {
    /// Allowed origins in serialized form (`https://example.com`, `http://localhost:8080`, `file://`).
    public var allowedOrigins: [String]

    /// A policy allowing exactly the given origins (URLs are reduced to their origin).
    public init(allowedOrigins: [String]) {
        var origins: [String] = []
        for origin in allowedOrigins.compactMap(Self.origin(ofURLString:)) where !origins.contains(origin) {
            origins.append(origin)
        }
        self.allowedOrigins = origins
    }

    /// The default policy for a journey: only the journey URL's origin.
    public init(journeyURL: URL) {
        self.allowedOrigins = Self.origin(of: journeyURL).map { [$0] } ?? []
    }

    /// Whether a top-level document at `urlString` may run the journey.
    public func allows(urlString: String) -> Bool {
        guard let origin = Self.origin(ofURLString: urlString) else { return false }
        return allowedOrigins.contains(origin)
    }

    /// The serialized origin of a URL string, or `nil` when it has none the bridge accepts.
    public static func origin(ofURLString text: String) -> String? {
        guard let components = components(ofURLString: text) else { return nil }
        guard components.scheme != "file" else { return "file://" }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(components.scheme)://\(components.host)\(port)"
    }

    /// The serialized origin of `url` as a page sees it in `location.origin`.
    public static func origin(of url: URL) -> String? {
        origin(ofURLString: url.absoluteString)
    }

    /// The parts of a URL that make its origin, canonicalised.
    struct Components: Equatable {
        /// `http`, `https` or `file`, in lower case.
        var scheme: String
        /// The canonical host (empty for `file`); IPv6 addresses in brackets.
        var host: String
        /// The port, or `nil` for the scheme's default one.
        var port: Int?
    }

    /// Splits and canonicalises `text`; `nil` when it is not an http(s) or file URL with a valid host.
    static func components(ofURLString text: String) -> Components? {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" })
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let scheme = trimmed[..<colon].lowercased()
        let rest = trimmed[trimmed.index(after: colon)...]
        if scheme == "file" { return Components(scheme: "file", host: "", port: nil) }
        guard scheme == "http" || scheme == "https" else { return nil }
        let afterSlashes = rest.drop(while: { $0 == "/" || $0 == "\\" })
        guard afterSlashes.count <= rest.count - 2 else { return nil }
        var authority = afterSlashes.prefix(while: { !"/\\?#".contains($0) })
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }

        var hostText: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostText = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let portColon = authority.lastIndex(of: ":") {
            hostText = authority[..<portColon]
            portText = authority[authority.index(after: portColon)...]
        } else {
            hostText = authority
        }

        var port: Int?
        if let portText, !portText.isEmpty {
            let significant = portText.drop(while: { $0 == "0" })
            guard portText.allSatisfy(\.isASCIIDigit), significant.count <= 5,
                let number = significant.isEmpty ? 0 : Int(significant), number <= 65535
            else { return nil }
            port = number == (scheme == "https" ? 443 : 80) ? nil : number
        }
        guard let host = canonicalHost(String(hostText)) else { return nil }
        return Components(scheme: scheme, host: host, port: port)
    }

    /// The WHATWG canonical form of a host: IPv6 compressed in brackets, IPv4 in dotted
    /// decimal (from any of its number forms), domains percent-decoded and in lower case.
    static func canonicalHost(_ text: String) -> String? {
        if text.hasPrefix("[") {
            guard text.hasSuffix("]"), let address = IPv6Address(String(text.dropFirst().dropLast())) else {
                return nil
            }
            return "[\(address.description)]"
        }
        guard let decoded = percentDecoded(text) else { return nil }
        let domain = decoded.lowercased()
        guard !domain.isEmpty,
            !domain.contains(where: { " #%/:<>?@[\\]^|".contains($0) || $0.asciiValue.map { $0 < 0x21 } == true })
        else { return nil }
        if endsInNumber(domain) {
            return ipv4(domain).map(dottedDecimal)
        }
        return domain
    }

    private static func percentDecoded(_ text: String) -> String? {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func endsInNumber(_ domain: String) -> Bool {
        var labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.last == "" {
            guard labels.count > 1 else { return false }
            labels.removeLast()
        }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.allSatisfy(\.isASCIIDigit) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// Parses an IPv4 address in any of the forms WHATWG accepts (`127.1`, `0x7f.0.0.1`, `017700000001`).
    private static func ipv4(_ text: String) -> UInt32? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "" { parts.removeLast() }
        guard !parts.isEmpty, parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = ipv4Number(part) else { return nil }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        let lastLimit = UInt64(1) << (8 * UInt64(5 - numbers.count))
        guard numbers[numbers.count - 1] < lastLimit else { return nil }
        var address = numbers[numbers.count - 1]
        for (index, number) in numbers.dropLast().enumerated() {
            address += number << (8 * UInt64(3 - index))
        }
        return UInt32(address)
    }

    private static func ipv4Number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part
        var radix = 10
        if digits.count >= 2, digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.hasPrefix("0") {
            digits = digits.dropFirst()
            radix = 8
        }
        if digits.isEmpty { return 0 }
        guard digits.count <= 32 else { return nil }
        return UInt64(digits, radix: radix)
    }

    private static func dottedDecimal(_ address: UInt32) -> String {
        (0..<4).map { String((address >> (8 * (3 - $0))) & 0xFF) }.joined(separator: ".")
    }
}

/// An IPv6 address, for canonical comparison of origins.
struct IPv6Address: CustomStringConvertible {
    var pieces: [UInt16]

    /// Parses the text between the brackets of a URL host (`::1`, `0:0::1`, `::ffff:127.0.0.1`).
    init?(_ text: String) {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func parse(_ half: String, allowsIPv4: Bool) -> [UInt16]? {
            guard !half.isEmpty else { return [] }
            var result: [UInt16] = []
            let groups = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, group) in groups.enumerated() {
                if allowsIPv4, index == groups.count - 1, group.contains(".") {
                    let octets = group.split(separator: ".", omittingEmptySubsequences: false)
                    guard octets.count == 4 else { return nil }
                    var bytes: [UInt16] = []
                    for octet in octets {
                        guard !octet.isEmpty, octet.count <= 3, octet.allSatisfy(\.isASCIIDigit),
                            octet.count == 1 || !octet.hasPrefix("0"), let value = UInt16(octet), value <= 255
                        else { return nil }
                        bytes.append(value)
                    }
                    result.append(bytes[0] << 8 | bytes[1])
                    result.append(bytes[2] << 8 | bytes[3])
                } else {
                    guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        if halves.count == 2 {
            guard let head = parse(halves[0], allowsIPv4: false), let tail = parse(halves[1], allowsIPv4: true),
                head.count + tail.count <= 7
            else { return nil }
            pieces = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let all = parse(text, allowsIPv4: true), all.count == 8 else { return nil }
            pieces = all
        }
    }

    /// The WHATWG serialization: lower-case hex, the first longest run of two or more zero pieces as `::`.
    var description: String {
        var bestStart = -1
        var bestLength = 1
        var index = 0
        while index < 8 {
            guard pieces[index] == 0 else {
                index += 1
                continue
            }
            let start = index
            while index < 8, pieces[index] == 0 { index += 1 }
            if index - start > bestLength {
                bestStart = start
                bestLength = index - start
            }
        }
        var text = ""
        index = 0
        while index < 8 {
            if index == bestStart {
                text += index == 0 ? "::" : ":"
                index += bestLength
                continue
            }
            text += String(pieces[index], radix: 16)
            if index < 7 { text += ":" }
            index += 1
        }
        return text
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
