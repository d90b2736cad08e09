import Glibc
import Testing

@testable import V4L2Capture

@Suite struct CameraDiscoveryTests {
    @Test func aDirectoryWithoutVideoNodesHasNoCameras() {
        let scan = CameraDiscovery.scan(directory: "/nonexistent-camera-directory")
        #expect(scan.devices.isEmpty)
        #expect(!scan.hardwareAvailable)
        #expect(!scan.accessDenied)
    }

    @Test func openingAMissingNodeNamesTheCallAndPath() async {
        do {
            let stream = try await CameraStream.open(path: "/nonexistent-camera-directory/video0")
            await stream.close()
            Issue.record("opening a missing node should fail")
        } catch {
            #expect(error.kind == .unavailable)
            #expect(error.errno == ENOENT)
            #expect(error.call == "open")
            #expect(error.description.contains("/nonexistent-camera-directory/video0"))
        }
    }
}
