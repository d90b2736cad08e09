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
    ///
    /// For a message from the top window itself the document's own origin is
    /// checked (`location.origin`): WebKit reports `MessageEvent.origin` of a
    /// `file:` document as `"null"`, while its origin serializes as `file://`.
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
                var origin = fromTop ? location.origin : String(event.origin);
                if (!fromTop || allowed.indexOf(origin) < 0) {
                  control.postMessage({ kind: "rejected", origin: origin, fromTopFrame: fromTop });
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
