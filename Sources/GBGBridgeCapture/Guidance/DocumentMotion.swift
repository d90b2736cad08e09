import Cameras
/// Follows the document from one analysed frame to the next and judges whether it is held still enough for
/// a photo, as a hand holds it: a small tremor and a slow drift are fine, a sweep is not.
///
/// The shift between two frames is found from projection profiles of the luminance copy: the column sums over
/// the guide's rows and the row sums over the guide's columns, differentiated (so only edges count and a
/// change of exposure does not), are slid against the previous frame's within ``searchRadius`` pixels, and the
/// best normalised correlation, refined to a fraction of a pixel, is the shift. This costs two passes over
/// the guide and a few thousand multiplications on the 320-pixel copy.
///
/// The shifts add up to a track of the document's position. Over the last ``window`` it gives the drift
/// (distance from the track's start to its end, over the time), and each step gives the momentary speed:
/// steady when the drift is at most ``maximumDrift`` and the step at most ``maximumStepSpeed`` (both as a
/// share of the picture's width a second). A tremor goes back and forth, so it barely moves the drift,
/// while a sweep shows in both.
public struct DocumentMotion: Sendable {
    /// Largest shift looked for between two analysed frames, in pixels of the copy; a document that moved
    /// further (or whose profiles no longer match) is moving.
    public var searchRadius: Int
    /// Steady only when the drift over ``window`` is at most this share of the picture's width a second.
    public var maximumDrift: Double
    /// Steady only when the step since the previous frame is at most this share of the width a second.
    public var maximumStepSpeed: Double
    /// How far back the drift is measured.
    public var window: Duration
    /// Profiles that correlate less than this did not find the document again.
    public var minimumCorrelation: Double

    /// What one frame showed.
    public struct Estimate: Sendable, Equatable {
        /// Shift since the previous analysed frame, in pixels of the copy (right and down are positive).
        public var shiftX: Double
        public var shiftY: Double
        /// Speed of that step, as a share of the picture's width a second (infinite when the document was
        /// not found again).
        public var stepSpeed: Double
        /// Drift over the window, as the same share (the step's speed until the window has filled).
        public var drift: Double
        /// Whether the document is held still enough.
        public var steady: Bool
    }

    private var previousColumns: [Float] = []
    private var previousRows: [Float] = []
    private var columns: [Float] = []
    private var rows: [Float] = []
    private var width = 0
    private var height = 0
    private var lastTimestamp: UInt64 = 0
    private var positionX = 0.0
    private var positionY = 0.0
    private var track: [(time: UInt64, x: Double, y: Double)] = []

    /// A motion judge with the given limits (the defaults were set on the tuning sequences of
    /// ``HandHeldScene``, see docs/capture.md).
    public init(
        searchRadius: Int = 12, maximumDrift: Double = 0.05, maximumStepSpeed: Double = 0.14,
        window: Duration = .milliseconds(500), minimumCorrelation: Double = 0.3
    ) {
        self.searchRadius = max(1, searchRadius)
        self.maximumDrift = maximumDrift
        self.maximumStepSpeed = maximumStepSpeed
        self.window = window
        self.minimumCorrelation = minimumCorrelation
    }

    /// Takes the `width` x `height` luminance picture stamped `timestampNanoseconds` and keeps its profiles
    /// for the next call. Returns nil for the first picture (of a size) or when the clock went back.
    public mutating func update(_ pixels: [UInt8], width: Int, height: Int, timestampNanoseconds now: UInt64)
        -> Estimate?
    {
        guard width >= 16, height >= 16, pixels.count >= width * height else { return nil }
        let guide = GuideGeometry(kind: .document, width: Double(width), height: Double(height))
        let top = max(1, Int(guide.y.rounded()))
        let bottom = min(height - 1, Int((guide.y + guide.height).rounded()))
        let left = max(1, Int(guide.x.rounded()))
        let right = min(width - 1, Int((guide.x + guide.width).rounded()))
        guard top < bottom, left < right else { return nil }
        if columns.count != width || rows.count != height {
            columns = [Float](repeating: 0, count: width)
            rows = [Float](repeating: 0, count: height)
        }
        profiles(pixels, width: width, height: height, rows: top..<bottom, columns: left..<right)
        defer {
            swap(&previousColumns, &columns)
            swap(&previousRows, &rows)
            lastTimestamp = now
        }
        guard width == self.width, height == self.height, previousColumns.count == width, now > lastTimestamp
        else {
            self.width = width
            self.height = height
            restartTrack(at: now)
            return nil
        }
        let interval = Double(now - lastTimestamp) / 1e9
        let shiftX = Self.shift(previousColumns, columns, range: 1..<(width - 1), radius: searchRadius)
        let shiftY = Self.shift(previousRows, rows, range: top..<bottom, radius: searchRadius)
        guard let shiftX, let shiftY, shiftX.score >= minimumCorrelation, shiftY.score >= minimumCorrelation,
            abs(shiftX.offset) < Double(searchRadius), abs(shiftY.offset) < Double(searchRadius)
        else {
            restartTrack(at: now)
            return Estimate(shiftX: 0, shiftY: 0, stepSpeed: .infinity, drift: .infinity, steady: false)
        }
        let widthShare = 1 / Double(width)
        let step = (shiftX.offset * shiftX.offset + shiftY.offset * shiftY.offset).squareRoot()
        let stepSpeed = step * widthShare / interval
        positionX += shiftX.offset
        positionY += shiftY.offset
        track.append((now, positionX, positionY))
        let windowNanoseconds =
            UInt64(window.components.seconds) * 1_000_000_000
            + UInt64(window.components.attoseconds / 1_000_000_000)
        while let first = track.first, now - first.time > windowNanoseconds, track.count > 2 { track.removeFirst() }
        var drift = stepSpeed
        if let first = track.first, now > first.time, track.count >= 3 {
            let dx = positionX - first.x
            let dy = positionY - first.y
            drift = (dx * dx + dy * dy).squareRoot() * widthShare / (Double(now - first.time) / 1e9)
        }
        return Estimate(
            shiftX: shiftX.offset, shiftY: shiftY.offset, stepSpeed: stepSpeed, drift: drift,
            steady: drift <= maximumDrift && stepSpeed <= maximumStepSpeed)
    }

    /// Forgets the previous frame and the track (another camera, or back to the live preview).
    public mutating func reset() {
        previousColumns = []
        previousRows = []
        width = 0
        height = 0
        track = []
    }

    private mutating func restartTrack(at now: UInt64) {
        positionX = 0
        positionY = 0
        track = [(now, 0, 0)]
    }

    /// Fills `columns` with the derivative of the column sums over `rowRange`, and `rows` with that of the
    /// row sums over `columnRange`.
    private mutating func profiles(
        _ pixels: [UInt8], width: Int, height: Int, rows rowRange: Range<Int>, columns columnRange: Range<Int>
    ) {
        var columnSums = [Int32](repeating: 0, count: width)
        var rowSums = [Int32](repeating: 0, count: height)
        pixels.withUnsafeBufferPointer { buffer in
            for y in rowRange {
                let row = y * width
                var rowSum: Int32 = 0
                for x in 0..<width {
                    let value = Int32(buffer[row + x])
                    columnSums[x] &+= value
                    if columnRange.contains(x) { rowSum &+= value }
                }
                rowSums[y] = rowSum
            }
            for y in [rowRange.lowerBound - 1, rowRange.upperBound] where y >= 0 && y < height {
                var rowSum: Int32 = 0
                for x in columnRange { rowSum &+= Int32(buffer[y * width + x]) }
                rowSums[y] = rowSum
            }
        }
        for x in 0..<width {
            columns[x] = x > 0 && x < width - 1 ? Float(columnSums[x + 1] - columnSums[x - 1]) : 0
        }
        for y in 0..<height {
            rows[y] = y > 0 && y < height - 1 ? Float(rowSums[y + 1] - rowSums[y - 1]) : 0
        }
    }

    /// The offset (to a fraction of a pixel) by which `current` is `previous` moved, within `radius`, and the
    /// normalised correlation there; nil when either profile is flat.
    private static func shift(_ previous: [Float], _ current: [Float], range: Range<Int>, radius: Int)
        -> (offset: Double, score: Double)?
    {
        let lower = range.lowerBound + radius
        let upper = range.upperBound - radius
        guard lower < upper else { return nil }
        var scores = [Double](repeating: -1, count: 2 * radius + 1)
        previous.withUnsafeBufferPointer { earlier in
            current.withUnsafeBufferPointer { now in
                var energy: Double = 0
                for index in lower..<upper { energy += Double(earlier[index] * earlier[index]) }
                for offset in -radius...radius {
                    var product: Double = 0
                    var moved: Double = 0
                    for index in lower..<upper {
                        let value = Double(now[index + offset])
                        product += Double(earlier[index]) * value
                        moved += value * value
                    }
                    let norm = (energy * moved).squareRoot()
                    scores[offset + radius] = norm > 0 ? product / norm : -1
                }
            }
        }
        guard let best = scores.indices.max(by: { scores[$0] < scores[$1] }), scores[best] > -1 else { return nil }
        var offset = Double(best - radius)
        if best > 0, best < scores.count - 1 {
            let left = scores[best - 1]
            let right = scores[best + 1]
            let curvature = left - 2 * scores[best] + right
            if curvature < 0 { offset += max(-0.5, min(0.5, (left - right) / (2 * curvature))) }
        }
        return (offset, scores[best])
    }
}
