/// A window size given as `WIDTHxHEIGHT` on the command line.
struct WindowSize: Equatable {
    var width: Int32
    var height: Int32

    /// Parses `1280x900`; `nil` unless both numbers are between 200 and 10000.
    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int32(parts[0]), let height = Int32(parts[1]),
            (200...10_000).contains(width), (200...10_000).contains(height)
        else { return nil }
        self.width = width
        self.height = height
    }
}
