import Cameras
import GBGBridge
import GBGBridgeCapture
import GBGBridgeGTK
import GBGBridgeLocalization

extension JourneyRun {
    /// The capture slots: the scripted ones answered at once (``ScriptedCaptures``), the others
    /// by the camera (`--camera`), which is the capability made when any are left.
    func cameraCapability() -> RunCapability? {
        if settings.mrzReading == nil {
            ShellOutput.note(
                tr(
                    "document photos are not read for their machine-readable zone: no OCR model was found (build it with scripts/build-ocrb-model.sh, or give --ocr-model)"
                ))
        }
        ScriptedCaptures.install(
            settings.documentAnswer, on: host.documentCapture, selfieRecipient: nil, mrz: settings.mrzReading)
        // A document answered from an image file shares its zone as the camera's would (nfc.read's keyFrom).
        if settings.documentAnswer.isScripted { host.documentCapture.shareReadZones(in: capabilities.store) }
        ScriptedCaptures.install(
            settings.selfieAnswer, on: host.selfieCapture, selfieRecipient: settings.selfieRecipientKey)
        guard !settings.documentAnswer.isScripted || !settings.selfieAnswer.isScripted else {
            noteDemoSelfieKey()
            return nil
        }
        // Its install() serves the slots the scripted answers left.
        let coordinator: CaptureCoordinator
        if settings.usesTestPattern {
            coordinator = CaptureCoordinator(
                host: host, selfieRecipientKey: settings.selfieRecipientKey, autoCaptureAfter: settings.autoCapture,
                selfieCountdown: settings.selfieCountdown, documentAutoCapture: settings.documentAutoCapture,
                sources: {
                    [SyntheticFrameSource(name: tr("Test pattern"), width: 1280, height: 720, framesPerSecond: 15)]
                })
        } else {
            coordinator = CaptureCoordinator(
                host: host, camera: settings.camera, selfieRecipientKey: settings.selfieRecipientKey,
                autoCaptureAfter: settings.autoCapture, selfieCountdown: settings.selfieCountdown,
                documentAutoCapture: settings.documentAutoCapture)
        }
        coordinator.mrzReading = settings.mrzReading
        return RunCapability(capability: coordinator) { [self] in
            // install() has looked for the camera; only when it found none is it worth asking why.
            if coordinator.cameraAvailable == false,
                let diagnosis = await CameraDiagnosis.startupLine(for: settings.camera)
            {
                ShellOutput.note(diagnosis)
            }
            if coordinator.cameraAvailable == true, let route = await CameraDiagnosis.routeLine(for: settings.camera) {
                ShellOutput.note(route)
            }
            if settings.usesTestPattern {
                host.documentCapture.permissionState = .granted
                host.selfieCapture.permissionState = .granted
            }
            noteDemoSelfieKey()
        }
    }

    /// Says so when selfie packages are sealed to the demo key.
    private func noteDemoSelfieKey() {
        let seals: Bool
        switch settings.selfieAnswer {
        case .image: seals = true
        case .camera: seals = host.selfieCapture.isSupported
        case .cancel, .fail: seals = false
        }
        if settings.selfieRecipientKeyIsDemo, seals {
            ShellOutput.note(
                tr("selfie packages are sealed to the DEMO key (use --selfie-recipient-key for your own)"))
        }
    }
}
