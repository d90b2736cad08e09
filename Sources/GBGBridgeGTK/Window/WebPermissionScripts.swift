/// The scripts that tell the window which document asked for the camera.
///
/// WebKitGTK's user-media and device-info permission requests carry no origin and no
/// frame. So every frame gets two small scripts at document start. In the page's world,
/// `getUserMedia` and `enumerateDevices` first announce the call as a DOM event on the
/// frame's own window, with the kinds of device asked for. In the isolated world, a
/// listener hears that event and reports it to the window together with what only the
/// frame itself knows for sure: its origin (`location.origin`, `null` when sandboxed),
/// whether it is the top frame, and the origins of its ancestors. A page cannot forge
/// that report for another origin: it can only dispatch events on windows it can reach,
/// and the listener reads the frame's real location. A call that never announced itself
/// (for example through a function taken from a realm the scripts did not reach) finds no
/// report, and is denied. When the call settles, the frame says so and its report is
/// dropped; a report nothing claimed expires after a minute.
enum WebPermissionScripts {
    /// The handler receiving announcements in the isolated world.
    static let handler = "gbgBridgeMedia"
    /// Page world to isolated world: a media call is about to be made (detail: JSON).
    static let announceEvent = "__gbgBridgeMediaCall"

    /// Page-world script for every frame: announce `getUserMedia` and `enumerateDevices`.
    static let pageWorld = """
        (function () {
          var devices = window.MediaDevices && window.MediaDevices.prototype;
          if (!devices) { return; }
          var dispatch = EventTarget.prototype.dispatchEvent;
          var Announcement = CustomEvent;
          var stringify = JSON.stringify;
          var target = window;
          var getUserMedia = devices.getUserMedia;
          var enumerateDevices = devices.enumerateDevices;
          var random = Math.random;
          function announce(call, constraints) {
            var wants = constraints && typeof constraints === "object" ? constraints : {};
            var id = random().toString(36).slice(2);
            var detail = stringify({ call: call, id: id, video: !!wants.video, audio: !!wants.audio });
            dispatch.call(target, new Announcement("\(announceEvent)", { detail: detail }));
            return id;
          }
          function settled(id) {
            try {
              dispatch.call(target, new Announcement("\(announceEvent)", { detail: stringify({ call: "settled", id: id }) }));
            } catch (ignored) {}
          }
          function watch(promise, id) {
            if (id !== null && promise && typeof promise.then === "function") {
              promise.then(function () { settled(id); }, function () { settled(id); });
            }
            return promise;
          }
          Object.defineProperty(devices, "getUserMedia", {
            configurable: true, writable: true,
            value: function (constraints) {
              var id = null;
              try { id = announce("getUserMedia", constraints); } catch (ignored) {}
              return watch(getUserMedia.apply(this, arguments), id);
            }
          });
          Object.defineProperty(devices, "enumerateDevices", {
            configurable: true, writable: true,
            value: function () {
              var id = null;
              try { id = announce("enumerateDevices", null); } catch (ignored) {}
              return watch(enumerateDevices.apply(this, arguments), id);
            }
          });
        })();
        """

    /// Isolated-world script for every frame: report announcements with the frame's real origin.
    static let isolatedWorld = """
        (function () {
          var handler = window.webkit && window.webkit.messageHandlers.\(handler);
          if (!handler) { return; }
          window.addEventListener("\(announceEvent)", function (event) {
            var call = {};
            try { call = JSON.parse(String(event.detail)); } catch (ignored) {}
            var ancestors = [];
            var list = location.ancestorOrigins;
            if (list) { for (var i = 0; i < list.length; i++) { ancestors.push(String(list[i])); } }
            handler.postMessage(JSON.stringify({
              call: String(call.call || ""), id: String(call.id || ""), video: call.video === true, audio: call.audio === true,
              origin: String(location.origin), top: window === window.top, ancestors: ancestors
            }));
          }, true);
        })();
        """
}
