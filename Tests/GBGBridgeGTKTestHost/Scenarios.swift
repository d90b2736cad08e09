import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

/// One scripted scenario of the test host.
struct Scenario {
    var needsDisplay = true
    var timeoutSeconds: guint = 60
    let body: @MainActor (Harness) async -> Void
}

/// The scenarios, by the name passed on the command line.
enum Scenarios {
    @MainActor static let all: [String: Scenario] = [
        "main-loop": Scenario(needsDisplay: false, timeoutSeconds: 20, body: mainLoop),
        "round-trip": Scenario(body: roundTrip),
        "events": Scenario(body: events),
        "bodies": Scenario(body: bodies),
        "prototype-tojson": Scenario(body: prototypeToJSON),
        "origins": Scenario(body: origins),
        "navigation": Scenario(body: navigation),
        "reload": Scenario(body: reload),
        "web-process-crash": Scenario(body: webProcessCrash),
        "volume": Scenario(timeoutSeconds: 180, body: volume),
        "lifecycle": Scenario(body: lifecycle),
        "page-lifecycle": Scenario(body: pageLifecycle),
        "delivery-errors": Scenario(body: deliveryErrors),
        "snapshot": Scenario(body: snapshot),
        "file-origin": Scenario(body: fileOrigin),
        "forged-hello": Scenario(body: forgedHello),
        "surrogate-ids": Scenario(body: surrogateIds),
        "oversize": Scenario(body: oversize),
        "console": Scenario(body: console),
        "load-failures": Scenario(body: loadFailures),
        "navigation-kinds": Scenario(timeoutSeconds: 120, body: navigationKinds),
        "error-page": Scenario(body: errorPage),
        "context-menu": Scenario(body: contextMenu),
        "kiosk": Scenario(body: kiosk),
        "kiosk-windows": Scenario(body: kioskWindows),
        "kiosk-idle": Scenario(timeoutSeconds: 90, body: kioskIdle),
        "capability-life": Scenario(body: capabilityLife),
        "kiosk-chip-window": Scenario(timeoutSeconds: 90, body: kioskChipWindow),
        "app-focus": Scenario(body: applicationFocus),
        "embedder-callbacks": Scenario(body: embedderCallbacks),
        "user-content": Scenario(body: userContent),
        "explicit-policy": Scenario(body: explicitPolicy),
        "web-camera": Scenario(body: webCamera),
        "web-camera-ask": Scenario(body: webCameraAsk),
        "web-camera-hostile": Scenario(timeoutSeconds: 120, body: webCameraHostile),
        "forged-events": Scenario(timeoutSeconds: 120, body: forgedEvents),
        "blank-steps": Scenario(timeoutSeconds: 120, body: blankSteps),
        "message-order": Scenario(timeoutSeconds: 240, body: messageOrder),
        // Needs vivid cameras: run in the camera VM (scripts/camera-vm-test.sh), not by the test suite.
        "web-camera-vivid": Scenario(timeoutSeconds: 400, body: webCameraVivid),
        "web-camera-pipewire": Scenario(timeoutSeconds: 180, body: webCameraPipeWire),
        "extension-delivery": Scenario(body: extensionDelivery),
    ]

    /// The page-side test client served at `/lib.js`.
    static let pageLibrary = """
        (function () {
          var seq = 0;
          var waiting = {};
          window.received = [];
          window.probes = [];
          window.envelope = function (type, action, data) {
            seq += 1;
            return { version: "1.0", correlationId: "web-" + seq + "-" + Math.random().toString(36).slice(2),
                     type: type, timestamp: Date.now(), payload: { action: action, data: data || {} } };
          };
          window.post = function (body) { window.webkit.messageHandlers.gbgBridge.postMessage(body); };
          window.request = function (action, data) {
            var message = envelope("request", action, data);
            return new Promise(function (resolve) { waiting[message.correlationId] = resolve; post(message); });
          };
          window.sendEvent = function (action, data) { post(envelope("event", action, data)); };
          window.GBGBridge.receive = function (message) {
            window.received.push(message);
            var resolve = waiting[message.correlationId];
            if (message.type === "response" && resolve) { delete waiting[message.correlationId]; resolve(message); }
            if (window.onBridgeMessage) { window.onBridgeMessage(message); }
          };
          window.addEventListener("message", function (event) { window.probes.push(event.data); });
          window.addEventListener("load", function () { sendEvent("test.pageReady", { url: location.href }); });
        })();
        """

    /// A journey page with the test client and `body`.
    static func page(title: String = "Test journey", _ body: String = "") -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title>
        <script src="/lib.js"></script></head>
        <body style="font-family: sans-serif; background: #f4f7fb; color: #123;">
        <h1 style="background: #0b5cab; color: white; padding: 16px;">\(title)</h1>
        \(body)</body></html>
        """
    }

    /// A running journey: server, host, window and the host's inbox.
    @MainActor
    final class Journey {
        let server = TestServer()
        let host = BridgeHost(hostVersion: "9.9.9")
        let inbox: Inbox
        var window: BridgeJourneyWindow!
        var opened: [String] = []
        var webView: UnsafeMutablePointer<WebKitWebView> { window.webView! }

        init() {
            inbox = Inbox(host: host)
            server.serve("/lib.js", Scenarios.pageLibrary)
        }

        /// Opens the window on `path` and waits until the page reported `load`.
        func open(_ path: String, allowedOrigins: [String] = []) async {
            window = BridgeJourneyWindow(
                url: URL(string: server.url(path))!, host: host, allowedOrigins: allowedOrigins, width: 800, height: 600
            )
            window.transport.openExternally = { [unowned self] in opened.append($0) }
            await withCheckedContinuation { continuation in
                window.onLoadFinished = { [unowned self] in
                    window.onLoadFinished = nil
                    continuation.resume()
                }
                window.show()
            }
            _ = await inbox.next("test.pageReady")
        }

        /// Runs `script` in the page (its value is ignored).
        func run(_ script: String) {
            webkit_web_view_evaluate_javascript(webView, script, -1, nil, nil, nil, nil, nil)
        }

        /// Waits until every delivery issued so far has run in the page.
        func flush() async {
            await withCheckedContinuation { continuation in
                window.transport.flush { continuation.resume() }
            }
        }
    }
}
