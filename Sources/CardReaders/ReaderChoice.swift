/// Which PC/SC reader a capability uses (`--nfc-reader` for `nfc.read`).
public enum ReaderChoice: Sendable, Equatable, CustomStringConvertible {
    /// The first connected reader whose name suggests a contactless one, else the first reader.
    case automatic
    /// The reader whose name is, or starts with, this text (case-insensitive).
    case named(String)
    /// No chip reading: `nfc.read` is not offered.
    case none

    /// Parses `auto`, `none` or a reader name (`--nfc-reader`).
    public init(argument: String) {
        switch argument.lowercased() {
        case "auto": self = .automatic
        case "none": self = .none
        default: self = .named(argument)
        }
    }

    public var description: String {
        switch self {
        case .automatic: return "auto"
        case .named(let name): return name
        case .none: return "none"
        }
    }

    /// The reader to use among `readers`, or `nil`.
    public func pick(from readers: [String]) -> String? {
        switch self {
        case .none:
            return nil
        case .named(let wanted):
            let lowered = wanted.lowercased()
            return readers.first { $0.lowercased() == lowered } ?? readers.first { $0.lowercased().hasPrefix(lowered) }
        case .automatic:
            let contactless = [
                "contactless", "picc", "nfc", "cl ", "acr122", "acr1252", "acr1255", "omnikey 5", "5022", "5422",
            ]
            return readers.first { reader in
                let lowered = reader.lowercased()
                return contactless.contains { lowered.contains($0) }
            } ?? readers.first
        }
    }
}
