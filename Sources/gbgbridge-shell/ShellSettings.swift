import Cameras
import CardReaders
import Crypto
import EMRTD
import FoundationEssentials
import GBGBridgeCapture
import GBGBridgeLocalization
import GBGBridgeNFC

/// Everything a run needs, checked before any window opens: a problem here is a usage error.
struct ShellSettings {
    /// How one capture slot is answered.
    enum CaptureAnswer {
        /// The capture window, with the camera chosen by `--camera`.
        case camera
        /// This image file's bytes, already checked to be a complete PNG or JPEG (decoded in full).
        case image(path: String, data: Data)
        /// `cancelled`.
        case cancel
        /// `error` with this code.
        case fail(code: String)

        var isScripted: Bool {
            if case .camera = self { return false }
            return true
        }
    }

    var journeyURL: URL
    var isBundledDemo: Bool
    var allowedOrigins: [String]
    var inspector: Bool
    var hostVersion: String
    var camera: CameraChoice
    /// `--camera test-pattern`: a generated picture instead of a device.
    var usesTestPattern: Bool
    var selfieRecipientKey: Curve25519.KeyAgreement.PublicKey?
    var selfieRecipientKeyIsDemo: Bool
    var documentAnswer: CaptureAnswer
    /// The OCR model document captures read machine-readable zones with (`--ocr-model`, or the
    /// one among the resources); nil when there is none.
    var mrzReading: MRZReadingSetup?
    var selfieAnswer: CaptureAnswer
    var autoCapture: Duration?
    /// Seconds counted down before a selfie is taken in the capture window.
    var selfieCountdown = 3
    /// Whether the capture window takes a ready document by itself (off with `--no-auto-capture`).
    var documentAutoCapture = true
    var messageLogPath: String?
    var logPayloads: Bool
    var exitOn: String?
    var timeout: Double?
    var screenshotPath: String?
    var headless: Bool
    /// `--automation`: a WebDriver session drives the journey window.
    var automation: Bool
    /// Whether the journey's console and page errors are printed and logged.
    var forwardsConsole: Bool
    /// `--fail-on-page-error`: an uncaught page error ends the run with status 5.
    var failsOnPageError: Bool
    var windowSize: WindowSize
    /// The languages offered to the journey (`--lang`, else the user's), as BCP 47 tags.
    var languages: [String]
    /// `--nfc-reader`.
    var nfcReader: ReaderChoice
    /// `--csca`, loaded (empty without it).
    var cscaStore: CSCAStore
    /// `--nfc-timeout`.
    var nfcTimeout: Duration
    /// `--nfc-apdu-timeout`.
    var nfcAPDUTimeout: Duration
    /// `--nfc-short-apdus`.
    var nfcReadSize: PassportReader.ReadSize

    /// Whether nobody is expected at the keyboard (the bundled demo then runs its steps by itself).
    var isUnattended: Bool {
        headless || exitOn != nil || documentAnswer.isScripted || selfieAnswer.isScripted || autoCapture != nil
    }

    /// The smallest and largest `--window-size`.
    static let smallestWindow = "320x240"
    static let largestWindow = "7680x4320"
    /// The longest `--timeout` and `--auto-capture`, in seconds.
    static let longestTimeout = 604_800.0
    static let longestAutoCapture = 3_600.0

    /// The OCR model: `--ocr-model` (which must load), or `ocr/ocrb.traineddata` among the resources.
    static func mrzReading(_ option: String?, resources: String?) throws(ShellExit) -> MRZReadingSetup? {
        if let option {
            let setup = MRZReadingSetup(modelPath: option)
            if let problem = setup.check()?.reason ?? setup.checkLineModel() {
                throw .usage(
                    tr("--ocr-model {path}: {problem}", ["path": ShownText.value(option), "problem": problem]))
            }
            return setup
        }
        guard let resources, ResourceLocator.isFile(resources + "/" + ResourceLocator.ocrModel) else { return nil }
        return MRZReadingSetup(modelPath: resources + "/" + ResourceLocator.ocrModel)
    }

    init(_ command: ShellCommand, languages: [String]) throws(ShellExit) {
        self.languages = languages
        try Self.checkOptionCombinations(command)
        let names: [(String, String?)] = [
            ("--camera", command.camera), ("--nfc-reader", command.nfc.reader), ("--exit-on", command.exitOn),
            ("--fail-captures", command.failCaptures), ("--host-version", command.hostVersion),
        ]
        for case (let option, let value?) in names { try OptionValues.name(value, option: option) }
        let located = Result { () throws(ResourceLocator.NotFound) in try ResourceLocator.resourcesDirectory() }
        let resources = try? located.get()
        (journeyURL, isBundledDemo) = try Self.journeyURL(command.url, resources: located)
        allowedOrigins = []
        for origin in command.allowedOrigins { allowedOrigins.append(try OptionValues.origin(origin)) }
        inspector = command.inspector
        hostVersion = command.hostVersion
        usesTestPattern = command.camera == "test-pattern"
        camera = usesTestPattern ? .auto : CameraChoice(argument: command.camera)
        if case .device(let path) = camera, !path.hasPrefix("/dev/") {
            throw .usage(
                tr(
                    "--camera takes a device such as /dev/video0, pipewire, pipewire:NAME, auto, none or test-pattern, not '{value}'",
                    ["value": ShownText.value(path)]))
        }

        if let path = command.selfieRecipientKey {
            selfieRecipientKey = try Self.recipientKey(path: path)
            selfieRecipientKeyIsDemo = false
        } else if let resources, ResourceLocator.isFile(resources + "/" + ResourceLocator.demoSelfieRecipientKey) {
            selfieRecipientKey = try Self.recipientKey(path: resources + "/" + ResourceLocator.demoSelfieRecipientKey)
            selfieRecipientKeyIsDemo = true
        } else {
            selfieRecipientKey = nil
            selfieRecipientKeyIsDemo = false
        }

        let fallback: CaptureAnswer =
            command.cancelCaptures ? .cancel : command.failCaptures.map { .fail(code: $0) } ?? .camera
        documentAnswer = fallback
        selfieAnswer = fallback
        if let path = command.documentImage {
            documentAnswer = try Self.imageAnswer(path: path, option: "--document-image")
        }
        mrzReading = try Self.mrzReading(command.ocrModel, resources: resources)
        if let path = command.selfieImage { selfieAnswer = try Self.imageAnswer(path: path, option: "--selfie-image") }
        if case .image = selfieAnswer, selfieRecipientKey == nil {
            throw .usage(
                tr("--selfie-image needs --selfie-recipient-key (no demo key was found to seal the selfie package)"))
        }
        if let text = command.autoCapture {
            let seconds = try OptionValues.seconds(
                text, option: "--auto-capture", minimum: .zero, maximum: Self.longestAutoCapture,
                maximumInWords: tr("an hour"))
            autoCapture = .milliseconds(Int64((seconds * 1000).rounded()))
        } else {
            autoCapture = nil
        }
        if let text = command.selfieCountdown {
            let problem = ShellExit.usage(
                tr(
                    "--selfie-countdown must be a whole number of seconds from 0 to 10, not {value}",
                    ["value": OptionValues.shown(text)]))
            guard let seconds = OptionValues.wholeNumber(text, in: 0...10) else { throw problem }
            selfieCountdown = seconds
        }
        documentAutoCapture = !command.noAutoCapture
        messageLogPath = command.messageLog
        logPayloads = command.logPayloads
        exitOn = command.exitOn
        timeout = try command.timeout.map { (text) throws(ShellExit) in
            try OptionValues.seconds(
                text, option: "--timeout", minimum: .aboveZero, maximum: Self.longestTimeout,
                maximumInWords: tr("a week"))
        }
        screenshotPath = command.screenshot
        headless = command.headless
        automation = command.automation
        failsOnPageError = command.console.failOnPageError
        forwardsConsole = command.console.console ?? (command.headless || failsOnPageError)
        windowSize = try OptionValues.windowSize(command.windowSize, smallest: (320, 240), largest: (7680, 4320))
        nfcReader = ReaderChoice(argument: command.nfc.reader)
        if let path = command.nfc.csca {
            do {
                cscaStore = try CSCAStore(contentsOf: path)
            } catch {
                throw .usage(tr("--csca: {reason}", ["reason": ShownText.message(error.description)]))
            }
        } else {
            cscaStore = .empty
        }
        let nfcSeconds = try command.nfc.timeout.map { (text) throws(ShellExit) in
            try OptionValues.seconds(
                text, option: "--nfc-timeout", minimum: .aboveZero, maximum: 600, maximumInWords: tr("ten minutes"))
        }
        nfcTimeout = .milliseconds(Int64(((nfcSeconds ?? 60) * 1000).rounded()))
        let apduSeconds = try command.nfc.apduTimeout.map { (text) throws(ShellExit) in
            try OptionValues.seconds(
                text, option: "--nfc-apdu-timeout", minimum: .aboveZero, maximum: 600, maximumInWords: tr("ten minutes")
            )
        }
        if let apduSeconds, let nfcSeconds, apduSeconds > nfcSeconds {
            throw .usage(
                tr(
                    "--nfc-apdu-timeout ({apdu} s) cannot be longer than --nfc-timeout ({read} s), the time the whole read may take",
                    ["apdu": OptionValues.format(apduSeconds), "read": OptionValues.format(nfcSeconds)]))
        }
        nfcAPDUTimeout = .milliseconds(Int64(((apduSeconds ?? 10) * 1000).rounded()))
        nfcReadSize = command.nfc.shortAPDUsOnly ? .shortOnly : .automatic

        var inputs: [OutputPaths.NamedFile] = []
        if journeyURL.isFileURL {
            inputs.append(.init(name: tr("the journey file"), path: journeyURL.path(percentEncoded: false)))
        }
        if let path = command.documentImage { inputs.append(.init(name: "--document-image", path: path)) }
        if let path = command.selfieImage { inputs.append(.init(name: "--selfie-image", path: path)) }
        if let path = command.selfieRecipientKey { inputs.append(.init(name: "--selfie-recipient-key", path: path)) }
        if let path = command.nfc.csca { inputs.append(.init(name: "--csca", path: path)) }
        var outputs: [OutputPaths.NamedFile] = []
        if let path = messageLogPath, path != MessageLog.standardOutput {
            outputs.append(.init(name: "--message-log", path: path))
        }
        if let path = screenshotPath { outputs.append(.init(name: "--screenshot", path: path)) }
        try OutputPaths.check(outputs: outputs, inputs: inputs)

        // Under WebDriver the session clicks through the demo's steps itself.
        if isBundledDemo, isUnattended, !automation {
            journeyURL = URL(string: journeyURL.absoluteString + "?autostart=1")!
        }
    }

    /// Options that cannot go together or need a value of a certain form.
    private static func checkOptionCombinations(_ command: ShellCommand) throws(ShellExit) {
        if command.cancelCaptures, command.failCaptures != nil {
            throw .usage(tr("--cancel-captures and --fail-captures cannot be used together"))
        }
        if let code = command.failCaptures, code.allSatisfy(\.isWhitespace) {
            throw .usage(tr("--fail-captures needs a non-empty error code, for example CAMERA_DENIED"))
        }
        if let action = command.exitOn, action.isEmpty {
            throw .usage(tr("--exit-on needs an event action, for example journey.complete"))
        }
    }

    private static func journeyURL(
        _ argument: String?, resources: Result<String, ResourceLocator.NotFound>
    ) throws(ShellExit) -> (URL, Bool) {
        guard let argument else {
            switch resources {
            case .success(let directory):
                return (URL(fileURLWithPath: absolutePath(directory + "/" + ResourceLocator.demoJourney)), true)
            case .failure(let problem):
                throw .usage(
                    tr(
                        "no URL was given and the bundled demo journey is missing: {reason}",
                        ["reason": problem.description]))
            }
        }
        if argument.contains("://") {
            guard let url = URL(string: argument), let scheme = url.scheme?.lowercased() else {
                throw .usage(tr("'{url}' is not a valid URL", ["url": ShownText.value(argument)]))
            }
            switch scheme {
            case "http", "https":
                guard let host = url.host(), !host.isEmpty else {
                    throw .usage(tr("'{url}' has no host name", ["url": ShownText.value(argument)]))
                }
                return (url, false)
            case "file":
                let path = url.path(percentEncoded: false)
                guard ResourceLocator.isFile(path) else {
                    throw .usage(tr("the journey file {path} does not exist", ["path": ShownText.value(path)]))
                }
                return (url, false)
            default:
                throw .usage(
                    tr(
                        "unsupported URL scheme '{scheme}' in '{url}': use http://, https:// or file://",
                        ["scheme": ShownText.value(scheme), "url": ShownText.value(argument)]))
            }
        }
        let path = absolutePath(argument)
        guard ResourceLocator.isFile(path) else {
            throw .usage(
                tr(
                    "the journey file {path} does not exist (for a web address, include the scheme: https://{address})",
                    ["path": ShownText.value(path), "address": ShownText.value(argument)]))
        }
        return (URL(fileURLWithPath: path), false)
    }

    private static func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return (ResourceLocator.currentDirectory() ?? ".") + "/" + path
    }

    /// The largest image file `--document-image` and `--selfie-image` take: a document photo from any camera is
    /// far smaller, and the answer carries the file as base64 (a third larger).
    static let maximumImageFileBytes = 40 * 1024 * 1024

    private static func readFile(_ path: String, option: String, maximumBytes: Int) throws(ShellExit) -> Data {
        guard ResourceLocator.isFile(absolutePath(path)) else {
            throw .usage(tr("{option}: no such file: {path}", ["option": option, "path": ShownText.value(path)]))
        }
        if let size = ResourceLocator.fileSize(absolutePath(path)), size > maximumBytes {
            throw .usage(
                tr(
                    "{option}: {path} is too large ({size} bytes; at most {limit})",
                    [
                        "option": option, "path": ShownText.value(path), "size": String(size),
                        "limit": String(maximumBytes),
                    ]))
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: absolutePath(path)))
        } catch {
            throw .usage(
                tr(
                    "{option}: cannot read {path}: {reason}",
                    ["option": option, "path": ShownText.value(path), "reason": ShownText.message("\(error)")]))
        }
    }

    private static func imageAnswer(path: String, option: String) throws(ShellExit) -> CaptureAnswer {
        let data = try readFile(path, option: option, maximumBytes: maximumImageFileBytes)
        do {
            _ = try CaptureResultBuilder.document(fromImageFile: data)
        } catch {
            throw .usage(
                tr(
                    "{option}: {path} is not a complete PNG or JPEG image ({reason})",
                    ["option": option, "path": ShownText.value(path), "reason": ShownText.message(error.description)]))
        }
        return .image(path: path, data: data)
    }

    private static func recipientKey(path: String) throws(ShellExit) -> Curve25519.KeyAgreement.PublicKey {
        let data = try readFile(
            path, option: "--selfie-recipient-key", maximumBytes: SelfieRecipientKey.maximumPEMLength)
        do {
            return try SelfieRecipientKey.publicKey(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw .usage(
                tr(
                    "--selfie-recipient-key: {path} is not an X25519 public key in PEM form ({reason})",
                    ["path": ShownText.value(path), "reason": ShownText.message(error.description)]))
        }
    }
}
