/// The JavaScript the transport injects, and the names it shares with it.
///
/// The message handlers live in an isolated script world the page cannot
/// reach. In the page's own world a top-frame script provides
/// `window.webkit.messageHandlers.gbgBridge.postMessage`, which hands the body
/// to `window.postMessage`; a relay in the isolated world forwards it only when
/// the event comes from the top window itself (`event.source === window`) and
/// from an allowed origin. Messages posted by frames or other origins are
/// reported as rejected instead.
enum BridgeScripts {
    /// The isolated world that holds the real handlers and the relay.
    static let worldName = "gbgbridge"
    /// The handler receiving accepted bridge messages (detail of `script-message-received`).
    static let messageHandler = "gbgBridge"
    /// The handler receiving relay notices: page hellos and rejected messages.
    static let controlHandler = "gbgBridgeControl"
    /// The key that marks relayed messages on `window.postMessage`.
    static let relayTag = "__gbgBridgeRelay"
    /// The page-world property holding the current document's token.
    static let documentTokenProperty = "__gbgBridgeDocument"

    /// Page-world script: the `postMessage` entry point and the document token hello.
    static let pageWorld = """
        (function () {
          var post = window.postMessage.bind(window);
          var token = Math.random().toString(36).slice(2) + Date.now().toString(36);
          Object.defineProperty(window, "\(documentTokenProperty)", { value: token });
          if (!window.webkit) {
            var handler = Object.freeze({
              postMessage: function (body) {
                var envelope = { kind: "message" };
                envelope["\(relayTag)"] = body;
                post(envelope, "*");
              }
            });
            Object.defineProperty(window, "webkit", {
              value: Object.freeze({ messageHandlers: Object.freeze({ \(messageHandler): handler }) })
            });
          }
          var hello = { kind: "hello" };
          hello["\(relayTag)"] = token;
          post(hello, "*");
        })();
        """

    /// Isolated-world relay script accepting messages from the top window of an allowed origin.
    static func relay(allowedOrigins: [String]) -> String {
        let origins = "[" + allowedOrigins.map(javaScriptStringLiteral).joined(separator: ",") + "]"
        return """
            (function () {
              var allowed = \(origins);
              var handlers = window.webkit.messageHandlers;
              var bridge = handlers.\(messageHandler);
              var control = handlers.\(controlHandler);
              window.addEventListener("message", function (event) {
                var data = event.data;
                if (data === null || typeof data !== "object" || !("\(relayTag)" in data)) { return; }
                event.stopImmediatePropagation();
                var fromTop = event.source === window;
                if (!fromTop || allowed.indexOf(event.origin) < 0) {
                  control.postMessage({ kind: "rejected", origin: String(event.origin), fromTopFrame: fromTop });
                  return;
                }
                var body = data["\(relayTag)"];
                if (data.kind === "hello") {
                  control.postMessage({ kind: "hello", token: String(body) });
                } else {
                  bridge.postMessage(body);
                }
              }, true);
            })();
            """
    }

    /// The script delivering one encoded message to the document holding `token`.
    ///
    /// Evaluates to `1` when delivered and `0` when the document has changed.
    static func delivery(of json: String, toDocument token: String) -> String {
        "window.\(documentTokenProperty)===\"\(token)\"?(window.GBGBridge.receive(\(json)),1):0"
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
