import PipeWireCapture

extension PipeWireDiscovery {
    /// The PipeWire cameras whose name matches `name` (all of them for an empty name), from a fresh scan.
    public static func cameras(named name: String) async -> [PipeWireCamera] {
        let cameras = await scan().cameras
        return name.isEmpty ? cameras : cameras.filter { $0.matches(name) }
    }
}
