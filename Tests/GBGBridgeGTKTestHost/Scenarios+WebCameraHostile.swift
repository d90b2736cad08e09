import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK

extension Scenarios {
    /// Hostile pages against the web camera (`--web-camera allow`): a foreign frame never gets the
    /// camera, whatever the journey page or the frame does, and while a foreign frame could ask
    /// (it was given `allow="camera"`), nobody gets it, because the window could not tell whose
    /// request it is. Frames that cannot ask do not hold the journey back.
    @MainActor
    static func webCameraHostile(_ harness: Harness) async {
        let probe = CameraJourney(access: .allow)
        let server = probe.journey.server
        let foreign = server.url("/frame.html", otherOrigin: true)
        // A foreign frame page that asks for the camera as soon as it loads, again and again.
        server.serve(
            "/greedy.html",
            """
            <!doctype html><script src="/camera.js"></script><script>
            var tries = 0;
            (function again() {
              tries += 1;
              cameraProbe("greedy-" + tries).then(function (r) { if (!r.ok && tries < 15) setTimeout(again, 100); });
            })();
            </script>greedy
            """)
        await probe.open()
        await harness.pause(0.3)

        // 1. A foreign frame given allow="camera": while it is on the page nobody gets the camera.
        // (First of all: once a document has the camera, WebKit lets it ask again without the window.)
        probe.journey.run(
            "var f = document.createElement('iframe'); f.id = 'delegated'; f.allow = 'camera'; "
                + "f.src = '\(foreign)'; document.body.appendChild(f);")
        await harness.pause(1)
        let delegated = await probe.probe(
            "delegated", in: "document.getElementById('delegated').contentWindow", harness: harness)
        harness.check(
            delegated?["ok"] == .bool(false), "a foreign frame given allow=\"camera\" is denied",
            "\(String(describing: delegated))")
        let blocked = await probe.probe("blocked", harness: harness)
        harness.check(
            blocked?["ok"] == .bool(false), "while it is on the page, the journey is denied too",
            "\(String(describing: blocked))")
        harness.check(
            probe.decisions.count >= 2
                && probe.decisions.allSatisfy { !$0.allowed && $0.reason.contains("allow=\"camera\"") },
            "with a reason that names the delegation", "\(probe.decisions.map(\.reason))")
        probe.journey.run("document.getElementById('delegated').remove()")
        await harness.pause(0.5)
        let after = await probe.probe("after-removal", harness: harness)
        harness.check(
            after?["ok"] == .bool(true), "once the frame is gone, the journey gets the camera",
            "\(String(describing: after))")

        // 2. The race: the journey asks again and again while a delegated foreign frame loads and
        // asks as soon as it can; the foreign frame never gets the camera.
        probe.journey.run(
            "for (var i = 0; i < 8; i++) setTimeout(function (n) { cameraProbe('race-' + n); }, i * 60, i);"
                + "var g = document.createElement('iframe'); g.id = 'greedy'; g.allow = 'camera'; "
                + "g.src = '\(server.url("/greedy.html", otherOrigin: true))'; document.body.appendChild(g);")
        await harness.pause(4)
        let greedyWon = await harness.evaluate(
            "probes.some(function (p) { return p && p.camera && /^greedy/.test(p.camera.tag) && p.camera.ok; })",
            in: probe.journey.webView)
        let greedyTried = await harness.evaluate(
            "probes.filter(function (p) { return p && p.camera && /^greedy/.test(p.camera.tag); }).length",
            in: probe.journey.webView)
        harness.check(
            greedyWon == "false" && (Int(greedyTried ?? "0") ?? 0) > 0,
            "racing the journey, a foreign frame never gets the camera", "tried \(greedyTried ?? "nil")")
        probe.journey.run("document.getElementById('greedy').remove()")
        await harness.pause(0.5)

        // 3. Hidden in a closed shadow root, where no DOM walk can see the iframe element.
        probe.decisions.removeAll()
        probe.journey.run(
            "var host = document.createElement('div'); document.body.appendChild(host);"
                + "var root = host.attachShadow({ mode: 'closed' });"
                + "root.innerHTML = '<iframe allow=\"camera\" src=\"\(foreign)\"></iframe>';"
                + "window.shadowFrame = root.querySelector('iframe'); window.shadowHost = host;")
        await harness.pause(1)
        let shadowed = await probe.probe("shadowed", in: "window.shadowFrame.contentWindow", harness: harness)
        harness.check(
            shadowed?["ok"] == .bool(false)
                && probe.decisions.contains { !$0.allowed && $0.reason.contains("allow=\"camera\"") },
            "a delegated frame in a closed shadow root is seen all the same, and denied",
            "\(String(describing: shadowed)) \(probe.decisions.map(\.reason))")
        probe.journey.run("window.shadowHost.remove()")
        await harness.pause(0.5)

        // 4. Forgeries and floods from a foreign frame without allow="camera" change nothing.
        probe.journey.run(
            "var h = document.createElement('iframe'); h.id = 'flood'; h.src = '\(foreign)';"
                + "document.body.appendChild(h);")
        await harness.pause(1)
        probe.journey.run(
            """
            var target = document.getElementById('flood').contentWindow;
            for (var i = 0; i < 200; i++) {
              target.postMessage({ probeCamera: 'flood-' + i }, '*');
              window.dispatchEvent(new CustomEvent('__gbgBridgeMediaCall', { detail: '{"call":"getUserMedia","id":"x","video":true}' }));
            }
            """)
        await harness.pause(1.5)
        let beside = await probe.probe("beside-flood", harness: harness)
        harness.check(
            beside?["ok"] == .bool(true),
            "a foreign frame that cannot ask (no allow=\"camera\"), flooding requests, does not keep the camera from the journey",
            "\(String(describing: beside))")
        let floodWon = await harness.evaluate(
            "probes.some(function (p) { return p && p.camera && /^flood/.test(p.camera.tag) && p.camera.ok; })",
            in: probe.journey.webView)
        harness.check(floodWon == "false", "and gets nothing itself")

        // 5. allow="camera" added after the foreign frame loaded gives it nothing (WebKit fixes a
        // document's policy when it is created), and does not hold the journey back.
        probe.journey.run("document.getElementById('flood').setAttribute('allow', 'camera')")
        await harness.pause(0.3)
        let late = await probe.probe("late", in: "document.getElementById('flood').contentWindow", harness: harness)
        let besideLate = await probe.probe("beside-late", harness: harness)
        harness.check(
            late?["ok"] == .bool(false) && besideLate?["ok"] == .bool(true),
            "a late allow=\"camera\" gives the loaded foreign frame nothing",
            "\(String(describing: late)) \(String(describing: besideLate))")
        probe.journey.run("document.getElementById('flood').remove()")

        // 6. The journey's own frames: about:blank, blob: and nested same-origin frames get it.
        probe.journey.run(
            """
            var blank = document.createElement('iframe'); blank.id = 'blank'; document.body.appendChild(blank);
            blank.contentWindow.eval(\(jsonString(cameraLibrary)));
            var blob = new Blob(['<!doctype html><script>', \(jsonString(cameraLibrary)), '</scr' + 'ipt>blob'], { type: 'text/html' });
            var b = document.createElement('iframe'); b.id = 'blob'; b.src = URL.createObjectURL(blob);
            document.body.appendChild(b);
            """)
        await harness.pause(1)
        let blank = await probe.probe("blank", in: "document.getElementById('blank').contentWindow", harness: harness)
        harness.check(
            blank?["ok"] == .bool(true), "an about:blank frame of the journey gets the camera",
            "\(String(describing: blank))")
        let blob = await probe.probe("blob", in: "document.getElementById('blob').contentWindow", harness: harness)
        harness.check(
            blob?["ok"] == .bool(true), "a blob: frame of the journey gets the camera", "\(String(describing: blob))")
        // 7. Kiosk mode answers ask with allow, but not to a page with a delegated foreign frame.
        let kiosk = CameraJourney(access: .ask)
        await kiosk.open()
        kiosk.journey.window.enterKioskMode(KioskConfiguration())
        kiosk.journey.run(
            "var k = document.createElement('iframe'); k.id = 'delegated'; k.allow = 'camera'; "
                + "k.src = '\(kiosk.journey.server.url("/frame.html", otherOrigin: true))'; document.body.appendChild(k);"
        )
        await harness.pause(1)
        let kioskFrame = await kiosk.probe(
            "kiosk-frame", in: "document.getElementById('delegated').contentWindow", harness: harness)
        let kioskTop = await kiosk.probe("kiosk-top", harness: harness)
        harness.check(
            kioskFrame?["ok"] == .bool(false) && kioskTop?["ok"] == .bool(false)
                && kiosk.journey.window.webCameraPrompt == nil,
            "in kiosk mode too, with no prompt", "\(String(describing: kioskFrame)) \(String(describing: kioskTop))")
        kiosk.journey.window.close()

        for decision in probe.decisions where !decision.allowed {
            harness.note("denied \(decision.kind.rawValue) to \(decision.origin): \(decision.reason)")
        }
    }
}
