import GBGBridgeTestSupport
import Glibc
import Testing
import V4L2Capture

/// Where the camera tests run. `scripts/camera-vm-test.sh` boots a guest with the vivid
/// driver and sets `GBGBRIDGE_CAMERA_VM` to the phase it runs; anywhere else the tests that
/// need a real V4L2 driver are skipped with a visible reason.
enum CameraVM {
    enum Phase: String {
        /// As root, with both vivid cameras present.
        case main
        /// As an unprivileged user who may not open the device nodes.
        case unprivileged
    }

    static let phase: Phase? = getenv("GBGBRIDGE_CAMERA_VM").flatMap { Phase(rawValue: String(cString: $0)) }

    /// Enables a test only in the given phase inside the vivid guest.
    static func only(_ wanted: Phase) -> ConditionTrait {
        .enabled(
            if: phase == wanted,
            "needs the vivid camera VM (phase \(wanted.rawValue)): run scripts/camera-vm-test.sh"
        )
    }

    static let firstCamera = "/dev/video0"
    static let secondCamera = "/dev/video1"
    /// v4l2loopback nodes the tests feed (see scripts/camera-vm/init.sh).
    static let yuyvLoopback = "/dev/video10"
    static let mjpegLoopback = "/dev/video11"

    /// Sets a vivid control (fault injection) with `v4l2-ctl`, as a user would.
    static func setControl(_ name: String, _ value: Int = 1, on device: String) throws {
        let status = run(["v4l2-ctl", "-d", device, "-c", "\(name)=\(value)"])
        guard status == 0 else {
            throw ControlFailed(command: "v4l2-ctl -d \(device) -c \(name)=\(value)", status: status)
        }
    }

    struct ControlFailed: Error, CustomStringConvertible {
        let command: String
        let status: Int32
        var description: String { "\(command) exited with \(status)" }
    }

    /// Runs a program to completion; returns its exit status (-1 if it could not start).
    static func run(_ arguments: [String]) -> Int32 { ChildProcess.run(arguments) }

    /// Reads a whole file.
    static func contents(of path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw ControlFailed(command: "fopen \(path)", status: errno) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// Writes a whole file.
    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw ControlFailed(command: "fopen \(path)", status: errno) }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw ControlFailed(command: "fwrite \(path)", status: errno)
        }
    }

    /// Collects the next `count` frames of a stream.
    static func frames(_ count: Int, from stream: CameraStream) async throws -> [CameraFrame] {
        var frames: [CameraFrame] = []
        for try await frame in stream.frames {
            frames.append(frame)
            if frames.count == count { break }
        }
        return frames
    }

    /// Reads frames until the stream throws; returns the error as a `CameraError`.
    static func failure(of stream: CameraStream, within maximumFrames: Int = 200) async -> CameraError? {
        var seen = 0
        do {
            for try await _ in stream.frames {
                seen += 1
                if seen >= maximumFrames { return nil }
            }
            return nil
        } catch {
            return error as? CameraError
        }
    }
}
