import GBGBridgeLocalization

/// Camera names as people see them in the picker: no device paths, and a number for cameras that share
/// a name (`USB Camera`, `USB Camera (2)`).
package enum CameraNames {
    /// Display names for `names`, in the same order.
    package static func display(_ names: [String]) -> [String] {
        let plain = names.map(withoutDevicePath)
        var seen: [String: Int] = [:]
        return plain.map { name in
            let count = (seen[name] ?? 0) + 1
            seen[name] = count
            return count == 1 ? name : tr("{name} ({number})", ["name": name, "number": String(count)])
        }
    }

    /// `Integrated Camera (/dev/video0)` -> `Integrated Camera`; a bare path -> `Camera`.
    package static func withoutDevicePath(_ name: String) -> String {
        var text = Substring(name)
        if text.hasSuffix(")"), let open = text.ranges(of: " (/dev/").last {
            text = text[..<open.lowerBound]
        }
        let trimmed = text.trimmingSpaces()
        if trimmed.isEmpty || trimmed.hasPrefix("/dev/") { return tr("Camera") }
        return trimmed
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
