/// Who a camera is, independent of its `/dev/videoN` number (which changes with plug order): the V4L2
/// card name and the bus it is attached to. The same camera on the same port keeps its identity across
/// unplugging and restarts; two cameras of one model on different ports differ.
public struct CameraIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The V4L2 "card", e.g. "Integrated Camera".
    public let name: String
    /// The V4L2 bus info, e.g. `usb-0000:00:14.0-6`.
    public let busInfo: String

    public init(name: String, busInfo: String) {
        self.name = name
        self.busInfo = busInfo
    }

    public var description: String { "\(name) (\(busInfo))" }
}

extension CameraDevice {
    /// This device's stable identity (name and bus, not the node path).
    public var identity: CameraIdentity { CameraIdentity(name: name, busInfo: busInfo) }
}
