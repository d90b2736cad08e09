/// A byte count in binary units for people: "512 bytes", "64 MiB", "96.5 MiB".
///
/// Whole multiples of a unit are written without a fraction, anything else with one
/// decimal. Comparing two values compares what a reader sees (unit, then tenths), so
/// callers can tell when rounding hides a difference and add the exact counts.
struct ByteCountText: Comparable {
    private static let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// The readable text.
    let text: String
    /// Index into the unit ladder: -1 for plain bytes, 0 for KiB, 1 for MiB, ...
    private let unitRank: Int
    /// The displayed amount in tenths of the unit (or whole bytes when `unitRank == -1`).
    private let tenths: Int

    init(_ bytes: Int) {
        guard bytes >= 1024 else {
            text = bytes == 1 ? "1 byte" : "\(bytes) bytes"
            unitRank = -1
            tenths = bytes
            return
        }
        let value = Double(bytes)
        var rank = 0
        var unit = 1024.0
        while rank < Self.units.count - 1, value >= unit * 1024 {
            unit *= 1024
            rank += 1
        }
        var shown = (value / unit * 10).rounded()
        if shown >= 10240, rank < Self.units.count - 1 {
            // 1023.96 KiB would read "1024.0 KiB"; say "1.0 MiB" instead.
            unit *= 1024
            rank += 1
            shown = (value / unit * 10).rounded()
        }
        let whole = Int(shown) / 10
        let fraction = Int(shown) % 10
        let unitBytes = 1 << (10 * (rank + 1))
        let exact = bytes % unitBytes == 0
        text = exact ? "\(whole) \(Self.units[rank])" : "\(whole).\(fraction) \(Self.units[rank])"
        unitRank = rank
        tenths = Int(shown)
    }

    static func < (lhs: ByteCountText, rhs: ByteCountText) -> Bool {
        (lhs.unitRank, lhs.tenths) < (rhs.unitRank, rhs.tenths)
    }

    static func == (lhs: ByteCountText, rhs: ByteCountText) -> Bool {
        lhs.unitRank == rhs.unitRank && lhs.tenths == rhs.tenths
    }
}
