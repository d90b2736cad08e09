/// Tells whether the picture inside the document guide held still between two analysed frames: the share of
/// the guide's pixels whose luminance changed by more than ``changeLevel`` must stay at most
/// ``maximumChangedShare``. Sensor noise and a slow change of exposure stay below the level; a card that moves
/// by even half a pixel of the 320-pixel copy changes its edges and text by far more.
///
/// Keeps its own copy of the last picture (allocated once per size), so it can be fed the analyzer's buffer.
public struct FrameSteadiness: Sendable {
    /// A pixel whose luminance moved by more than this (0...255) counts as changed.
    public var changeLevel: Int
    /// Steady when at most this share of the guide changed.
    public var maximumChangedShare: Double
    private var previous: [UInt8] = []
    private var width = 0
    private var height = 0

    /// A steadiness test with the given limits.
    public init(changeLevel: Int = 24, maximumChangedShare: Double = 0.03) {
        self.changeLevel = changeLevel
        self.maximumChangedShare = maximumChangedShare
    }

    /// Compares the `width` x `height` luminance picture with the previous one inside the document guide and
    /// keeps it for the next call. Returns the share of the guide that changed, or nil when there is no
    /// earlier picture of that size.
    public mutating func changedShare(_ pixels: [UInt8], width: Int, height: Int) -> Double? {
        let total = width * height
        guard total > 0, pixels.count >= total else { return nil }
        guard width == self.width, height == self.height, previous.count == total else {
            self.width = width
            self.height = height
            previous = Array(pixels.prefix(total))
            return nil
        }
        let guide = GuideGeometry(kind: .document, width: Double(width), height: Double(height))
        let left = max(0, Int(guide.x.rounded()))
        let right = min(width, Int((guide.x + guide.width).rounded()))
        let top = max(0, Int(guide.y.rounded()))
        let bottom = min(height, Int((guide.y + guide.height).rounded()))
        guard left < right, top < bottom else { return nil }
        let level = changeLevel
        var changed = 0
        pixels.withUnsafeBufferPointer { current in
            previous.withUnsafeMutableBufferPointer { earlier in
                for y in top..<bottom {
                    let row = y * width
                    for x in left..<right where abs(Int(current[row + x]) - Int(earlier[row + x])) > level {
                        changed += 1
                    }
                }
                for index in 0..<total { earlier[index] = current[index] }
            }
        }
        return Double(changed) / Double((right - left) * (bottom - top))
    }

    /// Whether the guide held still since the previous picture (false for the first one); keeps this one.
    public mutating func isSteady(_ pixels: [UInt8], width: Int, height: Int) -> Bool {
        guard let share = changedShare(pixels, width: width, height: height) else { return false }
        return share <= maximumChangedShare
    }

    /// Forgets the previous picture (another camera, or back to the live preview).
    public mutating func reset() {
        previous = []
        width = 0
        height = 0
    }
}
