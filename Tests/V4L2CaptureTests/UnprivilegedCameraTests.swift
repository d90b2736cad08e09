import Glibc
import Testing
import V4L2Capture

/// Run by an unprivileged user in the vivid guest, where device nodes are `crw------- root`.
@Suite(.serialized, CameraVM.only(.unprivileged), .timeLimit(.minutes(1)))
struct UnprivilegedCameraTests {
    @Test func openingIsDeniedWithAHintAboutTheVideoGroup() async throws {
        #expect(getuid() != 0)
        do {
            let stream = try await CameraStream.open(path: CameraVM.firstCamera)
            await stream.close()
            Issue.record("opening should fail with EACCES")
        } catch {
            #expect(error.kind == .permissionDenied)
            #expect(error.errno == EACCES)
            #expect(error.call == "open")
            #expect(error.description.contains("`video` group"))
        }
    }

    @Test func scanSeesHardwareButNoAccess() {
        let scan = CameraDiscovery.scan()
        #expect(scan.devices.isEmpty)
        #expect(scan.hardwareAvailable)
        #expect(scan.accessDenied)
        #expect(scan.failures.allSatisfy { $0.kind == .permissionDenied })
    }
}
