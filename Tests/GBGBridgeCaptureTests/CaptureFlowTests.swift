import Cameras
import Testing

@testable import GBGBridgeCapture

/// The capture flow's transitions, the dialog's sizing and the camera names, without a display.
@Suite("Capture flow")
struct CaptureFlowTests {
    private func liveFlow(_ kind: CaptureKind = .document, countdown: Int = 3) -> CaptureFlow {
        var flow = CaptureFlow(kind: kind, countdownSeconds: countdown)
        let first = flow.frameArrived()
        let second = flow.frameArrived()
        #expect(first && !second, "only the first frame starts the preview")
        return flow
    }

    @Test func documentCaptureReviewUse() {
        var flow = CaptureFlow(kind: .document, countdownSeconds: 3)
        #expect(flow.phase == .waitingForFrames)
        #expect(flow.pressCapture() == nil, "nothing to capture before the first frame")
        #expect(flow.defaultAction == .capture && flow.captureVisible && !flow.captureEnabled)
        let started = flow.frameArrived()
        #expect(started)
        #expect(flow.captureEnabled)
        #expect(flow.pressCapture() == .takePhoto, "documents have no countdown")
        #expect(flow.phase == .reviewing && flow.showsStill && !flow.showsLivePreview)
        #expect(flow.defaultAction == .usePhoto && flow.reviewEnabled && !flow.captureVisible)
        #expect(flow.retake() == nil)
        #expect(flow.phase == .live && flow.showsLivePreview)
        #expect(flow.pressCapture() == .takePhoto)
        #expect(flow.usePhoto() == .encode)
        #expect(flow.phase == .encoding && flow.defaultAction == .none && !flow.reviewEnabled)
        #expect(flow.cancel() == .cancel, "cancelling while encoding still answers once")
        #expect(flow.phase == .finished)
        #expect(flow.cancel() == nil && flow.usePhoto() == nil && flow.pressCapture() == nil)
    }

    @Test func selfieCountsDownThenTakesThePhoto() {
        var flow = liveFlow(.selfie, countdown: 3)
        #expect(flow.pressCapture() == .countdownStarted(remaining: 3))
        #expect(flow.phase == .countdown(remaining: 3) && flow.showsLivePreview)
        #expect(flow.pressCapture() == nil, "Capture again during the countdown does nothing")
        #expect(flow.countdownTick() == .countdownStarted(remaining: 2))
        #expect(flow.countdownTick() == .countdownStarted(remaining: 1))
        #expect(flow.countdownTick() == .takePhoto)
        #expect(flow.phase == .reviewing)
        #expect(flow.countdownTick() == nil, "a late tick changes nothing")
    }

    @Test func zeroCountdownMeansNone() {
        var flow = liveFlow(.selfie, countdown: 0)
        #expect(!flow.usesCountdown)
        #expect(flow.pressCapture() == .takePhoto)
    }

    @Test func cancelDuringCountdownCancels() {
        var flow = liveFlow(.selfie)
        _ = flow.pressCapture()
        #expect(flow.cancel() == .cancel)
        #expect(flow.phase == .finished)
        #expect(flow.countdownTick() == nil)
    }

    @Test func autoCaptureSkipsTheCountdown() {
        var flow = liveFlow(.selfie)
        #expect(flow.autoCapture() == [.takePhoto, .encode])
        #expect(flow.phase == .encoding)
        var counting = liveFlow(.selfie)
        _ = counting.pressCapture()
        #expect(counting.autoCapture() == [.takePhoto, .encode])
        var waiting = CaptureFlow(kind: .document, countdownSeconds: 3)
        #expect(waiting.autoCapture().isEmpty)
    }

    @Test func aReadyDocumentIsTakenForReviewAsCaptureWould() {
        var flow = liveFlow(.document)
        #expect(flow.documentReady() == .takePhoto)
        #expect(flow.phase == .reviewing && flow.defaultAction == .usePhoto && flow.reviewEnabled)
        #expect(flow.documentReady() == nil, "once, in review nothing more")
        #expect(flow.retake() == nil)
        #expect(flow.phase == .live)
        #expect(flow.documentReady() == .takePhoto, "again after Retake")
        #expect(flow.usePhoto() == .encode)
        #expect(flow.documentReady() == nil, "not while encoding")

        var waiting = CaptureFlow(kind: .document, countdownSeconds: 3)
        #expect(waiting.documentReady() == nil, "no picture yet")
        var selfie = liveFlow(.selfie, countdown: 0)
        #expect(selfie.documentReady() == nil && selfie.phase == .live, "never for selfies")
        var failed = liveFlow(.document)
        _ = failed.streamFailed()
        #expect(failed.documentReady() == nil && failed.phase == .failed)
        var cancelled = liveFlow(.document)
        _ = cancelled.cancel()
        #expect(cancelled.documentReady() == nil && cancelled.phase == .finished)
    }

    @Test func failureDuringPreviewOffersRetryWhileACameraIsThere() {
        var flow = liveFlow()
        #expect(flow.streamFailed() == .showFailure)
        #expect(flow.phase == .failed && flow.retryVisible && flow.retryEnabled && flow.defaultAction == .retry)
        #expect(!flow.captureVisible && flow.pickerEnabled)
        flow.cameraAvailabilityChanged(available: false)
        #expect(!flow.retryEnabled)
        #expect(flow.retry() == nil)
        flow.cameraAvailabilityChanged(available: true)
        #expect(flow.retry() == .restartStream)
        #expect(flow.phase == .waitingForFrames)
        #expect(flow.openFailed() == .showFailure, "the camera did not open again")
        #expect(flow.cancel() == .reportDisconnected, "giving up after a failure reports it")
        #expect(flow.phase == .finished)
    }

    @Test func failureDuringReviewKeepsThePhoto() {
        var flow = liveFlow()
        _ = flow.pressCapture()
        #expect(flow.streamFailed() == nil)
        #expect(flow.phase == .reviewing && flow.failedDuringReview)
        #expect(flow.retake() == .showFailure)
        #expect(flow.phase == .failed)

        var using = liveFlow()
        _ = using.pressCapture()
        _ = using.streamFailed()
        #expect(using.usePhoto() == .encode)
        using.encodingFinished()
        #expect(using.phase == .finished)
    }

    @Test func failureDuringCountdownStopsIt() {
        var flow = liveFlow(.selfie)
        _ = flow.pressCapture()
        #expect(flow.streamFailed() == .showFailure)
        #expect(flow.countdownTick() == nil)
    }

    @Test(arguments: [
        (1024, 600), (1366, 768), (1280, 1024), (1920, 1080), (800, 480), (640, 400),
    ])
    func defaultSizeFitsTheWorkArea(width: Int, height: Int) {
        let size = CaptureWindowSizing.defaultSize(workAreaWidth: width, workAreaHeight: height)
        #expect(size.width <= width && size.height <= height)
        #expect(
            size.width <= CaptureWindowSizing.preferred.width && size.height <= CaptureWindowSizing.preferred.height)
        if width >= 1024 && height >= 600 {
            #expect(size.width <= width - 2 * CaptureWindowSizing.margin)
            #expect(size.height <= height - 2 * CaptureWindowSizing.margin)
            #expect(size.height >= 500, "the preview keeps a useful size")
        }
    }

    @Test func defaultSizeOnKnownScreens() {
        func size(_ width: Int, _ height: Int) -> [Int] {
            let size = CaptureWindowSizing.defaultSize(workAreaWidth: width, workAreaHeight: height)
            return [size.width, size.height]
        }
        #expect(size(1024, 600) == [960, 552])
        #expect(size(1366, 768) == [960, 720])
        #expect(size(1366, 728) == [960, 680])
        #expect(size(0, 0) == [CaptureWindowSizing.preferred.width, CaptureWindowSizing.preferred.height])
    }

    @Test func cameraNamesHideDevicePathsAndNumberDuplicates() {
        #expect(
            CameraNames.display([
                "Integrated Camera (/dev/video0)", "USB Camera (/dev/video2)", "USB Camera (/dev/video4)",
                "/dev/video6",
                "/dev/video8", "Front camera",
            ]) == ["Integrated Camera", "USB Camera", "USB Camera (2)", "Camera", "Camera (2)", "Front camera"])
        #expect(CameraNames.withoutDevicePath("Cam (rev 2) (/dev/video1)") == "Cam (rev 2)")
        #expect(CameraNames.withoutDevicePath("Cam (rev 2)") == "Cam (rev 2)")
    }

    @Test func headingsForPeople() {
        #expect(CaptureKind.document.heading(side: "front") == "Front of your document")
        #expect(CaptureKind.document.heading(side: "BACK") == "Back of your document")
        #expect(CaptureKind.document.heading(side: nil) == "Your document")
        #expect(CaptureKind.document.heading(side: "left") == "Your document")
        #expect(CaptureKind.selfie.heading(side: "front") == "Selfie")
    }
}
