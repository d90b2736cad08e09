/// The script that tells the window which documents on the page could use the camera.
///
/// WebKitGTK's user-media and device-info permission requests carry no origin and no frame,
/// so the window cannot tell who asked. It can know who is **able** to ask: WebKit applies the
/// Permissions Policy itself, before any request reaches the window, and the policy of a
/// document is fixed when it is created (a cross-origin frame needs `allow="camera"` on its
/// element at that moment; a sandboxed frame gets nothing). Every document, in every frame,
/// runs this script in the bridge's isolated world at document start, before any script of
/// the page:
///
/// 1. it reports itself at once: a random document id and `self.origin`, its real origin
///    (inherited by `srcdoc` and `about:blank` frames; `null` when sandboxed, and for `file:`
///    pages, which then also give the top page's address when every frame up to it is of the
///    same origin), with its camera policy still unknown. Scripts messages and WebKit's permission requests travel in order
///    from the web process, so the window knows about a document before that document's own
///    scripts can ask for anything;
/// 2. it asks WebKit, from the isolated world the page cannot reach, what the document's policy
///    allows (`navigator.permissions.query` answers `denied` for a feature the policy blocks)
///    and reports `may` or `denied` for the camera and the microphone; any error counts as `may`;
/// 3. it reports `gone` when the document is hidden (`pagehide`), and again `unknown` then its
///    policy when it comes back from the back-forward cache (`pageshow` with `persisted`). Both
///    count only when the browser dispatched them (`isTrusted`): the same events dispatched by a
///    script are ignored, so no document can make the window forget it.
///
/// The page can neither silence nor forge these reports: the handler exists only in the
/// isolated world, and what is reported is read from the document itself.
enum WebPermissionScripts {
    /// The handler receiving document reports in the isolated world.
    static let handler = "gbgBridgeMedia"

    /// Isolated-world script for every frame: report the document and its camera policy.
    static let isolatedWorld = """
        (function () {
          var handler = window.webkit && window.webkit.messageHandlers.\(handler);
          if (!handler) { return; }
          var id = Math.random().toString(36).slice(2) + Date.now().toString(36);
          var origin = String(self.origin);
          var top = "";
          if (origin === "null") {
            // A file: journey is an opaque origin too: name the top page when every frame up to it
            // is of the same origin (a sandboxed frame cannot even read its parent's document).
            try {
              var frame = window;
              while (frame !== frame.top) { void frame.parent.document; frame = frame.parent; }
              top = String(frame.location.href);
            } catch (ignored) {}
          }
          var hidden = false;
          function report(camera, microphone) {
            handler.postMessage(JSON.stringify({ document: id, origin: origin, top: top, camera: camera, microphone: microphone }));
          }
          function state(name) {
            try {
              return navigator.permissions.query({ name: name }).then(
                function (status) { return status.state === "denied" ? "denied" : "may"; },
                function () { return "may"; });
            } catch (ignored) {
              return Promise.resolve("may");
            }
          }
          function ask() {
            hidden = false;
            report("unknown", "unknown");
            Promise.all([state("camera"), state("microphone")]).then(function (states) {
              if (!hidden) { report(states[0], states[1]); }
            });
          }
          ask();
          // Only the browser's own events count: a page or frame can dispatch a `pagehide` or a `pageshow`
          // with `persisted` set on its own window, and those are untrusted.
          window.addEventListener("pagehide", function (event) {
            if (event.isTrusted) { hidden = true; report("gone", "gone"); }
          }, true);
          window.addEventListener("pageshow", function (event) {
            if (event.isTrusted && event.persisted) { ask(); }
          }, true);
        })();
        """
}
