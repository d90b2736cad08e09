extension MRZScanner {
    /// One zone line of a photo as ``LineReader`` receives it in a still scan (see
    /// ``MRZScanner/preparedLines(of:lineReader:)``).
    public struct PreparedLine: Sendable {
        /// ``LineModel/inputHeight`` rows of `width` values, row by row: the network's input.
        public var values: [Float]
        public var width: Int
        /// What the line reader read in it.
        public var read: String
        /// The lowest probability (0 to 100) of a character it read.
        public var lowestConfidence: Float
        /// The crop's preparation (``ZoneCrop``'s variant), its candidate zone's rank, whether the
        /// photo was turned a quarter, and the line's place in the crop (0 is the top line).
        public var variant: String
        public var candidate: Int
        public var turned: Bool
        public var line: Int
    }

    /// Every zone line that `lineReader` would read in a still scan of `image`, from every crop
    /// it could be given: the first three candidate zones, each in every preparation, upright and
    /// turned a quarter (a still scan stops at the first confirmed reading; this does not). For
    /// building the line model's training lines from real crops (`gbgbridge-mrz-bench
    /// --dump-lines`); at most 3 x 6 x 2 crops of 3 lines each.
    public static func preparedLines(of image: GrayImage, lineReader: LineReader) -> [PreparedLine] {
        var out: [PreparedLine] = []
        for turned in [false, true] {
            let picture = turned ? image.turnedQuarter() : image
            for (rank, zone) in MRZLocator.locate(in: picture).prefix(3).enumerated() where zone.lineCount >= 2 {
                for variant in ZoneCrop.Variant.allCases {
                    guard let crop = ZoneCrop.cut(zone, from: picture, variant: variant) else { continue }
                    let lines = lineReader.preparedLines(
                        crop, glyphHeight: variant.glyphHeight, lineCount: zone.lineCount)
                    for (index, line) in lines.enumerated() {
                        out.append(
                            PreparedLine(
                                values: line.values, width: line.width, read: line.read.text,
                                lowestConfidence: line.read.symbols.map(\.confidence).min() ?? 0,
                                variant: "\(variant)", candidate: rank, turned: turned, line: index))
                    }
                }
            }
        }
        return out
    }
}
