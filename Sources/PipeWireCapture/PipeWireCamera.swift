/// A camera a PipeWire daemon offers (a `Video/Source` node), as GStreamer's PipeWire device provider lists it.
public struct PipeWireCamera: Sendable, Hashable, CustomStringConvertible {
    /// The node's description, e.g. "Integrated Camera", for people.
    public let name: String
    /// The node's `object.path` (e.g. `v4l2:/dev/video0`, `libcamera:...`), when it has one.
    public let objectPath: String?
    /// The node's `node.name`, when it has one.
    public let nodeName: String?
    /// What `pipewiresrc target-object` connects to (the node's serial on this daemon run), when known.
    public let target: String?
    /// The sizes and rates the node's caps list.
    public let modes: [PipeWireMode]

    public init(name: String, objectPath: String?, nodeName: String?, target: String?, modes: [PipeWireMode]) {
        self.name = name
        self.objectPath = objectPath
        self.nodeName = nodeName
        self.target = target
        self.modes = modes
    }

    /// Who the camera is across daemon restarts: its object path, else its node name, else its name.
    public var identity: String { objectPath ?? nodeName ?? name }

    /// Whether `reference` names this camera: its identity, object path, node name, name or target.
    public func matches(_ reference: String) -> Bool {
        [identity, objectPath, nodeName, name, target].contains(reference)
    }

    public var description: String { "\(name) (\(identity))" }
}

/// One size a PipeWire camera's caps list, with the rates listed for it.
public struct PipeWireMode: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// Listed rates (a range counts as its two ends); empty when none are listed.
    public let frameRates: [PipeWireFrameRate]
    /// Whether this size comes as JPEG (decoded with `jpegdec` on the way to RGB).
    public let isJPEG: Bool

    public init(width: Int, height: Int, frameRates: [PipeWireFrameRate], isJPEG: Bool) {
        self.width = width
        self.height = height
        self.frameRates = frameRates
        self.isJPEG = isJPEG
    }
}

/// A frame rate as a fraction, e.g. 30/1.
public struct PipeWireFrameRate: Sendable, Hashable {
    public let numerator: Int
    public let denominator: Int

    public init(numerator: Int, denominator: Int = 1) {
        self.numerator = numerator
        self.denominator = denominator
    }
}

/// The size (and rate) to ask a PipeWire camera for; nil fields leave the choice to the camera.
public struct PipeWireStreamRequest: Sendable, Hashable {
    public var width: Int?
    public var height: Int?
    public var frameRate: PipeWireFrameRate?
    /// Whether the size comes as JPEG only (a `jpegdec` is put in the pipeline).
    public var isJPEG: Bool

    public init(width: Int? = nil, height: Int? = nil, frameRate: PipeWireFrameRate? = nil, isJPEG: Bool = false) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.isJPEG = isJPEG
    }
}
