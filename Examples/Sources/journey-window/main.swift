// A journey in a window of your own app, with the capture window answering document and selfie
// requests from a camera and a custom capability beside them.
//
//   journey-window URL [--selfie-recipient-key PEM] [--ocr-model FILE]
//
// Selfies are sealed to your backend's X25519 public key; without one the selfie slot is not offered.
// The document answer carries the machine-readable zone when an OCR-B model is found (--ocr-model, else
// the one the gbgbridge-shell package installs).
import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeCapture
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// The command line, checked before any window opens.
struct Options {
    var journey: URL
    var selfieRecipientKeyPath: String?
    var ocrModelPath = "/usr/share/gbgbridge-shell/ocr/ocrb.traineddata"

    static let usage = "usage: journey-window URL [--selfie-recipient-key PEM] [--ocr-model FILE]"

    init(arguments: [String]) throws(UsageError) {
        var journey: URL?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--selfie-recipient-key":
                guard let path = remaining.popFirst() else { throw UsageError("--selfie-recipient-key needs a file") }
                selfieRecipientKeyPath = path
            case "--ocr-model":
                guard let path = remaining.popFirst() else { throw UsageError("--ocr-model needs a file") }
                ocrModelPath = path
            default:
                guard journey == nil, let url = URL(string: argument), url.scheme != nil else {
                    throw UsageError("unexpected argument \(argument)")
                }
                journey = url
            }
        }
        guard let journey else { throw UsageError("no journey URL") }
        self.journey = journey
    }
}

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One line on stderr.
func say(_ message: String) {
    var line = "journey-window: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String, status: Int32) -> Never {
    say(message)
    exit(status)
}

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error.message)\n\(Options.usage)", status: 2)
}

let recipient = options.selfieRecipientKeyPath.map { path in
    do {
        return try SelfieRecipientKey.publicKey(contentsOfFile: path)
    } catch {
        fail("selfie recipient key \(path): \(error)", status: 2)
    }
}
if recipient == nil {
    say("no --selfie-recipient-key, so the journey is told selfies are not available")
}

MainLoopIntegration.install()  // before anything uses the main actor
gtk_init(nil, nil)

let host = BridgeHost(hostVersion: "1.0.0")

let captures = CaptureCoordinator(host: host, camera: .auto, selfieRecipientKey: recipient)
let mrzReading = MRZReadingSetup(modelPath: options.ocrModelPath)
if let problem = mrzReading.check() {
    say("no MRZ reading (\(problem))")
} else {
    captures.mrzReading = mrzReading
}
Task { @MainActor in await captures.install() }

// Any other native power, as a custom capability (it shows up in capability.query).
host.registerCustomCapability("device.locale", version: "1.0") { _, responder in
    responder.respond(status: .success, data: ["locale": .string("en_GB")], error: nil)
}

let window = BridgeJourneyWindow(url: options.journey, host: host)
window.onClosed = { gtk_main_quit() }
captures.parentWindow = window.window
window.show()
gtk_main()
