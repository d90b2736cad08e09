import Foundation
import Testing

/// The bundled demo journey and the machine-readable zone (MRZ) the host reads from the document
/// photo: the document step says in words what was read (nothing of the holder's data), and
/// `journey.complete` records the zone's status (`mrz`, `mrzFormat`).
///
/// `document-mrz-td3.png` is a TD3 passport page (the ICAO specimen's zone, the key of the
/// virtual passport in Tests/NFCEndToEnd) rendered by `Benchmarks/mrz/make-mrz-set.py --document
/// --seed 1 --lines …`, scaled to 1152 × 648 and reduced to 32 colours to stay small.
@Suite("gbgbridge-shell demo journey: the document photo's machine-readable zone", .serialized)
struct DemoMRZTests {
    let scratch = ShellRun.scratchDirectory()

    private func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }

    /// Runs a probed copy of the demo unattended (no chip reader) with `documentImage` until
    /// `journey.complete`; returns its data and the text the page showed.
    private func runDemo(
        documentImage: String, environment: [String: String?] = [:]
    ) throws -> (result: [String: Any], pageText: String) {
        let arguments = [
            try probedDemoCopy(), "--headless", "--document-image", documentImage,
            "--selfie-image", ShellRun.fixture("selfie.jpg"), "--nfc-reader", "none",
            "--exit-on", "journey.complete", "--timeout", "60",
        ]
        let run = try ShellRun.run(arguments, environment: environment, scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        #expect(result["outcome"] as? String == "completed", "\(result)")
        let pageText = object(result["page"])["text"] as? String ?? ""
        #expect(!pageText.isEmpty, "\(result)")
        return (result, pageText)
    }

    @Test("a passport photo whose zone the host reads: outcome mrz read, TD3; the page says so, nothing of the holder")
    func zoneRead() throws {
        let run = try runDemo(documentImage: ShellRun.fixture("document-mrz-td3.png"))
        let document = object(object(run.result["steps"])["document"])
        #expect(document["status"] as? String == "success", "\(document)")
        #expect(document["mrz"] as? String == "read", "\(document)")
        #expect(document["mrzFormat"] as? String == "TD3", "\(document)")
        #expect(run.pageText.contains("Machine-readable zone"), "\(run.pageText)")
        #expect(run.pageText.contains("read (passport, TD3)"), "\(run.pageText)")
        // The holder's data stays off the page (no chip step here to name the document number);
        // the host hears statuses only.
        for personal in ["ERIKSSON", "ANNA", "L898902C", "690806", "940623"] {
            #expect(!run.pageText.contains(personal), "\(personal) on the page: \(run.pageText)")
        }
        var hostData = run.result
        hostData["page"] = nil
        let sent = String(decoding: try JSONSerialization.data(withJSONObject: hostData), as: UTF8.self)
        for personal in ["ERIKSSON", "L898902C", "690806"] {
            #expect(!sent.contains(personal), "\(personal) in journey.complete: \(sent)")
        }
    }

    @Test("a photo whose zone does not read: outcome mrz names why, no format, and the page says it in words")
    func zoneNotRead() throws {
        let run = try runDemo(documentImage: ShellRun.fixture("document.png"))
        let document = object(object(run.result["steps"])["document"])
        #expect(document["status"] as? String == "success", "\(document)")
        let status = document["mrz"] as? String ?? "(none)"
        // document.png's zone is not an ICAO one: not found, or found with check digits that fail.
        #expect(["notFound", "unverified"].contains(status), "\(document)")
        #expect(document["mrzFormat"] == nil, "\(document)")
        let words = status == "notFound" ? "not found" : "could not be verified"
        #expect(run.pageText.contains("Machine-readable zone"), "\(run.pageText)")
        #expect(run.pageText.contains(words), "\(run.pageText)")
    }

    @Test("a host that reads no zones (no OCR model among the resources): no mrz in the outcome, nothing on the page")
    func hostWithoutZones() throws {
        let resources = scratch.appendingPathComponent("resources-without-ocr")
        let files = FileManager.default
        try files.createDirectory(at: resources, withIntermediateDirectories: true)
        for name in ["demo", "demo-keys", "gbgbridge-client.js"] {
            try files.copyItem(
                at: DemoLanguageTests.resources.appendingPathComponent(name),
                to: resources.appendingPathComponent(name))
        }
        let run = try runDemo(
            documentImage: ShellRun.fixture("document-mrz-td3.png"),
            environment: ["GBGBRIDGE_RESOURCES": resources.path])
        let document = object(object(run.result["steps"])["document"])
        #expect(document["status"] as? String == "success", "\(document)")
        #expect(document["mrz"] == nil, "\(document)")
        #expect(!run.pageText.contains("Machine-readable zone"), "\(run.pageText)")
    }

    /// A copy of the demo (and the client it loads) in the scratch folder with the probe of
    /// ``DemoLanguageTests/probe``, which adds what the page shows to `journey.complete` as
    /// `page`. Returns the copy's URL with `?autostart=1`, as the shell gives the bundled demo.
    private func probedDemoCopy() throws -> String {
        let files = FileManager.default
        let root = scratch.appendingPathComponent("probed-\(UUID().uuidString)")
        try files.createDirectory(at: root, withIntermediateDirectories: true)
        for name in ["demo", "gbgbridge-client.js"] {
            try files.copyItem(
                at: DemoLanguageTests.resources.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        let index = root.appendingPathComponent("demo/index.html")
        let html = try String(contentsOf: index, encoding: .utf8)
        #expect(html.contains("</body>"))
        try html.replacingOccurrences(of: "</body>", with: DemoLanguageTests.probe + "</body>")
            .write(to: index, atomically: true, encoding: .utf8)
        return index.absoluteString + "?autostart=1"
    }
}
