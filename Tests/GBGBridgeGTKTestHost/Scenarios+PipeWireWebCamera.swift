import FoundationEssentials
import GBGBridge
import GBGBridgeGTK
import PipeWireCapture
import VideoFrame

extension Scenarios {
    /// Page-side helpers for the PipeWire session: `pipeWireFrames(tag)` opens the page's camera (once) and
    /// posts to `probes` whether a frame with a picture arrived, its size, the track's label and a sample of
    /// the picture (to see it move between calls); the stream stays open until `releaseCamera()`.
    static let pipeWireLibrary = """
        window.pipeWireFrames = async function (tag) {
          var started = performance.now();
          var result;
          try {
            if (!window.heldStream) {
              window.heldStream = await navigator.mediaDevices.getUserMedia({ video: { width: 1280, height: 720 } });
              var video = document.createElement("video");
              video.muted = true; video.playsInline = true; video.srcObject = window.heldStream;
              document.body.appendChild(video);
              await video.play();
              window.heldVideo = video;
            }
            var video = window.heldVideo, canvas = document.createElement("canvas"), sample = null;
            for (var attempt = 0; attempt < 500 && sample === null; attempt++) {
              if (video.videoWidth > 0) {
                canvas.width = video.videoWidth; canvas.height = video.videoHeight;
                var context = canvas.getContext("2d", { willReadFrequently: true });
                context.drawImage(video, 0, 0);
                var pixels = context.getImageData(0, 0, canvas.width, canvas.height).data, lit = 0, sum = 0;
                for (var i = 0; i < pixels.length; i += 4 * 97) {
                  var value = pixels[i] + pixels[i + 1] + pixels[i + 2];
                  if (value > 60) { lit++; }
                  sum = (sum * 31 + value) % 1000000007;
                }
                if (lit > 0) { sample = sum; }
              }
              if (sample === null) { await new Promise(function (resolve) { setTimeout(resolve, 20); }); }
            }
            result = { tag: tag, ok: sample !== null, sample: sample, width: video.videoWidth,
                       height: video.videoHeight, label: window.heldStream.getVideoTracks()[0].label,
                       live: window.heldStream.getVideoTracks()[0].readyState === "live",
                       ms: Math.round(performance.now() - started) };
          } catch (error) {
            result = { tag: tag, ok: false, error: String(error && error.name || error),
                       ms: Math.round(performance.now() - started) };
          }
          window.top.postMessage({ camera: result }, "*");
        };
        """ + releaseCameraScript

    /// `releaseCamera()`: stops the page's held stream and removes its videos (shared by the camera libraries).
    static let releaseCameraScript = """
        window.releaseCamera = function () {
          if (window.heldStream) { window.heldStream.getTracks().forEach(function (t) { t.stop(); }); }
          window.heldStream = null;
          document.querySelectorAll("video").forEach(function (v) { v.srcObject = null; v.remove(); });
        };
        """

    /// In scripts/pipewire-test.sh's portal phase: while a native stream (the capture window's route) reads the
    /// virtual PipeWire camera, the page's `getUserMedia` reaches the same camera through WebKit and the desktop's
    /// Camera portal: both get moving frames at once, nobody is `busy`.
    @MainActor
    static func webCameraPipeWire(_ harness: Harness) async {
        // WebKit 2.50 fills its PipeWire device list once per web process, asynchronously; a page that asks
        // before it is filled gets OverconstrainedError for the life of that process (about one run in four
        // here), and once in a while the page's first stream never delivers a frame. A new window (a new web
        // process) is what a person would get by trying again; each try is noted.
        var probe = CameraJourney(access: .allow)
        var first: JSONValue?
        var stream: PipeWireStream?
        var frames: AsyncThrowingStream<RGBFrame, any Error>.AsyncIterator?
        for window in 1...3 {
            probe = CameraJourney(access: .allow)
            probe.journey.server.serve("/pipewire.js", pipeWireLibrary)
            probe.journey.server.serve(
                "/",
                page(
                    title: "Web camera (PipeWire)",
                    "<script src=\"/camera.js\"></script><script src=\"/pipewire.js\"></script>"))
            probe.usesMockDevices = false
            await probe.open()
            if window == 1 {
                // The capture window's route streams first, as when the window is open and the page asks.
                do {
                    let opened = ContinuousClock.now
                    stream = try await PipeWireStream.open(target: nil, request: PipeWireStreamRequest())
                    harness.note("native open to first frame: \(opened.duration(to: .now))")
                } catch {
                    harness.note("native stream: \(error)")
                }
                harness.check(stream != nil, "the native route opens the camera")
                frames = stream?.frames.makeAsyncIterator()
            }
            probe.journey.run("pipeWireFrames('page')")
            first = await probe.result("page", harness: harness, seconds: 20)
            guard first?["ok"] != .bool(true), window < 3 else { break }
            harness.note(
                "window \(window): no frame for the page (\(String(describing: first?["error"]))); a new window")
            probe.journey.window.close()
        }
        harness.check(
            first?["ok"] == .bool(true), "the page gets the camera the native route is streaming",
            "\(String(describing: first))")
        if case .number(let ms)? = first?["ms"] {
            harness.note("getUserMedia to first frame (PipeWire): \(Int(ms)) ms")
        }
        if case .string(let label)? = first?["label"] { harness.note("the page's track: \(label)") }

        // Both at once: the native stream keeps moving while the page holds the camera.
        var nativeFrames = 0
        var nativeMoved = false
        var firstBytes: [UInt8]?
        do {
            while nativeFrames < 10, let frame = try await frames?.next() {
                nativeFrames += 1
                if let firstBytes, firstBytes != frame.bytes { nativeMoved = true }
                if firstBytes == nil { firstBytes = frame.bytes }
            }
        } catch {
            harness.note("native stream: \(error)")
        }
        harness.check(
            nativeFrames == 10 && nativeMoved, "the native stream keeps moving while the page streams (no CAMERA_BUSY)",
            "\(nativeFrames) frames, moving: \(nativeMoved)")

        probe.journey.run("pipeWireFrames('page-again')")
        let again = await probe.result("page-again", harness: harness, seconds: 30)
        harness.check(
            again?["ok"] == .bool(true) && again?["live"] == .bool(true) && again?["sample"] != first?["sample"],
            "the page's track stays live and moving beside the native stream", "\(String(describing: again))")
        probe.journey.run("releaseCamera()")
        stream?.stop()
    }
}
