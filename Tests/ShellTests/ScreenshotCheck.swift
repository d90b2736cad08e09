import Foundation

/// Checks that a PNG written by the shell is a real picture of a page, not a blank frame.
enum ScreenshotCheck {
    struct Facts {
        let width: Int
        let height: Int
        /// Distinct colours, when ImageMagick is available to count them.
        let colours: Int?
        let bytes: Int
    }

    /// Width and height from the PNG header, plus the distinct colour count from ImageMagick's `convert`.
    static func facts(of path: String) throws -> Facts {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard data.count > 24, Array(data.prefix(8)) == signature else {
            throw ShellRun.RunError(description: "\(path) is not a PNG file")
        }
        func bigEndian(_ offset: Int) -> Int {
            data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return Facts(width: bigEndian(16), height: bigEndian(20), colours: colourCount(path), bytes: data.count)
    }

    private static func colourCount(_ path: String) -> Int? {
        guard let run = try? convert([path, "-format", "%k", "info:"]), run.status == 0 else { return nil }
        return Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The 8-bit RGB colour of one pixel, read with ImageMagick (installed by `scripts/setup.sh`).
    static func pixel(of path: String, x: Int, y: Int) throws -> [Int] {
        let run = try convert([path, "-crop", "1x1+\(x)+\(y)", "-depth", "8", "txt:-"])
        // The last line reads like "0,0: (255,255,255)  #FFFFFF  white".
        guard run.status == 0, let line = run.output.split(separator: "\n").last,
            let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")"), open < close
        else {
            throw ShellRun.RunError(description: "convert could not read pixel \(x),\(y) of \(path): \(run.output)")
        }
        return line[line.index(after: open)..<close].split(separator: ",").prefix(3).compactMap { Int($0) }
    }

    /// Runs ImageMagick's `convert` with `arguments`; its stdout and exit status.
    private static func convert(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["convert"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// True when the picture has the expected size and enough detail to be a rendered page.
    static func looksRendered(_ facts: Facts, width: Int, height: Int) -> Bool {
        guard facts.width == width, facts.height == height else { return false }
        if let colours = facts.colours { return colours >= 32 }
        return facts.bytes > 20_000
    }
}
