import CWebKitGTK
import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import V4L2Capture

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// Page-side helpers for the vivid guest: `vividBars(tag)` opens the camera at 640x360, reads
    /// the centre row of the first frame with a picture and posts the colour at the middle of
    /// each eighth (vivid's eight 75% colour bars) to `probes`; the stream stays open until
    /// `releaseCamera()`.
    static let vividLibrary = """
        window.vividBars = async function (tag) {
          var started = performance.now();
          var result;
          try {
            var stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360 } });
            window.heldStream = stream;
            var video = document.createElement("video");
            video.muted = true; video.playsInline = true; video.srcObject = stream;
            document.body.appendChild(video);
            await video.play();
            var canvas = document.createElement("canvas");
            var context = null, bars = [];
            for (var attempt = 0; attempt < 1000 && bars.length === 0; attempt++) {
              if (video.videoWidth > 0) {
                canvas.width = video.videoWidth; canvas.height = video.videoHeight;
                context = context || canvas.getContext("2d", { willReadFrequently: true });
                context.drawImage(video, 0, 0);
                var row = context.getImageData(0, Math.floor(canvas.height / 2), canvas.width, 1).data;
                var lit = false;
                for (var i = 0; i < row.length; i += 4) { if (row[i] + row[i + 1] + row[i + 2] > 60) { lit = true; } }
                if (lit) {
                  for (var bar = 0; bar < 8; bar++) {
                    var x = Math.floor((bar + 0.5) * canvas.width / 8) * 4;
                    bars.push([row[x], row[x + 1], row[x + 2]]);
                  }
                }
              }
              if (bars.length === 0) { await new Promise(function (resolve) { setTimeout(resolve, 20); }); }
            }
            result = { tag: tag, ok: bars.length > 0, ms: Math.round(performance.now() - started), bars: bars,
                       width: video.videoWidth, height: video.videoHeight,
                       label: stream.getVideoTracks()[0].label };
          } catch (error) {
            result = { tag: tag, ok: false, error: String(error && error.name || error),
                       ms: Math.round(performance.now() - started) };
          }
          window.top.postMessage({ camera: result }, "*");
        };
        """ + releaseCameraScript

    /// In the vivid guest: the page's `getUserMedia` goes through WebKit and GStreamer to a V4L2
    /// camera and sees vivid's colour bars; the page and a native stream take turns on the cameras
    /// (each finds the other's camera busy, nothing hangs, each release frees the device).
    @MainActor
    static func webCameraVivid(_ harness: Harness) async {
        let cameras = ["/dev/video0", "/dev/video1"]
        let probe = CameraJourney(access: .allow)
        probe.journey.server.serve("/vivid.js", vividLibrary)
        probe.journey.server.serve(
            "/",
            page(title: "Web camera (vivid)", "<script src=\"/camera.js\"></script><script src=\"/vivid.js\"></script>")
        )
        probe.usesMockDevices = false
        await probe.open()

        probe.journey.run("vividBars('bars')")
        let bars = await probe.result("bars", harness: harness, seconds: 120)
        harness.check(bars?["ok"] == .bool(true), "the page gets the vivid camera", "\(String(describing: bars))")
        for decision in probe.decisions {
            harness.note("\(decision.kind.rawValue) from \(decision.origin): \(decision.allowed) (\(decision.reason))")
        }
        if case .number(let ms)? = bars?["ms"] { harness.note("getUserMedia to first frame (vivid): \(Int(ms)) ms") }
        // vivid's 75% bars: white, yellow, cyan, green, magenta, red, blue, black.
        let expected: [[Double]] = [
            [191, 191, 191], [191, 191, 0], [0, 191, 191], [0, 191, 0], [191, 0, 191], [191, 0, 0], [0, 0, 191],
            [0, 0, 0],
        ]
        var seen: [[Double]] = []
        if case .array(let list)? = bars?["bars"] {
            for case .array(let channels) in list {
                seen.append(channels.compactMap { if case .number(let value) = $0 { value } else { nil } })
            }
        }
        let matches =
            seen.count == 8
            && zip(seen, expected).allSatisfy { pair in
                pair.0.count == 3 && zip(pair.0, pair.1).allSatisfy { abs($0 - $1) <= 24 }
            }
        harness.check(matches, "a canvas read shows vivid's eight colour bars", "\(seen)")

        // The page holds one camera: native capture finds exactly that one busy.
        var busy = 0
        for path in cameras {
            do {
                let stream = try await CameraStream.open(
                    path: path, request: CameraStreamRequest(width: 640, height: 360))
                await stream.close()
            } catch {
                if error.kind == .busy { busy += 1 } else { harness.note("\(path): \(error)") }
            }
        }
        harness.check(busy == 1, "native capture finds the page's camera busy (CAMERA_BUSY)", "\(busy) busy")

        // The page lets go: native capture takes both cameras; the page's request fails, it does not hang.
        probe.journey.run("releaseCamera()")
        await harness.pause(1)
        var held: [CameraStream] = []
        for path in cameras {
            do {
                held.append(
                    try await CameraStream.open(path: path, request: CameraStreamRequest(width: 640, height: 360)))
            } catch {
                harness.note("\(path): \(error)")
            }
        }
        harness.check(held.count == 2, "after the page's release, native capture opens both cameras", "\(held.count)")
        probe.journey.run("vividBars('while-native')")
        let refused = await probe.result("while-native", harness: harness, seconds: 60)
        harness.check(
            refused?["ok"] == .bool(false), "while native capture holds the cameras the page gets a DOM error, no hang",
            "\(String(describing: refused))")
        probe.journey.run("releaseCamera()")
        for stream in held { await stream.close() }

        // Native capture let go: the page gets the camera again.
        probe.journey.run("vividBars('again')")
        let again = await probe.result("again", harness: harness, seconds: 60)
        harness.check(
            again?["ok"] == .bool(true), "after native capture ends the page gets the camera again",
            "\(String(describing: again))")
        probe.journey.run("releaseCamera()")
    }
}
