import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// The page-side camera probe served at `/camera.js`: `cameraProbe(tag)` asks for the camera,
    /// waits for the first frame, reads it back from a canvas and posts the result to the top window
    /// (`probes`) as `{ tag, ok, ms, live, colours, lit }` or `{ tag, ok: false, error }`.
    static let cameraLibrary = """
        window.cameraProbe = async function (tag) {
          var started = performance.now();
          var result;
          try {
            var stream = await navigator.mediaDevices.getUserMedia({ video: true });
            var track = stream.getVideoTracks()[0];
            var video = document.createElement("video");
            video.muted = true; video.playsInline = true; video.srcObject = stream;
            document.body.appendChild(video);
            await video.play();
            var canvas = document.createElement("canvas");
            canvas.width = 64; canvas.height = 48;
            var context = canvas.getContext("2d", { willReadFrequently: true });
            var colours = 0, lit = 0;
            for (var attempt = 0; attempt < 200; attempt++) {
              if (video.videoWidth > 0) {
                context.drawImage(video, 0, 0, 64, 48);
                var pixels = context.getImageData(0, 0, 64, 48).data;
                var seen = new Set();
                lit = 0;
                for (var i = 0; i < pixels.length; i += 4) {
                  seen.add(pixels[i] << 16 | pixels[i + 1] << 8 | pixels[i + 2]);
                  if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 60) { lit += 1; }
                }
                colours = seen.size;
                if (lit > 0) { break; }
              }
              await new Promise(function (resolve) { setTimeout(resolve, 10); });
            }
            result = { tag: tag, ok: true, ms: Math.round(performance.now() - started),
                       live: track.readyState === "live", colours: colours, lit: lit,
                       width: video.videoWidth, height: video.videoHeight };
            stream.getTracks().forEach(function (t) { t.stop(); });
            video.remove();
          } catch (error) {
            result = { tag: tag, ok: false, error: String(error && error.name || error) };
          }
          window.top.postMessage({ camera: result }, "*");
          return result;
        };
        window.addEventListener("message", function (event) {
          if (event.data && event.data.probeCamera) { window.cameraProbe(event.data.probeCamera); }
        });
        """

    /// A frame page (any origin) that runs the probe when its parent asks.
    static let cameraFrame = "<!doctype html><script src=\"/camera.js\"></script><body>frame</body>"

    /// A running journey with the camera probe, mock capture devices and a record of decisions.
    @MainActor
    final class CameraJourney {
        let journey = Journey()
        var decisions: [WebPermissionDecision] = []

        init(access: WebCameraAccess, frames: String = "") {
            let server = journey.server
            server.serve("/camera.js", cameraLibrary)
            server.serve("/frame.html", cameraFrame)
            server.serve(
                "/",
                page(title: "Web camera", "<script src=\"/camera.js\"></script>\(frames)"))
            self.access = access
        }

        private let access: WebCameraAccess

        /// Whether the page is offered WebKit's synthetic camera (set before ``open()``).
        var usesMockDevices = true

        func open() async {
            await journey.open("/")
            journey.window.webCameraAccess = access
            journey.window.usesMockCaptureDevices = usesMockDevices
            journey.window.onWebPermissionDecided = { [unowned self] in decisions.append($0) }
        }

        /// Asks `target` (a script expression naming a window) to probe, and waits for its result.
        func probe(_ tag: String, in target: String = "window", harness: Harness) async -> JSONValue? {
            journey.run("\(target).postMessage({ probeCamera: '\(tag)' }, '*')")
            return await result(tag, harness: harness)
        }

        /// Waits (up to `seconds`) for the probe result tagged `tag`.
        func result(_ tag: String, harness: Harness, seconds: Int = 15) async -> JSONValue? {
            for _ in 0..<(seconds * 10) {
                let text = await harness.evaluate(
                    "probes.filter(function (p) { return p && p.camera && p.camera.tag === '\(tag)'; })"
                        + ".map(function (p) { return p.camera; })[0] || null",
                    in: journey.webView)
                if let text, text != "null", let value = try? JSONValue(parsing: text) { return value }
                await harness.pause(0.1)
            }
            return nil
        }
    }

    /// With `allow`: the journey origin, a same-origin frame and a `srcdoc` frame get live frames,
    /// while a cross-origin frame without `allow="camera"` and a sandboxed frame are on the page
    /// (and are denied); a foreign top page is denied; geolocation and notifications are denied.
    @MainActor
    static func webCamera(_ harness: Harness) async {
        let probe = CameraJourney(access: .allow)
        let server = probe.journey.server
        let frames = """
            <iframe id="same" src="/frame.html"></iframe>
            <iframe id="srcdoc" srcdoc="<!doctype html><script src='/camera.js'></script>srcdoc"></iframe>
            <iframe id="cross" src="\(server.url("/frame.html", otherOrigin: true))"></iframe>
            <iframe id="sandboxed" allow="camera" sandbox="allow-scripts" src="/frame.html"></iframe>
            """
        server.serve("/", page(title: "Web camera", "<script src=\"/camera.js\"></script>\(frames)"))
        await probe.open()
        await harness.pause(0.3)

        let top = await probe.probe("top", harness: harness)
        harness.check(top?["ok"] == .bool(true), "the journey origin gets the camera", "\(String(describing: top))")
        harness.check(top?["live"] == .bool(true), "its video track is live", "\(String(describing: top))")
        if case .number(let lit)? = top?["lit"], case .number(let colours)? = top?["colours"] {
            harness.check(
                lit > 0 && colours > 1, "a canvas read of a frame shows a picture", "lit \(lit), colours \(colours)")
        } else {
            harness.check(false, "a canvas read of a frame shows a picture", "\(String(describing: top))")
        }
        if case .number(let ms)? = top?["ms"] {
            harness.note("getUserMedia to first frame (mock camera): \(Int(ms)) ms")
        }
        let again = await probe.probe("top-again", harness: harness)
        if case .number(let ms)? = again?["ms"] {
            harness.note("getUserMedia to first frame, second time: \(Int(ms)) ms")
        }

        let same = await probe.probe("same", in: "document.getElementById('same').contentWindow", harness: harness)
        harness.check(same?["ok"] == .bool(true), "a same-origin frame gets the camera", "\(String(describing: same))")
        let srcdoc = await probe.probe(
            "srcdoc", in: "document.getElementById('srcdoc').contentWindow", harness: harness)
        harness.check(
            srcdoc?["ok"] == .bool(true), "a srcdoc frame (the journey's origin) gets the camera",
            "\(String(describing: srcdoc))")
        let cross = await probe.probe("cross", in: "document.getElementById('cross').contentWindow", harness: harness)
        harness.check(
            cross?["ok"] == .bool(false), "a cross-origin frame without allow=\"camera\" is denied (by WebKit)",
            "\(String(describing: cross))")
        let sandboxed = await probe.probe(
            "sandboxed", in: "document.getElementById('sandboxed').contentWindow", harness: harness)
        harness.check(
            sandboxed?["ok"] == .bool(false), "a sandboxed frame is denied", "\(String(describing: sandboxed))")

        probe.journey.run(
            """
            navigator.geolocation.getCurrentPosition(
              function () { window.geolocation = "granted"; },
              function (error) { window.geolocation = "error " + error.code; });
            Notification.requestPermission().then(function (answer) { window.notifications = answer; });
            """)
        var geolocation: String?
        var notifications: String?
        for _ in 0..<50 {
            geolocation = await harness.evaluate("window.geolocation || null", in: probe.journey.webView)
            notifications = await harness.evaluate("window.notifications || null", in: probe.journey.webView)
            if geolocation != "null", notifications != "null" { break }
            await harness.pause(0.1)
        }
        harness.check(geolocation == "\"error 1\"", "geolocation is denied", geolocation ?? "nil")
        harness.check(notifications == "\"denied\"", "notifications are denied", notifications ?? "nil")
        let deniedKinds = Set(probe.decisions.filter { !$0.allowed }.map(\.kind))
        // WebKit answers Notification.requestPermission() itself when the page is not visible enough
        // to ask; geolocation always comes to the window.
        harness.check(deniedKinds.contains(.geolocation), "the geolocation denial is reported", "\(probe.decisions)")
        for decision in probe.decisions {
            harness.note(
                "\(decision.kind.rawValue) from \(decision.origin): \(decision.allowed ? "allowed" : "denied") (\(decision.reason))"
            )
        }

        // A page no longer on the allow-list: a foreign top page. (A fresh window: WebKit keeps a
        // grant for the rest of a document's life without asking again.)
        let foreignProbe = CameraJourney(access: .allow)
        await foreignProbe.open()
        foreignProbe.journey.window.transport.originPolicy = OriginPolicy(allowedOrigins: [
            foreignProbe.journey.server.url("/", otherOrigin: true)
        ])
        let foreign = await foreignProbe.probe("foreign", harness: harness)
        harness.check(foreign?["ok"] == .bool(false), "a foreign top page is denied", "\(String(describing: foreign))")
        harness.check(
            foreignProbe.decisions.last?.reason.contains("top page") == true, "because of its top page",
            "\(String(describing: foreignProbe.decisions.last))")
    }

    /// With `ask`: the prompt names the origin; Deny and Allow both work and are remembered; `deny` never asks.
    @MainActor
    static func webCameraAsk(_ harness: Harness) async {
        let denied = CameraJourney(access: .ask)
        await denied.open()
        denied.journey.run("cameraProbe('first')")
        let prompt = await waitForPrompt(denied.journey.window, harness: harness)
        harness.check(prompt != nil, "ask shows a prompt")
        if let prompt {
            await harness.pause(0.3)
            let path =
                ProcessInfo.processInfo.environment["GBGBRIDGE_PROMPT_PICTURE"]
                ?? "/tmp/gbgbridge-web-camera-prompt.png"
            if paint(gtkCast(prompt), toPNG: path) { harness.note("prompt picture: \(path)") }
            harness.check(colourCount(ofPNG: path) > 2, "the prompt is drawn")
            let focus = gtk_window_get_focus(gtkCast(prompt))
            let label = focus.flatMap { gtk_button_get_label(gtkCast($0)) }.map { String(cString: $0) }
            harness.check(
                label == "_Deny", "Deny has the focus: one default for the eye and the keyboard", label ?? "nil")
        }
        denied.journey.window.answerWebCameraPrompt(allow: false)
        let first = await denied.result("first", harness: harness)
        harness.check(
            first?["error"] == .string("NotAllowedError"), "Deny rejects getUserMedia", "\(String(describing: first))")
        denied.journey.run("cameraProbe('second')")
        let second = await denied.result("second", harness: harness)
        harness.check(
            second?["error"] == .string("NotAllowedError") && denied.journey.window.webCameraPrompt == nil,
            "the denial is remembered (no second prompt)", "\(String(describing: second))")
        // The person uses the page again (a key): the next request may ask once more.
        sendKey(to: denied.journey.window.window!, keyval: guint(GDK_KEY_space), state: GdkModifierType(rawValue: 0))
        await harness.pause(0.1)
        denied.journey.run("cameraProbe('reconsidered')")
        let again = await waitForPrompt(denied.journey.window, harness: harness)
        harness.check(again != nil, "after the person's next key, a request asks again instead of failing for good")
        denied.journey.window.answerWebCameraPrompt(allow: true)
        let reconsidered = await denied.result("reconsidered", harness: harness)
        harness.check(
            reconsidered?["ok"] == .bool(true), "and Allow then gives the camera", "\(String(describing: reconsidered))"
        )

        let allowed = CameraJourney(access: .ask)
        await allowed.open()
        allowed.journey.run("cameraProbe('first')")
        let secondPrompt = await waitForPrompt(allowed.journey.window, harness: harness)
        harness.check(secondPrompt != nil, "a new window asks again")
        allowed.journey.window.answerWebCameraPrompt(allow: true)
        let granted = await allowed.result("first", harness: harness)
        harness.check(
            granted?["ok"] == .bool(true), "Allow gives the page the camera", "\(String(describing: granted))")
        allowed.journey.run("cameraProbe('second')")
        let remembered = await allowed.result("second", harness: harness)
        harness.check(
            remembered?["ok"] == .bool(true) && allowed.journey.window.webCameraPrompt == nil,
            "the answer is remembered", "\(String(describing: remembered))")

        let kiosk = CameraJourney(access: .ask)
        await kiosk.open()
        kiosk.journey.window.enterKioskMode(KioskConfiguration())
        let kioskResult = await kiosk.probe("kiosk", harness: harness)
        harness.check(
            kioskResult?["ok"] == .bool(true) && kiosk.journey.window.webCameraPrompt == nil,
            "kiosk mode answers ask with allow, without a prompt", "\(String(describing: kioskResult))")

        let refusing = CameraJourney(access: .deny)
        await refusing.open()
        let refused = await refusing.probe("denied", harness: harness)
        harness.check(
            refused?["error"] == .string("NotAllowedError") && refusing.journey.window.webCameraPrompt == nil,
            "deny rejects without asking", "\(String(describing: refused))")
    }

    @MainActor
    private static func waitForPrompt(_ window: BridgeJourneyWindow, harness: Harness) async
        -> UnsafeMutablePointer<GtkWidget>?
    {
        for _ in 0..<100 {
            if let prompt = window.webCameraPrompt { return prompt }
            await harness.pause(0.1)
        }
        return nil
    }
}

extension JSONValue {
    /// The member `key` of an object, or `nil`.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}
