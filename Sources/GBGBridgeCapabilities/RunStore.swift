import GBGBridge

/// What the capabilities of one run learn for one another: values under typed keys, kept in
/// memory for as long as the session of the person at the app.
///
/// A capability gets the store at ``HostCapability/install(sharing:)``. The keys two capabilities
/// share are declared here, beside the store, so that neither imports the other (the document
/// capture writes ``Key/documentCaptureZone``, `nfc.read` reads it). ``RunCapabilities`` empties
/// the store when a kiosk session ends and when the run ends; a page reset keeps it, since a
/// journey may take the photo on one page and read the chip on the next.
@MainActor
public final class RunStore {
    /// The name of a value in the store, typed by the value it holds.
    public struct Key<Value: Sendable>: Sendable {
        /// Unique among the keys of one value type.
        public let name: String

        public init(_ name: String) {
            self.name = name
        }
    }

    /// Where a value is kept: its key's name and value type (two keys of one name but different
    /// types never meet).
    private struct Slot: Hashable {
        let name: String
        let type: Swift.ObjectIdentifier
    }

    private var values: [Slot: any Sendable] = [:]

    /// An empty store.
    public init() {}

    /// The value kept under `key`, or `nil`; setting `nil` forgets it.
    public subscript<Value: Sendable>(key: Key<Value>) -> Value? {
        get { values[Slot(name: key.name, type: Swift.ObjectIdentifier(Value.self))] as? Value }
        set {
            let slot = Slot(name: key.name, type: Swift.ObjectIdentifier(Value.self))
            if let newValue { values[slot] = newValue } else { values.removeValue(forKey: slot) }
        }
    }

    /// Whether the store holds nothing.
    public var isEmpty: Bool { values.isEmpty }

    /// Forgets everything.
    public func removeAll() {
        values.removeAll()
    }
}

extension RunStore.Key where Value == JSONValue {
    /// The `mrz` member of the last document capture answer the page received in this session whose
    /// zone was read (`status` `read`): `nfc.read` opens the chip with it (`keyFrom:
    /// "documentCapture"`) and compares it with the chip's DG1 (`printedMRZ`). A newer document answer
    /// replaces it, and one whose zone was not read removes it; a cancelled or failed capture, or an
    /// answer whose page went away before it arrived, leaves it as it was.
    public static var documentCaptureZone: Self { Self("documentCapture.zone") }
}
