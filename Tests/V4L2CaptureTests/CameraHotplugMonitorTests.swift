import Glibc
import Testing

@testable import V4L2Capture

@Suite("Camera hot-plug")
struct CameraHotplugMonitorTests {
    /// A fresh temporary directory standing in for /dev.
    private func temporaryDirectory() throws -> String {
        var template = Array("/tmp/gbgbridge-hotplug-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        return String(cString: made!)
    }

    private func touch(_ path: String) {
        let descriptor = open(path, O_CREAT | O_WRONLY, 0o600)
        close(descriptor)
    }

    @Test(.timeLimit(.minutes(1))) func videoNodesAppearChangeAndDisappear() async throws {
        let directory = try temporaryDirectory()
        defer { rmdir(directory) }
        let monitor = try CameraHotplugMonitor(directory: directory)
        var events = monitor.events.makeAsyncIterator()
        touch(directory + "/notvideo")
        touch(directory + "/video10")
        chmod(directory + "/video10", 0o660)
        unlink(directory + "/notvideo")
        unlink(directory + "/video10")
        var seen: [CameraHotplugMonitor.Event] = []
        while seen.last?.change != .disappeared, let event = await events.next() { seen.append(event) }
        let path = directory + "/video10"
        #expect(seen.allSatisfy { $0.path == path }, "only the video node is reported: \(seen)")
        #expect(seen.first?.change == .appeared)
        #expect(seen.contains { $0.change == .changed }, "chmod is reported: \(seen)")
        monitor.stop()
        #expect(await events.next() == nil, "stop() finishes the stream")
    }

    @Test func onlyVideoNumberNamesCount() {
        #expect(CameraHotplugMonitor.isVideoNode("video0"))
        #expect(CameraHotplugMonitor.isVideoNode("video12"))
        #expect(!CameraHotplugMonitor.isVideoNode("video"))
        #expect(!CameraHotplugMonitor.isVideoNode("video0.new"))
        #expect(!CameraHotplugMonitor.isVideoNode("media0"))
    }

    @Test func aMissingDirectoryCannotBeWatched() {
        #expect(throws: CameraError.self) { _ = try CameraHotplugMonitor(directory: "/nonexistent-camera-directory") }
    }

    @Test(.timeLimit(.minutes(1))) func releasingTheMonitorEndsTheStream() async throws {
        let directory = try temporaryDirectory()
        defer { rmdir(directory) }
        var monitor: CameraHotplugMonitor? = try CameraHotplugMonitor(directory: directory)
        let events = monitor!.events
        monitor = nil
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
