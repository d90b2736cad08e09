/// The JavaScript the transport injects, and the names it shares with it.
///
/// The message handlers live in an isolated script world the page cannot
/// reach. In the page's own world a top-frame script provides
/// `window.webkit.messageHandlers.gbgBridge.postMessage`, which hands the body
/// to a relay in the isolated world as a synchronous DOM event on the top
/// window; the relay forwards it only when the top document's origin is
/// allowed. Frames get no handler, cannot dispatch events on a cross-origin
/// top window, and bridge messages they send with `window.postMessage` are
/// reported as rejected.
enum BridgeScripts {
    /// The isolated world that holds the real handlers and the relay.
    static let worldName = "gbgbridge"
    /// The handler receiving accepted bridge messages (detail of `script-message-received`).
    static let messageHandler = "gbgBridge"
    /// The handler receiving relay notices: page hellos and rejected messages.
    static let controlHandler = "gbgBridgeControl"
    /// The key that marks bridge messages forged with `window.postMessage` (rejected).
    static let relayTag = "__gbgBridgeRelay"
    /// The page-world property holding the current document's token.
    static let documentTokenProperty = "__gbgBridgeDocument"

    /// The DOM event carrying a message from the page world to the relay.
    static let relayEvent = "__gbgBridgeRelay"
    /// The DOM event the relay sends when it is listening (the page then says hello).
    static let relayReadyEvent = "__gbgBridgeRelayReady"

    /// Page-world script: the `postMessage` entry point and the document token hello.
    ///
    /// Messages go to the relay as a synchronous DOM event on the top window.
    /// Only scripts that can reach that window object (the document itself and
    /// same-origin frames) can dispatch events on it; cross-origin and sandboxed
    /// frames cannot.
    static let pageWorld = """
        (function () {
          var target = window;
          var dispatch = EventTarget.prototype.dispatchEvent;
          var listen = EventTarget.prototype.addEventListener;
          var Relay = CustomEvent;
          function relay(kind, body) {
            dispatch.call(target, new Relay("\(relayEvent)", { detail: { kind: kind, body: body } }));
          }
          var token = Math.random().toString(36).slice(2) + Date.now().toString(36);
          Object.defineProperty(window, "\(documentTokenProperty)", { value: token });
          if (!window.webkit) {
            var handler = Object.freeze({ postMessage: function (body) { relay("message", body); } });
            Object.defineProperty(window, "webkit", {
              value: Object.freeze({ messageHandlers: Object.freeze({ \(messageHandler): handler }) })
            });
          }
          listen.call(target, "\(relayReadyEvent)", function () { relay("hello", token); });
          relay("hello", token);
        })();
        """

    /// Isolated-world relay script forwarding the top document's messages when its origin is allowed.
    ///
    /// The document's own origin is checked (`location.origin`). Anything posted
    /// to the top window with `window.postMessage` and the relay tag is a frame
    /// or another window trying to get in: it is rejected and reported.
    static func relay(allowedOrigins: [String]) -> String {
        let origins = "[" + allowedOrigins.map(javaScriptStringLiteral).joined(separator: ",") + "]"
        return """
            (function () {
              var allowed = \(origins);
              var handlers = window.webkit.messageHandlers;
              var bridge = handlers.\(messageHandler);
              var control = handlers.\(controlHandler);
              window.addEventListener("\(relayEvent)", function (event) {
                event.stopImmediatePropagation();
                var origin = location.origin;
                if (allowed.indexOf(origin) < 0) {
                  control.postMessage({ kind: "rejected", origin: origin, fromTopFrame: true });
                  return;
                }
                var detail = event.detail;
                if (detail === null || typeof detail !== "object") { return; }
                if (detail.kind === "hello") {
                  control.postMessage({ kind: "hello", token: String(detail.body) });
                } else {
                  bridge.postMessage(detail.body);
                }
              }, true);
              window.addEventListener("message", function (event) {
                var data = event.data;
                if (data === null || typeof data !== "object" || !("\(relayTag)" in data)) { return; }
                event.stopImmediatePropagation();
                var fromTop = event.source === window;
                control.postMessage({ kind: "rejected", origin: String(event.origin), fromTopFrame: fromTop });
              }, true);
              window.dispatchEvent(new CustomEvent("\(relayReadyEvent)"));
            })();
            """
    }

    /// The script delivering encoded messages, in order, to the document holding `token`.
    ///
    /// Each message gets its own `window.GBGBridge.receive` call; one that throws
    /// does not stop the others. Evaluates to `-1` when the document has changed,
    /// `0` when all were delivered, else to `index:error` lines for the failures.
    static func delivery(of messages: [String], toDocument token: String) -> String {
        var script = "(function(){if(window.\(documentTokenProperty)!==\"\(token)\")return -1;"
        script += "var f=[];function d(i,m){try{window.GBGBridge.receive(m)}catch(e){f.push(i+\":\"+String(e).replace(/\\s+/g,\" \"))}}"
        script.reserveCapacity(script.utf8.count + messages.reduce(0) { $0 + $1.utf8.count + 12 } + 40)
        for (index, json) in messages.enumerated() {
            script += "d(\(index),"
            script += json
            script += ");"
        }
        script += "return f.length?f.join(\"\\n\"):0})()"
        return script
    }

    /// `text` as a double-quoted JavaScript string literal.
    static func javaScriptStringLiteral(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\u{2028}": result += "\\u2028"
            case "\u{2029}": result += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
